"""Web pages: lobby, invitations, the seat page, replay, spectator and audit pages.

Pages only read through pbem.play.selectors (and the game's own `view`), so a seat sees what its
view allows and a spectator the public view; the seed appears only once the game is over.
A move made on the seat page is stored with `inbox.store_submission` and processed by the
same Celery task as a mail reply; the page then shows the stored outcome.
No page needs JavaScript: the seat page's chooser is links and buttons (pbem/web/chooser.py),
its board pans inside its box on a phone (pbem/web/board.py); its one script, live.js, only
adds live turns (pbem/web/live.py), and without it a waiting page refreshes itself.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import logging
import re
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.core.handlers.asgi import ASGIRequest
from django.db.models import Count
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_noop, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from games.base import may_act
from games.i18n import game_text
from pbem.audit import checks, export, publish
from pbem.doors import inbox
from pbem.log import anchors, clocks, eventlog
from pbem.log.said import said
from pbem.mail import channels as channel_news
from pbem.mail.outbound import invite_url as outbound_invite_url
from pbem.models import Game, GameStatus, InboundMessage, InboundStatus, Seat
from pbem.ops import health, ratelimit
from pbem.play import addressing, calendar, channels, choosing, languages, orders, selectors, services, submissions
from pbem.registry import all_games, get_game
from pbem.web import board as web_board
from pbem.web import chooser, live
from pbem.web.forms import (
    CommandForm,
    HeadForm,
    KindForm,
    NewGameForm,
    PracticeForm,
    SayForm,
    deadline_seconds,
    new_submission_key,
)

log = logging.getLogger(__name__)

REPLAY_WINDOW = 20  # events listed on each side of the one shown
REFRESH_SECONDS = 60  # a waiting seat page without JavaScript reloads itself this often
# The games' statuses as pages show them (models.GameStatus's labels), for the catalogues.
STATUS_WORDS = (
    gettext_noop("open (waiting for players)"),
    gettext_noop("running"),
    gettext_noop("paused"),
    gettext_noop("finished"),
    gettext_noop("abandoned"),
)


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def _token_seat(request, token: str) -> Seat | HttpResponse:
    try:
        return ratelimit.resolve_token(request, token)
    except ratelimit.Limited as exc:
        response = render(request, "pbem/problem.html", {"title": _("Slow down"), "message": str(exc)}, status=429)
        response["Retry-After"] = str(exc.retry_after)
        return response
    except addressing.TokenProblem as exc:
        return render(
            request,
            "pbem/problem.html",
            {"title": _("This link does not work"), "message": _(str(exc)), "code": exc.code},
            status=403,
        )


def _game_or_404(game_id: int) -> Game:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise Http404(_("There is no game #%(game)s.") % {"game": game_id})
    return game


def _private(response: HttpResponse) -> HttpResponse:
    # A seat page is reached by a secret link: keep it out of caches, search engines and the
    # Referer sent to other sites. ("no-referrer" would make browsers send "Origin: null" with
    # the page's own forms, which Django's CSRF check rightly refuses.)
    response["Referrer-Policy"] = "same-origin"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


def _board(spec, state: dict, seat: int | None, links: dict | None = None) -> dict:
    if state["game"] is None:
        return {"board_html": "", "board_text": selectors.board_text(spec, state, seat)}
    view = spec.view(state["game"], seat)
    if links and "links" in inspect.signature(spec.render_html).parameters:
        markup = spec.render_html(view, links=links)
    else:
        markup = spec.render_html(view)
    return {
        "board_html": mark_safe(web_board.phone_layout(markup)),  # noqa: S308 - the game's own markup
        "board_text": selectors.board_text(spec, state, seat),
    }


def _awaited(game: Game, names: list[str], zone: str = "UTC") -> list[dict]:
    """Who the table waits for, each with the deadline in the reader's zone and the time left."""
    deadlines = game.deadlines or {}
    left = selectors.seconds_left(game)
    return [
        {
            "seat": s,
            "name": names[s],
            "deadline": deadlines.get(str(s), ""),
            "deadline_text": _when(deadlines.get(str(s), ""), zone),
            "left": selectors.left_text(left[str(s)]) if str(s) in left else "",
        }
        for s in (game.awaited or [])
        if s < len(names)
    ]


def _bank_text(game: Game, state: dict, seat: int) -> str:
    """A bank clock: what is in the seat's bank (its turn's time beyond it shows as time left)."""
    if (game.clock or {}).get("kind") not in ("bank", "grace"):
        return ""
    held = clocks.remaining(state["meta"], seat, timezone.now())
    return selectors.left_text(held["bank"]) if held else ""


def _when(iso: str, zone: str = "UTC") -> str:
    """An ISO deadline as people read it, in their zone: "2026-12-02 07:22 UTC" (deadlines are
    stored in UTC)."""
    if len(iso) < 16:
        return iso
    if zone and zone != "UTC":
        try:
            return datetime.fromisoformat(iso).astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")
        except (KeyError, ValueError):
            pass
    return f"{iso[:10]} {iso[11:16]} UTC"


