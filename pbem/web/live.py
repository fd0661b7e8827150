"""Live turns: learning that a game moved on without reloading, across processes.

The only state is the game's row in the database (its version, status, who is awaited, the
deadlines): a wait in one web process sees a move applied by another process (a Celery worker,
another gunicorn worker) at its next look. Each wait is bounded (`max_wait()`), so a client
simply asks again. A wait holds a web worker while it lasts: the seat page therefore asks with
no wait every `poll_seconds()` (pbem/static/pbem/live.js); API clients that long-poll
(`?wait_version=N`) should be served by threaded workers (gunicorn `--threads`).
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings

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


def wait_for_version(game_id: int, after: int, timeout: float) -> dict | None:
    """The game's snapshot once its version passes `after`, or after `timeout` seconds (at most
    `max_wait()`), whichever comes first; None if there is no such game."""
    deadline = time.monotonic() + max(0.0, min(timeout, max_wait()))
    while True:
        row = snapshot(game_id)
        if row is None or row["version"] > after or time.monotonic() >= deadline:
            return row
        time.sleep(min(POLL_EVERY, max(0.0, deadline - time.monotonic())))


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
