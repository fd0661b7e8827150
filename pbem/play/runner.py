"""The command runner: the one write path's machinery, which every channel goes through.

`run(game_id, actor, body)` loads the game (from the in-process cache when it is still at the
database's version), lets `body(work)` check, decide and emit events, and appends them with the
read model and the outbox rows in one transaction (one statement on PostgreSQL), then puts the
new state back into the cache. A concurrent writer makes the append fail with Conflict; we
reload and try again. What the commands are lives above: `services` (games, seats' commands),
`commands` (the platform's own), `desk` (the Master of Seals), `deadlines` (the timers).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.base import Rejected, Rng
from pbem.log import clocks, eventlog, fold, prepared, rows
from pbem.log.eventlog import Conflict, Loaded, NewEvent
from pbem.log.readmodels import awaited_seats, game_status, scores_with_corrections
from pbem.models import Event, Game, GameStatus, Seat
from pbem.play import outbox
from pbem.play.orderbook import plays_at_once

# Platform events that change nothing on the board: a reply written before them is not stale,
# and undo looks past them.
NEUTRAL_EVENTS = {
    "pbem.InvitationResent",
    "pbem.InvitationsSent",
    "pbem.Said",
    "pbem.Away",
    "pbem.Absent",
    "pbem.RestDays",
    "pbem.Back",
    "pbem.NoticesChanged",
    "pbem.CalendarRenewed",
    "pbem.Undone",
    "pbem.TimeZoneChanged",
    "pbem.NoticeBounced",
    "pbem.DeadlineExtended",
    "pbem.ReminderSent",
    # Orders given ahead or cancelled (pbem.play.orders): nothing on the board changes.
    "pbem.OrderGiven",
    "pbem.OrderCancelled",
}
QUIET_EVENTS = {
    "pbem.InvitationResent",
    "pbem.InvitationsSent",
    "pbem.NoticesChanged",
    "pbem.CalendarRenewed",
    "pbem.TimeZoneChanged",
    "pbem.ReminderSent",
    "pbem.DeadlineExtended",
    "pbem.NoticeBounced",
    "pbem.DeadlineMissed",
    "pbem.OrderGiven",
    "pbem.OrderCancelled",
    "pbem.OrderPlayed",
}

# Platform events every seat hears of, even one still choosing its move.
TABLE_NEWS = {
    "pbem.Said",
    "pbem.PlayerReplaced",
    "pbem.Paused",
    "pbem.Resumed",
    "pbem.Abandoned",
    # A player away (or back): the others' turns may wait on them.
    "pbem.Away",
    "pbem.Absent",
    "pbem.Back",
}
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


class NotAwaitedAfterEarlierLines(NotAwaited, CommandRejected):
    """A line of a reply that came after an earlier line of it ended the seat's turn."""


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


GAME_FIELDS = (
    "id",
    "kind",
    "status",
    "seed",
    "chain_scheme",
    "options",
    "deadline_seconds",
    "away_allowance_days",
    "absence_policy",
    "standin_after",
    "deadlines",
    "awaited",
    "scores",
    "version",
    "head_hash",
    "round",
    "phase",
)
# The read model's columns as the game row holds them (kept in Work.game after each append).
READ_MODEL_COLUMNS = ("status", "round", "phase", "awaited", "deadlines", "scores")
SEAT_FIELDS = (
    "id",
    "number",
    "name",
    "email",
    "notice_preference",
    "away_until",
    "away_days_used",
    "time_zone",
    "language",
)


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
    # Seats whose turn starts afresh although they were awaited before (a timer played for
    # them and they are awaited again): a new deadline and a turn notice, like a new turn.
    fresh_turn: set = field(default_factory=set)
    # Deadlines set by the command itself for seats that become awaited (a resume gives back
    # the time that remained at the pause): {"seat": iso datetime}.
    deadline_overrides: dict = field(default_factory=dict)
    # The seats told news lately (_told_lately), read for a group of games at once when first asked.
    told_lately: _ToldLately | None = None
    # A clocked game's resume: seat -> the seconds it had left at the pause (pbem/log/clocks.py).
    clock_resumed: dict = field(default_factory=dict)
    # Played by a seat's orders given ahead (pbem.play.orders): the loop that plays them goes
    # on by itself, so this append does not queue it again.
    automatic: bool = False

    @property
    def told(self) -> Outcome:
        """What a submission reports back; only a submission's work has one (services.submit)."""
        assert self.outcome is not None, "only a submission has an outcome to tell"
        return self.outcome

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
        eventlog.apply(
            self.spec,
            self.loaded.state,
            event.type,
            event.payload,
            event.visible_to,
            event.public,
            event.reveals,
            self.next_seq - 1,
        )

    def platform(self, kind: str, payload: dict, **kw) -> None:
        self.emit(NewEvent("pbem." + kind, payload, **kw))

    def rng(self) -> Rng:
        seed = self.game.get("seed_bytes")
        if seed is None:
            seed = self.game["seed_bytes"] = bytes.fromhex(self.game["seed"])
        return Rng(seed, self.next_seq)