def _talk(items) -> list:
    return [item for item in items if item.type == "pbem.Said"]


def _talk_of(game: Game, seat: int | None, count: int = 10) -> list:
    """The newest table talk, read alone (not the whole log)."""
    return selectors.feed(game, seat, last=count, types=("pbem.Said",))


def _game_context(game: Game) -> dict:
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    for s in seats:
        s.colour_words = _colour_words(game, s)  # type: ignore[attr-defined]
    names = [s.name for s in seats]
    over = selectors.game_over(game)
    return {
        "game": game,
        # The phase the read model keeps (English, the log's language) in the reader's words.
        "phase_words": game_text(game.kind, game.phase) if game.phase else "",
        "spec": get_game(game.kind),
        "seats": seats,
        "names": names,
        "over": over,
        "awaited": _awaited(game, names),
        "scores": list(zip(names, game.scores or [], strict=False)),
        "winner_line": _winner_line(game, names) if game.status == GameStatus.FINISHED else "",
    }


def _colour_words(game: Game, seat: Seat) -> str:
    """A seat's colour in the reader's words (the row keeps the game's English word)."""
    return game_text(game.kind, seat.colour) if seat.colour else ""


def _winner_line(game: Game, names: list[str]) -> str:
    """Who won, from the ranking the game's end recorded (pbem.GameEnded): "Alice wins with 12
    points." or, for a shared first place, "Alice and Bob share the win with 10 points."."""
    ended = game.events.filter(type="pbem.GameEnded").order_by("-seq").values_list("payload", flat=True).first()
    ranking, scores = (ended or {}).get("ranking") or [], (ended or {}).get("scores") or []
    if not ranking or not ranking[0]:
        return ""
    first = [names[s] if s < len(names) else _("seat %(number)s") % {"number": s + 1} for s in ranking[0]]
    points = scores[ranking[0][0]] if ranking[0][0] < len(scores) else None
    if len(first) == 1:
        if points is None:
            return _("%(name)s wins.") % {"name": first[0]}
        return ngettext("%(name)s wins with %(points)s point.", "%(name)s wins with %(points)s points.", points) % {
            "name": first[0],
            "points": points,
        }
    values = {"names": ", ".join(first[:-1]), "last": first[-1], "points": points}
    if points is None:
        return _("%(names)s and %(last)s share the win.") % values
    return (
        ngettext(
            "%(names)s and %(last)s share the win with %(points)s point.",
            "%(names)s and %(last)s share the win with %(points)s points.",
            points,
        )
        % values
    )


# ---------------------------------------------------------------------------------------------
# Lobby
# ---------------------------------------------------------------------------------------------


def lobby(request):
    games = Game.objects.order_by("-id").annotate(players=Count("seats"))
    groups = [
        (gettext_noop("Open: waiting for players"), games.filter(status=GameStatus.OPEN)[:50]),
        (gettext_noop("Running"), games.filter(status__in=[GameStatus.RUNNING, GameStatus.PAUSED])[:50]),
        (gettext_noop("Finished"), games.filter(status__in=[GameStatus.FINISHED, GameStatus.ABANDONED])[:50]),
    ]
    return render(request, "pbem/lobby.html", {"groups": groups, "kinds": all_games()})


@require_http_methods(["GET", "POST"])
def new_game(request):
    specs = all_games()
    kind = request.GET.get("kind") or request.POST.get("kind")
    if not kind or kind not in specs:
        form = KindForm(specs, request.GET or None)
        return render(request, "pbem/new_game.html", {"kind_form": form, "kinds": specs})
    spec = specs[kind]
    form = NewGameForm(spec, request.POST or None, initial={"submission_key": new_submission_key()})
    if request.method == "POST" and form.is_valid():
        key = f"pbem-new-game:{form.cleaned_data['submission_key'] or new_submission_key()}"
        earlier = cache.get(key)
        if earlier:  # the same form sent twice: one game
            return redirect("pbem-game", game_id=earlier) if earlier != "pending" else _creating(request)
        try:
            ratelimit.check_create(request)
            if not cache.add(key, "pending", 3600):
                return _creating(request)
            game = services.create_game(
                kind,
                _with_creators_language(form.cleaned_data["invitees"]),
                form.game_options(),
                title=form.cleaned_data["title"].strip(),
                deadline_seconds=deadline_seconds(
                    form.cleaned_data["deadline_hours"], form.cleaned_data["deadline_minutes"]
                ),
                invited=True,
                notices=form.cleaned_data["notices"],
                absence=form.cleaned_data["absence"],
                standin_after=form.cleaned_data["standin_after"],
                clock=form.game_clock(),
            )
        except (ratelimit.Limited, services.ServiceError) as exc:
            cache.delete(key)
            form.add_error(None, str(exc))
        else:
            cache.set(key, game.pk, 3600)
            _created(request, game)
            return redirect("pbem-game", game_id=game.pk)
    rulebook = game_text(kind, spec.rulebook) if spec.rulebook else ""
    return render(request, "pbem/new_game.html", {"form": form, "spec": spec, "kind": kind, "rulebook": rulebook})


