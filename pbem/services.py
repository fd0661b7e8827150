"""The only write path. Email, web form, API, admin and timers all come through here.

Each public function runs one transaction: load the game (from the in-process cache when it is
current), check, decide, append events with the read model and the outbox rows in the same
transaction (one statement on PostgreSQL), then put the new state back into the cache. A
concurrent writer makes the append fail with Conflict; we reload and try again.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from games.base import Rejected, Rng, may_act

from . import eventlog
from .eventlog import Conflict, Loaded, NewEvent
from .models import Event, Game, GameStatus, Notice, Seat, Snapshot
from .registry import get_game

# Platform events that change nothing on the board: a reply written before them is not stale,
# and undo looks past them.
NEUTRAL_EVENTS = {"pbem.Said", "pbem.Away", "pbem.Back", "pbem.NoticesChanged", "pbem.Undone",
                  "pbem.NoticeBounced", "pbem.DeadlineExtended", "pbem.ReminderSent"}
# Platform events that are nobody else's news (no "every move" notice for them).
QUIET_EVENTS = {"pbem.NoticesChanged", "pbem.ReminderSent", "pbem.DeadlineExtended", "pbem.NoticeBounced",
                "pbem.DeadlineMissed"}
PLATFORM_WORDS = ("help", "board", "history", "say", "undo", "away", "back", "notices")
MAX_ATTEMPTS = 8


class ServiceError(Exception):
    """A request the platform refuses (not a rule of the game). `code` is machine-readable."""

    code = "refused"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        if code:
            self.code = code


class StaleVersion(ServiceError):
    code = "stale"


class NotAwaited(ServiceError):
    code = "not_your_turn"


class CommandRejected(ServiceError):
    """A line the game refused: says which line, why, and what is legal now."""

    code = "illegal"

    def __init__(self, message: str, line: str = "", line_number: int = 0, legal: list[str] | None = None):
        super().__init__(message)
        self.line = line
        self.line_number = line_number
        self.legal = legal or []


@dataclass
class Actor:
    kind: str  # seat, system, admin
    seat: int | None = None
    user_id: int | None = None

    def as_tuple(self):
        return (self.kind, self.seat, self.user_id)


SYSTEM = Actor("system")


@dataclass
class Outcome:
    version: int
    applied: list[str] = field(default_factory=list)  # what was done, in words (one per line)
    answers: list[str] = field(default_factory=list)  # replies to help/board/history
    duplicate: bool = False
    events: int = 0


# ---------------------------------------------------------------------------------------------
# The unit of work: a loaded game plus what this request appends
# ---------------------------------------------------------------------------------------------


GAME_FIELDS = ("id", "kind", "status", "seed", "options", "deadline_hours", "away_allowance_days",
               "deadlines", "awaited", "scores", "version", "head_hash", "round", "phase")
# The read model's columns as the game row holds them (kept in Work.game after each append).
READ_MODEL_COLUMNS = ("status", "round", "phase", "awaited", "deadlines", "scores")
SEAT_FIELDS = ("id", "number", "name", "email", "notice_preference", "away_until", "away_days_used")


@dataclass
class Work:
    loaded: Loaded
    game: dict
    seats: list[dict]
    actor: Actor
    events: list[NewEvent] = field(default_factory=list)
    dirty: bool = False  # state mutated: must not go back into the cache unless committed
    cached: bool = False  # came from the in-process cache: may be behind the database
    notices: list[dict] = field(default_factory=list)
    outcome: Outcome | None = None
    extra_updates: dict = field(default_factory=dict)
    side_effects: list = field(default_factory=list)  # writes to run in the append's transaction
    stored: dict = field(default_factory=dict)  # the read model as the game row holds it now

    def later(self, write) -> None:
        """Runs `write()` in the same transaction as the append (never on its own)."""
        self.side_effects.append(write)

    @property
    def spec(self):
        return self.loaded.spec

    @property
    def state(self):
        return self.loaded.state

    @property
    def next_seq(self) -> int:
        return self.loaded.version + len(self.events) + 1

    def emit(self, event: NewEvent) -> None:
        self.dirty = True
        self.events.append(event)
        eventlog.apply(self.spec, self.loaded.state, event.type, event.payload, event.visible_to, event.public,
                       event.reveals, self.next_seq - 1)

    def platform(self, kind: str, payload: dict, **kw) -> None:
        self.emit(NewEvent("pbem." + kind, payload, **kw))

    def rng(self) -> Rng:
        seed = self.game.get("seed_bytes")
        if seed is None:
            seed = self.game["seed_bytes"] = bytes.fromhex(self.game["seed"])
        return Rng(seed, self.next_seq)


def _load_work(game_id: int, actor: Actor) -> Work:
    cached = eventlog.cache_take(game_id)
    if cached is not None and isinstance(cached, Work):
        cached.actor, cached.events, cached.notices, cached.dirty = actor, [], [], False
        cached.outcome, cached.extra_updates, cached.cached, cached.side_effects = None, {}, True, []
        return cached
    try:
        game = Game.objects.values(*GAME_FIELDS).get(pk=game_id)
    except Game.DoesNotExist:
        raise ServiceError(f"There is no game #{game_id}.", "not_found") from None
    seats = list(Seat.objects.filter(game_id=game_id).order_by("number").values(*SEAT_FIELDS))
    row = Game(**{k: v for k, v in game.items() if k not in ("deadlines", "awaited", "scores", "round", "phase")})
    loaded = eventlog.load(row)
    return Work(loaded, game, seats, actor, stored=_stored(game))


def _stored(values: dict) -> dict:
    """A copy of the read model's columns (commands may replace Work.game's values before the
    append, and the append writes only what differs from the row)."""
    return {k: (v.copy() if isinstance(v, dict | list) else v) for k, v in values.items() if k in READ_MODEL_COLUMNS}


def _moved(game_id: int, version: int) -> bool:
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).first() != version


def _commit(work: Work, causation_id: str = "", db=None) -> None:
    """Appends what `work` emitted, with the read model and the outbox, or raises Conflict."""
    if not work.events:
        return
    loaded = work.loaded
    previous = loaded.version
    _finish_if_over(work)
    now = timezone.now()
    rows, head = eventlog.build_rows(loaded.game_id, previous, loaded.head_hash, work.events,
                                     work.actor.as_tuple(), causation_id, loaded.spec, now)
    model = _read_model(work, previous + len(rows), now)
    # Only the columns that changed are written (the row is at `previous`, as Work.game knows it:
    # the append applies only where the version still is `previous`).
    stored = work.stored
    changed = {k: v for k, v in model.items() if k not in READ_MODEL_COLUMNS or stored.get(k) != v}
    if work.extra_updates:
        changed.update(work.extra_updates)
        updates = {**model, **work.extra_updates}
    else:
        updates = model
    _turn_notices(work, previous + len(rows), updates)
    for write in work.side_effects:
        write()
    snapshot = (loaded.spec.version, loaded.state) if eventlog.snapshot_due(previous, previous + len(rows)) else None
    eventlog.append(loaded.game_id, previous, loaded.head_hash, rows, changed, work.notices, causation_id, snapshot,
                    db=db)
    loaded.version = previous + len(rows)
    loaded.head_hash = head
    work.stored = {k: updates[k] for k in READ_MODEL_COLUMNS}  # fresh values: _read_model builds new ones
    work.game.update(work.stored, version=loaded.version, head_hash=head)
    if work.notices:
        from . import outbox

        outbox.dispatch_on_commit(loaded.game_id)


def run(game_id: int, actor: Actor, body, causation_id: str = "") -> Outcome:
    """Runs `body(work)` and appends what it emitted, retrying on conflicts.

    The first attempt is optimistic: the cached state, and on PostgreSQL a single statement
    that appends only if the game is still at the expected version and the causation id is new
    (in autocommit: one round trip, as cheap as a bare INSERT). When it loses a race, the next
    attempts lock the game row and load inside the lock, so a busy game still makes progress.
    """
    db = connections[DEFAULT_DB_ALIAS]  # looked up once: each lookup goes through a thread-local
    for attempt in range(MAX_ATTEMPTS):
        work = None
        try:
            if attempt == 0 and db.vendor == "postgresql":
                work = _load_work(game_id, actor)
                body(work)
                if work.side_effects:
                    with transaction.atomic():
                        _commit(work, causation_id, db)
                else:
                    _commit(work, causation_id, db)
            else:
                with transaction.atomic():
                    if attempt:
                        eventlog.cache_take(game_id)
                        Game.objects.select_for_update().filter(pk=game_id).values_list("pk").first()
                    work = _load_work(game_id, actor)
                    if causation_id and Event.objects.filter(game_id=game_id, causation_id=causation_id).exists():
                        eventlog.cache_put(game_id, work)
                        return Outcome(work.loaded.version, duplicate=True)
                    body(work)
                    _commit(work, causation_id, db)
        except Conflict:
            continue  # the cached state was behind, someone else won, or a duplicate: look again
        except (Rejected, ServiceError):
            # A refusal judged on a cached state that another process has moved past would be
            # wrong: check the version, and judge again on a fresh load if it moved.
            if work is not None and work.cached and _moved(game_id, work.loaded.version):
                continue
            if work is not None and not work.dirty:
                eventlog.cache_put(game_id, work)
            if causation_id and Event.objects.filter(game_id=game_id, causation_id=causation_id).exists():
                return Outcome(work.loaded.version if work else 0, duplicate=True)  # already applied
            raise
        eventlog.cache_put(game_id, work)
        outcome = work.outcome or Outcome(work.loaded.version)
        outcome.version = work.loaded.version
        outcome.events = len(work.events)
        return outcome
    raise ServiceError("The game is busy; please try again.", "busy")


# ---------------------------------------------------------------------------------------------
# Read model, deadlines and notices written with every append
# ---------------------------------------------------------------------------------------------


def scores_with_corrections(spec, state, summary: dict | None = None) -> list[int]:
    meta = state["meta"]
    if state["game"] is None:
        return [0] * meta["players"]
    if summary is None:
        summary = spec.summary(state["game"])
    scores = list(summary.get("scores") or [0] * meta["players"])
    for seat, points, _reason, _seq in meta["corrections"]:
        scores[seat] += points
    return scores


def awaited_seats(spec, state) -> list[int]:
    meta = state["meta"]
    if state["game"] is None or meta["ended"] or meta["abandoned"] or meta["paused"] or not meta["started"]:
        return []
    return list(spec.waiting_for(state["game"]))


def game_status(state) -> str:
    meta = state["meta"]
    if meta["abandoned"]:
        return GameStatus.ABANDONED
    if meta["ended"]:
        return GameStatus.FINISHED
    if not meta["started"]:
        return GameStatus.OPEN
    if meta["paused"]:
        return GameStatus.PAUSED
    return GameStatus.RUNNING


def _read_model(work: Work, version: int, now: datetime) -> dict:
    spec, state = work.spec, work.state
    summary = spec.summary(state["game"]) if state["game"] is not None else {}
    awaited = awaited_seats(spec, state)
    before = set(work.game.get("awaited") or [])
    deadlines = dict(work.game.get("deadlines") or {})
    for seat in list(deadlines):
        if int(seat) not in awaited:
            del deadlines[seat]
    for seat in awaited:
        # Only a newly awaited seat gets a fresh deadline: one still awaited without a deadline
        # has it held (a notice to it bounced, suspend_deadline) until rearm_deadline.
        if seat not in before:
            deadlines[str(seat)] = _deadline_for(work, seat, now)
    return {
        "status": game_status(state),
        "round": int(summary.get("round") or 0),
        "phase": str(summary.get("phase") or "")[:80],
        "awaited": awaited,
        "deadlines": deadlines,
        "scores": scores_with_corrections(spec, state, summary),
        "read_model_version": version,
    }


def _deadline_for(work: Work, seat: int, now: datetime) -> str:
    start = now
    away = work.seats[seat].get("away_until") if seat < len(work.seats) else None
    if away and away > now:
        start = away
    return (start + timedelta(hours=work.game["deadline_hours"])).isoformat()


def _turn_notices(work: Work, version: int, updates: dict) -> None:
    """A turn notice to each newly awaited seat (and to the actor if a new phase awaits them too);
    news to the others who want every move."""
    before = set(work.game.get("awaited") or [])
    after = updates["awaited"]
    status = updates["status"]
    new_phase = (updates["round"], updates["phase"]) != (work.game.get("round"), work.game.get("phase"))
    newsworthy = any(ev.type not in QUIET_EVENTS for ev in work.events)
    # Table talk reaches everyone but the speaker, awaited or not (unless they want no news).
    talk = any(ev.type == "pbem.Said" for ev in work.events)
    if new_phase and work.actor.seat is not None:
        before.discard(work.actor.seat)
    for seat in work.seats:
        number = seat["number"]
        if status == GameStatus.FINISHED and work.game["status"] != GameStatus.FINISHED:
            kind = "final"
        elif number in after and number not in before:
            kind = "turn"
        elif number in after and not (talk and number != work.actor.seat and seat["notice_preference"] != "none"):
            continue  # still choosing; the actor gets a confirmation from the channel
        elif number in after:
            kind = "news"
        elif number != work.actor.seat and seat["notice_preference"] == "every" and newsworthy:
            kind = "news"
        else:
            continue
        if any(n["seat_id"] == seat["id"] and n["kind"] == kind for n in work.notices):
            continue
        work.notices.append({"seat_id": seat["id"], "kind": kind, "version": version, "to_email": seat["email"]})


def _finish_if_over(work: Work) -> None:
    spec, state = work.spec, work.state
    meta = state["meta"]
    if meta["ended"] or state["game"] is None or not meta["started"]:
        return
    result = spec.result(state["game"])
    if result is None:
        return
    from games.base import rank

    scores = scores_with_corrections(spec, state)
    tiebreak = [list(t) for t in result.tiebreak] if result.tiebreak else []
    work.platform("GameEnded", {"scores": scores, "ranking": rank(scores, result.tiebreak or None),
                                "tiebreak": tiebreak})
    work.platform("SeedRevealed", {"seed": work.game["seed"]}, reveals=True)


# ---------------------------------------------------------------------------------------------
# Creating and starting games
# ---------------------------------------------------------------------------------------------


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
        _emit_game_events(work, setup_events, rng)

    return run(game_id, actor, body)


def _emit_game_events(work: Work, events, rng: Rng) -> None:
    for i, ev in enumerate(events):
        work.emit(NewEvent(ev.type, ev.data, list(ev.visible_to) if ev.visible_to is not None else None,
                           ev.public, ev.reveals, rng.draws if (i == 0 and rng.used) else None))


# ---------------------------------------------------------------------------------------------
# Commands: the one entry point for every channel
# ---------------------------------------------------------------------------------------------


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
        _check_seat(work, seat)
        if expected_version is not None:
            _check_fresh(work, seat, expected_version)
        work.outcome = Outcome(work.loaded.version)
        for number, (line, structured) in enumerate(items, start=1):
            _one(work, seat, line, structured, number)

    return run(game_id, actor, body, causation_id)


def _check_seat(work: Work, seat: int) -> None:
    if not 0 <= seat < len(work.seats):
        raise ServiceError(f"Game #{work.loaded.game_id} has no seat {seat}.", "no_seat")


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
    if structured is None and word in PLATFORM_WORDS:
        return PLATFORM_COMMANDS[word](work, seat, rest, line)
    _require_running(work)
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
    _emit_game_events(work, events, rng)
    work.outcome.applied.append(spec.describe(command))


def spec_describe(spec, command) -> str:
    try:
        return spec.describe(command)
    except Exception:  # a malformed structured command cannot always be described
        return str(command)


def _require_running(work: Work) -> None:
    meta = work.state["meta"]
    if meta["abandoned"]:
        raise ServiceError("This game was abandoned.", "not_running")
    if meta["ended"]:
        raise ServiceError("This game is over.", "not_running")
    if not meta["started"]:
        raise ServiceError("This game has not started yet.", "not_running")
    if meta["paused"]:
        raise ServiceError("This game is paused by the Master of Seals.", "paused")


# --- the commands every game understands ------------------------------------------------------


def _cmd_help(work: Work, seat: int, rest: str, line: str) -> None:
    from . import selectors

    work.outcome.answers.append(selectors.help_text(work.spec, work.state, seat))


def _cmd_board(work: Work, seat: int, rest: str, line: str) -> None:
    from . import selectors

    work.outcome.answers.append(selectors.board_text(work.spec, work.state, seat))


def _cmd_history(work: Work, seat: int, rest: str, line: str) -> None:
    from . import selectors

    count = int(rest) if rest.isdigit() else 10
    lines = selectors.history_lines(work.loaded.game_id, seat, work.spec, work.state["meta"]["names"])
    work.outcome.answers.append("\n".join(lines[-count:]) or "Nothing has happened yet.")


def _cmd_say(work: Work, seat: int, rest: str, line: str) -> None:
    if not rest:
        raise CommandRejected("Say what? Write 'say' and then your message.", line)
    work.platform("Said", {"seat": seat, "text": rest[:2000]})
    work.outcome.applied.append(f"said: {rest[:60]}")


def _cmd_undo(work: Work, seat: int, rest: str, line: str) -> None:
    seqs = undoable(work.loaded.game_id, seat)
    work.platform("Undone", {"seat": seat, "events": seqs, "reason": "taken back by the player"})
    _rebuild_after_undo(work, seqs)
    work.outcome.applied.append("undo")


def _rebuild_after_undo(work: Work, seqs: list[int]) -> None:
    # Replay skips the undone events: rebuild the state from the log, then apply what this
    # request has emitted so far on top. Snapshots that contain the undone events are stale.
    game_id = work.loaded.game_id
    work.later(lambda: Snapshot.objects.filter(game_id=game_id, seq__gte=min(seqs)).delete())
    pending = list(work.events)
    row = Game(pk=work.loaded.game_id, kind=work.game["kind"], version=work.loaded.version,
               head_hash=work.loaded.head_hash)
    fresh = eventlog.load(row, use_snapshots=True)
    fresh.undone |= set(seqs)
    fresh.state = eventlog.fold_rows(fresh.spec, eventlog.new_state(), _rows(work.loaded.game_id), fresh.undone)
    for i, ev in enumerate(pending):
        eventlog.apply(fresh.spec, fresh.state, ev.type, ev.payload, ev.visible_to, ev.public, ev.reveals,
                       work.loaded.version + i + 1)
    work.loaded.state = fresh.state
    work.loaded.undone = fresh.undone
    work.dirty = True


def _rows(game_id: int):
    return Event.objects.filter(game_id=game_id).order_by("seq").values_list(*eventlog.EVENT_FIELDS)


def undoable(game_id: int, seat: int) -> list[int]:
    """The seqs of this seat's last command if the fair-undo policy allows taking it back."""
    undone = eventlog.undone_seqs(game_id)
    rows = (Event.objects.filter(game_id=game_id).order_by("-seq")
            .values_list("seq", "type", "actor_kind", "actor_seat", "created_at", "causation_id", "rng", "reveals"))
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
        raise ServiceError("There is nothing to take back.", "no_undo")
    _seq, _t, kind, actor_seat, *_ = batch[0]
    if kind != "seat" or actor_seat != seat:
        raise ServiceError("You can only take back your own last move, and someone else has acted since.", "no_undo")
    if any(row[1].startswith("pbem.") for row in batch):
        raise ServiceError("That cannot be taken back.", "no_undo")
    if any(row[6] for row in batch):
        raise ServiceError("That move drew something at random, so it cannot be taken back.", "no_undo")
    if any(row[7] for row in batch):
        raise ServiceError("That move revealed hidden information, so it cannot be taken back.", "no_undo")
    return sorted(row[0] for row in batch)


