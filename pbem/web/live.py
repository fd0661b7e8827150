"""Live turns: learning that a game moved on without reloading, across processes.

The only state is the game's row in the database (its version, status, who is awaited, the
deadlines): a wait in one web process sees a move applied by another process (a Celery worker,
another gunicorn worker) at its next look. Each wait is bounded (`max_wait()`), so a client
simply asks again. A wait holds a web worker's thread while it lasts: the seat page therefore
asks with no wait every `poll_seconds()` (pbem/static/pbem/live.js); API clients that long-poll
(`?wait_version=N`) are served by the threads of gunicorn's gthread workers (gunicorn.conf.py).

So that long polls cannot starve the site (one seat token opening 50 of them):
- one wait per seat at a time: a new wait for a seat replaces the one before, which ends at its
  next look (within POLL_EVERY) with a short 409 "replaced";
- at most PBEM_LIVE_WAITS_PER_PROCESS waits at a time in one web process (gunicorn.conf.py sets it
  to fewer than the process's threads, so pages always find a free one), hence at most that
  many times the workers site-wide; a wait beyond it answers at once with a short 429 "busy" (not a 5xx: an error line for each would flood the log)
  and Retry-After. Neither renders the view: a flood of reopened polls costs little.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import uuid

from django.conf import settings
from django.core.cache import cache

from pbem.models import Game

MAX_WAIT = 25.0  # seconds: the longest a request waits for the version to pass N
POLL_EVERY = 0.5  # seconds between two looks at the game's row


POLL_SECONDS = 10  # how often an open seat page asks


def max_wait() -> float:
    return float(getattr(settings, "PBEM_LIVE_MAX_WAIT", MAX_WAIT))


def poll_seconds() -> float:
    return float(getattr(settings, "PBEM_LIVE_POLL_SECONDS", POLL_SECONDS))


def snapshot(game_id: int) -> dict | None:
    """What a page or client may be out of date on: the game's row, as it is now."""
    row = Game.objects.filter(pk=game_id).values("version", "status", "awaited", "deadlines").first()
    return dict(row) if row is not None else None


log = logging.getLogger(__name__)


class Replaced(Exception):
    """A newer wait of the same seat took over: this one ends, answered cheaply (409)."""


class Busy(Exception):
    """No wait is free in this process: answered at once and cheaply (429, Retry-After)."""


_slots_lock = threading.Lock()
_waiting = 0  # waits in this process now


def waits_per_process() -> int:
    return int(getattr(settings, "PBEM_LIVE_WAITS_PER_PROCESS", 4))


def no_free_wait() -> bool:
    """Checked before anything else of a long poll (no token check, no query): under a flood of
    reopened polls, the refusals are the cheapest answers the process can give."""
    return _waiting >= waits_per_process()


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


def _seat_key(seat_id: int) -> str:
    return f"pbem-live-wait:{seat_id}"


def _still_mine(key: str, mine: str) -> bool:
    try:
        return cache.get(key) in (mine, None)  # None: the cache lost it; not replaced by another wait
    except Exception:  # noqa: BLE001 - Redis away: the wait stays bounded by its own time
        return True


def wait_for_version(game_id: int, after: int, timeout: float, seat_id: int | None = None) -> dict | None:
    """The game's snapshot once its version passes `after`, or after `timeout` seconds (at most
    `max_wait()`), whichever comes first; None if there is no such game. `seat_id`: the seat
    waiting, whose earlier wait this one replaces. Raises Busy when no wait is free in this
    process, Replaced when a newer wait of the seat took over: both answered cheaply, without the
    view a waiting client asked for (rendering it is what a flood of reopened polls would cost)."""
    deadline = time.monotonic() + max(0.0, min(timeout, max_wait()))
    row = snapshot(game_id)
    if row is None or row["version"] > after or time.monotonic() >= deadline:
        return row
    key, mine = (_seat_key(seat_id), uuid.uuid4().hex) if seat_id is not None else ("", "")
    if key:
        try:
            cache.set(key, mine, timeout=int(max_wait()) + 5)  # the wait before this one leaves
        except Exception:  # noqa: BLE001 - Redis away: no replacing, the slots still bound it
            key = ""
    if not _take_slot():
        log.info("no free wait in this process: a long poll answered at once")
        raise Busy()
    try:
        while True:
            time.sleep(min(POLL_EVERY, max(0.0, deadline - time.monotonic())))
            row = snapshot(game_id)
            if row is None or row["version"] > after or time.monotonic() >= deadline:
                return row
            if key and not _still_mine(key, mine):
                raise Replaced()
    finally:
        _free_slot()


def retry_after() -> str:
    return f"{max(1, round(poll_seconds()))}"


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