def _with_creators_language(players: list) -> list:
    """The creator reads the language the form was shown in, unless their line names another."""
    if players and not players[0].language:
        players = [dataclasses.replace(players[0], language=languages.supported(get_language()))] + players[1:]
    return players


def _created(request, game: Game) -> None:
    creator = game.seats.get(number=services.CREATOR_SEAT)
    messages.success(
        request,
        _(
            "Game #%(game)s is set up. Your invitation is on its way to %(email)s: "
            "accept it, and the other players are invited. The game starts when all have "
            "accepted."
        )
        % {"game": game.pk, "email": creator.email},
    )
    if settings.PBEM_SHOW_CREATOR_LINK:
        # Mail stays on this machine (the embedded run writes it to files): nothing can be sent
        # to a stranger, so the link may be shown here instead of only in the mail.
        messages.info(
            request,
            f"This run keeps mail on this machine ({settings.EMAIL_FILE_PATH}); your "
            f"invitation: {outbound_invite_url(creator)}",
        )


def _creating(request) -> HttpResponse:
    return render(
        request,
        "pbem/problem.html",
        {
            "title": _("Already sent"),
            "message": _("This form was sent already and the game is being set up; look for it in the lobby."),
        },
        status=409,
    )


@require_http_methods(["GET", "POST"])
def practice(request):
    """A practice game against stand-ins, for a newcomer: one invitation, to the player's own
    address; the stand-ins play their seats at once."""
    specs = all_games()
    kind = request.GET.get("kind") or request.POST.get("kind")
    if not kind or kind not in specs:
        return render(request, "pbem/practice.html", {"kind_form": KindForm(specs, request.GET or None)})
    spec = specs[kind]
    form = PracticeForm(spec, request.POST or None, initial={"submission_key": new_submission_key()})
    if request.method == "POST" and form.is_valid():
        players = form.players()
        key = f"pbem-new-game:{form.cleaned_data['submission_key'] or new_submission_key()}"
        earlier = cache.get(key)
        if earlier:  # the same form sent twice: one game
            return redirect("pbem-game", game_id=earlier) if earlier != "pending" else _creating(request)
        try:
            ratelimit.check_create(request)
            if not cache.add(key, "pending", 3600):
                return _creating(request)
            game = services.create_game(
                kind,
                players,
                {},
                title=f"Practice: {spec.title}",
                invited=True,
                standin_seats=tuple(range(1, len(players))),
            )
        except (ratelimit.Limited, services.ServiceError) as exc:
            cache.delete(key)
            form.add_error(None, str(exc))
        else:
            cache.set(key, game.pk, 3600)
            _created(request, game)
            return redirect("pbem-game", game_id=game.pk)
    return render(request, "pbem/practice.html", {"form": form, "spec": spec, "kind": kind})


# ---------------------------------------------------------------------------------------------
# Invitations
# ---------------------------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "POST"])
def invite(request, token: str):
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    with _seat_language(request, seat):
        return _invite(request, seat, token)


def _invite(request, seat: Seat, token: str):
    if request.method == "POST":
        started = services.accept_invitation(seat)
        if started:
            messages.success(request, _("You accepted, and the table is full: the game has begun."))
        else:
            messages.success(request, _("You accepted. The game starts when every player has accepted."))
        return redirect("pbem-seat", token=token)
    context = _game_context(seat.game)
    context.update(seat=seat, token=token, seat_colour=_colour_words(seat.game, seat))
    return _private(render(request, "pbem/invite.html", context))


# ---------------------------------------------------------------------------------------------
# The seat page
# ---------------------------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "POST"])
def seat_page(request, token: str):
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    with _seat_language(request, seat):
        return _seat_page(request, seat, token)


def _seat_language(request, seat: Seat):
    """The seat's pages in its player's language: the one chosen, else (the first visit) the
    browser's Accept-Language, kept for the seat's notices too."""
    return languages.reading(languages.first_visit(seat, request.META.get("HTTP_ACCEPT_LANGUAGE")))


@require_http_methods(["POST"])
def seat_language(request, token: str):
    """The seat page's language chooser: the player's language in all their games not over, and
    for the games they join later (the same as 'language de' by mail; not in the log)."""
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    code = languages.known(request.POST.get("language", ""))
    if code is not None:
        languages.set_for_player(seat.email, code)
        with languages.reading(code):
            messages.success(request, _("Your language is now %(language)s.") % {"language": languages.LANGUAGES[code]})
    return redirect(reverse("pbem-seat", args=[token]))