AWAY_RE = re.compile(r"^until\s+(\d{4}-\d{2}-\d{2})$", re.I)


def _cmd_away(work: Work, seat: int, rest: str, line: str) -> None:
    match = AWAY_RE.match(rest)
    if not match:
        raise CommandRejected("Write the date you are back as 'away until YYYY-MM-DD'.", line)
    try:
        until = datetime.fromisoformat(match.group(1)).replace(tzinfo=UTC) + timedelta(days=1)
    except ValueError:
        raise CommandRejected(f"{match.group(1)} is not a date.", line) from None
    now = timezone.now()
    days = (until - now).days + (1 if (until - now).seconds else 0)
    if days <= 0:
        raise CommandRejected("That date is already past.", line)
    info = work.seats[seat]
    left = work.game["away_allowance_days"] - info["away_days_used"]
    if days > left:
        raise CommandRejected(f"You have {left} days of absence left in this game; that would take {days}.", line)
    _set_away(work, seat, until, info["away_days_used"] + days, now)
    work.platform("Away", {"seat": seat, "until": until.date().isoformat(), "days": days})
    work.outcome.applied.append(f"away until {match.group(1)}")


def _cmd_back(work: Work, seat: int, rest: str, line: str) -> None:
    info = work.seats[seat]
    now = timezone.now()
    if not info["away_until"] or info["away_until"] <= now:
        raise CommandRejected("You are not away.", line)
    refund = max(0, (info["away_until"] - now).days)
    _set_away(work, seat, None, max(0, info["away_days_used"] - refund), now)
    work.platform("Back", {"seat": seat})
    work.outcome.applied.append("back")


