"""Reading: views, feeds and histories exactly as a seat (or a spectator) may see them.

Every page, API answer, notice and admin screen that shows a game goes through here, so the
redaction rules live in one place: an event a seat may not see is shown in its public form,
its random draws are withheld, and the seed stays secret until the game is over.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.utils import dateformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.base import Event as GameEvent
from pbem.log import eventlog
from pbem.models import Event, Game, Seat
from pbem.registry import get_game


def _played_by(kind: str) -> str:
    return {
        "forced": _("the only legal move"),
        "standing": _("a standing order"),
        "conditional": _("a conditional order"),
    }.get(kind, kind)


def _away(d, n) -> str:
    if "zone" in d:
        return _("%(name)s is away until the end of %(day)s (%(zone)s); their deadlines wait.") % {
            "name": n[d["seat"]],
            "day": d["last_day"],
            "zone": d["zone"],
        }
    if "last_day" in d:
        return _("%(name)s is away until %(day)s (back on %(until)s); their deadlines wait.") % {
            "name": n[d["seat"]],
            "day": d["last_day"],
            "until": d["until"],
        }
    return _("%(name)s is away; back on %(until)s; their deadlines wait.") % {"name": n[d["seat"]], "until": d["until"]}


def _rest_days(d, n) -> str:
    if not d["days"]:
        return _("%(name)s rests on no day of the week.") % {"name": n[d["seat"]]}
    return _("%(name)s rests on %(days)s (%(zone)s): no deadline of theirs falls then.") % {
        "name": n[d["seat"]],
        "days": weekdays_text(d["days"]),
        "zone": d["zone"],
    }


def _absent(d, n) -> str:
    values = {"name": n[d["seat"]], "until": _utc(d["until"]), "left": _days(d["left"])}
    if d.get("auto"):
        return (
            _(
                "%(name)s is away until %(until)s, their vacation switched on by itself at their deadline; "
                "their deadlines wait (%(left)s of vacation left)."
            )
            % values
        )
    return _("%(name)s is away until %(until)s; their deadlines wait (%(left)s of vacation left).") % values


def _notices_changed(d, n) -> str:
    if "preference" in d:
        return _("%(name)s changed how they hear of moves (to %(preference)s).") % {
            "name": n[d["seat"]],
            "preference": notice_choice_text(d["preference"]),
        }
    return _("%(name)s changed how they hear of moves.") % {"name": n[d["seat"]]}


def _player_replaced(d, n) -> str:
    values = {"name": d["name"], "number": d["seat"] + 1, "replaced": d.get("replaced"), "reason": d["reason"]}
    if d.get("replaced"):
        return _("%(name)s takes over seat %(number)s from %(replaced)s: %(reason)s") % values
    return _("%(name)s takes over seat %(number)s: %(reason)s") % values


def _order_cancelled(d, n) -> str:
    if "id" in d:
        return _("%(name)s's order %(id)s was cancelled: %(reason)s.") % {
            "name": n[d["seat"]],
            "id": d["id"],
            "reason": reason_text(d["reason"]),
        }
    return _("%(name)s cancelled an order given ahead.") % {"name": n[d["seat"]]}


def _order_played(d, n) -> str:
    if "id" in d:
        return _("Played by %(name)s's order %(id)s (%(how)s), automatically: %(move)s.") % {
            "name": n[d["seat"]],
            "id": d["id"],
            "how": _played_by(d["kind"]),
            "move": d["move"],
        }
    return _("%(name)s's next move was made by an order given ahead.") % {"name": n[d["seat"]]}


PLATFORM_TEXT = {
    "GameCreated": lambda d, n: (
        _("The table is set: %(players)s. Seed commitment %(commitment)s…")
        % {"players": ", ".join(p["name"] for p in d["players"]), "commitment": d["seed_commitment"][:16]}
    ),
    "GameStarted": lambda d, n: _("The game begins."),
    "GameEnded": lambda d, n: (
        _("The game is over. Final scores: %(scores)s.")
        % {"scores": ", ".join(f"{n[s]} {p}" for s, p in enumerate(d["scores"]))}
    ),
    "SeedRevealed": lambda d, n: _("The seed is revealed: %(seed)s.") % {"seed": d["seed"]},
    "Said": lambda d, n: _("%(name)s says: %(text)s") % {"name": n[d["seat"]], "text": d["text"]},
    "Undone": lambda d, n: (
        _("%(name)s took back their last move.") % {"name": n[d["seat"]]}
        if d.get("seat") is not None
        else _("The Master of Seals took back events %(events)s: %(reason)s")
        % {"events": ", ".join(map(str, d["events"])), "reason": reason_text(d.get("reason", ""))}
    ),
    "Away": _away,
    "RestDays": _rest_days,
    "Absent": _absent,
    "TimeZoneChanged": lambda d, n: (
        _("%(name)s changed their time zone (to %(zone)s).") % {"name": n[d["seat"]], "zone": d["zone"]}
        if "zone" in d
        else _("%(name)s changed their time zone.") % {"name": n[d["seat"]]}
    ),
    "Back": lambda d, n: _("%(name)s is back.") % {"name": n[d["seat"]]},
    "NoticesChanged": _notices_changed,
    "CalendarRenewed": lambda d, n: _("%(name)s gave their calendar feed a new link.") % {"name": n[d["seat"]]},
    "Paused": lambda d, n: _("The Master of Seals paused the game: %(reason)s") % {"reason": reason_text(d["reason"])},
    "Resumed": lambda d, n: (
        _("The Master of Seals resumed the game: %(reason)s") % {"reason": reason_text(d["reason"])}
    ),
    "Abandoned": lambda d, n: (
        _("The Master of Seals ended the game unfinished: %(reason)s") % {"reason": reason_text(d["reason"])}
    ),
    "DeadlineExtended": lambda d, n: (
        _("%(name)s's deadline is now %(until)s (%(reason)s).")
        % {"name": n[d["seat"]], "until": _utc(d["until"]), "reason": reason_text(d["reason"])}
    ),
    "DeadlineMissed": lambda d, n: (
        _("%(name)s missed the deadline; the Master of Seals was told.") % {"name": n[d["seat"]]}
    ),
    "TimedOut": lambda d, n: (
        _("%(name)s missed the deadline again.") % {"name": n[d["seat"]]}
        if d.get("standin")
        else _("%(name)s missed the deadline, so the system played '%(command)s' for them.")
        % {"name": n[d["seat"]], "command": d["command"]}
    ),
    "StandInSeated": lambda d, n: (
        _("The stand-in plays for %(name)s from now on (%(reason)s).")
        % {"name": n[d["seat"]], "reason": reason_text(d["reason"])}
    ),
    "StandInLeft": lambda d, n: _("%(name)s is back and plays their own seat again.") % {"name": n[d["seat"]]},
    "PlayerReplaced": _player_replaced,
    "ScoreCorrected": lambda d, n: (
        _("Score correction for %(name)s: %(points)s (%(reason)s).")
        % {"name": n[d["seat"]], "points": f"{d['points']:+d}", "reason": reason_text(d["reason"])}
    ),
    "NoticeBounced": lambda d, n: (
        _("A notice to %(name)s could not be delivered; the Master of Seals was told.") % {"name": n[d["seat"]]}
    ),
    "ReminderSent": lambda d, n: _("The Master of Seals sent a reminder."),
    "InvitationsSent": lambda d, n: (
        _("The creator accepted; the other players are invited: %(names)s.")
        % {"names": ", ".join(n[s] for s in d["seats"])}
        if d["seats"]
        else _("The creator accepted; the other seats are the stand-ins', so nobody else is invited.")
    ),
    # Orders given ahead (pbem.play.orders): their words only to their seat, and after the end.
    "OrderGiven": lambda d, n: (
        _("%(name)s gave an order ahead (%(what)s).") % {"name": n[d["seat"]], "what": _order_words(d["order"])}
        if "order" in d
        else _("%(name)s gave an order ahead.") % {"name": n[d["seat"]]}
    ),
    "OrderCancelled": _order_cancelled,
    "OrderPlayed": _order_played,
    "InvitationResent": lambda d, n: (
        _("The Master of Seals sent %(name)s the invitation again (%(reason)s).")
        % {"name": n[d["seat"]], "reason": reason_text(d["reason"])}
    ),
}


def _order_words(order: dict) -> str:
    if order.get("kind") == "forced":
        return _("forced moves on")
    if order.get("kind") == "conditional":
        return _("a conditional order")
    return _("a standing order")


# The reasons the platform itself writes in the log (English, the log's language: marked with
# gettext_noop where they are written), told in the reader's language; a reason the Master of
# Seals typed is shown as typed (gettext finds no entry for it).
_REASONS = (
    (
        re.compile(r"^missed (\d+) deadlines in a row$"),
        lambda m: (
            ngettext("missed %(count)d deadline in a row", "missed %(count)d deadlines in a row", int(m[1]))
            % {"count": int(m[1])}
        ),
    ),
    (
        re.compile(r"^its move \((.*)\) was not legal when it came to be played$"),
        lambda m: _("its move (%(move)s) was not legal when it came to be played") % {"move": m[1]},
    ),
    (
        re.compile(r"^the game refused its move: (.*)$"),
        lambda m: _("the game refused its move: %(why)s") % {"why": m[1]},
    ),
)


def reason_text(reason: str) -> str:
    """A reason from the log in the reader's language, when the platform wrote it."""
    if not reason:
        return ""
    for pattern, say in _REASONS:
        match = pattern.match(reason)
        if match:
            return say(match)
    return _(reason)


