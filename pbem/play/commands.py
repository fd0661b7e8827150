"""The commands every game understands, whatever its rules: help, board, history, say, undo,
away, back, notices. Each runs inside `runner.run` like a game's own command."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, available_timezones

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from games import i18n
from pbem.log import clocks, eventlog
from pbem.models import Event, Game, PlayerSettings, Seat, Snapshot
from pbem.play import calendar, channels, languages, selectors
from pbem.play.runner import NEUTRAL_EVENTS, CommandRejected, ServiceError, Work, deadline_for

PLATFORM_WORDS = (
    "help",
    "board",
    "history",
    "say",
    "undo",
    "away",
    "back",
    "notices",
    "zone",
    "calendar",
    "rest",
    "language",
    "sprache",
    "langue",
    "channel",
    "channels",
)


def _in_writers_words():
    """The game's words in the language of who wrote (the write path keeps the games' in English,
    the log's language; Django's is already the writer's): for what is told back to them."""
    return i18n.using(languages.supported(translation.get_language()))


def _cmd_help(work: Work, seat: int, rest: str, line: str) -> None:
    with _in_writers_words():
        work.told.answers.append(selectors.help_text(work.spec, work.state, seat))


def _cmd_board(work: Work, seat: int, rest: str, line: str) -> None:
    with _in_writers_words():
        work.told.answers.append(selectors.board_text(work.spec, work.state, seat))


def _cmd_history(work: Work, seat: int, rest: str, line: str) -> None:
    count = int(rest) if rest.isdigit() else 10
    with _in_writers_words():
        lines = selectors.history_lines(work.loaded.game_id, seat)
    work.told.answers.append("\n".join(lines[-count:]) or _("Nothing has happened yet."))


def _not_over(work: Work, what: str) -> None:
    """Table talk, notices and the time zone belong to a game being played: once it has ended
    (or was abandoned) nothing more is appended to its log."""
    meta = work.state["meta"]
    if meta.get("ended") or meta.get("abandoned"):
        text = (
            _("Game #%(game)s was abandoned: %(what)s can no longer be changed.")
            if meta.get("abandoned")
            else _("Game #%(game)s is over: %(what)s can no longer be changed.")
        )
        raise ServiceError(text % {"game": work.loaded.game_id, "what": what}, "not_running")


def _not_text(text: str) -> bool:
    """A lone surrogate (a JSON string may hold "\\ud800") is no character: no database stores it."""
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _cmd_say(work: Work, seat: int, rest: str, line: str) -> None:
    if not rest:
        raise CommandRejected(_("Say what? Write 'say' and then your message."), line)
    _not_over(work, _("its table talk"))
    if _not_text(rest):
        raise CommandRejected(
            _("Your message holds a code that is no character (a lone UTF-16 surrogate); write it as plain text."),
            line.encode("utf-8", "replace").decode(),
        )
    work.platform("Said", {"seat": seat, "text": rest[:2000]})
    work.told.applied.append(_("said: %(text)s") % {"text": said_briefly(rest)})


SAID_SHOWN = 60


def said_briefly(text: str) -> str:
    """Table talk as a confirmation repeats it: whole when short, else its first SAID_SHOWN
    characters with an ellipsis (the whole text is in the log and the others' mail)."""
    return text if len(text) <= SAID_SHOWN else text[:SAID_SHOWN].rstrip() + "…"


def _cmd_undo(work: Work, seat: int, rest: str, line: str) -> None:
    seqs = undoable(work.loaded.game_id, seat)
    work.platform("Undone", {"seat": seat, "events": seqs, "reason": gettext_noop("taken back by the player")})
    rebuild_after_undo(work, seqs)
    work.told.applied.append(_("undo: your last move is taken back"))


def rebuild_after_undo(work: Work, seqs: list[int]) -> None:
    # Replay skips the undone events: rebuild the state from the log, then apply what this
    # request has emitted so far on top. Snapshots that contain the undone events are stale.
    game_id = work.loaded.game_id
    work.later(lambda: Snapshot.objects.filter(game_id=game_id, seq__gte=min(seqs)).delete())
    pending = list(work.events)
    row = Game(
        pk=work.loaded.game_id, kind=work.game["kind"], version=work.loaded.version, head_hash=work.loaded.head_hash
    )
    fresh = eventlog.load(row, use_snapshots=True)
    fresh.undone |= set(seqs)
    fresh.state = eventlog.fold_rows(fresh.spec, eventlog.new_state(), _rows(work.loaded.game_id), fresh.undone)
    for i, ev in enumerate(pending):
        eventlog.apply(
            fresh.spec,
            fresh.state,
            ev.type,
            ev.payload,
            ev.visible_to,
            ev.public,
            ev.reveals,
            work.loaded.version + i + 1,
        )
    work.loaded.state = fresh.state
    work.loaded.undone = fresh.undone
    work.dirty = True