def _set_away(work: Work, seat: int, until: datetime | None, used: int, now: datetime) -> None:
    """Records the seat's absence (with the append) and moves its running deadline to match."""
    info = work.seats[seat]
    work.later(lambda: Seat.objects.filter(pk=info["id"]).update(away_until=until, away_days_used=used))
    info["away_until"], info["away_days_used"] = until, used
    deadlines = dict(work.game.get("deadlines") or {})
    if str(seat) in deadlines:
        deadlines[str(seat)] = _deadline_for(work, seat, now)
        work.game["deadlines"] = deadlines


def _cmd_notices(work: Work, seat: int, rest: str, line: str) -> None:
    choice = rest.strip().lower()
    if choice not in ("every", "digest", "none"):
        raise CommandRejected("Choose how you hear of other players' moves: 'notices every', "
                              "'notices digest' or 'notices none'.", line)
    info = work.seats[seat]
    work.later(lambda: Seat.objects.filter(pk=info["id"]).update(notice_preference=choice))
    info["notice_preference"] = choice
    work.platform("NoticesChanged", {"seat": seat, "preference": choice}, visible_to=[seat], public={"seat": seat})
    work.outcome.applied.append(f"notices {choice}")


PLATFORM_COMMANDS = {"help": _cmd_help, "board": _cmd_board, "history": _cmd_history, "say": _cmd_say,
                     "undo": _cmd_undo, "away": _cmd_away, "back": _cmd_back, "notices": _cmd_notices}