def weekdays_text(days) -> str:
    """Rest days ('sat', 'sun') as the reader's language names them."""
    from django.utils.dates import WEEKDAYS

    order = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    return ", ".join(str(WEEKDAYS[order.index(day)]) if day in order else day for day in days)


def notice_choice_text(choice: str) -> str:
    """A notice preference ('turn', 'digest', …) as a reader of their language says it."""
    return {
        "turn": _("once per turn of another player"),
        "round": _("once per round"),
        "every": _("every move"),
        "digest": _("once a day"),
        "none": _("no news"),
    }.get(choice, choice)


def _days(seconds) -> str:
    days, rest = divmod(int(seconds), 86400)
    hours = rest // 3600
    text = ngettext("%(n)d day", "%(n)d days", days) % {"n": days}
    return text + (" " + ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours} if hours else "")


def _utc(iso) -> str:
    """A stored time as people read it: 'Thu 10 Dec 2026, 18:00 UTC' (feeds are the same for
    every viewer; the mails name times in each player's own zone)."""
    try:
        moment = datetime.fromisoformat(str(iso))
    except ValueError:
        return str(iso)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return f"{dateformat.format(moment.astimezone(UTC), 'D d M Y, H:i')} UTC"  # day and month in the reader's words


@dataclass
class FeedItem:
    seq: int
    type: str
    data: dict | None  # None: this viewer may not see anything of it
    actor: str
    actor_seat: int | None
    created_at: str
    text: str
    hash: str | None  # None: withheld (a scheme-1 game before its end, see hashes_public)
    undone: bool
    rng: list | None
    # What lets anyone check the chain's links without seeing what is hidden (pbem/CHAIN.md):
    prev_hash: str | None = ""
    public: dict | None = None
    visible_to: list | None = None
    reveals: bool = False
    schema_version: int = 1
    parts: dict | None = None  # scheme 2: the event's five parts (only with `sealed`)
    payload_key: str | None = None  # scheme 2: the key of this payload's commitment, to those who see it


