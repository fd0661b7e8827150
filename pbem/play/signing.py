"""The MACs every secret-bearing identifier carries: seat tokens, subject codes, bounce (VERP)
addresses and notice Message-IDs.

Each is an HMAC-SHA256 under SECRET_KEY, written in lower-case base32 (mail systems may fold the
case of an address). A MAC made under one of SECRET_KEY_FALLBACKS is accepted too, so rotating
the key does not break the links and addresses already mailed out; new ones use the current key.
"""

from __future__ import annotations

import base64
import hmac

from django.conf import settings


def keys() -> list[str]:
    return [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]


_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"


def mac(text: str, length: int, key: str | None = None) -> str:
    digest = hmac.digest((key or settings.SECRET_KEY).encode(), text.encode(), "sha256")
    if not 0 < length <= 51:
        return base64.b32encode(digest).decode().lower()[:length]
    # The first `length` characters of the digest's base32, five bits each (what b32encode's
    # first characters are, without encoding the whole digest: a notice makes a dozen MACs).
    size = (5 * length + 7) // 8
    bits, number = size * 8, int.from_bytes(digest[:size], "big")
    return "".join([_BASE32[(number >> (bits - 5 * (i + 1))) & 31] for i in range(length)])


def verify(text: str, given: str, length: int) -> bool:
    """Whether `given` is the MAC of `text` under the current key or a fallback (constant time)."""
    given = (given or "").lower()
    return any(hmac.compare_digest(mac(text, length, key), given) for key in keys())