def _seat_page(request, seat: Seat, token: str):
    game = seat.game
    spec = get_game(game.kind)
    state = eventlog.load(game).state
    acting = (
        game.status == GameStatus.RUNNING and state["game"] is not None and may_act(spec, state["game"], seat.number)
    )
    menu = choosing.menu(spec, state["game"], seat.number) if acting else None
    legal = [menu.line(c) for g in menu.groups for c in g.choices] if menu else []
    here = reverse("pbem-seat", args=[token])
    form = CommandForm(legal, initial={"expected_version": game.version, "submission_key": new_submission_key()})
    say_form = SayForm(initial={"submission_key": new_submission_key()}, auto_id="say_%s")
    status = 200
    if request.method == "POST":
        posted = (
            SayForm(request.POST, auto_id="say_%s") if "message" in request.POST else CommandForm(legal, request.POST)
        )
        stored = _store_posted(seat, token, posted)
        if isinstance(stored, HttpResponse):
            return stored
        status = stored
        if isinstance(posted, SayForm):
            say_form = posted
        else:
            form = posted
    submission = _submission(request, seat)
    if submission and submission["refused"] and request.method == "GET":
        initial = {"expected_version": game.version, "text": submission["text"], "submission_key": new_submission_key()}
        form = CommandForm(legal, initial=initial)
    context = _game_context(game)
    context.update(
        seat=seat,
        seat_colour=_colour_words(game, seat),
        token=token,
        acting=acting,
        form=form,
        say_form=say_form,
        submission=submission,
        # Learning that the game moved on: live.js, or without JavaScript a refresh while waiting.
        live=game.status in (GameStatus.OPEN, GameStatus.RUNNING, GameStatus.PAUSED),
        refresh_seconds=REFRESH_SECONDS,
        poll_seconds=f"{live.poll_seconds():g}",
        deadline=(game.deadlines or {}).get(str(seat.number), ""),
        deadline_text=_when((game.deadlines or {}).get(str(seat.number), ""), seat.time_zone),
        time_left=selectors.left_text(selectors.seconds_left(game).get(str(seat.number), 0)),
        bank_text=_bank_text(game, state, seat.number),
        clock_text=selectors.clock_text(game.clock),
        awaited=_awaited(game, context["names"], seat.time_zone),
        reader_zone=seat.time_zone or "UTC",
        calendar_url=calendar.url_of(seat.email),
        **_channels_context(seat),
        vacation=_vacation_of(state, seat.number),
        rest_days=_rest_of(state, seat.number),
        recent=selectors.feed(game, seat.number, last=12),  # the panel reads what it shows
        talk=_talk_of(game, seat.number),
        help_rows=help_rows(selectors.help_text(spec, state, seat.number)),
        started=state["meta"]["started"],
        # The seat's orders given ahead: its own page only (pbem.play.orders).
        orders_text=orders.listing(spec, state, seat.number) if state["meta"]["started"] else "",
        pending=[s for s in context["seats"] if not s.invite_accepted],
        chooser=_chooser_step(request, menu, here),
        language=languages.of_seat(seat),
        languages=languages.LANGUAGES.items(),
        **_board(spec, state, seat.number, chooser.board_links(menu, here) if menu else None),
    )
    return _private(render(request, "pbem/seat.html", context, status=status))


def _rest_of(state: dict, number: int) -> list[dict] | None:
    """The week with the seat's rest days ticked, for its page (a game with a clock only)."""
    meta = state["meta"]
    if "clock" not in meta:
        return None
    rest = (meta.get("rest") or {}).get(str(number)) or {"days": []}
    return [{"day": day, "on": day in rest["days"]} for day in clocks.WEEKDAYS]


def _vacation_of(state: dict, number: int) -> dict | None:
    """The seat's vacation, for its page: what is left now, absences taken, away until."""
    meta = state["meta"]
    if not (meta.get("clock") or {}).get("vacation"):
        return None
    now = timezone.now()
    held = clocks.vacation_at(meta, number, now)
    limits = meta["clock"]["vacation"]
    away = held["until"] and datetime.fromisoformat(held["until"]) > now
    return {
        "left": selectors.left_words(held["left"]),
        "taken": held["taken"],
        "absences": limits["absences"],
        "longest": limits["longest"],
        "until": held["until"] if away else "",
    }


@require_http_methods(["POST"])
def seat_calendar_new(request, token: str):
    """The seat page's button: a new calendar feed link for the seat's player (every game of
    theirs); the old link stops working at once."""
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    calendar.renew(seat.email)
    with _seat_language(request, seat):
        messages.success(request, _("Your calendar has a new link; the old one no longer works."))
    return redirect(f"{reverse('pbem-seat', args=[token])}#calendar")