# ---------------------------------------------------------------------------------------------
# Timers and the Master of Seals' actions (each an event with its actor and reason)
# ---------------------------------------------------------------------------------------------


def timeout_seat(game_id: int, seat: int, now: datetime | None = None) -> str:
    """At a deadline: the game's timeout policy (a pass where the rules allow), else tell the
    Master of Seals. Returns "passed", "reported" or "not_due"."""
    now = now or timezone.now()
    verdict = {"value": "not_due"}

    def body(work: Work):
        deadline = (work.game.get("deadlines") or {}).get(str(seat))
        if seat not in awaited_seats(work.spec, work.state) or not deadline or datetime.fromisoformat(deadline) > now:
            return
        command = work.spec.timeout(work.state["game"], seat)
        if command is None:
            if work.state["meta"].get("overdue", {}).get(str(seat)) == deadline:
                return  # the Master of Seals was already told about this deadline
            work.platform("DeadlineMissed", {"seat": seat, "deadline": deadline})
            work.notices.append({"seat_id": None, "kind": "overdue", "version": work.loaded.version + 1,
                                 "to_email": "", "context": {"seat": seat}})
            verdict["value"] = "reported"
            return
        work.platform("TimedOut", {"seat": seat, "deadline": deadline, "command": work.spec.describe(command)})
        rng = work.rng()
        events = work.spec.decide(work.state["game"], seat, command, rng)
        _emit_game_events(work, events, rng)
        verdict["value"] = "passed"

    run(game_id, SYSTEM, body)
    return verdict["value"]


