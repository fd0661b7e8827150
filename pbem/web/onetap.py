"""One-tap moves: the page a move link in a notice opens (pbem.play.taps signs the links).

Opening the link changes nothing: mail scanners, link previews and a phone's prefetch follow
links, so the page only shows the move and asks to confirm it (a form that posts to the same
address, with Django's CSRF token). The confirmation is stored like the seat page's form, as
the seat's move against the version of the notice, and processed by the same task: a link the
game has moved past is refused as stale, a double tap applies once (the link is the key).
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from pbem.doors import inbox
from pbem.log import eventlog
from pbem.mail import replies
from pbem.models import Game, GameStatus, Seat
from pbem.ops import ratelimit
from pbem.play import addressing, choosing, services, taps, versioned
from pbem.registry import get_game


class Refused(Exception):
    def __init__(self, title: str, message: str, status: int, seat: Seat | None = None):
        super().__init__(message)
        self.title, self.message, self.status, self.seat = title, message, status, seat


@never_cache
@require_http_methods(["GET", "POST"])
def tap(request, link: str):
    try:
        seat, tapped, line, expected = _move_of(link)
    except Refused as refused:
        return _refused(request, refused)
    if request.method == "POST":
        return _confirmed(request, seat, tapped, line, expected)
    context = {"seat": seat, "game": seat.game, "line": line, "seat_url": addressing.seat_url(seat)}
    return _private(render(request, "pbem/tap.html", context))


def _move_of(link: str) -> tuple[Seat, taps.Tap, str, int | None]:
    """The seat, the link, the move it makes, and the version the move is to be judged against
    (None: the game moved on, but not in a way that changes what this move means)."""
    try:
        tapped = taps.read(link)
    except taps.TapProblem as exc:
        raise Refused("This link does not work", str(exc), 410 if exc.code == "expired" else 403) from None
    seat = Seat.objects.select_related("game").filter(pk=tapped.seat_id).first()
    if seat is None or seat.token_generation != tapped.generation:
        raise Refused("This link is no longer yours", "This seat has a new player since this mail was sent.", 403)
    game = seat.game
    if tapped.version > game.version or game.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
        raise Refused("This game is not running", _not_running(game), 409, seat)
    line = _line_at(game, seat, tapped)
    expected: int | None = tapped.version
    if services.moved_on_for(game.pk, seat.number, tapped.version):
        if not replies.means_the_same(seat, [line], tapped.version, game):
            raise Refused("This move is out of date", _stale(game, seat, line), 409, seat)
        expected = None  # the game moved on, but this move means what it meant and is still legal
    return seat, tapped, line, expected


def _line_at(game: Game, seat: Seat, tapped: taps.Tap) -> str:
    """The command the link's code stood for in the notice's menu (at the notice's version)."""
    loaded = eventlog.load(game, at=tapped.version)
    state = loaded.state
    offered = (
        versioned.kept(
            "menu",
            game.pk,
            min(loaded.version, game.version),
            seat.number,
            lambda: choosing.menu(get_game(game.kind), state["game"], seat.number),
        )
        if state["game"] is not None
        else None
    )
    choice = offered.by_code(tapped.code) if offered is not None else None
    if offered is None or choice is None:
        raise Refused("This link names no move", "The notice it came from offered no such move.", 404, seat)
    return offered.line(choice)


def _confirmed(request, seat: Seat, tapped: taps.Tap, line: str, expected: int | None) -> HttpResponse:
    try:
        ratelimit.check_submission(seat.pk)
    except ratelimit.Limited as exc:
        return _refused(request, Refused("Slow down", str(exc), 429, seat))
    message = inbox.store_submission(seat, line, expected, channel="web", key=tapped.key, by_link=True)
    return redirect(f"{reverse('pbem-seat', args=[addressing.token_for(seat)])}?sub={message.pk}#outcome")


def _not_running(game: Game) -> str:
    if game.status == GameStatus.FINISHED:
        return "This game is over: its moves can no longer be made."
    return "This game is not running: nothing can be played in it now."


def _stale(game: Game, seat: Seat, line: str) -> str:
    awaited = game.awaited or []
    now = (
        "It is still your move: your seat page shows your moves now."
        if seat.number in awaited
        else "It is not your move now; you get a notice when it is."
    )
    return f"The game has moved on since the mail with this link, so “{line}” was not made. {now}"


def _refused(request, refused: Refused) -> HttpResponse:
    context = {
        "title": refused.title,
        "message": refused.message,
        "seat_url": addressing.seat_url(refused.seat) if refused.seat is not None else "",
    }
    return _private(render(request, "pbem/tap_refused.html", context, status=refused.status))


def _private(response: HttpResponse) -> HttpResponse:
    # A move link is a secret link, like a seat page's (pbem.web.views._private).
    response["Referrer-Policy"] = "same-origin"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response
