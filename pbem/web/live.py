"""Live turns: learning that a game moved on without reloading, across processes.

The only state is the game's row in the database (its version, status, who is awaited, the
deadlines): a wait in one web process sees a move applied by another process (a Celery worker,
another web worker) at its next look. Each wait is bounded (`max_wait()`), so a client simply
asks again. The seat page asks with no wait every `poll_seconds()` (pbem/static/pbem/live.js);
API clients long-poll (`?wait_version=N`).

A wait is a coroutine (`wait_for_version`), and the views that wait are async. Where it runs
decides what it holds:
- under ASGI (production: gunicorn's uvicorn worker, `config.asgi`, to which the proxy routes the
  waits; see deploy/nginx/) a waiting client holds no thread: the waits of a process are looked
  at together, one query for all their games' rows and one read of their seats' marks every
  POLL_EVERY however many wait (`Looker`), and each wakes when its game moved;
- under WSGI (the embedded run's `runserver`, or a gthread worker a wait reached without the
  proxy) Django runs the view in the request's thread, which the wait then holds: at most
  PBEM_LIVE_WAITS_PER_PROCESS such waits at a time in a process (gunicorn.conf.py sets it to half
  its threads, so pages always find a free one); a wait beyond it answers at once.

So that long polls cannot starve the site (one seat token opening 50 or 200 of them):
- one wait per seat at a time: a new wait for a seat marks itself the seat's newest, and the one
  before ends at its next look (within POLL_EVERY) with a short 409 "replaced";
- at most PBEM_LIVE_WAITS waits at a time site-wide, counted in Redis when the cache is Redis (so
  across every process and machine), else in this process (the embedded run is one); a wait
  beyond it answers at once with a short 429 "busy" and Retry-After (not a 5xx: an error line
  for each would flood the log). Neither renders the view: a flood of reopened polls costs little.
A wait's mark in Redis expires on its own a little after its longest wait, so a process that died
waiting frees its places.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
import uuid
import weakref
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import caches

from pbem.models import Game

MAX_WAIT = 25.0  # seconds: the longest a request waits for the version to pass N
POLL_EVERY = 0.5  # seconds between two looks at the waited games' rows
POLL_SECONDS = 10  # how often an open seat page asks
SITE_WAITS = 1000  # waits at a time, site-wide, unless PBEM_LIVE_WAITS says otherwise
ROW = ("version", "status", "awaited", "deadlines")

log = logging.getLogger(__name__)


def max_wait() -> float:
    return float(getattr(settings, "PBEM_LIVE_MAX_WAIT", MAX_WAIT))


def poll_seconds() -> float:
    return float(getattr(settings, "PBEM_LIVE_POLL_SECONDS", POLL_SECONDS))


def site_waits() -> int:
    return int(getattr(settings, "PBEM_LIVE_WAITS", SITE_WAITS))


def waits_per_process() -> int:
    return int(getattr(settings, "PBEM_LIVE_WAITS_PER_PROCESS", 4))


def retry_after() -> str:
    return f"{max(1, round(poll_seconds()))}"


def snapshot(game_id: int) -> dict | None:
    """What a page or client may be out of date on: the game's row, as it is now."""
    row = Game.objects.filter(pk=game_id).values(*ROW).first()
    return dict(row) if row is not None else None


def blocking(function):
    """`function` (database or cache work) awaited from a wait. Thread-sensitive: under WSGI it
    runs in the request's own thread (its connection, its transaction); under config.asgi in the
    process's one thread for synchronous work, so no wait ever has a thread of its own."""
    return sync_to_async(function, thread_sensitive=True)


class Replaced(Exception):
    """A newer wait of the same seat took over: this one ends, answered cheaply (409)."""


class Busy(Exception):
    """No wait is free: answered at once and cheaply (429, Retry-After)."""


# --- waits that hold a thread (WSGI): bounded per process -------------------------------------

_slots_lock = threading.Lock()
_waiting = 0  # waits holding a thread in this process now


def no_free_wait(holds_thread: bool = True) -> bool:
    """Checked before anything else of a long poll that would hold a thread (no token check, no
    query): under a flood of reopened polls, the refusals are the cheapest answers there are."""
    return holds_thread and _waiting >= waits_per_process()


def _take_slot() -> bool:
    global _waiting
    with _slots_lock:
        if _waiting >= waits_per_process():
            return False
        _waiting += 1
        return True


def _free_slot() -> None:
    global _waiting
    with _slots_lock:
        _waiting -= 1