@dataclass
class Occupancy:
    """Who held each seat when: a replacement changes the seat's player from that event on, and
    what happened before it stays the replaced player's (history, feeds, score sheets)."""

    spans: list[list[tuple[int, str]]]  # per seat: (first event number, player's name), in order

    def names_at(self, seq: int) -> list[str]:
        """Each seat's player when event `seq` happened (the replacement event itself already
        names the newcomer's seat by the newcomer)."""
        return [next(name for first, name in reversed(spans) if first <= seq) for spans in self.spans]

    def players(self, seat: int) -> list[str]:
        return [name for _first, name in self.spans[seat]]


OCCUPANCY_TYPES = ("pbem.GameCreated", "pbem.PlayerReplaced")


def occupancy(game_id: int) -> Occupancy:
    rows = (
        Event.objects.filter(game_id=game_id, type__in=OCCUPANCY_TYPES)
        .order_by("seq")
        .values_list("seq", "type", "payload")
    )
    return occupancy_of(rows)


def occupancy_of(rows: Iterable[tuple[int, str, Any]]) -> Occupancy:
    """Who sat where from a game's (seq, type, payload) rows of OCCUPANCY_TYPES, in order (others skipped)."""
    spans: list[list[tuple[int, str]]] = []
    for seq, etype, payload in rows:
        if etype == "pbem.GameCreated":
            spans = [[(0, player["name"])] for player in payload["players"]]
        elif 0 <= payload["seat"] < len(spans):
            spans[payload["seat"]].append((seq, payload["name"]))
    return Occupancy(spans)