def _rows(game_id: int):
    return Event.objects.filter(game_id=game_id).order_by("seq").values_list(*eventlog.EVENT_FIELDS)


def undoable(game_id: int, seat: int) -> list[int]:
    """The seqs of this seat's last command if the fair-undo policy allows taking it back."""
    undone = eventlog.undone_seqs(game_id)
    rows = (
        Event.objects.filter(game_id=game_id)
        .order_by("-seq")
        .values_list("seq", "type", "actor_kind", "actor_seat", "created_at", "causation_id", "rng", "reveals")
    )
    batch: list = []
    for row in rows.iterator(chunk_size=200):
        seq, etype = row[0], row[1]
        if seq in undone or etype in NEUTRAL_EVENTS:
            if batch:
                break
            continue
        if batch and (row[2:6] != batch[0][2:6]):
            break
        batch.append(row)
    if not batch:
        raise ServiceError(_("There is nothing to take back."), "no_undo")
    _seq, _t, kind, actor_seat, *_rest = batch[0]
    if kind != "seat" or actor_seat != seat:
        raise ServiceError(_("You can only take back your own last move, and someone else has acted since."), "no_undo")
    if any(row[1].startswith("pbem.") for row in batch):
        raise ServiceError(_("That cannot be taken back."), "no_undo")
    if any(row[6] for row in batch):
        raise ServiceError(_("That move drew something at random, so it cannot be taken back."), "no_undo")
    if any(row[7] for row in batch):
        raise ServiceError(_("That move revealed hidden information, so it cannot be taken back."), "no_undo")
    return sorted(row[0] for row in batch)


AWAY_RE = re.compile(r"^until\s+(\d{4}-\d{2}-\d{2})$", re.I)


def zone_of(info: dict) -> ZoneInfo:
    """A seat's time zone (UTC for a name this Python no longer knows)."""
    try:
        return ZoneInfo(info.get("time_zone") or "UTC")
    except (ValueError, KeyError, OSError):
        return ZoneInfo("UTC")


def _cmd_away(work: Work, seat: int, rest: str, line: str) -> None:
    match = AWAY_RE.match(rest)
    if not match:
        raise CommandRejected(_("Write the last day you are away as 'away until YYYY-MM-DD'."), line)
    info = work.seats[seat]
    zone = zone_of(info)
    try:
        last_day = datetime.fromisoformat(match.group(1)).date()
    except ValueError:
        raise CommandRejected(_("%(word)s is not a date.") % {"word": match.group(1)}, line) from None
    left = work.game["away_allowance_days"] - info["away_days_used"]
    if last_day > (timezone.now() + timedelta(days=left + 2)).date():  # 9999-12-31 has no day after
        raise CommandRejected(
            _("You have %(left)s days of absence left in this game; %(day)s is further away.")
            % {"left": left, "day": last_day},
            line,
        )
    # Away to the end of that day in the player's own time zone: back the morning after.
    until = datetime(last_day.year, last_day.month, last_day.day, tzinfo=zone) + timedelta(days=1)
    now = timezone.now()
    if vacations(work):
        take_vacation(work, seat, now, until, line)
        work.told.applied.append(_away_until(last_day, zone))
        return
    days = (until - now).days + (1 if (until - now).seconds else 0)
    if days <= 0:
        raise CommandRejected(_("That date is already past."), line)
    if days > left:
        raise CommandRejected(
            _("You have %(left)s days of absence left in this game; that would take %(days)s.")
            % {"left": left, "days": days},
            line,
        )
    _set_away(work, seat, until, info["away_days_used"] + days, now)
    # "until" stays the first day back, as in the events before it; "last_day" is the day typed.
    work.platform(
        "Away",
        {
            "seat": seat,
            "until": until.date().isoformat(),
            "last_day": last_day.isoformat(),
            "days": days,
            # The day is the player's own: the others read it with its zone.
            "zone": zone.key,
        },
    )
    work.told.applied.append(_away_until(last_day, zone))