def _reuse(cached: Work, actor: Actor) -> Work:
    """A Work from the cache, made ready for a new command."""
    cached.actor, cached.events, cached.notices, cached.dirty = actor, [], [], False
    cached.outcome, cached.extra_updates, cached.cached, cached.side_effects = None, {}, True, []
    cached.fresh_turn, cached.deadline_overrides, cached.told_lately = set(), {}, None
    cached.clock_resumed = {}
    cached.automatic = False
    return cached


def _load_work(game_id: int, actor: Actor) -> Work:
    cached = eventlog.cache_take(game_id)
    if cached is not None and isinstance(cached, Work):
        return _reuse(cached, actor)
    try:
        game = Game.objects.values(*GAME_FIELDS).get(pk=game_id)
    except Game.DoesNotExist:
        raise ServiceError(_("There is no game #%(game)s.") % {"game": game_id}, "not_found") from None
    seats = list(Seat.objects.filter(game_id=game_id).order_by("number").values(*SEAT_FIELDS))
    row = Game(**{k: v for k, v in game.items() if k not in ("deadlines", "awaited", "scores", "round", "phase")})
    loaded = eventlog.load(row)
    return Work(loaded, game, seats, actor, stored=_stored(game))


def _load_works(game_ids: list[int], actor: Actor) -> dict[int, Work]:
    """The Work of each game, as _load_work gives it, with the cold ones loaded together: four
    queries for them all (game rows, seats, snapshots, events). A game that is gone is left out."""
    works: dict[int, Work] = {}
    cold = []
    for game_id in game_ids:
        cached = eventlog.cache_take(game_id)
        if cached is not None and isinstance(cached, Work):
            works[game_id] = _reuse(cached, actor)
        else:
            cold.append(game_id)
    if not cold:
        return works
    # Two plain statements (PostgreSQL: run_group's), read as the ORM's values() would give them.
    games = {game["id"]: game for game in rows.values_where(Game, GAME_FIELDS, "id = ANY(%s)", [cold])}
    seats: dict[int, list[dict]] = {game_id: [] for game_id in games}
    for seat in rows.values_where(Seat, ("game", *SEAT_FIELDS), "game_id = ANY(%s) ORDER BY game_id, number", [cold]):
        seats[seat.pop("game")].append(seat)
    instances = [
        Game(**{k: v for k, v in game.items() if k not in ("deadlines", "awaited", "scores", "round", "phase")})
        for game in games.values()
    ]
    for game_id, loaded in eventlog.load_many(instances).items():
        game = games[game_id]
        works[game_id] = Work(loaded, game, seats[game_id], actor, stored=_stored(game))
    return works


def cached_state(game: Game) -> dict | None:
    """The state this process holds in its cache for `game` (a row read just now), when it is
    exactly the game as that row has it (same version, same head of the chain):
    what a reader may consult without loading the log again. None otherwise. Read only: the
    entry stays in the cache for the next command."""
    with eventlog._cache_lock:
        work = eventlog._cache.get(game.pk)
    if not isinstance(work, Work):
        return None
    loaded = work.loaded
    if loaded.version != game.version or loaded.head_hash != game.head_hash:
        return None
    return loaded.state


def _stored(values: dict) -> dict:
    """A copy of the read model's columns (commands may replace Work.game's values before the
    append, and the append writes only what differs from the row)."""
    return {k: (v.copy() if isinstance(v, dict | list) else v) for k, v in values.items() if k in READ_MODEL_COLUMNS}


def _moved(game_id: int, version: int) -> bool:
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).first() != version