def _admin_action(game_id: int, actor: Actor, kind: str, payload: dict, check=None, updates=None) -> Outcome:
    def body(work: Work):
        if check:
            check(work)
        work.platform(kind, payload)
        if updates:
            work.extra_updates.update(updates(work))

    return run(game_id, actor, body)


def _need_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("Give a reason: every action on the desk is recorded with one.", "reason_required")
    return reason


def pause_game(game_id: int, actor: Actor, reason: str) -> Outcome:
    def check(work):
        _require_running(work)

    return _admin_action(game_id, actor, "Paused", {"reason": _need_reason(reason)}, check)


def resume_game(game_id: int, actor: Actor, reason: str) -> Outcome:
    def check(work):
        if not work.state["meta"]["paused"]:
            raise ServiceError("The game is not paused.", "not_paused")

    return _admin_action(game_id, actor, "Resumed", {"reason": _need_reason(reason)}, check)


def abandon_game(game_id: int, actor: Actor, reason: str) -> Outcome:
    def check(work):
        meta = work.state["meta"]
        if meta["ended"] or meta["abandoned"]:
            raise ServiceError("The game is already over.", "not_running")

    def body(work: Work):
        check(work)
        work.platform("Abandoned", {"reason": _need_reason(reason)})
        work.platform("SeedRevealed", {"seed": work.game["seed"]}, reveals=True)

    return run(game_id, actor, body)


