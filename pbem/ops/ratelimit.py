"""Rate limits on the web and API doors, kept in Django's cache (fixed windows), each keyed by
what is attacked and who attacks.

- Submissions per seat (PBEM_RATE_SUBMIT): a runaway script must not flood a game's log.
- Failed seat tokens (PBEM_RATE_TOKEN_FAILURES), counted twice: per client address and per seat
  the token claims. A valid token is checked first and never refused because of failures, its
  own address's or anyone's: behind a shared address (a NAT, a proxy) one guesser must not lock
  out every player. Past the limit a wrong token is answered 429 instead of 403 and the guessing
  is logged once a window; it learns nothing either way (a token's MAC is 80 bits, and it is
  checked before the database is asked anything).
- Games created per client address (PBEM_RATE_CREATE); per creator and per day in `services`.

The client address is REMOTE_ADDR, unless that is one of PBEM_TRUSTED_PROXIES (addresses or
networks): then the rightmost X-Forwarded-For entry that is not itself a trusted proxy.
X-Forwarded-For from anyone else is whatever the client wants it to be, and is ignored.
Limits are (count, window seconds). A cache that does not answer fails open (logged): a limit
must not take the service down with it.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _

from pbem.play import addressing

log = logging.getLogger(__name__)

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


def _hit(kind: str, who: str, window: int) -> int:
    key, ttl = _key(kind, who, window)
    try:
        cache.add(key, 0, ttl)
        try:
            return cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, ttl)
            return 1
    except Exception:  # noqa: BLE001 - the cache (Redis) is away or hangs past its timeout
        log.warning("rate limit %s not counted: the cache did not answer", kind, exc_info=True)
        return 0


# ---------------------------------------------------------------------------------------------
# Who is asking
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in network for network in _networks(tuple(getattr(settings, "PBEM_TRUSTED_PROXIES", []))))


def client_address(request) -> str:
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    if not _trusted(remote):
        return remote
    # Each trusted proxy appends the address it got the request from: read from the right, and
    # the first address no trusted proxy stands for is the client (what lies left of it, the
    # client may have written itself).
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop):
            return hop
    return hops[0] if hops else remote


# ---------------------------------------------------------------------------------------------
# The limits
# ---------------------------------------------------------------------------------------------


def check(kind: str, who: str, setting: str, message: str) -> None:
    """Counts one request of `kind` by `who`; raises Limited when over the limit."""
    count, window = _limit(setting)
    if _hit(kind, who, window) > count:
        _name, retry = _key(kind, who, window)
        raise Limited(message, retry)


def check_submission(seat_id: int) -> None:
    check(
        "submit",
        str(seat_id),
        "PBEM_RATE_SUBMIT",
        _("Too many submissions for this seat in a short time; please wait a minute."),
    )


def check_create(request) -> None:
    check(
        "create",
        client_address(request),
        "PBEM_RATE_CREATE",
        _("Too many games created from your address; please try again later."),
    )


def resolve_token(request, token: str, game_id: int | None = None):
    """The seat for `token` (addressing.resolve); a failure is counted against the client and
    the seat the token names. Raises TokenProblem, or Limited once either is over its limit."""
    try:
        return addressing.resolve(token, game_id)
    except addressing.TokenProblem:
        _count_failure(client_address(request), _claimed_seat(token))
        raise


def _claimed_seat(token: str) -> str:
    head = (token or "").split("-", 1)[0]
    return head if head.isdigit() and len(head) < 19 else "none"


def _count_failure(client: str, seat: str) -> None:
    count, window = _limit("PBEM_RATE_TOKEN_FAILURES")
    by_client = _hit("token-fail-client", client, window)
    by_seat = _hit("token-fail-seat", seat, window)
    if by_client <= count and by_seat <= count:
        return
    if count + 1 in (by_client, by_seat):  # once a window, not at every guess
        log.warning(
            "seat tokens are being guessed: %s failures from %s, %s against seat %s in %s s",
            by_client,
            client,
            by_seat,
            seat,
            window,
        )
    _name, retry = _key("token-fail-client", client, window)
    raise Limited(_("Too many wrong seat links; please wait and try again."), retry)
