"""Rate limits on the web and API doors, kept in Django's cache (fixed windows).

Two limits matter: submissions per seat (a runaway script must not flood a game's log) and
failed seat tokens per client address (guessing tokens). A client over the token-failure
limit is refused before its token is even checked, so it learns nothing more.
Limits are (count, window seconds) in settings: PBEM_RATE_SUBMIT, PBEM_RATE_TOKEN_FAILURES,
PBEM_RATE_CREATE.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

from . import addressing

DEFAULTS = {
    "PBEM_RATE_SUBMIT": (30, 60),
    "PBEM_RATE_TOKEN_FAILURES": (20, 600),
    "PBEM_RATE_CREATE": (20, 3600),
}


class Limited(Exception):
    """Too many requests; `retry_after` is in seconds."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after
        self.code = "rate_limited"


def _limit(name: str) -> tuple[int, int]:
    count, window = getattr(settings, name, DEFAULTS[name])
    return int(count), int(window)


def _key(kind: str, who: str, window: int) -> tuple[str, int]:
    now = time.time()
    slot = int(now // window)
    return f"pbem-rl:{kind}:{who}:{slot}", int((slot + 1) * window - now) + 1


def _count(kind: str, who: str, window: int) -> int:
    key, _ = _key(kind, who, window)
    return int(cache.get(key, 0))


def _hit(kind: str, who: str, window: int) -> int:
    key, ttl = _key(kind, who, window)
    cache.add(key, 0, ttl)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, ttl)
        return 1


def client_address(request) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is whatever the client wants it to be unless a proxy we
    # trust rewrites it, and the deployment sets that up in the proxy, not here.
    return request.META.get("REMOTE_ADDR") or "unknown"


def check(kind: str, who: str, setting: str, message: str) -> None:
    """Counts one request of `kind` by `who`; raises Limited when over the limit."""
    count, window = _limit(setting)
    if _hit(kind, who, window) > count:
        _, retry = _key(kind, who, window)
        raise Limited(message, retry)


def check_submission(seat_id: int) -> None:
    check("submit", str(seat_id), "PBEM_RATE_SUBMIT",
          "Too many submissions for this seat in a short time; please wait a minute.")


def check_create(request) -> None:
    check("create", client_address(request), "PBEM_RATE_CREATE",
          "Too many games created from your address; please try again later.")


def resolve_token(request, token: str, game_id: int | None = None):
    """The seat for `token` (addressing.resolve), counting failures per client address.

    Raises Limited when the address has failed too often, else TokenProblem as resolve does.
    """
    who = client_address(request)
    count, window = _limit("PBEM_RATE_TOKEN_FAILURES")
    if _count("token-fail", who, window) >= count:
        _, retry = _key("token-fail", who, window)
        raise Limited("Too many wrong seat links from your address; please wait and try again.", retry)
    try:
        return addressing.resolve(token, game_id)
    except addressing.TokenProblem:
        _hit("token-fail", who, window)
        raise