def extend_deadline(game_id: int, seat: int, until: datetime, actor: Actor, reason: str) -> Outcome:
    def body(work: Work):
        _check_seat(work, seat)
        if seat not in (work.game.get("awaited") or []):
            raise ServiceError("That seat is not awaited, so it has no deadline.", "not_awaited")
        deadlines = dict(work.game.get("deadlines") or {})
        deadlines[str(seat)] = until.isoformat()
        work.game["deadlines"] = deadlines
        work.platform("DeadlineExtended", {"seat": seat, "until": until.isoformat(), "reason": _need_reason(reason)})

    return run(game_id, actor, body)


def suspend_deadline(game_id: int, seat: int, reason: str) -> Outcome:
    """A notice to this seat bounced: its deadline does not run down until one gets through."""

    def body(work: Work):
        deadlines = dict(work.game.get("deadlines") or {})
        deadlines.pop(str(seat), None)
        work.game["deadlines"] = deadlines
        work.platform("NoticeBounced", {"seat": seat, "reason": reason[:300]})
        work.notices.append({"seat_id": None, "kind": "bounced", "version": work.loaded.version + 1,
                             "to_email": "", "context": {"seat": seat, "reason": reason[:300]}})

    return run(game_id, SYSTEM, body)


def rearm_deadline(game_id: int, seat: int) -> None:
    """A notice reached this seat again: its deadline runs from now (if it is awaited)."""

    def body(work: Work):
        deadlines = dict(work.game.get("deadlines") or {})
        if seat in (work.game.get("awaited") or []) and str(seat) not in deadlines:
            work.platform("DeadlineExtended", {"seat": seat, "until": _deadline_for(work, seat, timezone.now()),
                                               "reason": "a notice reached the player again"})
            deadlines[str(seat)] = _deadline_for(work, seat, timezone.now())
            work.game["deadlines"] = deadlines

    run(game_id, SYSTEM, body)