# --- the site-wide count and each seat's newest wait ------------------------------------------


class LocalLedger:
    """The waits of this process (the embedded run, or a cache that is not Redis)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.waits: dict[str, float] = {}  # wait id -> when its place frees itself
        self.seats: dict[str, str] = {}  # seat key -> the seat's newest wait

    def take(self, wait_id: str, seat_key: str, expires: float) -> bool:
        with self.lock:
            now = time.time()
            self.waits = {w: until for w, until in self.waits.items() if until > now}
            if len(self.waits) >= site_waits():
                return False
            self.waits[wait_id] = expires
            if seat_key:
                self.seats[seat_key] = wait_id
            return True

    def release(self, wait_id: str, seat_key: str) -> None:
        with self.lock:
            self.waits.pop(wait_id, None)
            if seat_key and self.seats.get(seat_key) == wait_id:
                del self.seats[seat_key]

    def owners(self, seat_keys: list[str]) -> list[str | None]:
        with self.lock:
            return [self.seats.get(key) for key in seat_keys]


# KEYS: the waits' sorted set (score: when each frees itself), the seat's key (or "").
# ARGV: now, the cap, this wait's expiry, its id, the keys' lifetime in seconds.
TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
if KEYS[2] ~= '' then redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[5]) end
return 1
"""
RELEASE = """
redis.call('ZREM', KEYS[1], ARGV[1])
if KEYS[2] ~= '' and redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
"""


class RedisLedger:
    """The waits of every process, in the cache's Redis: a sorted set of the waits now (each
    scored by when it frees itself) and a key per waiting seat naming its newest wait. With Redis
    away, this process's own ledger stands in (the per-process bound still holds)."""

    WAITS = "pbem-live:waits"

    def __init__(self):
        self.local, self.fallen_back, self.warned_at = LocalLedger(), set[str](), float("-inf")

    def client(self):
        return caches["default"]._cache.get_client(write=True)

    def take(self, wait_id: str, seat_key: str, expires: float) -> bool:
        life = int(max_wait()) + 10
        try:
            return bool(
                self.client().eval(TAKE, 2, self.WAITS, seat_key, time.time(), site_waits(), expires, wait_id, life)
            )
        except Exception:  # noqa: BLE001 - Redis away: this process's ledger bounds the waits
            if time.monotonic() - self.warned_at > 60:  # once a minute, not once a wait
                self.warned_at = time.monotonic()
                log.warning("Redis did not answer: long polls counted in this process only")
            self.fallen_back.add(wait_id)
            return self.local.take(wait_id, seat_key, expires)

    def release(self, wait_id: str, seat_key: str) -> None:
        if wait_id in self.fallen_back:
            self.fallen_back.discard(wait_id)
            self.local.release(wait_id, seat_key)
            return
        try:
            self.client().eval(RELEASE, 2, self.WAITS, seat_key, wait_id)
        except Exception:  # noqa: BLE001 - the mark expires on its own
            pass

    def owners(self, seat_keys: list[str]) -> list[str | None]:
        try:
            found = self.client().mget(seat_keys) if seat_keys else []
        except Exception:  # noqa: BLE001 - Redis away: no replacing, the bounds still hold
            return self.local.owners(seat_keys)
        local = self.local.owners(seat_keys)
        return [(value.decode() if value is not None else mine) for value, mine in zip(found, local)]


_ledgers: dict[bool, LocalLedger | RedisLedger] = {}


def ledger() -> LocalLedger | RedisLedger:
    """The ledger of the cache in use: Redis's (shared by every process) or this process's own."""
    shared = settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    if shared not in _ledgers:
        _ledgers[shared] = RedisLedger() if shared else LocalLedger()
    return _ledgers[shared]


def seat_key(seat_id: int | None) -> str:
    return f"pbem-live:seat:{seat_id}" if seat_id is not None else ""


# --- the waiting ------------------------------------------------------------------------------


@dataclass(eq=False)
class Wait:
    game_id: int
    after: int
    seat_key: str
    deadline: float
    row: dict
    wait_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    outcome: str = ""  # "", "moved" or "replaced"
    woken: asyncio.Event = field(default_factory=asyncio.Event)