def may_see(visible_to, seat: int | None) -> bool:
    return visible_to is None or (seat is not None and seat in visible_to)


def game_over(game: Game) -> bool:
    return game.status in ("finished", "abandoned")


def hashes_public(game: Game) -> bool:
    """Whether this game's chain hashes may be shown to anyone: always under scheme 2; under
    scheme 1 only once the game is over, because a scheme-1 hash covers every hidden payload and
    draw, so anyone holding one can confirm a guess at them (pbem/CHAIN.md)."""
    return game.chain_scheme >= 2 or game_over(game)


WITHHELD = gettext_lazy(
    "withheld until the end: this game's chain (scheme 1) hashes its hidden payloads, so a hash "
    "would confirm a guess at them"
)


def feed(
    game: Game,
    seat: int | None,
    after: int = 0,
    upto: int | None = None,
    limit: int | None = None,
    sealed: bool = False,
    last: int | None = None,
    types: tuple[str, ...] | None = None,
) -> list[FeedItem]:
    """The log as `seat` (None: a spectator) may see it; everything once the game is over. Each
    event names the players who held the seats when it happened.

    `last`: only the newest `last` events (in order): a page's recent-events panel reads what it
    shows, not the whole log. `types`: only events of these types (the table talk).

    `sealed`: with each event's chain parts and, for a payload this reader may see, the key of
    its commitment (scheme 2), so the reader can check the chain without the seed.
    """
    spec = get_game(game.kind)
    # Read once for a whole batch of notices of this game at this version (eventlog.shared_loads).
    seated = eventlog.shared(("occupancy", game.pk, game.version), lambda: occupancy(game.pk))
    over = game_over(game)
    undone = eventlog.shared(("undone", game.pk, game.version), lambda: eventlog.undone_seqs(game.pk))
    event_rows = _feed_rows(game, after, upto, limit, last, types, sealed)
    sealer = eventlog.sealer_for(game) if sealed and game.chain_scheme >= 2 else None
    shown = hashes_public(game)
    items = []
    batch = None
    for row in event_rows:
        seen = over or may_see(row["visible_to"], seat)
        names = seated.names_at(row["seq"])
        # The events of one command share their actor and moment: its first is the act itself.
        first = batch != (batch := (row["actor_kind"], row["actor_seat"], row["created_at"]))
        item = _feed_item(spec, row, seen, names, shown, over, row["seq"] in undone, first)
        if sealer is not None:
            item.parts = sealer.parts(row["seq"], row)
            item.payload_key = sealer.payload_key(row["seq"]) if seen else None
        items.append(item)
    return items


