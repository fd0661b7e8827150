"""The write path's public face: games created and started, and a seat's commands submitted.

Email, the web form, the API, the desk and the timers all end in `runner.run`; this module holds
what a seat or the lobby asks for. The platform's own commands (help, board, undo, …) are in
`commands`, the Master of Seals' actions in `desk`, the timers in `deadlines`.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from games.base import Rejected, may_act

from . import commands, eventlog
from .eventlog import NewEvent
from .models import Event, Game, GameStatus, Seat
from .registry import get_game
from .runner import (  # noqa: F401 - the errors and actors every caller of the write path names
    NEUTRAL_EVENTS,
    SYSTEM,
    Actor,
    CommandRejected,
    NotAwaited,
    Outcome,
    ServiceError,
    StaleVersion,
    Work,
    check_seat,
    emit_game_events,
    require_running,
    run,
)


@dataclass
class PlayerSpec:
    name: str
    email: str


def create_game(kind: str, players: list[PlayerSpec], options: dict | None = None, *, title: str = "",
                deadline_hours: int | None = None, start: bool = True, invited: bool = False,
                actor: Actor = SYSTEM) -> Game:
    """A new game with its seats; its first event publishes the seed's commitment."""
    spec = get_game(kind)
    try:
        resolved = spec.resolve_options(len(players), options)
    except Rejected as exc:
        raise ServiceError(str(exc), "bad_options") from None
    colours = list(spec.colours[: len(players)]) if spec.colours else [""] * len(players)
    with transaction.atomic():
        game = Game(kind=kind, title=title or spec.title, options=resolved, reducer_version=spec.version,
                    deadline_hours=deadline_hours or settings.PBEM_DEFAULT_DEADLINE_HOURS)
        game.seed_commitment = eventlog.seed_commitment(game.seed)
        game.save()
        for number, (player, colour) in enumerate(zip(players, colours)):
            Seat.objects.create(game=game, number=number, name=player.name, email=player.email, colour=colour,
                                invite_accepted=not invited)
        created = NewEvent("pbem.GameCreated", {
            "kind": kind, "title": game.title, "options": resolved, "reducer_version": spec.version,
            "players": [{"name": p.name, "colour": c} for p, c in zip(players, colours)],
            "seed_commitment": game.seed_commitment, "deadline_hours": game.deadline_hours,
        })
        rows, head = eventlog.build_rows(game.pk, 0, eventlog.GENESIS, [created], actor.as_tuple(), "", spec)
        eventlog.append(game.pk, 0, eventlog.GENESIS, rows, {"status": GameStatus.OPEN}, [])
    if start:
        start_game(game.pk, actor)
    game.refresh_from_db()
    return game


def start_game(game_id: int, actor: Actor = SYSTEM, reason: str = "") -> Outcome:
    """Deals the game: the game's setup events, every random outcome in them. `reason`: why
    (the desk records one when a Master of Seals starts a game by hand)."""

    def body(work: Work):
        if work.state["meta"]["started"]:
            raise ServiceError("The game has already started.", "already_started")
        players = work.state["meta"]["players"]
        options = dict(Game.objects.values_list("options", flat=True).get(pk=work.loaded.game_id))
        work.platform("GameStarted", {"reason": reason.strip()} if reason.strip() else {})
        rng = work.rng()
        setup_events = work.spec.setup(players, options, rng)
        emit_game_events(work, setup_events, rng)

    return run(game_id, actor, body)


def submit(game_id: int, seat: int, lines: str | list[str] | None = None, *, command: dict | None = None,
           expected_version: int | None = None, causation_id: str = "", actor: Actor | None = None) -> Outcome:
    """Applies a seat's command(s): text lines in the game's grammar, or one structured command.

    Several lines are applied in order, all or none. The same causation id is applied once.
    With `expected_version`, a submission is refused as stale when something this seat can see
    has changed since that version.
    """
    actor = actor or Actor("seat", seat)
    if isinstance(lines, str):
        lines = lines.replace("\x00", "")  # a NUL cannot be stored (PostgreSQL text) and means nothing
    elif lines:
        lines = [line.replace("\x00", "") for line in lines]
    if command is not None and "\\u0000" in eventlog.canonical(command):  # JSON writes a NUL as \u0000
        raise ServiceError("The command contains a NUL character.", "bad_input")
    if isinstance(lines, str):
        lines = [line for line in (raw.strip() for raw in lines.splitlines()) if line]
    items: list[tuple[str, dict | None]] = [(line, None) for line in (lines or [])]
    if command is not None:
        items.append(("", command))
    if not items:
        raise ServiceError("There was no command in your message.", "empty")

    def body(work: Work):
        check_seat(work, seat)
        if expected_version is not None:
            _check_fresh(work, seat, expected_version)
        work.outcome = Outcome(work.loaded.version)
        for number, (line, structured) in enumerate(items, start=1):
            _one(work, seat, line, structured, number)

    return run(game_id, actor, body, causation_id)


def _check_fresh(work: Work, seat: int, expected: int) -> None:
    if expected > work.loaded.version:
        raise StaleVersion(f"Version {expected} is ahead of the game (at {work.loaded.version}).")
    if expected == work.loaded.version:
        return
    later = Event.objects.filter(game_id=work.loaded.game_id, seq__gt=expected).exclude(type__in=NEUTRAL_EVENTS)
    for visible_to, public in later.values_list("visible_to", "public"):
        if visible_to is None or seat in visible_to or public is not None:
            raise StaleVersion(
                "The game has moved on since the notice you answered: your command was not applied. "
                "Here is the board as it stands now; please send your move again."
            )


def _one(work: Work, seat: int, line: str, structured: dict | None, number: int) -> None:
    parts = line.split(None, 1)
    word = parts[0].lower() if parts else ""
    rest = parts[1].strip() if len(parts) > 1 else ""
    if structured is None and word in commands.PLATFORM_WORDS:
        return commands.PLATFORM_COMMANDS[word](work, seat, rest, line)
    require_running(work)
    spec, game_state = work.spec, work.state["game"]
    legal_now = lambda: [spec.describe(c) for c in spec.legal(game_state, seat)]  # noqa: E731
    if not may_act(spec, game_state, seat):
        waiting = ", ".join(work.state["meta"]["names"][s] for s in spec.waiting_for(game_state)) or "nobody"
        raise NotAwaited(f"It is not your turn: the game is waiting for {waiting}.")
    try:
        command = structured if structured is not None else spec.parse(line, game_state, seat)
        rng = work.rng()
        events = spec.decide(game_state, seat, command, rng)
    except Rejected as exc:
        raise CommandRejected(str(exc), line or spec_describe(spec, structured), number, legal_now()) from None
    emit_game_events(work, events, rng)
    work.outcome.applied.append(spec.describe(command))


def spec_describe(spec, command) -> str:
    try:
        return spec.describe(command)
    except Exception:  # a malformed structured command cannot always be described
        return str(command)