def replace_player(game_id: int, seat: int, name: str, email: str, actor: Actor, reason: str) -> Outcome:
    """A new player takes the seat: new email, new token; the old token stops working at once."""

    def body(work: Work):
        _check_seat(work, seat)
        info = work.seats[seat]
        work.later(lambda: Seat.objects.filter(pk=info["id"]).update(
            name=name, email=email, token_generation=_next_generation(info["id"])))
        info.update(name=name, email=email)
        work.platform("PlayerReplaced", {"seat": seat, "name": name, "reason": _need_reason(reason)})

    return run(game_id, actor, body)


def _next_generation(seat_id: int) -> int:
    return Seat.objects.values_list("token_generation", flat=True).get(pk=seat_id) + 1


def correct_score(game_id: int, seat: int, points: int, actor: Actor, reason: str) -> Outcome:
    """A compensating event: the score sheets and everyone's history show it with its reason."""

    def check(work):
        _check_seat(work, seat)
        if not points:
            raise ServiceError("A correction of 0 points changes nothing.", "no_change")

    return _admin_action(game_id, actor, "ScoreCorrected",
                         {"seat": seat, "points": int(points), "reason": _need_reason(reason)}, check)


def rewind(game_id: int, to_seq: int, actor: Actor, reason: str) -> Outcome:
    """Corrects a mistaken ruling: every game event after `to_seq` is undone by one event
    (nothing is deleted), and play resumes from the state at `to_seq`."""

    def body(work: Work):
        _need_reason(reason)
        undone = eventlog.undone_seqs(work.loaded.game_id)
        seqs = list(Event.objects.filter(game_id=work.loaded.game_id, seq__gt=to_seq)
                    .exclude(type__startswith="pbem.").values_list("seq", flat=True))
        seqs = [s for s in seqs if s not in undone]
        if not seqs:
            raise ServiceError(f"No game event after #{to_seq} to take back.", "no_change")
        if work.state["meta"]["ended"]:
            raise ServiceError("The game is over and its seed revealed; it cannot be rewound.", "not_running")
        work.platform("Undone", {"seat": None, "events": seqs, "reason": reason})
        _rebuild_after_undo(work, seqs)

    return run(game_id, actor, body)


def remind_now(game_id: int, actor: Actor, reason: str = "sent from the desk") -> Outcome:
    def body(work: Work):
        awaited = work.game.get("awaited") or []
        if not awaited:
            raise ServiceError("Nobody is awaited, so there is no one to remind.", "not_awaited")
        work.platform("ReminderSent", {"seats": awaited, "reason": reason})
        for seat in awaited:
            info = work.seats[seat]
            work.notices.append({"seat_id": info["id"], "kind": "reminder", "version": work.loaded.version + 1,
                                 "to_email": info["email"]})

    return run(game_id, actor, body)


def new_token_secret() -> str:
    return secrets.token_urlsafe(16)


def notices_for(game_id: int):
    return Notice.objects.filter(game_id=game_id)