def _commit(work: Work, causation_id: str = "", db=None, pipe=None) -> Callable[[], None] | None:
    """Appends what `work` emitted, with the read model and the outbox, or raises Conflict.
    Nothing emitted: only the command's own writes (a player's language, not in the log).

    `pipe` (a prepared.Pipeline): the append is only sent; returns what to call once the
    pipeline's sync says it went in (the Work moved on, the notices and stand-ins queued), or
    None when nothing was sent."""
    if not work.events:
        # A command that writes outside the log only (a player's language or channels):
        # its writes, in the transaction run() holds when there are any.
        for write in work.side_effects:
            write()
        return None
    loaded = work.loaded
    previous = loaded.version
    _finish_if_over(work)
    now = timezone.now()
    if "clock" in loaded.state["meta"]:
        _step_clocks(work, now)
    rows, head = eventlog.build_rows(
        loaded.game_id,
        previous,
        loaded.head_hash,
        work.events,
        work.actor.as_tuple(),
        causation_id,
        loaded.spec,
        now,
        game=work.game,
    )
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
    eventlog.append(
        loaded.game_id,
        previous,
        loaded.head_hash,
        rows,
        changed,
        work.notices,
        causation_id,
        snapshot,
        db=db,
        pipe=pipe,
    )
    if pipe is not None:
        return lambda: _appended(work, previous + len(rows), head, updates)
    _appended(work, previous + len(rows), head, updates)
    return None


def _appended(work: Work, version: int, head: str, updates: dict) -> None:
    """What follows an append that went in: the Work at its new version, the notices and the
    stand-ins' moves queued for after the commit."""
    loaded = work.loaded
    loaded.version = version
    loaded.head_hash = head
    work.stored = {k: updates[k] for k in READ_MODEL_COLUMNS}  # fresh values: _read_model builds new ones
    work.game.update(work.stored, version=loaded.version, head_hash=head)
    if work.notices:
        waits = any(n["kind"] == "news" for n in work.notices)
        outbox.dispatch_on_commit(loaded.game_id, later=outbox.fold_seconds() if waits else 0)
    meta = loaded.state["meta"]
    standins, orders = meta.get("standins"), meta.get("orders")
    awaited = work.stored["awaited"]
    if (
        work.actor.kind != "standin"
        and not work.automatic
        and ((standins and set(standins) & set(awaited)) or (orders and any(orders.get(str(s)) for s in awaited)))
    ):
        # A seat the stand-in plays, or one holding orders given ahead, is awaited: it moves
        # after this commits (their own moves carry on by themselves, so they do not queue it again).
        outbox.standins_on_commit(loaded.game_id)


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
            if not work.events and work.cached and _moved(game_id, work.loaded.version):
                # Nothing emitted means no append checked the version: an answer (board, help,
                # a timer's "not due") judged on a cache another process has moved past would
                # be wrong. Look again on a fresh load.
                continue
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
    raise ServiceError(_("The game is busy; please try again."), "busy")


class _GroupFailed(Exception):
    """A game of a group written without savepoints failed: the group's transaction is undone."""


def run_group(bodies: dict, actor: Actor, prepare=None) -> dict[int, Work | None]:
    """Runs `bodies[game_id](work)` for each game and appends what each emitted, all in one
    transaction: one commit (one flush of the log to disk) for the group instead of one per
    game, each game still its own all-or-nothing append. PostgreSQL.

    The games are loaded together (_load_works) and written in the order of their ids, so two
    groups at once take the game rows' locks in the same order (no deadlock between them). The
    first attempt takes no savepoints (two round trips a game saved); if a game fails in it,
    nothing of the group is in, and the group is done again on fresh loads with a savepoint per
    game, so that a failing game rolls back only itself. Each game's result: its Work once its
    append is in (or its body emitted nothing on a fresh load); None when it must go through
    run() on its own: its append lost a race (Conflict), its body emitted nothing on a cached
    state (which may be behind), it raised (run() judges it again and reports the error as for
    any command), or it is gone. A failure of the group's transaction itself (its commit)
    raises, and nothing of the group is in. `prepare(works)`, if given, is called with the
    loaded Works before the first body (to read what the bodies need for the whole group at
    once); a body may run twice (once per attempt), each time on a fresh Work.
    """
    db = connections[DEFAULT_DB_ALIAS]
    order = sorted(bodies)
    with collector_held():
        try:
            return _run_group(order, bodies, actor, prepare, db, savepoints=False)
        except _GroupFailed:
            return _run_group(order, bodies, actor, prepare, db, savepoints=True)