def _away_until(last_day, zone: ZoneInfo) -> str:
    return _("away until %(day)s (to the end of that day, %(zone)s)") % {"day": last_day.isoformat(), "zone": zone.key}


def _cmd_back(work: Work, seat: int, rest: str, line: str) -> None:
    if seat in work.state["meta"].get("standins", ()):
        take_seat_back(work, seat)
        work.told.applied.append(_("back: you play your seat yourself again"))
        return
    info = work.seats[seat]
    now = timezone.now()
    if vacations(work):
        payload = clocks.back(work.state["meta"], seat, now)
        if payload is None:
            raise CommandRejected(_("You are not away."), line)
        mark_away(work, seat, None)
        work.platform("Back", payload)
        work.told.applied.append(
            _("back: %(days)s of vacation given back") % {"days": selectors.left_words(payload["refund"])}
        )
        return
    if not info["away_until"] or info["away_until"] <= now:
        raise CommandRejected(_("You are not away."), line)
    refund = max(0, (info["away_until"] - now).days)
    _set_away(work, seat, None, max(0, info["away_days_used"] - refund), now)
    work.platform("Back", {"seat": seat})
    work.told.applied.append(_("back: your deadlines run again"))


def vacations(work: Work) -> bool:
    """Whether the table's clock has vacations that accrue (pbem/log/clocks.py)."""
    return bool((work.state["meta"].get("clock") or {}).get("vacation"))


def take_vacation(work: Work, seat: int, now: datetime, until: datetime, line: str) -> None:
    """An absence from `now` to `until`, charged to the seat's vacation: a `pbem.Absent` event
    the whole table hears of (never a secret), or CommandRejected saying which limit it breaks."""
    try:
        payload = clocks.absence(work.state["meta"], seat, now, until)
    except clocks.BadAbsence as exc:
        raise CommandRejected(selectors.clocks_text(exc), line) from None
    mark_away(work, seat, until)
    work.platform("Absent", payload)


def mark_away(work: Work, seat: int, until: datetime | None) -> None:
    """The seat row follows the log: a turn that begins while it is away begins at `until`."""
    info = work.seats[seat]
    work.later(lambda: Seat.objects.filter(pk=info["id"]).update(away_until=until))
    info["away_until"] = until


def take_seat_back(work: Work, seat: int) -> None:
    """The player of a seat the stand-in plays is back: they play it again from now, with a whole
    period for the move the game awaits of them (if any)."""
    work.platform("StandInLeft", {"seat": seat})
    work.fresh_turn.add(seat)


def _set_away(work: Work, seat: int, until: datetime | None, used: int, now: datetime) -> None:
    """Records the seat's absence (with the append) and moves its running deadline to match."""
    info = work.seats[seat]
    work.later(lambda: Seat.objects.filter(pk=info["id"]).update(away_until=until, away_days_used=used))
    info["away_until"], info["away_days_used"] = until, used
    deadlines = dict(work.game.get("deadlines") or {})
    if str(seat) in deadlines:
        deadlines[str(seat)] = deadline_for(work, seat, now)
        work.game["deadlines"] = deadlines


NOTICE_CHOICES = ("turn", "round", "every", "digest", "none")
NOTICES_HELP = gettext_lazy(
    "Choose how you hear of the other players' moves: 'notices turn' (once per turn of another "
    "player), 'notices round', 'notices every' (every move), 'notices digest' (once a day) or "
    "'notices none'; 'notices pictures' or 'notices no pictures' for the board's picture in news; "
    "'notices default …' makes it your choice for the games you join from now on too; "
    "'notices combined' for one mail for all your games that await you (answered with lines such "
    "as '#12: 3'), 'notices separate' for a mail per game."
)


