"""The HTTP API (django-ninja), mounted at /api/; OpenAPI at /api/openapi.json, docs at /api/docs.

Every answer goes through pbem.play.selectors / pbem.web.views' readers, so it shows exactly what the
caller may see: a seat (X-Seat-Token header) its own view, anyone else the public one. The seed
and the random draws appear only once the game is over. Errors are JSON:
{"code": "machine_readable", "message": "what a person reads", "detail": ...}.
"""

from __future__ import annotations

import functools
import logging
from typing import Annotated, Any, Literal, overload

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.handlers.asgi import ASGIRequest
from django.core.validators import validate_email
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from ninja import Field, Header, NinjaAPI, Query, Schema, Swagger
from ninja.errors import HttpError
from ninja.errors import ValidationError as NinjaValidationError
from ninja.responses import Status
from pydantic import AfterValidator

from games.base import may_act
from pbem.audit import checks, export, publish
from pbem.log import anchors, chain, eventlog
from pbem.models import Game, GameStatus, Seat
from pbem.ops import ratelimit
from pbem.play import addressing, channels, orders, selectors, services
from pbem.registry import UnknownGame, all_games, get_game
from pbem.web import live

log = logging.getLogger(__name__)

TOKEN_HEADER = "X-Seat-Token"
SECURITY_SCHEME = "SeatToken"
# The seat token as OpenAPI's security scheme (the docs' Authorize button): required by the
# seat's own endpoints, optional where a spectator gets the public answer instead.
SEAT_TOKEN: dict[str, Any] = {"security": [{SECURITY_SCHEME: []}]}
SEAT_TOKEN_OPTIONAL: dict[str, Any] = {"security": [{}, {SECURITY_SCHEME: []}]}


class PbemApi(NinjaAPI):
    """The API, with the seat token declared as an apiKey security scheme. Each endpoint reads
    the header itself (a missing or bad token is the endpoint's 403, in the API's error shape)."""

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        schema.setdefault("components", {}).setdefault("securitySchemes", {})[SECURITY_SCHEME] = {
            "type": "apiKey",
            "in": "header",
            "name": TOKEN_HEADER,
            "description": "The seat's token, from the links in its mails (the part after /play/).",
        }
        return schema


api = PbemApi(
    title="pbem",
    version="1",
    description="Play-by-email board games: games, seats, commands, event feeds and audits. "
    "A seat authenticates with its token in the X-Seat-Token header (Authorize, above). "
    'Every error is JSON: {"code": …, "message": …, "detail": …}.',
    urls_namespace="api",
    # Swagger UI from django-ninja's own static files (the "ninja" app), never from a CDN, and
    # no call to the online validator.
    docs=Swagger(settings={"validatorUrl": None, "persistAuthorization": False}),
)

MAX_ID = 2**62


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, detail: Any = None, headers: dict | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.detail = status, code, message, detail
        self.headers = headers or {}


class ErrorOut(Schema):
    code: str = Field(description="machine-readable reason, e.g. stale, illegal, bad_token")
    message: str = Field(description="the reason in words a person understands")
    detail: Any = None


def _error(request, status: int, code: str, message: str, detail: Any = None, headers: dict | None = None):
    body = {"code": code, "message": message}
    if detail is not None:
        body["detail"] = detail
    response = api.create_response(request, body, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


@api.exception_handler(ApiError)
def _api_error(request, exc: ApiError):
    response = _error(request, exc.status, exc.code, exc.message, exc.detail, exc.headers)
    if exc.code in QUIET_CODES:
        response._has_been_logged = True  # Django's own mark: no log line
    return response


# A flood of reopened long polls is answered by the thousand: no warning line for each.
QUIET_CODES = {"busy", "replaced"}


@api.exception_handler(NinjaValidationError)
def _validation_error(request, exc: NinjaValidationError):
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e.get('loc', ()) if p not in ('body', 'query', 'path', 'header'))}: "
        f"{e.get('msg', 'invalid')}"
        for e in exc.errors
    )
    return _error(
        request,
        422,
        "invalid",
        _("The request is not valid: %(problems)s") % {"problems": problems},
        _plain(exc.errors),
    )


@api.exception_handler(HttpError)
def _http_error(request, exc: HttpError):
    return _error(request, exc.status_code, "bad_request", str(exc.message))


@api.exception_handler(Exception)
def _unexpected(request, exc: Exception):
    log.exception("API error on %s", request.path)
    return _error(
        request,
        500,
        "internal",
        _(
            "Something went wrong on our side; nothing you sent was applied "
            "unless the game's history says so. Please try again later."
        ),
    )


@api.exception_handler(RequestDataTooBig)
def _too_big(request, exc: RequestDataTooBig):
    return _error(request, 413, "too_large", _("The request body is larger than the API takes."))


@api.exception_handler(ratelimit.Limited)
def _limited(request, exc: ratelimit.Limited):
    return _error(request, 429, "rate_limited", str(exc), headers={"Retry-After": str(exc.retry_after)})