def _feed_rows(game: Game, after, upto, limit, last, types, sealed) -> Iterable[dict[str, Any]]:
    """The rows as dicts of FEED_FIELDS, oldest first. A batch of notices reads its feeds' rows in
    one query (outbound.prefetch); a seat's feed is then the rows after its last notice."""
    read = (
        eventlog.shared(feed_rows_key(game.pk, upto), lambda: None)
        if upto is not None and types is None and not last and not limit and not sealed
        else None
    )
    if read is not None and read[0] <= after:
        return [row for row in read[1] if row["seq"] > after]
    rows = Event.objects.filter(game_id=game.pk, seq__gt=after)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    if types is not None:
        rows = rows.filter(type__in=types)
    if last:
        return reversed(list(rows.order_by("-seq").values(*FEED_FIELDS)[:last]))
    in_order = rows.order_by("seq").values(*FEED_FIELDS)
    return in_order[:limit] if limit else in_order


def _feed_item(
    spec, row: dict, seen: bool, names, shown: bool, over: bool, undone: bool, first: bool = True
) -> FeedItem:
    """One event as this reader may see it. Random draws only once the game is over: the draws
    recorded on a public event (the deal's shuffle on the first setup event) tell what was dealt
    face down."""
    seq, actor_kind, actor_seat, public = row["seq"], row["actor_kind"], row["actor_seat"], row["public"]
    data = row["payload"] if seen else public
    text = narrate(spec, row["type"], data, row["visible_to"], public, row["reveals"], names)
    if actor_kind == "standin" and _standin_act(data, actor_seat, first) and 0 <= actor_seat < len(names):
        text += _(" (played by the stand-in for %(name)s)") % {"name": names[actor_seat]}
    return FeedItem(
        seq,
        row["type"],
        data,
        actor_kind,
        actor_seat,
        row["created_at"].isoformat(),
        text,
        row["hash"] if shown else None,
        undone,
        row["rng"] if over else None,
        row["prev_hash"] if shown else None,
        public,
        row["visible_to"],
        row["reveals"],
        row["schema_version"],
    )


def _standin_act(data, actor_seat: int | None, first: bool) -> bool:
    """Whether an event the stand-in's command appended is its act for its seat: the command's
    first event, or one about that seat. What the move set off (a round ends, another player is
    dealt cards) is the game's doing, and told without the stand-in's name."""
    if actor_seat is None:
        return False
    return first or (isinstance(data, dict) and data.get("seat") == actor_seat)


FEED_FIELDS = eventlog.EVENT_ROW_FIELDS


def feed_rows_key(game_id: int, upto: int) -> tuple:
    """The key (eventlog.shared) under which a batch keeps (after, rows): a game's event rows
    with after < seq <= upto, as dicts of FEED_FIELDS in order."""
    return ("feed rows", game_id, upto)


def narrate(spec, etype: str, data, visible_to, public, reveals, names) -> str:
    if data is None:
        return _("(something hidden happened)")
    if etype.startswith("pbem."):
        render = PLATFORM_TEXT.get(etype[5:])
        return render(data, names) if render else etype[5:]
    try:
        return spec.narrate(
            GameEvent(etype, data, tuple(visible_to) if visible_to is not None else None, public, reveals), names
        )
    except Exception:  # a narration bug must not hide the event from the log
        return etype


def seat_names(game: Game) -> list[str]:
    return list(Seat.objects.filter(game=game).order_by("number").values_list("name", flat=True))


def history_lines(game_id: int, seat: int | None) -> list[str]:
    game = Game.objects.get(pk=game_id)
    return [f"#{item.seq} {item.text}" + (_(" (taken back)") if item.undone else "") for item in feed(game, seat)]


def state_at(game: Game, at: int | None = None) -> dict:
    return eventlog.load(game, at=at).state