def _cmd_notices(work: Work, seat: int, rest: str, line: str) -> None:
    info = work.seats[seat]
    words = rest.lower().replace(",", " ").split()
    if not words:
        heard = selectors.notice_choice_text(info["notice_preference"])
        work.told.answers.append(
            _("You hear of the other players' moves: %(choice)s.") % {"choice": heard} + " " + str(NOTICES_HELP)
        )
        return
    if words in (["combined"], ["separate"]):
        return _combined_notices(work, seat, words[0] == "combined")
    _not_over(work, _("its notices"))
    default = "default" in words
    choice, pictures = _notice_words([w for w in words if w != "default"], line)
    if choice is None and pictures is None:
        raise CommandRejected(str(NOTICES_HELP), line)
    updates: dict = {}
    if choice is not None:
        updates["notice_preference"] = info["notice_preference"] = choice
    if pictures is not None:
        updates["news_pictures"] = pictures
    work.later(lambda: Seat.objects.filter(pk=info["id"]).update(**updates))
    if default:
        work.later(lambda: _player_default(info["email"], updates))
    payload = {"seat": seat, **({"preference": choice} if choice else {}), **_pictures_field(pictures)}
    work.platform(
        "NoticesChanged", payload | ({"default": True} if default else {}), visible_to=[seat], public={"seat": seat}
    )
    said = "; ".join(
        part
        for part in (
            selectors.notice_choice_text(choice) if choice else "",
            {True: _("with the board's picture"), False: _("without the board's picture"), None: ""}[pictures],
        )
        if part
    )
    typed = " ".join(
        part for part in (choice or "", {True: "pictures", False: "no pictures", None: ""}[pictures]) if part
    )
    work.told.applied.append(
        _("notices %(words)s: %(said)s") % {"words": typed, "said": said}
        + (_(" (your default for new games too)") if default else "")
    )


def _combined_notices(work: Work, seat: int, combined: bool) -> None:
    """'notices combined': one mail for all the games awaiting the player (answered with lines
    prefixed by the game, '#12: 3'); 'notices separate': a mail per game. The player's own
    choice, for all their games (PlayerSettings.combined_notices)."""
    email = work.seats[seat]["email"]
    if not email:
        raise CommandRejected(_("This seat has no address to send mail to."), "notices")
    work.later(
        lambda: PlayerSettings.objects.update_or_create(email=email.lower(), defaults={"combined_notices": combined})
    )
    work.platform("NoticesChanged", {"seat": seat, "combined": combined}, visible_to=[seat], public={"seat": seat})
    work.told.applied.append(
        _("notices combined: one mail for all your games that await you; answer it with lines such as '#12: 3'")
        if combined
        else _("notices separate: one mail per game")
    )


def _notice_words(words: list[str], line: str) -> tuple[str | None, bool | None]:
    """The preference and the wish for pictures a 'notices' line names (None where it names none):
    'turn', 'turn pictures', 'no pictures', 'round without pictures'."""
    pictures = None
    if words[-2:] in (["no", "pictures"], ["without", "pictures"], ["no", "picture"]):
        pictures, words = False, words[:-2]
    elif words[-2:] in (["with", "pictures"], ["with", "picture"]):
        pictures, words = True, words[:-2]
    elif words[-1:] in (["pictures"], ["picture"]):
        pictures, words = True, words[:-1]
    if len(words) > 1 or (words and words[0] not in NOTICE_CHOICES):
        raise CommandRejected(str(NOTICES_HELP), line)
    return (words[0] if words else None), pictures


def _pictures_field(pictures: bool | None) -> dict:
    return {} if pictures is None else {"pictures": pictures}


def _player_default(email: str, updates: dict) -> None:
    if email:
        PlayerSettings.objects.update_or_create(email=email.lower(), defaults=updates)


# The IANA zones a person lives in: not "localtime" (whatever the server's clock is set to),
# "Factory" (a zone whose abbreviation says "-00", for machines not yet set up), "posixrules" or
# the "posix/" and "right/" copies (right/ counts leap seconds, which UTC timestamps do not).
NOT_PLACES = {"localtime", "factory", "posixrules"}
ZONE_NAMES = {
    name.lower(): name
    for name in available_timezones()
    if name.lower() not in NOT_PLACES and not name.lower().startswith(("posix/", "right/"))
} | {"utc": "UTC"}


def _cmd_zone(work: Work, seat: int, rest: str, line: str) -> None:
    info = work.seats[seat]
    if not rest:
        work.told.answers.append(
            _("Your time zone is %(zone)s. Change it with 'zone Europe/Berlin' (any IANA zone name, or 'zone UTC').")
            % {"zone": info.get("time_zone") or "UTC"}
        )
        return
    _not_over(work, _("its time zone"))
    name = ZONE_NAMES.get(rest.strip().lower().replace(" ", "_"))
    if name is None:
        raise CommandRejected(
            _(
                "%(word)s is not a time zone name; write it as 'zone Europe/Berlin', 'zone America/New_York' or "
                "'zone UTC'."
            )
            % {"word": rest[:60]},
            line,
        )
    work.later(lambda: Seat.objects.filter(pk=info["id"]).update(time_zone=name))
    info["time_zone"] = name
    work.platform("TimeZoneChanged", {"seat": seat, "zone": name}, visible_to=[seat], public={"seat": seat})
    resting = (work.state["meta"].get("rest") or {}).get(str(seat))
    if resting and resting["days"]:
        set_rest(work, seat, resting["days"], name)  # the rest days are the player's own: in the new zone
    work.told.applied.append(_("zone %(zone)s: dates and times are shown in it from now on") % {"zone": name})