def _plain(value):
    """Validation error details made JSON-safe (pydantic puts exceptions in `ctx`)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


# HTTP status of each refusal code of services.ServiceError.
SERVICE_STATUS = {
    "stale": 409,
    "not_your_turn": 409,
    "paused": 409,
    "not_running": 409,
    "busy": 409,
    "already_started": 409,
    "no_undo": 409,
    "illegal": 422,
    "empty": 400,
    "no_seat": 404,
    "not_found": 404,
    "bad_options": 422,
    "rate_limited": 429,
}

E400 = {400: ErrorOut}
E403 = {403: ErrorOut, 429: ErrorOut}
E404 = {404: ErrorOut}
E422 = {422: ErrorOut}
E413 = {413: ErrorOut}  # a body over PBEM_API_MAX_BODY_BYTES (pbem.web.middleware)


# ---------------------------------------------------------------------------------------------
# Schemas
# ---------------------------------------------------------------------------------------------


def _no_nul(value: str) -> str:
    # PostgreSQL stores no NUL character in text or JSON: refuse it here, as a 422, rather than
    # fail in the database.
    if "\x00" in value:
        raise ValueError("must not contain a NUL character")
    return value


Text = Annotated[str, AfterValidator(_no_nul)]


def _check_text(name: str, value: str | None) -> None:
    if value and "\x00" in value:
        raise ApiError(
            422, "invalid", _("The request is not valid: %(name)s must not contain a NUL character.") % {"name": name}
        )


class SeatOut(Schema):
    number: int
    name: str
    colour: str
    accepted: bool


class GameOut(Schema):
    id: int
    kind: str
    title: str
    status: str
    round: int
    phase: str
    version: int
    players: int
    seats: list[SeatOut]
    awaited: list[int]
    deadlines: dict[str, str]
    seconds_left: dict[str, int] = Field(
        default_factory=dict, description="each awaited seat's seconds to its deadline, as of this answer"
    )
    clock: dict = Field(
        default_factory=dict,
        description="the table's clock (kind fixed, bank or grace; durations in seconds); {}: a fixed "
        "period per move, made before clocks",
    )
    scores: list[int]
    seed_commitment: str
    seed: str | None = Field(None, description="revealed only once the game is over")
    created_at: str


class GameDetailOut(GameOut):
    view: dict | None = Field(None, description="the public view (what a spectator sees)")
    board_text: str
    board_html: str
    banks: dict[str, int] = Field(default_factory=dict, description="a bank clock: each seat's seconds in its bank")


class ClockIn(Schema):
    kind: Literal["fixed", "bank", "grace"] = Field(
        description="fixed: `period` a move; bank: `initial` + `increment` a move, at most `cap`; grace: `grace` free each move, then the bank"
    )
    period: int | None = Field(None, description="seconds (fixed)")
    initial: int | None = Field(None, description="seconds in the bank at the start")
    increment: int | None = Field(None, description="seconds added after each move")
    cap: int | None = Field(None, description="the most the bank holds, in seconds")
    grace: int | None = Field(None, description="seconds free at the start of each move (grace)")


class PlayerIn(Schema):
    name: Text = Field(min_length=1, max_length=100)
    email: Text = Field(min_length=3, max_length=254)
    language: Literal["", "en", "de", "fr"] = Field(
        "", description="the language the player reads (blank: their own default, else their first visit's)"
    )


class GameCreateIn(Schema):
    kind: Text = Field(min_length=1, max_length=40, description="a registered game, see GET /api/kinds")
    players: list[PlayerIn] = Field(min_length=1, max_length=12)
    options: dict[Text, Text | int | bool] = Field(default_factory=dict)
    title: Text = Field("", max_length=200)
    deadline_hours: int = Field(48, ge=1, le=24 * 60)
    deadline_minutes: int | None = Field(
        None, ge=1, le=24 * 60 * 60, description="the deadline in minutes instead of hours (e.g. 5, to watch one pass)"
    )
    notices: Literal["every", "digest", "none"] = "every"
    absence: Literal["standin", "minimal", "master"] = Field(
        "standin",
        description="a seat that misses `standin_after` deadlines in a row: played by the stand-in "
        "until its player replies 'back', the rules' minimal action each time, or the "
        "Master of Seals decides",
    )
    standin_after: int = Field(2, ge=1, le=20)
    clock: ClockIn | None = Field(None, description="the table's clock; none: `deadline_hours` a move")


class OptionOut(Schema):
    name: str
    label: str  # what the new-game form calls it (English; the name, spaced, by default)
    default: str | int | bool
    help: str
    choices: list[str | int | bool] | None = None
    minimum: int | None = None
    maximum: int | None = None


class KindOut(Schema):
    name: str
    title: str
    min_players: int
    max_players: int
    rulebook: str
    options: list[OptionOut]


class LegalOut(Schema):
    text: str = Field(description="the command as typed in a mail or the web form")
    command: dict = Field(description="the structured command, as POST /commands takes it")


class SeatViewOut(Schema):
    game_id: int
    seat: int
    name: str
    status: str
    version: int
    awaited: list[int]
    my_turn: bool
    deadline: str | None
    view: dict | None
    board_text: str
    board_html: str
    legal: list[LegalOut]


class LegalListOut(Schema):
    version: int
    may_act: bool
    legal: list[LegalOut]


class CommandIn(Schema):
    text: Text | None = Field(None, max_length=10000, description="command lines as in a mail, one a line")
    command: dict | None = Field(None, description="one structured command, as listed by /seat/legal")
    expected_version: int | None = Field(None, ge=0, description="the version you saw; 409 if it moved on")


class OutcomeOut(Schema):
    version: int
    applied: list[str]
    answers: list[str]
    duplicate: bool
    events: int


class FeedItemOut(Schema):
    seq: int
    type: str
    data: dict | None
    actor: str
    actor_seat: int | None
    created_at: str
    text: str
    hash: str | None = Field(
        description="this event's hash in the game's chain (pbem/CHAIN.md); null for a "
        "game of chain scheme 1 until it is over (its hashes would confirm "
        "guesses at hidden payloads)"
    )
    prev_hash: str | None = Field(description="the hash of the event before it (64 zeros for the first)")
    undone: bool
    rng: list | None = Field(None, description="random draws; only once the game is over")
    public: dict | None = Field(None, description="the event's public form (what those who may not see it see)")
    visible_to: list[int] | None = Field(None, description="the seats that may see its payload; null: everyone")
    reveals: bool = False
    schema_version: int = 1
    parts: dict[str, str] | None = Field(
        None,
        description="chain scheme 2: the five parts its hash covers (what, when, payload, draws, origin); "
        "with prev_hash they give the hash, so anyone can check each link without seeing "
        "what is hidden",
    )
    payload_key: str | None = Field(
        None,
        description="chain scheme 2: the key of this payload's commitment, only to a reader who may see "
        "the payload (keyed BLAKE2b-256 of the canonical payload = parts.payload, pbem/CHAIN.md)",
    )


class FeedOut(Schema):
    version: int
    seat: int | None
    chain_scheme: int = Field(description="how this game's hash chain is computed (pbem/CHAIN.md)")
    items: list[FeedItemOut]


class StateAtOut(Schema):
    at: int
    version: int
    seat: int | None
    view: dict | None
    board_text: str
    board_html: str
    round: int
    phase: str


class DrawOut(Schema):
    seq: int
    draws: list
    rederived: bool | None


class AuditOut(Schema):
    game_id: int
    ok: bool
    events: int
    chain_intact: bool
    snapshots_checked: int
    problems: list[str]
    notes: list[str]
    seed_commitment: str
    seed_revealed: bool
    seed: str | None
    draws_checked: int
    draws: list[DrawOut] | None = Field(None, description="every random outcome, once the game is over")
    summary: str
    chain_scheme: int
    chain_scheme_text: str = Field(description="the game's chain scheme in words")
    heads_checked: int = Field(description="heads the outbox mailed out, each still in the log when ok")


class HeadIn(Schema):
    # 20,000 characters hold a whole notice; even all escaped (12 bytes each) they fit the body limit.
    text: Text = Field(
        min_length=1, max_length=20_000, description="a head (VERSION:HASH) or a whole pasted notice, headers and all"
    )


class HeadOut(Schema):
    version: int
    hash: str
    contained: bool = Field(description="the log's event VERSION still has this hash")
    found: str | None = Field(description="the hash the log holds at VERSION (null: no such event)")
    message: str


class HeadsOut(Schema):
    game_id: int
    version: int = Field(description="the game's version now")
    all_contained: bool
    heads: list[HeadOut]


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def _game(game_id: int) -> Game:
    game = Game.objects.filter(pk=game_id).first() if 0 < game_id < MAX_ID else None
    if game is None:
        raise ApiError(404, "not_found", _("There is no game #%(game)s.") % {"game": game_id})
    return game


@overload
def _seat(request, game: Game, token: str | None, required: Literal[True] = True) -> Seat: ...
@overload
def _seat(request, game: Game, token: str | None, required: bool) -> Seat | None: ...
def _seat(request, game: Game, token: str | None, required: bool = True) -> Seat | None:
    if not token:
        if required:
            raise ApiError(
                403, "no_token", _("This needs your seat token in the %(header)s header.") % {"header": TOKEN_HEADER}
            )
        return None
    try:
        return ratelimit.resolve_token(request, token, game.pk)
    except addressing.TokenProblem as exc:
        raise ApiError(
            403, f"bad_token_{exc.code}" if exc.code != "other_game" else "other_game", _(str(exc))
        ) from None


def game_out(game: Game) -> dict:
    seats = sorted(game.seats.all(), key=lambda s: s.number)  # prefetched when listing
    over = selectors.game_over(game)
    seed = game.seed if over else None  # the end (finished or abandoned) reveals the seed
    return {
        "id": game.pk,
        "kind": game.kind,
        "title": game.title,
        "status": game.status,
        "round": game.round,
        "phase": game.phase,
        "version": game.version,
        "players": len(seats),
        "seats": [
            {"number": s.number, "name": s.name, "colour": s.colour, "accepted": s.invite_accepted} for s in seats
        ],
        "awaited": list(game.awaited or []),
        "deadlines": dict(game.deadlines or {}),
        "seconds_left": selectors.seconds_left(game),
        "clock": dict(game.clock or {}),
        "scores": list(game.scores or []),
        "seed_commitment": game.seed_commitment,
        "seed": seed,
        "created_at": game.created_at.isoformat(),
    }


def render_for(game: Game, state: dict, seat: int | None) -> dict:
    """The view of `seat` (None: spectator) with its renders; empty before the deal."""
    spec = get_game(game.kind)
    if state["game"] is None:
        return {"view": None, "board_text": selectors.board_text(spec, state, seat), "board_html": ""}
    view = spec.view(state["game"], seat)
    return {"view": view, "board_text": selectors.board_text(spec, state, seat), "board_html": spec.render_html(view)}


def legal_for(game: Game, state: dict, seat: int) -> list[dict]:
    spec = get_game(game.kind)
    if state["game"] is None or game.status != GameStatus.RUNNING:
        return []
    return [{"text": spec.describe(c), "command": c} for c in spec.legal(state["game"], seat)]


def feed_items(game: Game, seat: int | None, after: int = 0, upto: int | None = None, limit: int | None = None):
    over = selectors.game_over(game)
    items = selectors.feed(game, seat, after=after, upto=upto, limit=limit, sealed=True)
    # Random draws only after the end: the draws of a public event (e.g. the deal's shuffle)
    # can tell what was dealt face down.
    return [dict(item.__dict__, rng=item.rng if over else None) for item in items]


# ---------------------------------------------------------------------------------------------
# Endpoints
# ---------------------------------------------------------------------------------------------


@api.get("/kinds", response=list[KindOut], summary="The games that can be played here")
def list_kinds(request: HttpRequest):
    return [
        {
            "name": spec.name,
            "title": spec.title,
            "min_players": spec.min_players,
            "max_players": spec.max_players,
            "rulebook": spec.rulebook,
            "options": [
                {
                    "name": o.name,
                    "label": o.title,
                    "default": o.default,
                    "help": o.help,
                    "choices": list(o.choices) if o.choices is not None else None,
                    "minimum": o.minimum,
                    "maximum": o.maximum,
                }
                for o in spec.options
            ],
        }
        for spec in all_games().values()
    ]


@api.get("/games", response={200: list[GameOut], **E422}, summary="List games")
def list_games(
    request: HttpRequest,
    status: Literal["open", "running", "paused", "finished", "abandoned"] | None = None,
    kind: str | None = Query(None, max_length=40),
    limit: int = Query(50, ge=1, le=200),
    offset: int = Query(0, ge=0, le=10**6),
):
    _check_text("kind", kind)
    games = Game.objects.all().order_by("-id").prefetch_related("seats")
    if status:
        games = games.filter(status=status)
    if kind:
        games = games.filter(kind=kind)
    return [game_out(g) for g in games[offset : offset + limit]]


@api.post(
    "/games",
    response={201: GameOut, **E400, **E413, **E422, 429: ErrorOut},
    summary="Create a game; every player is invited by mail and it starts when all accept",
)
def create_game(request: HttpRequest, payload: GameCreateIn):
    try:
        get_game(payload.kind)
    except UnknownGame as exc:
        raise ApiError(422, "unknown_game", str(exc)) from None
    for player in payload.players:
        try:
            validate_email(player.email)
        except DjangoValidationError:
            raise ApiError(
                422, "bad_email", _("%(email)s is not an email address.") % {"email": repr(player.email)}
            ) from None
        if not player.name.strip():
            raise ApiError(422, "bad_name", _("Every player needs a name."))
    ratelimit.check_create(request)
    players = [services.PlayerSpec(p.name.strip(), p.email.strip(), p.language) for p in payload.players]
    try:
        game = services.create_game(
            payload.kind,
            players,
            dict(payload.options),
            title=payload.title.strip(),
            deadline_seconds=payload.deadline_minutes * 60
            if payload.deadline_minutes
            else payload.deadline_hours * 3600,
            invited=True,
            notices=payload.notices,
            absence=payload.absence,
            standin_after=payload.standin_after,
            clock=payload.clock.dict(exclude_none=True) if payload.clock else None,
        )
    except services.ServiceError as exc:
        raise ApiError(SERVICE_STATUS.get(exc.code, 400), exc.code, str(exc)) from None
    return Status(201, game_out(game))


@api.get("/games/{game_id}", response={200: GameDetailOut, **E404}, summary="A game's public state")
def game_detail(request: HttpRequest, game_id: int):
    game = _game(game_id)
    state = eventlog.load(game).state
    banks = {seat: held["bank"] for seat, held in state["meta"].get("clocks", {}).items()}
    return {**game_out(game), **render_for(game, state, None), "banks": banks}


BUSY = gettext_lazy("Too many clients are waiting right now: ask again in a while.")


@api.get(
    "/games/{game_id}/seat",
    openapi_extra=SEAT_TOKEN,
    response={200: SeatViewOut, 304: None, **E403, **E404, **E422, 409: ErrorOut},
    summary="A seat's own view (auth: X-Seat-Token); conditional (ETag) and long-polling",
    description="The answer carries an `ETag`: send it back in `If-None-Match` and the answer is "
    "`304 Not Modified` (no body) while nothing the seat sees has changed. With `wait_version=N` "
    "the answer waits until the game's version passes N (at most `timeout` seconds, 25 at "
    "most), then answers as without it: a client learns of the next move with one request "
    "at a time instead of polling. One wait per seat: a newer one ends the one before with "
    "`409 replaced`; with too many clients waiting the answer is `429 busy` at once (ask again "
    "after its `Retry-After` seconds).",
)
async def seat_view(
    request: HttpRequest,
    response: HttpResponse,
    game_id: int,
    token: str | None = Header(None, alias=TOKEN_HEADER),
    if_none_match: str | None = Header(None, alias="If-None-Match", max_length=1000),
    wait_version: int | None = Query(None, ge=0, le=2**31, description="wait until the version passes this"),
    timeout: int = Query(25, ge=0, le=25, description="the longest wait, in seconds"),
):
    # Async: a wait holds no thread under ASGI (config.asgi, where the proxy sends the waits);
    # under WSGI Django gives it the request's thread, bounded per process (pbem/web/live.py).
    holds_thread = not isinstance(request, ASGIRequest)
    if wait_version is not None and timeout > 0 and live.no_free_wait(holds_thread):
        raise ApiError(429, "busy", str(BUSY), headers={"Retry-After": live.retry_after()})
    game, seat = await live.blocking(_game_and_seat)(request, game_id, token)
    if wait_version is not None and game.version <= wait_version:
        try:
            row = {name: getattr(game, name) for name in live.ROW}
            await live.wait_for_version(
                game.pk, wait_version, timeout, seat_id=seat.pk, holds_thread=holds_thread, row=row
            )
        except live.Replaced:
            raise ApiError(409, "replaced", _("A newer wait of this seat took over from this one.")) from None
        except live.Busy:
            raise ApiError(429, "busy", str(BUSY), headers={"Retry-After": live.retry_after()}) from None
    return await live.blocking(_seat_answer)(response, game, seat, if_none_match, wait_version is not None)


def _game_and_seat(request: HttpRequest, game_id: int, token: str | None) -> tuple[Game, Seat]:
    game = _game(game_id)
    return game, _seat(request, game, token)


def _seat_answer(response: HttpResponse, game: Game, seat: Seat, if_none_match: str | None, waited: bool):
    if waited:
        game.refresh_from_db()
    tag = live.etag(
        game.pk,
        seat.number,
        seat.token_generation,
        {"version": game.version, "status": game.status, "awaited": game.awaited, "deadlines": game.deadlines},
    )
    if live.matches(if_none_match, tag):
        not_modified = HttpResponseNotModified()
        not_modified["ETag"] = tag
        return not_modified
    response["ETag"] = tag
    state = eventlog.load(game).state
    deadline = (game.deadlines or {}).get(str(seat.number))
    return {
        "game_id": game.pk,
        "seat": seat.number,
        "name": seat.name,
        "status": game.status,
        "version": game.version,
        "awaited": list(game.awaited or []),
        "my_turn": seat.number in (game.awaited or []),
        "deadline": deadline,
        **render_for(game, state, seat.number),
        "legal": legal_for(game, state, seat.number),
    }


class AcceptOut(Schema):
    seat: int
    accepted: bool
    started: bool = Field(description="this acceptance filled the table and the game began")
    status: str


@api.post(
    "/games/{game_id}/seat/accept",
    openapi_extra=SEAT_TOKEN,
    response={200: AcceptOut, **E403, **E404, **E413, 409: ErrorOut},
    summary="Accept the seat's invitation (auth: X-Seat-Token); the last acceptance starts the game",
)
def seat_accept(request: HttpRequest, game_id: int, token: str | None = Header(None, alias=TOKEN_HEADER)):
    game = _game(game_id)
    seat = _seat(request, game, token)
    if game.status != GameStatus.OPEN and not seat.invite_accepted:
        raise ApiError(
            409,
            "not_open",
            _("Game #%(game)s is %(status)s: it takes no more acceptances.") % {"game": game.pk, "status": game.status},
        )
    started = services.accept_invitation(seat)
    game.refresh_from_db()
    return {"seat": seat.number, "accepted": True, "started": started, "status": game.status}


@api.get(
    "/games/{game_id}/seat/legal",
    openapi_extra=SEAT_TOKEN,
    response={200: LegalListOut, **E403, **E404},
    summary="What the seat may do now (auth: X-Seat-Token)",
)
def seat_legal(request: HttpRequest, game_id: int, token: str | None = Header(None, alias=TOKEN_HEADER)):
    game = _game(game_id)
    seat = _seat(request, game, token)
    state = eventlog.load(game).state
    spec = get_game(game.kind)
    acting = (
        state["game"] is not None and game.status == GameStatus.RUNNING and may_act(spec, state["game"], seat.number)
    )
    return {"version": game.version, "may_act": acting, "legal": legal_for(game, state, seat.number)}


@api.post(
    "/games/{game_id}/commands",
    openapi_extra=SEAT_TOKEN,
    response={200: OutcomeOut, **E400, **E403, **E404, 409: ErrorOut, **E413, **E422},
    summary="Submit command lines or one structured command (auth: X-Seat-Token)",
    description="409: the game moved on (stale expected_version), it is not your turn, or the game "
    "is not running. 422: the rules refuse the command (detail: line and legal commands). "
    "The same Idempotency-Key is applied once.",
)
def submit_command(
    request: HttpRequest,
    game_id: int,
    payload: CommandIn,
    token: str | None = Header(None, alias=TOKEN_HEADER),
    idempotency_key: str | None = Header(None, alias="Idempotency-Key", max_length=150),
):
    game = _game(game_id)
    seat = _seat(request, game, token)
    _check_text("Idempotency-Key", idempotency_key)
    text = (payload.text or "").strip()
    if not text and payload.command is None:
        raise ApiError(400, "empty", _("Send command lines in `text` or one structured `command`."))
    if text and payload.command is not None:
        raise ApiError(400, "ambiguous", _("Send either `text` or `command`, not both."))
    ratelimit.check_submission(seat.pk)
    if payload.command is not None:
        _check_structured(game, seat.number, payload.command)
    causation = f"api:{seat.pk}:{seat.token_generation}:{idempotency_key}" if idempotency_key else ""
    # A repeated key answers "already applied" whatever the game's state now: judged after the
    # first application, the repeat would otherwise look like a move out of turn.
    if _already_applied(game, causation):
        return _duplicate(game)
    try:
        outcome = services.submit(
            game.pk,
            seat.number,
            text or None,
            command=payload.command,
            expected_version=payload.expected_version,
            causation_id=causation,
            actor=services.Actor("seat", seat.number),
        )
    except services.ServiceError as exc:
        if _already_applied(game, causation):  # the same key won a race with this request
            return _duplicate(game)
        if isinstance(exc, services.CommandRejected):
            raise ApiError(
                422, exc.code, str(exc), {"line": exc.line, "line_number": exc.line_number, "legal": exc.legal}
            ) from None
        raise ApiError(SERVICE_STATUS.get(exc.code, 409), exc.code, str(exc)) from None
    return {
        "version": outcome.version,
        "applied": outcome.applied,
        "answers": outcome.answers,
        "duplicate": outcome.duplicate,
        "events": outcome.events,
    }


class OrderOut(Schema):
    id: int
    kind: str
    text: str


class OrdersOut(Schema):
    version: int
    orders: list[OrderOut]


class OrderIn(Schema):
    text: Text = Field(
        ...,
        max_length=2000,
        description="one order line as in a mail: 'orders forced on', 'order …', 'if NAME MOVE then MOVE else MOVE'",
    )


def _orders_out(game: Game, seat: Seat) -> dict:
    state = eventlog.load(game).state
    spec = get_game(game.kind)
    names = state["meta"]["names"]
    held = orders.orders_of(state, seat.number)
    return {
        "version": game.version,
        "orders": [{"id": o["id"], "kind": o["kind"], "text": orders.describe(spec, o, names)} for o in held],
    }


@api.get(
    "/games/{game_id}/orders",
    openapi_extra=SEAT_TOKEN,
    response={200: OrdersOut, **E403, **E404},
    summary="The seat's orders given ahead, seen by no one else (auth: X-Seat-Token)",
)
def seat_orders(request: HttpRequest, game_id: int, token: str | None = Header(None, alias=TOKEN_HEADER)):
    game = _game(game_id)
    return _orders_out(game, _seat(request, game, token))


def _order_line(request: HttpRequest, game_id: int, token: str | None, line: str) -> dict:
    game = _game(game_id)
    seat = _seat(request, game, token)
    ratelimit.check_submission(seat.pk)
    try:
        services.submit(game.pk, seat.number, line, actor=services.Actor("seat", seat.number))
    except services.ServiceError as exc:
        status = 422 if isinstance(exc, services.CommandRejected) else SERVICE_STATUS.get(exc.code, 409)
        raise ApiError(status, exc.code, str(exc)) from None
    game.refresh_from_db()
    return _orders_out(game, seat)


@api.post(
    "/games/{game_id}/orders",
    openapi_extra=SEAT_TOKEN,
    response={200: OrdersOut, **E400, **E403, **E404, 409: ErrorOut, **E422},
    summary="Give an order ahead (auth: X-Seat-Token)",
)
def give_order(
    request: HttpRequest, game_id: int, payload: OrderIn, token: str | None = Header(None, alias=TOKEN_HEADER)
):
    line = payload.text.strip()
    first = line.split(None, 1)[0].lower() if line else ""
    if first not in orders.ORDER_WORDS:
        raise ApiError(400, "not_an_order", _("An order starts with 'orders', 'order' or 'if'."))
    return _order_line(request, game_id, token, line)


@api.delete(
    "/games/{game_id}/orders/{order_id}",
    openapi_extra=SEAT_TOKEN,
    response={200: OrdersOut, **E403, **E404, 409: ErrorOut, **E422},
    summary="Cancel one of the seat's orders (auth: X-Seat-Token)",
)
def cancel_order(
    request: HttpRequest, game_id: int, order_id: int, token: str | None = Header(None, alias=TOKEN_HEADER)
):
    return _order_line(request, game_id, token, f"orders cancel {order_id}")


class ChannelOut(Schema):
    number: int = Field(..., description="its number in the player's list (for DELETE and resume)")
    kind: str
    shown: str = Field(..., description="the URL with its secrets masked: the URL itself is never shown back")
    games: str = Field(..., description="'all' (every game of the player), or the game's number")
    status: str
    failures: int
    last_error: str


class ChannelsOut(Schema):
    channels: list[ChannelOut]
    table: str | None = Field(None, description="the table's shared channel, masked (the owner's to set)")


class ChannelIn(Schema):
    url: str = Field(
        ...,
        max_length=2000,
        description="an Apprise URL: discord://…, tgram://…, matrixs://…, slack://…, ntfys://…, jsons://…",
    )
    all_games: bool = Field(False, description="for every game of the player, not only this one")


class TableChannelIn(Schema):
    url: str | None = Field(..., max_length=2000, description="an Apprise URL, or null to remove the table's channel")


def _channels_out(game: Game, seat: Seat) -> dict:
    mine = channels.numbered(seat.email, game.pk)
    table = channels.table_channel(game.pk)
    return {
        "channels": [
            {
                "number": n,
                "kind": c.kind,
                "shown": c.shown,
                "games": "all" if c.game_id is None else str(c.game_id),
                "status": c.status,
                "failures": c.failures,
                "last_error": c.last_error,
            }
            for n, c in enumerate(mine, start=1)
        ],
        "table": table.shown if table is not None else None,
    }


def _channel_call(request: HttpRequest, game_id: int, token: str | None, change) -> dict:
    game = _game(game_id)
    seat = _seat(request, game, token)
    ratelimit.check_submission(seat.pk)
    try:
        change(game, seat)
    except channels.BadChannel as exc:
        raise ApiError(422, "bad_channel", str(exc)) from None
    return _channels_out(game, seat)


@api.get(
    "/games/{game_id}/channels",
    openapi_extra=SEAT_TOKEN,
    response={200: ChannelsOut, **E403, **E404},
    summary="The player's other channels, masked (auth: X-Seat-Token)",
)
def seat_channels(request: HttpRequest, game_id: int, token: str | None = Header(None, alias=TOKEN_HEADER)):
    game = _game(game_id)
    return _channels_out(game, _seat(request, game, token))


@api.post(
    "/games/{game_id}/channels",
    openapi_extra=SEAT_TOKEN,
    response={200: ChannelsOut, **E400, **E403, **E404, **E422},
    summary="Add a channel that tells the player of their turns (auth: X-Seat-Token)",
)
def add_channel(
    request: HttpRequest, game_id: int, payload: ChannelIn, token: str | None = Header(None, alias=TOKEN_HEADER)
):
    return _channel_call(
        request,
        game_id,
        token,
        lambda game, seat: channels.add(seat.email, payload.url, None if payload.all_games else game.pk),
    )


@api.delete(
    "/games/{game_id}/channels/{number}",
    openapi_extra=SEAT_TOKEN,
    response={200: ChannelsOut, **E403, **E404, **E422},
    summary="Remove one of the player's channels (auth: X-Seat-Token)",
)
def remove_channel(
    request: HttpRequest, game_id: int, number: int, token: str | None = Header(None, alias=TOKEN_HEADER)
):
    return _channel_call(
        request, game_id, token, lambda game, seat: channels.remove(channels.pick(seat.email, game.pk, str(number)))
    )


@api.post(
    "/games/{game_id}/channels/{number}/resume",
    openapi_extra=SEAT_TOKEN,
    response={200: ChannelsOut, **E403, **E404, **E422},
    summary="Try a paused channel again (auth: X-Seat-Token)",
)
def resume_channel(
    request: HttpRequest, game_id: int, number: int, token: str | None = Header(None, alias=TOKEN_HEADER)
):
    return _channel_call(
        request, game_id, token, lambda game, seat: channels.resume(channels.pick(seat.email, game.pk, str(number)))
    )


@api.put(
    "/games/{game_id}/table-channel",
    openapi_extra=SEAT_TOKEN,
    response={200: ChannelsOut, **E400, **E403, **E404, **E422},
    summary="The table's shared channel for its public news: the game's owner sets it (auth: X-Seat-Token)",
)
def set_table_channel(
    request: HttpRequest, game_id: int, payload: TableChannelIn, token: str | None = Header(None, alias=TOKEN_HEADER)
):
    def change(game: Game, seat: Seat) -> None:
        if not channels.is_owner(seat):
            raise ApiError(403, "not_owner", "Only the game's owner (who made it) sets the table's channel.")
        channels.set_table(game.pk, payload.url)

    return _channel_call(request, game_id, token, change)


def _already_applied(game: Game, causation: str) -> bool:
    return bool(causation) and game.events.filter(causation_id=causation).exists()


def _duplicate(game: Game) -> dict:
    version = Game.objects.values_list("version", flat=True).get(pk=game.pk)
    return {"version": version, "applied": [], "answers": [], "duplicate": True, "events": 0}


def _check_structured(game: Game, seat: int, command: dict) -> None:
    """A structured command must be one the game lists as legal: a game's `decide` is written
    for the commands its grammar makes, not for any dict a client invents."""
    spec = get_game(game.kind)
    state = eventlog.load(game).state
    if state["game"] is None or game.status != GameStatus.RUNNING or not may_act(spec, state["game"], seat):
        return  # services.submit says why not (not running, paused, not your turn)
    legal = spec.legal(state["game"], seat)
    if command not in legal:
        raise ApiError(
            422,
            "illegal",
            _("That command is not one you may give now."),
            {"line": str(command)[:300], "line_number": 1, "legal": [spec.describe(c) for c in legal]},
        )


@api.get(
    "/games/{game_id}/events",
    openapi_extra=SEAT_TOKEN_OPTIONAL,
    response={200: FeedOut, **E403, **E404, **E422},
    summary="The event feed after event N, as the caller may see it (seat token optional)",
)
def events(
    request: HttpRequest,
    game_id: int,
    after: int = Query(0, ge=0, le=2**31),
    limit: int = Query(200, ge=1, le=1000),
    token: str | None = Header(None, alias=TOKEN_HEADER),
):
    game = _game(game_id)
    seat = _seat(request, game, token, required=False)
    number = seat.number if seat else None
    return {
        "version": game.version,
        "seat": number,
        "chain_scheme": game.chain_scheme,
        "items": feed_items(game, number, after=after, limit=limit),
    }


@api.get(
    "/games/{game_id}/state",
    openapi_extra=SEAT_TOKEN_OPTIONAL,
    response={200: StateAtOut, **E403, **E404, **E422},
    summary="The board after event N, as the caller may see it (seat token optional)",
)
def state_at(
    request: HttpRequest,
    game_id: int,
    at: int | None = Query(None, ge=0, le=2**31),
    token: str | None = Header(None, alias=TOKEN_HEADER),
):
    game = _game(game_id)
    seat = _seat(request, game, token, required=False)
    at = game.version if at is None else at
    if at > game.version:
        raise ApiError(
            404,
            "no_such_event",
            _("Game #%(game)s has %(count)s events; there is no event %(at)s.")
            % {"game": game.pk, "count": game.version, "at": at},
        )
    state = selectors.state_at(game, at)
    number = seat.number if seat else None
    spec = get_game(game.kind)
    summary = spec.summary(state["game"]) if state["game"] is not None else {}
    return {
        "at": at,
        "version": game.version,
        "seat": number,
        **render_for(game, state, number),
        "round": int(summary.get("round") or 0),
        "phase": str(summary.get("phase") or ""),
    }


@api.get("/games/{game_id}/audit", response={200: AuditOut, **E404}, summary="The audit report")
def audit_report(request: HttpRequest, game_id: int):
    game = _game(game_id)
    # The walk kept per version, as the audit page keeps it: a public endpoint must not walk the
    # whole log on every call (a new event is a new key, so the answer is never stale).
    report = checks.verify(game, cached=True)
    over = selectors.game_over(game)
    chain_problems = checks.chain_problems_of(report)
    return {
        "game_id": game.pk,
        "ok": report.ok,
        "events": report.events,
        "chain_intact": not chain_problems,
        "snapshots_checked": report.snapshots_checked,
        "problems": report.problems,
        "notes": list(getattr(report, "notes", [])),
        "seed_commitment": game.seed_commitment,
        "seed_revealed": report.seed_revealed and over,
        "seed": game.seed if over and report.seed_revealed else None,
        "draws_checked": report.draws_checked if over else 0,
        "draws": checks.draws_table(game) if over else None,
        "summary": report.summary(),
        "chain_scheme": report.scheme,
        "chain_scheme_text": checks.scheme_text(report.scheme),
        "heads_checked": report.heads_checked,
    }


HEAD_ANSWERS = (
    "200: each head with `contained` (the log's event VERSION still has that hash: nothing up to it "
    "was changed since the head was given out) or not, with the hash found there; `all_contained`. "
    "422 bad_head: nothing that reads as a head, or a notice about another game. 404: no such game. "
    "409 heads_withheld: a game of chain scheme 1 before its end (its hashes would confirm guesses "
    "at hidden payloads)."
)


def _heads_checkable(game: Game) -> None:
    if not selectors.hashes_public(game):
        # Whether a head is in the log would confirm a guess at a hidden payload: a scheme-1 hash covers it.
        raise ApiError(
            409,
            "heads_withheld",
            _("Game #%(game)s's heads are %(withheld)s.") % {"game": game.pk, "withheld": selectors.WITHHELD},
        )


def _heads_out(game: Game, heads: list[tuple[int, str]]) -> dict:
    checks = anchors.check_heads(game, heads)
    return {
        "game_id": game.pk,
        "version": game.version,
        "all_contained": all(c.contained for c in checks),
        "heads": [c.__dict__ for c in checks],
    }


@api.get(
    "/games/{game_id}/head",
    response={200: HeadsOut, **E404, 409: ErrorOut, **E422},
    summary="Does the log still contain this head? (?head=VERSION:HASH, as a notice quotes it)",
    description=HEAD_ANSWERS,
)
def head_check(request: HttpRequest, game_id: int, head: str = Query(..., max_length=100)):
    game = _game(game_id)
    _heads_checkable(game)
    try:
        parsed = chain.parse_head(head)
    except chain.BadHead as exc:
        raise ApiError(422, "bad_head", str(exc)) from None
    return _heads_out(game, [parsed])


@api.post(
    "/games/{game_id}/head",
    response={200: HeadsOut, **E400, **E404, **E413, 409: ErrorOut, **E422},
    summary="Does the log still contain the heads in this pasted notice (or this one head)?",
    description=HEAD_ANSWERS,
)
def head_check_pasted(request: HttpRequest, game_id: int, payload: HeadIn):
    game = _game(game_id)
    _heads_checkable(game)
    try:
        heads = anchors.heads_from_paste(game, payload.text)
    except anchors.NoHead as exc:
        raise ApiError(422, "bad_head", str(exc)) from None
    return _heads_out(game, heads)


@api.get(
    "/games/{game_id}/export",
    openapi_extra=SEAT_TOKEN_OPTIONAL,
    response={200: dict, **E403, **E404},
    summary="The game's log as one JSON document for `python -m pbem.verify` (seat token optional)",
    description="As the caller may see it: a seat (X-Seat-Token) its own payloads with their commitment "
    "keys, anyone else the public ones; once the game is over, everything, seed included. "
    "The format is described in pbem/CHAIN.md.",
)
def export_log(request: HttpRequest, game_id: int, token: str | None = Header(None, alias=TOKEN_HEADER)):
    game = _game(game_id)
    seat = _seat(request, game, token, required=False)
    return export.document(game, seat.number if seat else None)


@api.get(
    "/heads",
    response={200: dict, **E422},
    summary="The public heads feed: every game's chain heads, chained entry to entry (?after=N)",
    description="The entries after `after`, at most `limit` (1000); `next_after` is where the next page "
    "starts (null at the end). Each entry's `entry` hash covers it and the previous entry's hash, so a "
    "mirror detects any rewrite; `python -m pbem.verify LOG --heads-feed COPY` holds a log to every head "
    "published for its game. The format is described in pbem/CHAIN.md.",
)
def heads(request: HttpRequest, after: int = Query(0, ge=0, le=2**62), limit: int = Query(1000, ge=1, le=1000)):
    return publish.page(after, limit)


# ---------------------------------------------------------------------------------------------
# URLs: a method an endpoint does not take is answered in the API's error shape too
# ---------------------------------------------------------------------------------------------


def _as_json_405(request, response):
    if response.status_code != 405:
        return response
    allowed = response.get("Allow", "")
    answer = JsonResponse(
        {
            "code": "method_not_allowed",
            "message": _("%(method)s is not allowed here; this endpoint takes: %(allowed)s.")
            % {"method": request.method, "allowed": allowed},
        },
        status=405,
    )
    answer["Allow"] = allowed
    return answer


def _json_not_allowed(view):
    if iscoroutinefunction(view):  # an async endpoint (the seat's long poll) stays async

        @functools.wraps(view)
        async def waiting(request, *args, **kwargs):
            return _as_json_405(request, await view(request, *args, **kwargs))

        return markcoroutinefunction(waiting)

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        return _as_json_405(request, view(request, *args, **kwargs))

    return wrapped


def urls():
    """The API's URL patterns (for pbem/urls.py), each answering 405 as JSON."""
    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        pattern.callback = _json_not_allowed(pattern.callback)
    return patterns, app_name, namespace