def view(game: Game, seat: int | None, at: int | None = None) -> dict:
    state = state_at(game, at)
    if state["game"] is None:
        return {}
    return get_game(game.kind).view(state["game"], seat)


def board_text(spec, state: dict, seat: int | None) -> str:
    if state["game"] is None:
        return _("The game has not started yet.")
    names = state["meta"]["names"]
    view = spec.view(state["game"], seat)
    if isinstance(view, dict):
        # The players' names (public) for a text board that names seats, as the standings do.
        view = {**view, "names": list(names)}
    text = spec.render_text(view)
    awaited = spec.waiting_for(state["game"]) if not state["meta"]["ended"] else []
    if awaited:
        text += "\n\n" + _("Waiting for: %(names)s") % {"names": ", ".join(names[s] for s in awaited)}
    return text


def help_text(spec, state: dict, seat: int | None) -> str:
    game_help = spec.help(state["game"], seat) if state["game"] is not None else ""
    return (
        _("%(title)s: commands now") % {"title": spec.title}
        + f"\n{game_help}\n\n"
        + _(
            "Commands for every game:\n"
            "  help                 this text\n"
            "  board                your view of the board\n"
            "  history [N]          the last N events you may see\n"
            "  say TEXT             table talk to all players\n"
            "  undo                 take back your last move (if no one has acted since,\n"
            "                       nothing was drawn and nothing hidden revealed)\n"
            "  away until YYYY-MM-DD / back   announce an absence; deadlines wait\n"
            "  notices turn|round|every|digest|none   how often you hear of the others'\n"
            "                       moves (turn: once per turn of another player)\n"
            "  notices pictures / no pictures   the board's picture in news mails\n"
            "  notices default ...  your choice for the games you join from now on too\n"
            "  notices combined     one mail for all your games that await you, answered\n"
            "                       with lines such as '#12: 3' (notices separate: undo it)\n"
            "  zone Europe/Berlin   your time zone for every date and time we mail you\n"
            "  orders               your orders given ahead (seen by nobody else)\n"
            "  orders forced on     a move the rules leave you no choice about is played\n"
            "                       for you (off: undo it; 'on default': in new games too)\n"
            "  order ...            a standing order in this game's words ('orders': which)\n"
            "  if NAME MOVE then MOVE else MOVE   your next move, by NAME's next move\n"
            "  orders cancel N|all  cancel an order\n"
            "  rest sat sun / rest none   days no deadline of yours falls on (your zone)\n"
            "  calendar / calendar new   your deadlines' calendar feed; a new link for it\n"
            "  language de|fr|en    the language of your mails and pages (all your games)\n"
            "  channel add URL [all]   be told of your turns on Discord, Telegram, Matrix,\n"
            "                       Slack, ntfy or a webhook too (an Apprise URL; 'all':\n"
            "                       in all your games)\n"
            "  channels / channel remove N / channel resume N   your channels\n"
            "Several commands may go in one reply, one a line: all are applied, or none."
        )
    )


def legal_commands(game: Game, seat: int) -> list[str]:
    spec = get_game(game.kind)
    state = eventlog.load(game).state
    if state["game"] is None or game.status != "running":
        return []
    return [spec.describe(c) for c in spec.legal(state["game"], seat)]


def seconds_left(game: Game, now: datetime | None = None) -> dict[str, int]:
    """Each awaited seat's seconds to its running deadline (a held deadline: none)."""
    from django.utils import timezone

    now = now or timezone.now()
    return {
        seat: max(0, int((datetime.fromisoformat(iso) - now).total_seconds()))
        for seat, iso in (game.deadlines or {}).items()
    }