@contextmanager
def collector_held():
    """Python's cycle collector held off while a group (or a sweep's chunk of groups) is worked,
    and left to run on its own schedule after: the group's many short-lived objects (decoded rows, folded states, the rows
    built) set it off again and again, each time over the whole heap (the cached games among it),
    about a third of the worker's CPU in a mass timeout. What the group frees, it frees by
    reference counting (a state is a tree of dicts and lists); a cycle it leaves waits for the
    next collection. Nested, or with the collector off already: left as it is."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _run_group(order: list[int], bodies: dict, actor: Actor, prepare, db, savepoints: bool) -> dict[int, Work | None]:
    works = _load_works(order, actor)
    told = _ToldLately(list(works))
    for loaded in works.values():
        loaded.told_lately = told
    if prepare is not None:
        prepare(works)
    done: dict[int, Work | None] = dict.fromkeys(order)
    nested = db.in_atomic_block  # within a caller's transaction: its commit is not ours to wait for
    with transaction.atomic(), outbox.dispatch_together():
        if savepoints:
            for game_id in order:
                work = works.get(game_id)
                if work is None:
                    continue
                try:
                    with transaction.atomic():
                        bodies[game_id](work)
                        _commit(work, "", db)
                except Exception:  # noqa: BLE001 - run() takes it again on its own, and says what failed
                    continue  # a Conflict: the append's statement wrote nothing (the version had moved)
                if work.events or not work.cached:
                    done[game_id] = work
        else:
            _run_pipelined(order, works, bodies, db, done)
        if not nested:
            # Back into the cache once the group commits, before the tasks its commit queues (run
            # at once in-process: the stand-ins' moves then find their games loaded).
            transaction.on_commit(lambda: _cache_done(done))
    if nested:
        _cache_done(done)
    return done


def _run_pipelined(order: list[int], works: dict[int, Work], bodies: dict, db, done: dict) -> None:
    """A group's first attempt (no savepoints): the games' appends sent one after another without
    waiting for each answer (prepared.Pipeline: one round trip for the group, the server running
    each append while the next game's is built), their answers read at the end, or sooner if a
    body runs a query. Any failure, or a lost race of a game whose own writes are in, raises
    _GroupFailed (nothing of the group is in)."""
    if db.connection is None:
        db.ensure_connection()
    sent: list[tuple[int, Work, Callable[[], None]]] = []

    def answers() -> None:
        results = pipe.sync()
        for (game_id, work, appended), result in zip(sent, results, strict=True):
            if not int(result.get_value(0, 0)):
                if work.side_effects:
                    raise _GroupFailed  # its own writes before the append are in the transaction
                continue  # Conflict: the append's statement wrote nothing (the version had moved)
            appended()
            done[game_id] = work
        sent.clear()

    pipe = prepared.Pipeline(db.connection, answers)
    try:
        with db.execute_wrapper(pipe.before_query):
            for game_id in order:
                work = works.get(game_id)
                if work is None:
                    continue
                bodies[game_id](work)
                appended = _commit(work, "", db, pipe)
                if appended is not None:
                    sent.append((game_id, work, appended))
                elif work.events or not work.cached:
                    done[game_id] = work
            answers()
    except _GroupFailed:
        pipe.abandon()
        raise
    except Exception as exc:
        pipe.abandon()
        raise _GroupFailed from exc
    finally:
        # answers() and the pipeline refer to each other (a cycle holding the group's Works and
        # their states, which only the cycle collector would free): broken, they go at once.
        pipe.on_interrupt = None


def _cache_done(done: dict[int, Work | None]) -> None:
    for game_id, work in done.items():
        if work is not None:
            eventlog.cache_put(game_id, work)


# ---------------------------------------------------------------------------------------------
# Read model, deadlines and notices written with every append
# ---------------------------------------------------------------------------------------------


def _read_model(work: Work, version: int, now: datetime) -> dict:
    spec, state = work.spec, work.state
    summary = spec.summary(state["game"]) if state["game"] is not None else {}
    awaited = awaited_seats(spec, state)
    before = set(work.game.get("awaited") or []) - work.fresh_turn
    deadlines = dict(work.game.get("deadlines") or {})
    for seat in list(deadlines):
        if int(seat) not in awaited:
            del deadlines[seat]
    clocked = "clock" in state["meta"]
    if clocked:
        deadlines = clocks.deadlines(state["meta"], awaited)  # the clock's fold: what the log says
    for seat in [] if clocked else awaited:
        # Only a newly awaited seat gets a fresh deadline: one still awaited without a deadline
        # has it held (a notice to it bounced, suspend_deadline) until rearm_deadline.
        if seat not in before:
            deadlines[str(seat)] = work.deadline_overrides.get(str(seat)) or deadline_for(work, seat, now)
    return {
        "status": game_status(state),
        "round": int(summary.get("round") or 0),
        "phase": str(summary.get("phase") or "")[:80],
        "awaited": awaited,
        "deadlines": deadlines,
        "scores": scores_with_corrections(spec, state, summary),
        "read_model_version": version,
    }


def _step_clocks(work: Work, now: datetime) -> None:
    """A clocked game: the turns this append ends and begins, written as a `pbem.Clocks` event
    (each stopped seat's bank, each started seat's bank and deadline), at the append's time."""
    meta = work.state["meta"]
    awaited = awaited_seats(work.spec, work.state)
    previous = set(work.game.get("awaited") or [])
    before = previous - work.fresh_turn
    stopped = [seat for seat in previous if seat not in awaited or seat in work.fresh_turn]
    started = [seat for seat in awaited if seat not in before]
    starts = {}
    for seat in started:
        away = work.seats[seat].get("away_until") if seat < len(work.seats) else None
        if away and away > now:
            starts[seat] = away
    payload = clocks.step(meta, stopped, started, now, starts, {int(k): v for k, v in work.clock_resumed.items()})
    if payload is not None:
        work.platform("Clocks", payload)


def deadline_for(work: Work, seat: int, now: datetime) -> str:
    start = now
    away = work.seats[seat].get("away_until") if seat < len(work.seats) else None
    if away and away > now:
        start = away
    return (start + timedelta(seconds=work.game["deadline_seconds"])).isoformat()


def _turn_notices(work: Work, version: int, updates: dict) -> None:
    """A turn notice to each newly awaited seat (and to the actor if a new phase awaits them too);
    news to the others as each asked (NoticePreference): at the end of another player's turn
    (the default), of a round, or after every move."""
    before = set(work.game.get("awaited") or []) - work.fresh_turn
    after = updates["awaited"]
    new_phase = (updates["round"], updates["phase"]) != (work.game.get("round"), work.game.get("phase"))
    moment = _Moment(
        finished=updates["status"] == GameStatus.FINISHED and work.game["status"] != GameStatus.FINISHED,
        newsworthy=any(ev.type not in QUIET_EVENTS for ev in work.events),
        # Table talk and news of the table itself (a new player, a pause).
        talk=any(ev.type in TABLE_NEWS for ev in work.events),
        # A turn ended: whom the game awaits changed (a timer that played for a seat and awaits
        # it again counts), or a new phase began.
        turn_over=set(after) != before or new_phase,
        round_over=updates["round"] != work.game.get("round"),
    )
    if new_phase and work.actor.seat is not None:
        before.discard(work.actor.seat)
    standins = set(work.state["meta"].get("standins", ()))
    if work.state["meta"].get("orders"):
        # A seat whose orders move for it at once (a forced move, a standing order) is not told
        # it is its turn: like a stand-in's, its move follows this append.
        standins |= {s for s in after if s not in before and plays_at_once(work.spec, work.state, s)}
    for seat in work.seats:
        if not seat["email"]:
            continue  # a seat only a stand-in ever plays (a practice game's)
        kind = _kind_for(work, seat, moment, before, after, standins)
        if kind is None or any(n["seat_id"] == seat["id"] for n in work.notices):
            continue  # nothing to tell, or the command wrote this seat a notice of its own (a welcome)
        work.notices.append({"seat_id": seat["id"], "kind": kind, "version": version, "to_email": seat["email"]})


@dataclass(frozen=True)
class _Moment:
    """What an append means to the seats that hear of it."""

    finished: bool
    newsworthy: bool
    talk: bool
    turn_over: bool
    round_over: bool

    def news_for(self, preference: str) -> bool:
        """Whether a seat of this preference hears of it now (a digest seat: from its digest)."""
        if self.talk:
            return preference in ("every", "turn")
        if not self.newsworthy:
            return False
        return (
            preference == "every"
            or (preference == "turn" and self.turn_over)
            or (preference == "round" and self.round_over)
        )


def _kind_for(work: Work, seat: dict, moment: _Moment, before: set, after: list, standins: set) -> str | None:
    number = seat["number"]
    if moment.finished:
        return "final"
    if number in after and number not in before:
        return None if number in standins else "turn"  # a stand-in's seat: it moves at once
    if number == work.actor.seat or not moment.news_for(seat["notice_preference"]):
        return None  # the actor gets a confirmation from the channel
    if number in after and not moment.talk:
        # Still choosing in a simultaneous phase: told when another seat's move changed what it
        # sees, at most once in CHOOSING_NEWS_SECONDS.
        if not _changes_what_it_sees(work, number) or _told_lately(work, seat["id"]):
            return None
    return "news"


# A seat still choosing in a simultaneous phase hears of other seats' moves at most once in
# this many seconds: its next notice (or its reply's answer) carries what came after.
CHOOSING_NEWS_SECONDS = 300


def _changes_what_it_sees(work: Work, seat: int) -> bool:
    """Whether this command's events show `seat` something (a move it may see, even face down)."""
    return any(
        ev.type not in QUIET_EVENTS
        and ev.type not in NEUTRAL_EVENTS
        and (ev.visible_to is None or seat in ev.visible_to or ev.public is not None)
        for ev in work.events
    )


def _told_lately(work: Work, seat_id: int) -> bool:
    if work.told_lately is not None:
        return work.told_lately.asks(work.loaded.game_id, seat_id)
    since = timezone.now() - timedelta(seconds=CHOOSING_NEWS_SECONDS)
    # A ready statement (pbem.log.rows): asked on every move of a simultaneous phase, where the
    # ORM's compiling of this one query cost more than the rest of the check.
    return (
        rows.fetch_one(
            "SELECT 1 FROM pbem_notice WHERE game_id = %s AND seat_id = %s AND kind = 'news' AND created_at >= %s "
            "LIMIT 1",
            [work.loaded.game_id, seat_id, connections[DEFAULT_DB_ALIAS].ops.adapt_datetimefield_value(since)],
        )
        is not None
    )


class _ToldLately:
    """_told_lately's answers for a group of games, read in one query the first time one of them
    asks (a seat still choosing in a simultaneous phase: most groups never ask, and a query a
    group or a stand-ins' round was a tenth of a mass timeout's time)."""

    def __init__(self, game_ids: list[int]):
        self.game_ids = game_ids
        self.told: set[tuple[int, int]] | None = None

    def asks(self, game_id: int, seat_id: int) -> bool:
        if self.told is None:
            from pbem.models import Notice

            since = timezone.now() - timedelta(seconds=CHOOSING_NEWS_SECONDS)
            self.told = set(
                Notice.objects.filter(game_id__in=self.game_ids, kind="news", created_at__gte=since).values_list(
                    "game_id", "seat_id"
                )
            )
        return (game_id, seat_id) in self.told


def _finish_if_over(work: Work) -> None:
    state = work.state
    meta = state["meta"]
    if meta["ended"] or state["game"] is None or not meta["started"]:
        return
    standing = fold.final_standing(work.spec, state)
    if standing is None:
        return
    work.platform("GameEnded", standing)
    work.platform("SeedRevealed", {"seed": work.game["seed"]}, reveals=True)


def emit_game_events(work: Work, events, rng: Rng) -> None:
    for i, ev in enumerate(events):
        work.emit(
            NewEvent(
                ev.type,
                ev.data,
                list(ev.visible_to) if ev.visible_to is not None else None,
                ev.public,
                ev.reveals,
                rng.draws if (i == 0 and rng.used) else None,
            )
        )


def check_seat(work: Work, seat: int) -> None:
    if not 0 <= seat < len(work.seats):
        raise ServiceError(
            _("Game #%(game)s has no seat %(seat)s.") % {"game": work.loaded.game_id, "seat": seat}, "no_seat"
        )


def require_running(work: Work) -> None:
    meta = work.state["meta"]
    if meta["abandoned"]:
        raise ServiceError(_("This game was abandoned."), "not_running")
    if meta["ended"]:
        raise ServiceError(_("This game is over."), "not_running")
    if not meta["started"]:
        raise ServiceError(_("This game has not started yet."), "not_running")
    if meta["paused"]:
        raise ServiceError(_("This game is paused by the Master of Seals."), "paused")


def need_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError(_("Give a reason: every action on the desk is recorded with one."), "reason_required")
    return reason
