"""The MACs every secret-bearing identifier carries: seat tokens, subject codes, bounce (VERP)
addresses and notice Message-IDs.

Each is an HMAC-SHA256 under SECRET_KEY, written in lower-case base32 (mail systems may fold the
case of an address). A MAC made under one of SECRET_KEY_FALLBACKS is accepted too, so rotating
the key does not break the links and addresses already mailed out; new ones use the current key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from django.conf import settings


def keys() -> list[str]:
    return [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]


def mac(text: str, length: int, key: str | None = None) -> str:
    digest = hmac.new((key or settings.SECRET_KEY).encode(), text.encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode().lower()[:length]


def verify(text: str, given: str, length: int) -> bool:
    """Whether `given` is the MAC of `text` under the current key or a fallback (constant time)."""
    given = (given or "").lower()
    return any(hmac.compare_digest(mac(text, length, key), given) for key in keys())