class Looker:
    """The waits of one event loop (a process's, under ASGI), looked at together: one query for
    their games' rows and one read of their seats' marks each POLL_EVERY, however many wait."""

    def __init__(self):
        self.waits: set[Wait] = set()
        self.lock = asyncio.Lock()
        self.looked_at = float("-inf")

    async def look(self) -> None:
        async with self.lock:
            if time.monotonic() - self.looked_at < POLL_EVERY / 2:
                return  # another wait of this loop has just looked for everyone
            waits = list(self.waits)
            rows, owners = await blocking(_look)(sorted({w.game_id for w in waits}), [w.seat_key for w in waits])
            self.looked_at = time.monotonic()
        for wait, owner in zip(waits, owners):
            row = rows.get(wait.game_id)
            if row is None or row["version"] > wait.after:
                wait.row, wait.outcome = row or {}, "moved"
            elif wait.seat_key and owner not in (wait.wait_id, None):
                wait.outcome = "replaced"  # None: the mark was lost; not replaced by another wait
            else:
                wait.row = row
            if wait.outcome:
                wait.woken.set()


def _look(game_ids: list[int], seat_keys: list[str]) -> tuple[dict[int, dict], list[str | None]]:
    rows = {row.pop("id"): row for row in Game.objects.filter(pk__in=game_ids).values("id", *ROW)}
    marked = [key for key in seat_keys if key]
    found = dict(zip(marked, ledger().owners(marked)))
    return rows, [found.get(key) for key in seat_keys]


_lookers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _looker() -> Looker:
    loop = asyncio.get_running_loop()
    looker = _lookers.get(loop)
    if looker is None:
        looker = _lookers[loop] = Looker()
    return looker


async def _nap(woken: asyncio.Event, seconds: float) -> None:
    """Until `woken` is set or `seconds` have passed (tests swap in their own clock)."""
    try:
        await asyncio.wait_for(woken.wait(), seconds)
    except TimeoutError:
        pass


async def wait_for_version(
    game_id: int,
    after: int,
    timeout: float,
    seat_id: int | None = None,
    holds_thread: bool = False,
    row: dict | None = None,
) -> dict | None:
    """The game's snapshot once its version passes `after`, or after `timeout` seconds (at most
    `max_wait()`), whichever comes first; None if there is no such game. `seat_id`: the seat
    waiting, whose earlier wait this one replaces. `holds_thread`: the wait runs in a thread it
    holds (WSGI), bounded per process. `row`: the game's row as the caller just read it (a query
    fewer). Raises Busy when no wait is free, Replaced when a newer
    wait of the seat took over: both answered cheaply, without the view a waiting client asked
    for (rendering it is what a flood of reopened polls would cost)."""
    deadline = time.monotonic() + max(0.0, min(timeout, max_wait()))
    if row is None:
        row = await blocking(snapshot)(game_id)
    if row is None or row["version"] > after or time.monotonic() >= deadline:
        return row
    if holds_thread and not _take_slot():
        log.info("no free wait in this process: a long poll answered at once")
        raise Busy()
    try:
        wait = Wait(game_id, after, seat_key(seat_id), deadline, row)
        held = ledger()
        if not await blocking(held.take)(wait.wait_id, wait.seat_key, time.time() + max_wait() + 5):
            log.info("no free wait on the site: a long poll answered at once")
            raise Busy()
        try:
            return await _wait_out(wait)
        finally:
            await blocking(held.release)(wait.wait_id, wait.seat_key)
    finally:
        if holds_thread:
            _free_slot()


async def _wait_out(wait: Wait) -> dict | None:
    looker = _looker()
    looker.waits.add(wait)
    try:
        while not wait.outcome:
            left = wait.deadline - time.monotonic()
            if left <= 0:
                break
            await _nap(wait.woken, min(POLL_EVERY, left))
            if not wait.outcome and time.monotonic() < wait.deadline:
                await looker.look()
    finally:
        looker.waits.discard(wait)
    if wait.outcome == "replaced":
        raise Replaced()
    return wait.row or None


def etag(game_id: int, seat: int | None, generation: int, row: dict) -> str:
    """A seat's view changes only with the game's row (or a new player in the seat): its tag."""
    key = (
        f"{game_id}:{seat}:{generation}:{row['version']}:{row['status']}:{sorted(row['awaited'] or [])}:"
        f"{sorted((row['deadlines'] or {}).items())}"
    )
    return '"' + hashlib.sha256(key.encode()).hexdigest()[:32] + '"'


def matches(if_none_match: str | None, tag: str) -> bool:
    """RFC 9110 If-None-Match: "*", or one of a comma-separated list (weak tags compare too)."""
    if not if_none_match:
        return False
    wanted = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in wanted or tag in wanted