def awaited_lines(
    game: Game, zone: str = "UTC", now: datetime | None = None, names: list[str] | None = None
) -> list[str]:
    """Who the table waits for, and until when, in the reader's time zone: one line a seat.
    `names`: the seats' names if the caller has them (else read)."""
    from zoneinfo import ZoneInfo

    try:
        tz = ZoneInfo(zone or "UTC")
    except (KeyError, ValueError):
        tz = ZoneInfo("UTC")
    names = names if names is not None else seat_names(game)
    left = seconds_left(game, now)
    lines = []
    for seat in game.awaited or []:
        name = names[seat] if seat < len(names) else f"seat {seat}"
        iso = (game.deadlines or {}).get(str(seat))
        if iso is None:
            lines.append(_("%(name)s: the deadline is held") % {"name": name})
            continue
        moment = datetime.fromisoformat(iso).astimezone(tz)
        when = f"{dateformat.format(moment, 'D d M H:i')} {moment.strftime('%Z')}"
        lines.append(
            _("%(name)s: until %(when)s (%(left)s left)")
            % {"name": name, "when": when, "left": left_text(left[str(seat)])}
        )
    return lines


def left_text(seconds: int) -> str:
    """Time left, to the minute: "2 days 3 hours", "5 hours 10 minutes", "4 minutes"."""
    days, rest = divmod(max(0, int(seconds)), 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    units = {
        "day": lambda n: ngettext("%(n)d day", "%(n)d days", n),
        "hour": lambda n: ngettext("%(n)d hour", "%(n)d hours", n),
        "minute": lambda n: ngettext("%(n)d minute", "%(n)d minutes", n),
    }
    parts = [(days, "day"), (hours, "hour")] if days else [(hours, "hour"), (minutes, "minute")]
    words = [units[unit](n) % {"n": n} for n, unit in parts if n]
    return " ".join(words) or _("less than a minute")


def left_words(seconds: int) -> str:
    """A vacation's length as clocks.left_words says it, in the reader's words: '2 days 5 hours'."""
    days, rest = divmod(int(seconds), 86400)
    hours = rest // 3600
    parts = [ngettext("%(n)d day", "%(n)d days", days) % {"n": days}] if days else []
    if hours or not parts:
        parts.append(ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours})
    return " ".join(parts)


def _length(seconds: int) -> str:
    if seconds % 86400 == 0:
        return ngettext("%(n)d day", "%(n)d days", seconds // 86400) % {"n": seconds // 86400}
    if seconds % 3600 == 0:
        return ngettext("%(n)d hour", "%(n)d hours", seconds // 3600) % {"n": seconds // 3600}
    return _("%(n)d min") % {"n": seconds // 60}


def clock_text(clock: dict | None) -> str:
    """The clock in the reader's words, for pages and notices (pbem.log.clocks.describe's English
    is the offline verifier's)."""
    if not clock:
        return ""
    if clock["kind"] == "fixed":
        text = _("%(period)s a move") % {"period": _length(clock["period"])}
    else:
        text = _("%(initial)s + %(increment)s a move, at most %(cap)s") % {
            "initial": _length(clock["initial"]),
            "increment": _length(clock["increment"]),
            "cap": _length(clock["cap"]),
        }
        if clock["kind"] == "grace":
            text = _("%(grace)s free each move, then a bank of %(bank)s") % {
                "grace": _length(clock["grace"]),
                "bank": text,
            }
    vacation = clock.get("vacation")
    if vacation:
        text += "; " + _(
            "vacation %(per_month)s days a month of play, at most %(max)s held, "
            "%(absences)s absences of at most %(longest)s days a game"
        ) % {key: vacation[key] for key in ("per_month", "max", "absences", "longest")}
    return text


def clocks_text(exc: Exception) -> str:
    """A refusal from pbem.log.clocks (standard library only: its messages are English templates
    marked for the catalogue, with their values) in the reader's language."""
    template, values = getattr(exc, "template", None), getattr(exc, "values", None)
    if template is None:
        return str(exc)
    shown = {}
    for name, value in (values or {}).items():
        if name.endswith("_seconds"):  # a length of time, in the reader's words
            shown[name[: -len("_seconds")]] = left_words(value)
        else:
            shown[name] = value
    return _(template) % shown if shown else _(template)