CALENDAR_HELP = gettext_lazy(
    "'calendar' tells where your calendar feed is (every deadline of yours, in all your games); "
    "'calendar new' gives it a new link, and the old one stops working at once."
)


def _cmd_calendar(work: Work, seat: int, rest: str, line: str) -> None:
    """The player's calendar feed (pbem/play/calendar.py). The link itself is never in an answer
    (answers are kept with the message): it is at the foot of the mail and on the seat page."""
    words = rest.lower().split()
    if words not in ([], ["new"]):
        raise CommandRejected(str(CALENDAR_HELP), line)
    if not words:
        work.told.answers.append(
            _("Your calendar feed's link is at the foot of this mail and on your seat page.") + " " + str(CALENDAR_HELP)
        )
        return
    email = work.seats[seat]["email"]
    work.later(lambda: calendar.renew(email))
    # In the log as the other settings are (the link is not in it: nothing secret is).
    work.platform("CalendarRenewed", {"seat": seat}, visible_to=[seat], public={"seat": seat})
    work.told.applied.append(
        _("calendar new: the old link no longer works; the new one is at the foot of this mail and on your seat page")
    )


REST_HELP = gettext_lazy(
    "Rest days are days of the week, in your own time zone, on which no deadline of yours falls "
    "(one that would is moved to the end of the rest): 'rest sat sun', or 'rest none'."
)


def _cmd_rest(work: Work, seat: int, rest: str, line: str) -> None:
    meta = work.state["meta"]
    current = (meta.get("rest") or {}).get(str(seat))
    if not rest:
        named = selectors.weekdays_text(current["days"]) if current and current["days"] else _("none")
        work.told.answers.append(_("Your rest days: %(days)s.") % {"days": named} + " " + str(REST_HELP))
        return
    if "clock" not in meta:
        raise CommandRejected(_("This game was made before clocks: it has no rest days."), line)
    try:
        days = clocks.rest_days(rest.replace(",", " ").split())
    except clocks.BadClock as exc:
        raise CommandRejected(f"{selectors.clocks_text(exc)} {REST_HELP}", line) from None
    zone = zone_of(work.seats[seat]).key
    set_rest(work, seat, days, zone)
    said = selectors.weekdays_text(days) or _("none")
    work.told.applied.append(_("rest %(days)s (%(zone)s): from your next turn on") % {"days": said, "zone": zone})


def set_rest(work: Work, seat: int, days: list[str], zone: str) -> None:
    """The seat's rest days, in the log for all to see (the deadlines they move are public)."""
    work.platform("RestDays", {"seat": seat, "days": days, "zone": zone})


def _cmd_language(work: Work, seat: int, rest: str, line: str) -> None:
    """The player's language ('language de', 'language fr', 'language en'; 'Sprache' and 'langue'
    too): in all their games not over, and for the ones they join later. Presentation only: the
    seat's row and the player's default change, the log does not (a game reads the same in any
    language). The answer is already in the new language."""
    info = work.seats[seat]
    if not rest:
        current = languages.LANGUAGES[languages.of_seat(info)]
        work.told.answers.append(
            _("Your language is %(language)s. %(help)s") % {"language": current, "help": _language_help()}
        )
        return
    code = languages.known(rest.split()[0])
    if code is None or len(rest.split()) > 1:
        raise CommandRejected(
            _("%(word)s is not a language we write. %(help)s") % {"word": rest[:40], "help": _language_help()}, line
        )
    email = info["email"]
    work.later(lambda: languages.set_for_player(email, code))
    info["language"] = code
    translation.activate(code)  # the answer to this reply is written in it already
    work.told.applied.append(
        _("language %(code)s: every mail and page of yours is in %(language)s from now on")
        % {"code": code, "language": languages.LANGUAGES[code]}
    )


def _language_help() -> str:
    return _("Change it with 'language en' (English), 'language de' (Deutsch) or 'language fr' (Français).")