def _channels_context(seat: Seat) -> dict:
    """The seat page's channels and delivery: the player's channels (masked), the table's, and
    whose mail at this table bounces (names, never addresses)."""
    table = channels.table_channel(seat.game_id)
    return {
        "channels": [
            (n, c, channels.describe(c)) for n, c in enumerate(channels.numbered(seat.email, seat.game_id), 1)
        ],
        "table_channel": channels.describe(table) if table is not None else "",
        "owner": channels.is_owner(seat),
        "mail_failing": channel_news.day_named(seat.mail_failing_since) if seat.mail_failing_since else "",
        "table_trouble": channel_news.failing_at_table(seat.game_id),
    }


@require_http_methods(["POST"])
def seat_channels(request, token: str):
    """The seat page's channels: add (for this game or all), remove, resume, and the owner's
    table channel. Written at once (outside the game's log: a URL holds the service's secret,
    and never comes back in full: the page shows it masked)."""
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    ratelimit.check_submission(seat.pk)
    action, number = request.POST.get("action", ""), request.POST.get("number", "")
    url = request.POST.get("url", "").strip()[:2000]
    try:
        if action == "add":
            added = channels.add(seat.email, url, None if request.POST.get("all") else seat.game_id)
            messages.success(request, _("Channel added: %(shown)s") % {"shown": added.shown})
        elif action in ("remove", "resume"):
            picked = channels.pick(seat.email, seat.game_id, number)
            (channels.remove if action == "remove" else channels.resume)(picked)
            said = _("Channel %(number)s is removed.") if action == "remove" else _("Channel %(number)s is resumed.")
            messages.success(request, said % {"number": number})
        elif action == "table" and channels.is_owner(seat):
            channels.set_table(seat.game_id, url or None)
            messages.success(request, _("The table's channel is set.") if url else _("The table's channel is off."))
        else:
            messages.error(request, _("That is not something the channels part of this page does."))
    except channels.BadChannel as exc:
        messages.error(request, str(exc))
    return redirect(f"{reverse('pbem-seat', args=[token])}#channels")


@require_http_methods(["POST"])
def seat_away(request, token: str):
    """The seat page's vacation button: 'away until DATE' sent as the seat's command (the same
    limits, the same `pbem.Absent` event, the outcome shown as any other command's)."""
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    last_day = request.POST.get("last_day", "").strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", last_day):
        messages.error(request, "Give the last day you are away, as YYYY-MM-DD.")
        return redirect(f"{reverse('pbem-seat', args=[token])}#vacation")
    message = inbox.store_submission(
        seat, f"away until {last_day}", None, channel="web", key=f"away-{last_day}-{seat.game.version}"
    )
    return redirect(f"{reverse('pbem-seat', args=[token])}?sub={message.pk}#outcome")


@require_http_methods(["POST"])
def seat_rest(request, token: str):
    """The seat page's rest days: 'rest DAYS' sent as the seat's command (see commands._cmd_rest)."""
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    days = [day for day in clocks.WEEKDAYS if day in request.POST.getlist("day")]
    text = "rest " + (" ".join(days) if days else "none")
    message = inbox.store_submission(seat, text, None, channel="web", key=f"rest-{'-'.join(days)}-{seat.game.version}")
    return redirect(f"{reverse('pbem-seat', args=[token])}?sub={message.pk}#outcome")


