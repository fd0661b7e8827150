"""The event store: hashing, appending with optimistic concurrency, loading with snapshots.

A game's state is the fold of its log: platform events ("pbem.*") change the platform's part,
every other event goes to the game's own `evolve`. Events named in a later `pbem.Undone` are
skipped. Snapshots are caches of that fold and may be deleted at any time.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime

import msgspec
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.utils import timezone

from games.base import GameSpec
from pbem.log import chain, fold, prepared
from pbem.models import Event, Game, Snapshot
from pbem.registry import get_game

# Every column of an event row that the chain, the audit, the feed and the export read.
EVENT_ROW_FIELDS = (
    "seq",
    "type",
    "payload",
    "public",
    "visible_to",
    "reveals",
    "rng",
    "actor_kind",
    "actor_seat",
    "actor_user_id",
    "created_at",
    "causation_id",
    "schema_version",
    "prev_hash",
    "hash",
)

GENESIS = chain.GENESIS
PLATFORM_PREFIX = fold.PLATFORM_PREFIX
# The chain and the fold are pure (pbem.log.chain, pbem.log.fold): the offline verifier runs the same code.
canonical = chain.canonical
_CANONICAL = chain._CANONICAL
seed_commitment = chain.seed_commitment
new_state, upcast, apply, fold_rows = fold.new_state, fold.upcast, fold.apply, fold.fold_rows
_undone_in = fold.undone_in


class Conflict(Exception):
    """Another writer appended first; reload and try again."""


# A snapshot's state need not be canonical (nothing hashes it), and a state may have keys that
# do not sort against each other.
_SNAPSHOT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def sealer_for(game) -> chain.Sealer:
    """The chain sealer of a game (a Game, or the runner's dict of its columns), kept with it:
    the key derivation from the seed is done once per cached game, not per append."""
    if isinstance(game, dict):
        sealer = game.get("_sealer")
        if sealer is None:
            sealer = game["_sealer"] = chain.Sealer(game["chain_scheme"], game["id"], bytes.fromhex(game["seed"]))
        return sealer
    sealer = getattr(game, "_sealer", None)
    if sealer is None or sealer.game_id != game.pk:
        sealer = chain.Sealer(game.chain_scheme, game.pk, bytes.fromhex(game.seed))
        game._sealer = sealer
    return sealer


def sealer_of(game_id: int) -> chain.Sealer:
    """The sealer of a game read from its row (for callers that hold no game)."""
    scheme, seed = Game.objects.values_list("chain_scheme", "seed").get(pk=game_id)
    return chain.Sealer(scheme, game_id, bytes.fromhex(seed))


@dataclass
class Loaded:
    game_id: int
    spec: GameSpec
    state: dict
    version: int
    head_hash: str
    undone: set = field(default_factory=set)


def undone_seqs(game_id: int, upto: int | None = None) -> set[int]:
    rows = Event.objects.filter(game_id=game_id, type="pbem.Undone")
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    out: set[int] = set()
    for payload in rows.values_list("payload", flat=True):
        out.update(payload["events"])
    return out


EVENT_FIELDS = ("seq", "type", "payload", "public", "visible_to", "reveals", "schema_version")


_shared = threading.local()


class shared_loads:
    """Within this block (in this thread), `load(game, at=N)` of a version already loaded returns
    that same Loaded: the sender renders every notice of a batch that speaks of one version from
    one load (the log is append-only, so the state at a version never changes). Only loads that
    name their version are shared, and their callers only read them (a writer loads the newest
    state, at=None, and gets its own)."""

    def __enter__(self):
        self.outer = getattr(_shared, "loads", None)
        if self.outer is None:
            _shared.loads = {}
        return self

    def __exit__(self, *exc):
        if self.outer is None:
            _shared.loads = None


def shared(key: tuple, compute):
    """`compute()` once per `key` within a shared_loads block (else every time): for what a
    batch of notices reads of one game at one version (who sat where, what was undone)."""
    memo = getattr(_shared, "loads", None)
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def load(game: Game | int, at: int | None = None, use_snapshots: bool = True) -> Loaded:
    """The state after event `at` (default: the newest), from the newest valid snapshot on.

    Two queries: the snapshot, then the events after it. Undo needs no scan of the whole log:
    a snapshot already reflects every undo before it, and an undo after it that reaches back
    behind it makes it stale (we then replay from scratch).
    """
    shared = getattr(_shared, "loads", None) if at is not None else None
    if shared is not None:
        key = (game.pk if isinstance(game, Game) else game, at, use_snapshots)
        loaded = shared.get(key)
        if loaded is None:
            loaded = shared[key] = _load(game, at, use_snapshots)
        return loaded
    return _load(game, at, use_snapshots)


def _load(game: Game | int, at: int | None, use_snapshots: bool, lazy: bool = True) -> Loaded:
    game = game if isinstance(game, Game) else Game.objects.get(pk=game)
    spec = get_game(game.kind)
    snap = None
    if use_snapshots:
        snaps = Snapshot.objects.filter(game_id=game.pk, reducer_version=spec.version)
        if at is not None:
            snaps = snaps.filter(seq__lte=at)
        snap = snaps.order_by("-seq").values_list("seq", "state").first()
    start = snap[0] if snap else 0
    # On PostgreSQL the rows come with their JSON as text, decoded by the fold where it reads
    # them (fold_text_rows); elsewhere, or for a log with a value msgspec refuses, decoded first.
    decode = _decode if lazy and connection.vendor == "postgresql" else None
    try:
        rows = _event_rows(game.pk, start, at, decoded=decode is None)
        undone = _undone_in(rows, decode)
        if snap and any(seq <= start for seq in undone):
            snap, start = None, 0
            rows = _event_rows(game.pk, 0, at, decoded=decode is None)
            undone = _undone_in(rows, decode)
        state = snap[1] if snap else new_state()
        if decode is None:
            state = fold_rows(spec, state, rows, undone)
        else:
            state = fold.fold_text_rows(spec, state, rows, undone, decode)
    except msgspec.DecodeError:
        if decode is None:
            raise
        return _load(game, at, use_snapshots, lazy=False)  # the snapshot's state read anew: this fold changed it
    version = at if at is not None else game.version
    return Loaded(game.pk, spec, state, version, game.head_hash, undone)


def load_many(games: list[Game]) -> dict[int, Loaded]:
    """The newest state of each of `games` (rows read just now; on PostgreSQL), as `load` gives
    it, in two queries for them all: each game's newest snapshot, then the events after it up
    to the row's version. A game whose snapshot an undo after it makes stale is loaded on its
    own (load). For a batch of games written together (the deadline timer's mass timeouts)."""
    if not games:
        return {}
    specs = {game.pk: get_game(game.kind) for game in games}
    ids = [game.pk for game in games]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT ON (s.game_id) s.game_id, s.seq, s.state::text FROM pbem_snapshot s "
            "JOIN unnest(%s::bigint[], %s::integer[]) AS w(game_id, reducer) "
            "ON s.game_id = w.game_id AND s.reducer_version = w.reducer "
            "ORDER BY s.game_id, s.seq DESC",
            [ids, [specs[pk].version for pk in ids]],
        )
        snaps = {game_id: (seq, state) for game_id, seq, state in cursor.fetchall()}
        # Each event's JSON as text, decoded where the fold reads it (fold_text_rows): the
        # columns that are at their defaults in most events come as one NULL (_EXTRA).
        cursor.execute(
            f"SELECT e.game_id, e.seq, e.type, e.payload::text, {_EXTRA} FROM pbem_event e "
            "JOIN unnest(%s::bigint[], %s::integer[], %s::integer[]) AS w(game_id, after, upto) "
            "ON e.game_id = w.game_id AND e.seq > w.after AND e.seq <= w.upto ORDER BY e.game_id, e.seq",
            [ids, [snaps[pk][0] if pk in snaps else 0 for pk in ids], [game.version for game in games]],
        )
        raw = cursor.fetchall()
    rows: dict[int, list] = {pk: [] for pk in ids}
    for game_id, *row in raw:
        rows[game_id].append(row)
    out = {}
    for game in games:
        try:
            loaded = _loaded_from_text(game, specs[game.pk], snaps.get(game.pk), rows[game.pk])
        except msgspec.DecodeError:
            loaded = None  # a value msgspec refuses: load reads it the standard library's way
        # None: an undo reaching behind the snapshot: from scratch.
        out[game.pk] = loaded if loaded is not None else _load(game, None, True, lazy=False)
    return out


def _loaded_from_text(game: Game, spec: GameSpec, snap: tuple | None, rows: list) -> Loaded | None:
    """loaded_from for load_many's rows: (seq, type, payload, extra) with JSON as text, as
    fold.fold_text_rows takes them, after the snapshot `snap` (seq, state as JSON text), up to
    the row's version. None when an undo among them reaches behind the snapshot."""
    start = snap[0] if snap else 0
    undone = _undone_in(rows, _decode)
    if snap and any(seq <= start for seq in undone):
        return None
    state = fold.fold_text_rows(spec, _decode(snap[1]) if snap else new_state(), rows, undone, _decode)
    return Loaded(game.pk, spec, state, game.version, game.head_hash, undone)


# The columns row_from_text takes, in its order.
ROW_FROM_TEXT = ("seq", "type", "payload", "public", "visible_to", "reveals", "schema_version")


# msgspec's decoder, 4-5x the standard library's speed on these small documents (decoding was
# half of a replay's time), and exact on integers of any size, as json is (orjson is not).
_decode = msgspec.json.Decoder().decode


def json_loads(text):
    """A stored JSON value read as the standard library reads it."""
    try:
        return _decode(text)
    except msgspec.DecodeError:  # not expected of a database's JSON: the standard library's word
        return json.loads(text)


def row_from_text(seq, etype, payload, public, visible_to, reveals, schema_version) -> tuple:
    """An event row as fold_rows takes it, from a query that read its JSON columns as text."""
    loads = json_loads
    return (
        seq,
        etype,
        loads(payload),
        None if public is None else loads(public),
        None if visible_to is None else loads(visible_to),
        bool(reveals),
        schema_version,
    )


def loaded_from(game: Game, spec: GameSpec, at: int, snap: tuple | None, rows: list) -> Loaded | None:
    """What `load(game, at=at)` gives, from rows a batch read itself: `snap` (seq, state as JSON
    text) or None, then the decoded event rows after it up to `at`. None when an undo among them
    reaches behind the snapshot (then only a replay from the start will do: load)."""
    start = snap[0] if snap else 0
    rows = [row for row in rows if row[0] > start]
    undone = _undone_in(rows)
    if snap and any(seq <= start for seq in undone):
        return None
    state = fold_rows(spec, json_loads(snap[1]) if snap else new_state(), rows, undone)
    return Loaded(game.pk, spec, state, at, game.head_hash, undone)


def prime_load(game: Game, at: int, loaded: Loaded) -> None:
    """Leaves `loaded` where `load(game, at=at)` finds it within a shared_loads block."""
    shared((game.pk, at, True), lambda: loaded)


# What a replay reads of an event besides its seq, type and payload, as one JSON array, or NULL
# where it is the default of most events (fold.fold_text_rows): four columns a row fewer to send
# and parse (a fifth of the client's time to read them).
_EXTRA = (
    "CASE WHEN public IS NULL AND visible_to IS NULL AND NOT reveals AND schema_version = 1 THEN NULL "
    "ELSE jsonb_build_array(public, visible_to, reveals, schema_version)::text END"
)


def _event_rows(game_id: int, after: int, upto: int | None, decoded: bool = True) -> list:
    """(seq, type, payload, public, visible_to, reveals, schema_version) rows in order; with
    `decoded` false (PostgreSQL only), (seq, type, payload, extra) with JSON as text, as
    fold.fold_text_rows takes them.

    A plain cursor with JSON as text: replay is the hot path of every cold load, and this is
    about a quarter faster than going through the ORM's JSONField.
    """
    if decoded:
        text = "::text" if connection.vendor == "postgresql" else ""
        columns = f"payload{text}, public{text}, visible_to{text}, reveals, schema_version"
    else:
        columns = f"payload::text, {_EXTRA}"
    sql = f"SELECT seq, type, {columns} FROM pbem_event WHERE game_id = %s AND seq > %s"
    params = [game_id, after]
    if upto is not None:
        sql += " AND seq <= %s"
        params.append(upto)
    with connection.cursor() as cursor:
        cursor.execute(sql + " ORDER BY seq", params)
        raw = cursor.fetchall()
    return rows_from_text(raw) if decoded else raw


def rows_from_text(raw: list) -> list:
    """[row_from_text(*row) for row in raw], in one comprehension (no call per row: replay's hot
    path); a batch with a value msgspec refuses is read again through row_from_text."""
    loads = _decode
    try:
        return [
            (seq, etype, loads(p), None if pub is None else loads(pub), None if vis is None else loads(vis), bool(r), v)
            for seq, etype, p, pub, vis, r, v in raw
        ]
    except msgspec.DecodeError:
        return [row_from_text(*row) for row in raw]


# ---------------------------------------------------------------------------------------------
# In-process cache of live states (consumed by each write, put back after it commits)
# ---------------------------------------------------------------------------------------------

_cache: OrderedDict[int, object] = OrderedDict()
_cache_lock = threading.Lock()
CACHE_SIZE = 512


def cache_take(game_id: int):
    """Takes the entry out: whoever holds it may mutate it, and puts it back when done."""
    with _cache_lock:
        return _cache.pop(game_id, None)


def cache_put(game_id: int, entry) -> None:
    with _cache_lock:
        _cache[game_id] = entry
        _cache.move_to_end(game_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def cache_clear() -> None:
    with _cache_lock:
        _cache.clear()


# ---------------------------------------------------------------------------------------------
# Appending
# ---------------------------------------------------------------------------------------------


@dataclass
class NewEvent:
    type: str
    payload: dict
    visible_to: list | None = None
    public: dict | None = None
    reveals: bool = False
    rng: list | None = None


def build_rows(
    game_id: int,
    expected: int,
    head: str,
    events: list[NewEvent],
    actor: tuple,
    causation_id: str,
    spec: GameSpec | None,
    now: datetime | None = None,
    game=None,
) -> tuple[list[dict], str]:
    """The rows to insert, numbered after `expected` and chained to `head` under the game's
    chain scheme. `game`: the Game or the runner's dict of its columns (else read from its row)."""
    now = now or timezone.now()
    sealer = sealer_for(game) if game is not None else sealer_of(game_id)
    seal = sealer.hash
    when = chain.when_digest(now) if sealer.scheme >= 2 else None  # one time for the whole append
    kind, seat, user_id = actor
    rows, prev = [], head
    for i, ev in enumerate(events, start=1):
        schema = 1
        if spec is not None and not ev.type.startswith(PLATFORM_PREFIX):
            schema = spec.schema_versions.get(ev.type, 1)
        row = {
            "type": ev.type,
            "payload": ev.payload,
            "public": ev.public,
            "visible_to": ev.visible_to,
            "reveals": ev.reveals,
            "rng": ev.rng,
            "actor_kind": kind,
            "actor_seat": seat,
            "actor_user_id": user_id,
            "created_at": now,
            "causation_id": causation_id,
            "schema_version": schema,
        }
        seq = expected + i
        row["seq"] = seq
        row["prev_hash"] = prev
        row["hash"] = prev = seal(seq, row, prev, when)
        rows.append(row)
    return rows, prev


def append(
    game_id: int,
    expected: int,
    head: str,
    rows: list[dict],
    game_updates: dict,
    notices: list[dict],
    causation_id: str = "",
    snapshot: tuple[int, dict] | None = None,
    db=None,
    pipe=None,
) -> None:
    """Appends `rows` if the game is still at version `expected`; else raises Conflict.

    On PostgreSQL it is one statement (a CTE: bump the game's version only where it still equals
    `expected` and no event carries `causation_id` yet, insert the events and the outbox rows
    only if that bump happened), atomic on its own; elsewhere a conditional UPDATE then bulk
    inserts, which the caller runs in a transaction. Either way UNIQUE(game, seq) is the last
    line of defence against a doubled number.

    `snapshot` (reducer version, state) is written as the snapshot at the new version, in the
    same statement: a cache that costs no transaction of its own.

    `pipe` (a prepared.Pipeline, PostgreSQL): the statement is only sent; its result, read by the
    pipeline's sync, is the count of games bumped (0: the Conflict is the caller's to raise).
    """
    new_version = expected + len(rows)
    new_head = rows[-1]["hash"] if rows else head
    db = db or connections[DEFAULT_DB_ALIAS]
    if db.vendor == "postgresql":
        _append_pg(
            db, game_id, expected, new_version, new_head, rows, game_updates, notices, causation_id, snapshot, pipe
        )
        return
    updated = Game.objects.filter(pk=game_id, version=expected).update(
        version=new_version, head_hash=new_head, updated_at=timezone.now(), **game_updates
    )
    if not updated:
        raise Conflict(f"game {game_id} moved past version {expected}")
    try:
        Event.objects.bulk_create([Event(game_id=game_id, **row) for row in rows])
    except IntegrityError as exc:  # pragma: no cover - the conditional update makes this unreachable
        raise Conflict(str(exc)) from exc
    if notices:
        from pbem.models import Notice

        Notice.objects.bulk_create([Notice(game_id=game_id, **n) for n in notices])
    if snapshot is not None:
        try:
            with transaction.atomic():
                Snapshot.objects.create(
                    game_id=game_id, seq=new_version, reducer_version=snapshot[0], state=snapshot[1]
                )
        except IntegrityError:
            pass  # someone else wrote the same cache entry: fine


_GAME_COLUMNS = ("status", "round", "phase", "awaited", "deadlines", "scores", "read_model_version")
_JSON_GAME_COLUMNS = frozenset({"awaited", "deadlines", "scores"})
# Event columns in insert order, with the cast each parameter needs and whether it is JSON.
_EVENT_COLUMNS = (
    ("seq", "integer", False),
    ("type", "", False),
    ("payload", "jsonb", True),
    ("public", "jsonb", True),
    ("visible_to", "jsonb", True),
    ("reveals", "boolean", False),
    ("rng", "jsonb", True),
    ("actor_kind", "", False),
    ("actor_seat", "smallint", False),
    ("actor_user_id", "integer", False),
    ("created_at", "timestamptz", False),
    ("causation_id", "", False),
    ("schema_version", "smallint", False),
    ("prev_hash", "", False),
    ("hash", "", False),
)


@dataclass(frozen=True)
class AppendStatement:
    """One shape of the append statement: psycopg's spelling (%s) and libpq's ($1 …), and the
    name it is prepared under on a connection."""

    sql: str
    numbered: bytes
    name: bytes


_EVENT_PARAMS = tuple((col, is_json) for col, _cast, is_json in _EVENT_COLUMNS)
_APPEND_SQL: dict[tuple, AppendStatement] = {}


def _append_sql(
    game_columns: tuple, events: int, notices: int, with_causation: bool, with_snapshot: bool
) -> AppendStatement:
    """The append statement for one shape of append (built once per shape, then prepared)."""
    key = (game_columns, events, notices, with_causation, with_snapshot)
    statement = _APPEND_SQL.get(key)
    if statement is not None:
        return statement
    sets = ["version = %s", "head_hash = %s", "updated_at = now()"]
    sets += [f"{col} = %s" + ("::jsonb" if col in _JSON_GAME_COLUMNS else "") for col in game_columns]
    fresh = " AND NOT EXISTS (SELECT 1 FROM pbem_event WHERE game_id = %s AND causation_id = %s)"
    parts = [
        f"WITH bump AS (UPDATE pbem_game SET {', '.join(sets)} WHERE id = %s AND version = %s"
        f"{fresh if with_causation else ''} RETURNING id)"
    ]
    if events:
        cols = ", ".join(col for col, _cast, _json in _EVENT_COLUMNS)
        cells = "(" + ", ".join("%s::" + cast if cast else "%s" for _col, cast, _json in _EVENT_COLUMNS) + ")"
        parts.append(
            f", ev AS (INSERT INTO pbem_event (game_id, {cols}) SELECT bump.id, v.* FROM bump, "
            f"(VALUES {', '.join([cells] * events)}) AS v({cols}))"
        )
    if notices:
        cells = "(%s::bigint, %s, %s::integer, %s, %s::jsonb)"
        parts.append(
            ", ob AS (INSERT INTO pbem_notice (game_id, seat_id, kind, version, to_email, context, status, attempts,"
            " message_id, subject, created_at, last_error) SELECT bump.id, v.seat_id, v.kind, v.version, v.to_email,"
            f" v.context, 'pending', 0, '', '', now(), '' FROM bump, (VALUES {', '.join([cells] * notices)})"
            " AS v(seat_id, kind, version, to_email, context))"
        )
    if with_snapshot:
        parts.append(
            ", sn AS (INSERT INTO pbem_snapshot (game_id, seq, reducer_version, state, created_at)"
            " SELECT bump.id, %s::integer, %s::integer, %s::jsonb, now() FROM bump ON CONFLICT DO NOTHING)"
        )
    parts.append(" SELECT count(*) FROM bump")
    sql = "".join(parts)
    statement = AppendStatement(sql, *prepared.numbered(sql, "pbem_append_"))
    _APPEND_SQL[key] = statement
    return statement


def _append_pg(
    db, game_id, expected, new_version, new_head, rows, game_updates, notices, causation_id, snapshot, pipe=None
) -> None:
    game_columns = tuple(col for col in _GAME_COLUMNS if col in game_updates)
    params: list = [new_version, new_head]
    for col in game_columns:
        value = game_updates[col]
        params.append(canonical(value) if col in _JSON_GAME_COLUMNS else value)
    params += [game_id, expected]
    if causation_id:
        params += [game_id, causation_id]
    for row in rows:
        for col, is_json in _EVENT_PARAMS:
            value = row.get(col)
            params.append(_CANONICAL(value) if is_json and (value is not None or col == "payload") else value)
    for n in notices:
        context = n.get("context")
        params += [
            n.get("seat_id"),
            n["kind"],
            n.get("version", 0),
            n.get("to_email", ""),
            canonical(context) if context else "{}",
        ]
    if snapshot is not None:
        params += [new_version, snapshot[0], _SNAPSHOT_JSON(snapshot[1])]
    statement = _append_sql(game_columns, len(rows), len(notices), bool(causation_id), snapshot is not None)
    if db.connection is None:
        db.ensure_connection()
    with db.wrap_database_errors:
        count = _exec_prepared(db.connection, statement, params, pipe)
    if not count:
        raise Conflict(f"game {game_id} moved past version {expected}")


def _exec_prepared(conn, statement: AppendStatement, params: list, pipe=None) -> int:
    """Runs the append as one prepared statement through libpq (pbem.log.prepared), text parameters.

    This is the hot path of every command, and psycopg's general machinery (adapting each
    parameter, its generators and waits) cost more CPU than the statement's own execution; the
    statement's parameters are only ints, strings, booleans, a timestamp and JSON text, so
    spelling them as text here is simple.
    """
    encode = str.encode  # most parameters are strings or ints: they take the short way
    values = [
        encode(value) if value.__class__ is str else b"%d" % value if value.__class__ is int else _as_text(value)
        for value in params
    ]
    if pipe is not None:
        pipe.send(statement.numbered, statement.name, values)
        return 1  # known at the pipeline's sync
    return int(prepared.execute(conn, statement.numbered, statement.name, values).get_value(0, 0))


def _as_text(value) -> bytes | None:
    if value is None:
        return None
    if value is True:
        return b"t"
    if value is False:
        return b"f"
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, datetime):
        return value.isoformat().encode()
    raise TypeError(f"the append cannot send a {type(value).__name__}")


def snapshot_due(previous_version: int, new_version: int) -> bool:
    """Whether an append from `previous_version` to `new_version` crosses a multiple of
    PBEM_SNAPSHOT_EVERY (the append then writes a snapshot of the new state with its events)."""
    every = settings.PBEM_SNAPSHOT_EVERY
    return every > 0 and new_version // every != previous_version // every