CHANNEL_HELP = gettext_lazy(
    "'channel add URL' tells you of your turns in this game on a chat or push service too, "
    "'channel add URL all' in all your games (URL in Apprise's form: discord://…, tgram://…, "
    "matrixs://…, slack://…, ntfys://…, jsons://…); 'channels' lists yours, numbered; "
    "'channel remove N', 'channel resume N' (a paused one). The game's owner: 'channel table URL' "
    "posts the table's public news there, 'channel table off'. Your mail goes on as before."
)


def _cmd_channel(work: Work, seat: int, rest: str, line: str) -> None:
    """The player's other channels (pbem/play/channels.py). Written outside the log (a URL holds
    the service's secret), in the transaction of the reply; the URL is never said back in full,
    nor is the line that held it (answers are kept with the message)."""
    words = rest.split()
    info = work.seats[seat]
    email, shown_line = info["email"] or "", _masked_line(line)
    verb = words[0].lower() if words else ""
    try:
        if not words or verb == "list":
            listed = channels.listing(email, work.loaded.game_id)
            work.told.answers.append(
                (_("Your channels:") + "\n" + "\n".join(listed) if listed else _("You have no channels."))
                + " "
                + str(CHANNEL_HELP)
            )
        elif verb == "add" and len(words) in (2, 3) and words[2:] in ([], ["all"], ["ALL"]):
            _channel_add(work, email, words[1], len(words) == 3, shown_line)
        elif verb in ("remove", "resume") and len(words) == 2:
            _channel_change(work, email, verb, words[1])
        elif verb == "table" and len(words) == 2:
            _channel_table(work, seat, words[1], shown_line)
        else:
            raise CommandRejected(str(CHANNEL_HELP), shown_line)
    except channels.BadChannel as exc:
        raise CommandRejected(f"{exc} {CHANNEL_HELP}", shown_line) from None


def _masked_line(line: str) -> str:
    return re.sub(r"(\w+)://\S+", r"\1://…", line)


def _channel_add(work: Work, email: str, url: str, everywhere: bool, line: str) -> None:
    _plugin, _kind, shown = channels.read(url)
    if len(channels.numbered(email, work.loaded.game_id)) >= channels.MAX_PER_PLAYER:
        raise channels.BadChannel(
            _("You have %(count)d channels already, the most one player may have: remove one first.")
            % {"count": channels.MAX_PER_PLAYER}
        )
    game_id = None if everywhere else work.loaded.game_id
    work.later(lambda: channels.add(email, url, game_id))
    where = _("all your games") if everywhere else _("this game")
    work.told.applied.append(
        _("channel add %(shown)s: your turns in %(where)s are told there too") % {"shown": shown, "where": where}
    )


def _channel_change(work: Work, email: str, verb: str, number: str) -> None:
    channel = channels.pick(email, work.loaded.game_id, number)
    work.later(lambda: (channels.remove if verb == "remove" else channels.resume)(channel))
    said = (
        _("channel %(number)s (%(shown)s) removed") if verb == "remove" else _("channel %(number)s (%(shown)s) resumed")
    )
    work.told.applied.append(said % {"number": number, "shown": channel.shown})


def _channel_table(work: Work, seat: int, url: str, line: str) -> None:
    seat_row = Seat.objects.get(pk=work.seats[seat]["id"])
    if not channels.is_owner(seat_row):
        raise CommandRejected(_("Only the game's owner (who made it) sets the table's channel."), line)
    game_id = work.loaded.game_id
    if url.lower() in ("off", "none", "remove"):
        work.later(lambda: channels.set_table(game_id, None))
        work.told.applied.append(_("channel table off"))
        return
    _plugin, _kind, shown = channels.read(url)
    work.later(lambda: channels.set_table(game_id, url))
    work.told.applied.append(
        _("channel table %(shown)s: the table's public news goes there (no seat's link)") % {"shown": shown}
    )


PLATFORM_COMMANDS = {
    "channel": _cmd_channel,
    "channels": _cmd_channel,
    "language": _cmd_language,
    "sprache": _cmd_language,
    "langue": _cmd_language,
    "rest": _cmd_rest,
    "calendar": _cmd_calendar,
    "zone": _cmd_zone,
    "help": _cmd_help,
    "board": _cmd_board,
    "history": _cmd_history,
    "say": _cmd_say,
    "undo": _cmd_undo,
    "away": _cmd_away,
    "back": _cmd_back,
    "notices": _cmd_notices,
}