@never_cache
@require_http_methods(["GET", "HEAD"])
def calendar_feed(request, token: str):
    """A player's deadlines as an iCalendar feed (pbem/play/calendar.py). A link that is not a
    player's current one is not found, like any other page: the answer says nothing more."""
    player = calendar.resolve(token)
    if player is None:
        raise Http404()
    response = HttpResponse(calendar.feed(player), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="deadlines.ics"'
    return _private(response)


HELP_PAIR_RE = re.compile(r"^(?P<indent> *)(?P<command>\S(?:.*?\S)?) {2,}(?P<text>\S.*)$")
HELP_CONTINUED_INDENT = 8  # a line indented this far after a command's line goes on with its text


def help_rows(text: str) -> list[dict]:
    """The help text (a command, spaces, what it does; continued lines indented under the text)
    as rows a page lays out for its width: pairs of command and text, lines, gaps."""
    rows: list[dict] = []
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        pair = HELP_PAIR_RE.match(line)
        if not line.strip():
            rows.append({"kind": "gap"})
        elif rows and rows[-1]["kind"] == "pair" and indent >= HELP_CONTINUED_INDENT and not pair:
            rows[-1]["text"] += " " + line.strip()
        elif pair and not pair.group("command").endswith(":"):
            rows.append(
                {"kind": "pair", "indent": indent, "command": pair.group("command"), "text": pair.group("text")}
            )
        else:
            rows.append({"kind": "line", "indent": indent, "text": line.strip()})
    return rows


def _store_posted(seat: Seat, token: str, posted) -> HttpResponse | int:
    """A valid form is stored (the answer is a redirect to its outcome); else the page's status."""
    if not posted.is_valid():
        return 400
    try:
        ratelimit.check_submission(seat.pk)
    except ratelimit.Limited as exc:
        posted.add_error(None, str(exc))
        return 429
    message = inbox.store_submission(
        seat,
        posted.command_text(),
        posted.cleaned_data.get("expected_version"),
        channel="web",
        key=posted.cleaned_data.get("submission_key") or "",
    )
    return redirect(f"{reverse('pbem-seat', args=[token])}?sub={message.pk}#outcome")


def _chooser_step(request, menu, here: str):
    if not menu:
        return None
    return chooser.step(
        menu,
        here,
        group=request.GET.get("group", ""),
        pick=request.GET.get("pick", ""),
        query=request.GET.get("q", ""),
        page=_page_number(request),
    )


@never_cache
@require_http_methods(["GET"])
async def seat_wait(request, token: str):
    """The seat page's long poll (pbem/static/pbem/live.js): answers once the game's version
    passes ?version=N, or after ?timeout seconds (bounded by pbem.web.live), with what changed.
    Async: under ASGI (config.asgi) a wait holds no thread (pbem/web/live.py)."""
    holds_thread = not isinstance(request, ASGIRequest)
    seat = await live.blocking(_token_seat)(request, token)
    if isinstance(seat, HttpResponse):
        return JsonResponse({"code": "bad_token", "message": _("This link does not work")}, status=seat.status_code)
    raw, raw_timeout = request.GET.get("version", ""), request.GET.get("timeout", "")
    if not raw.isdigit() or len(raw) > 10:
        return JsonResponse({"code": "invalid", "message": "Give the version the page shows: ?version=N."}, status=400)
    timeout = min(int(raw_timeout), 25) if raw_timeout.isdigit() and len(raw_timeout) < 4 else live.max_wait()
    try:
        row = await live.wait_for_version(
            seat.game_id, int(raw), timeout, seat_id=seat.pk, holds_thread=holds_thread and timeout > 0
        )
    except live.Replaced:
        replaced = JsonResponse(
            {"code": "replaced", "message": _("A newer wait of this seat took over from this one.")}, status=409
        )
        replaced._has_been_logged = True  # type: ignore[attr-defined]  # Django's own mark: no log line
        return replaced
    except live.Busy:
        busy = JsonResponse(
            {"code": "busy", "message": _("Too many clients are waiting right now: ask again in a while.")}, status=429
        )
        busy["Retry-After"] = live.retry_after()
        busy._has_been_logged = True  # type: ignore[attr-defined]
        return busy
    awaited = (row or {}).get("awaited") or []
    return _private(
        JsonResponse(
            {
                "version": (row or {}).get("version"),
                "changed": ((row or {}).get("version") or 0) > int(raw),
                "status": (row or {}).get("status"),
                "my_turn": seat.number in awaited,
            }
        )
    )


def _page_number(request) -> int:
    raw = request.GET.get("page", "")
    return int(raw) if raw.isdigit() and len(raw) < 6 else 1


def _submission(request, seat: Seat) -> dict | None:
    raw_id = request.GET.get("sub", "")
    if not raw_id.isdigit():
        return None
    message = InboundMessage.objects.filter(pk=int(raw_id), seat=seat, channel="web").first()
    if message is None:
        return None
    try:
        text = json.loads(bytes(message.raw).decode()).get("text", "")
    except (ValueError, AttributeError):
        text = ""
    outcome = message.outcome or ""
    return {
        "message": message,
        "text": text,
        "done": message.status != InboundStatus.RECEIVED,
        "refused": message.status == InboundStatus.REFUSED,
        "outcome": outcome,
        # The refusal's reason; the moves the seat may make are the chooser below, not a list here.
        "reason": outcome.split(submissions.legal_list(), 1)[0],
        "code": getattr(message, "error_code", ""),
    }


# ---------------------------------------------------------------------------------------------
# History and replay (a seat's or a spectator's)
# ---------------------------------------------------------------------------------------------


@never_cache
def seat_history(request, token: str):
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    return _private(_replay(request, seat.game, seat, reverse("pbem-seat_history", args=[token]), token))


def game_history(request, game_id: int):
    game = _game_or_404(game_id)
    return _replay(request, game, None, reverse("pbem-game_history", args=[game.pk]))


def _replay(request, game: Game, seat: Seat | None, base: str, token: str = "") -> HttpResponse:
    spec = get_game(game.kind)
    number = seat.number if seat else None
    at = _requested_event(request, game, spec)
    if isinstance(at, HttpResponse):
        return at
    context = _game_context(game)
    state = selectors.state_at(game, at)
    items = selectors.feed(game, number)
    whole = request.GET.get("all") == "1"
    shown = items if whole else [i for i in items if at - REPLAY_WINDOW <= i.seq <= at + REPLAY_WINDOW]
    summary = spec.summary(state["game"]) if state["game"] is not None else {}
    zone = (seat.time_zone or "UTC") if seat else _reader_zone(request.COOKIES.get("pbem_zone") or "UTC")
    context.update(
        awaited=_awaited(game, context["names"], zone),  # now, whichever event the replay shows
        reader_zone=zone,
        seat=seat,
        seat_token=token,
        at=at,
        base=base,
        items=shown,
        whole=whole,
        talk=_talk(items),
        event=next((i for i in items if i.seq == at), None),
        first=1 if game.version else 0,
        prev=max(at - 1, 0),
        next=min(at + 1, game.version),
        last=game.version,
        at_round=int(summary.get("round") or 0),
        at_phase=game_text(game.kind, str(summary.get("phase") or "")),
        rounds=list(range(1, max(game.round, 0) + 1)),
        **_board(spec, state, number),
    )
    return render(request, "pbem/history.html", context)


def _requested_event(request, game: Game, spec) -> int | HttpResponse:
    """?at=N (an event number), or ?round=R (the first event of round R); default: the newest."""
    raw_round = request.GET.get("round", "")
    if raw_round.isdigit():
        return _first_event_of_round(game, spec, int(raw_round))
    raw = request.GET.get("at", "")
    if raw == "":
        return game.version
    if not raw.isdigit():
        return render(
            request,
            "pbem/problem.html",
            {"title": _("No such event"), "message": _("'%(raw)s' is not an event number.") % {"raw": raw[:40]}},
            status=400,
        )
    return min(int(raw), game.version)


def _first_event_of_round(game: Game, spec, wanted: int) -> int:
    """Folds the log once (skipping what was undone), noting where the round first reaches `wanted`."""
    state, undone = eventlog.new_state(), eventlog.undone_seqs(game.pk)
    rows = game.events.order_by("seq").values_list(*eventlog.EVENT_FIELDS)
    for row in rows.iterator(chunk_size=500):
        state = eventlog.fold_rows(spec, state, [row], undone)
        if state["game"] is not None and int(spec.summary(state["game"]).get("round") or 0) >= wanted:
            return row[0]
    return game.version


# ---------------------------------------------------------------------------------------------
# Spectator and audit pages
# ---------------------------------------------------------------------------------------------


def game_page(request, game_id: int):
    game = _game_or_404(game_id)
    spec = get_game(game.kind)
    state = eventlog.load(game).state
    context = _game_context(game)
    # A spectator's zone is theirs to give (?zone=Europe/Berlin, kept in a cookie): else UTC.
    zone = _reader_zone(request.GET.get("zone") or request.COOKIES.get("pbem_zone") or "UTC")
    context.update(awaited=_awaited(game, context["names"], zone), reader_zone=zone)
    items = selectors.feed(game, None, last=15)  # the panel reads what it shows
    context.update(
        recent=items,
        talk=_talk_of(game, None),
        started=state["meta"]["started"],
        pending=[s for s in context["seats"] if not s.invite_accepted],
        **_board(spec, state, None),
    )
    response = render(request, "pbem/game.html", context)
    given = request.GET.get("zone", "")
    if given and (zone != "UTC" or given.strip().lower() == "utc"):
        response.set_cookie("pbem_zone", zone, max_age=365 * 86400, samesite="Lax")
    return response


def _reader_zone(name: str) -> str:
    """An IANA zone name a reader gave, as the zone command knows it; UTC for anything else."""
    from pbem.play.commands import ZONE_NAMES

    return ZONE_NAMES.get(name.strip().lower().replace(" ", "_"), "UTC") if len(name) < 64 else "UTC"


def _heads_start(game: Game, before: str | None) -> int | None:
    """Where the page of heads asked for (?heads_before=N) starts; None: the newest."""
    try:
        start = int(before) if before else None
    except ValueError:
        return None
    return start if start is not None and 1 <= start <= game.version + 1 else None


def _heads_page(game: Game, start: int | None) -> dict:
    """A page of the heads table (anchors.HEADS_PAGE versions, newest first, below `start`)."""
    heads = anchors.heads_by_version(game, before=start)
    older = heads[-1][0] if heads and heads[-1][0] > 1 else None
    newer = None if start is None else (start + anchors.HEADS_PAGE if start + anchors.HEADS_PAGE <= game.version else 0)
    return {"heads": heads, "heads_older": older, "heads_newer": newer}


# The audit page's kept part is rendered again when this changes (what it shows or how).
AUDIT_KEPT_FORM = 1


def _audit_kept_part(game: Game, report: checks.Report, start: int | None, shown: bool, over: bool) -> str:
    """The part of the audit page that lists what the log and its anchors hold: the newest mailed
    heads, a page of the head at each version, and once the game is over every random outcome
    re-derived. Rendered once per version (the log is append-only: at a version it never changes),
    set of anchors (report.anchors), page and language, and kept: its tables grow with the log,
    and rendering them each time made the page 2.6-4.5x slower at 1,000 events than at 10."""
    key = (
        f"pbem:audit-kept:{AUDIT_KEPT_FORM}:{game.pk}:{game.version}:{game.head_hash}:{report.anchors}:"
        f"{start}:{int(shown)}:{int(over)}:{get_language()}"
    )
    html = cache.get(key)
    if html is None:
        context = {
            "game": game,
            "heads_shown": shown,
            "withheld": selectors.WITHHELD,
            "heads_page": anchors.HEADS_PAGE,
            # The heads the notices quoted, as each mail showed it, and whether the log still holds it.
            "mailed_heads": anchors.mailed_heads(game, newest=anchors.HEADS_PAGE) if shown else [],
            "draws": checks.draws_table(game) if over else None,
            **(_heads_page(game, start) if shown else {"heads": [], "heads_older": None, "heads_newer": None}),
        }
        html = render_to_string("pbem/_audit_kept.html", context)
        cache.set(key, html, checks.CACHE_SECONDS)
    return mark_safe(html)  # noqa: S308 - rendered by the template engine, which escaped it


@require_http_methods(["GET", "POST"])
def game_audit(request, game_id: int):
    game = _game_or_404(game_id)
    report = checks.verify(game, cached=True)  # the walk kept per version: a new event is a new key
    context = _game_context(game)
    over = context["over"]
    seed = game.seed if over else None
    form, head_checks, status = HeadForm(), None, 200
    heads_shown = selectors.hashes_public(game)
    if request.method == "POST":
        form = HeadForm(request.POST)
        if not heads_shown:
            # Whether a head is in the log would confirm a guess at a hidden payload (scheme 1).
            form.add_error(None, _("This game's heads are %(withheld)s.") % {"withheld": selectors.WITHHELD})
        elif form.is_valid():
            try:
                head_checks = anchors.check_heads(game, anchors.heads_from_paste(game, form.cleaned_data["head"]))
            except anchors.NoHead as exc:
                form.add_error("head", str(said(exc.args[0])))
        if form.errors:
            status = 400
    context.update(
        report=report,
        seed=seed,
        chain_ok=not checks.chain_problems_of(report),
        scheme_text=checks.scheme_text(report.scheme),
        seed_matches=bool(seed and hashlib.sha256(bytes.fromhex(seed)).hexdigest() == game.seed_commitment),
        head_form=form,
        head_checks=head_checks,
        heads_shown=heads_shown,
        withheld=selectors.WITHHELD,
        kept_part=_audit_kept_part(
            game, report, _heads_start(game, request.GET.get("heads_before")), heads_shown, over
        ),
    )
    return render(request, "pbem/audit.html", context, status=status)


def _log_download(game: Game, seat: Seat | None) -> HttpResponse:
    """The log as one JSON document (pbem/audit/export.py), for `python -m pbem.verify` to check offline."""
    doc = export.document(game, seat.number if seat else None)
    response = HttpResponse(
        json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
        content_type="application/json; charset=utf-8",
    )
    reader = "" if seat is None or doc["reader"]["complete"] else f"-seat{seat.number}"
    response["Content-Disposition"] = f'attachment; filename="game{game.pk}-v{game.version}{reader}.json"'
    return response


def game_log(request, game_id: int):
    return _log_download(_game_or_404(game_id), None)


@never_cache
def seat_log(request, token: str):
    seat = _token_seat(request, token)
    if isinstance(seat, HttpResponse):
        return seat
    return _private(_log_download(seat.game, seat))


@require_http_methods(["GET", "HEAD"])
def heads_feed(request):
    """The public heads feed (pbem/audit/publish.py): ?after=N gives the entries after N, a page
    at a time; `next_after` says where the next page starts. Anyone may mirror it."""
    try:
        after = int(request.GET.get("after", "0"))
        limit = int(request.GET.get("limit", str(publish.PAGE)))
    except ValueError:
        return JsonResponse({"code": "bad_request", "message": "after and limit are whole numbers"}, status=400)
    if after < 0 or after > 2**62 or limit < 1:
        return JsonResponse({"code": "bad_request", "message": "after >= 0 and limit >= 1"}, status=400)
    response = JsonResponse(publish.page(after, limit))
    response["Cache-Control"] = "public, max-age=30"
    response["Access-Control-Allow-Origin"] = "*"  # a mirror may read it from anywhere
    return response


# ---------------------------------------------------------------------------------------------
# Health (for load balancers, compose healthchecks and the operator)
# ---------------------------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "HEAD"])
def health_check(request):
    """200 when the database and broker answer and the timers run; 503 with the reasons when not."""
    healthy, body = health.report()
    return JsonResponse(body, status=200 if healthy else 503)
