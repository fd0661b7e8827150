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


_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"


# HMAC-SHA256 (RFC 2104) with each key's padded inner and outer hashes made once: a MAC is then
# two copies and two updates of hashes already keyed. hmac.digest does the same work from the key
# every call, and OpenSSL 3 looks its digest up by name each time: 3x the cost (a notice makes a
# dozen MACs). The same digests, tested against hmac.digest.
_KEYED: dict[str, tuple] = {}


def _keyed(key: str) -> tuple:
    pads = _KEYED.get(key)
    if pads is None:
        raw = key.encode()
        if len(raw) > 64:  # the block size of SHA-256: a longer key is hashed first (RFC 2104)
            raw = hashlib.sha256(raw).digest()
        raw = raw.ljust(64, b"\0")
        pads = (hashlib.sha256(raw.translate(_IPAD)), hashlib.sha256(raw.translate(_OPAD)))
        if len(_KEYED) > 16:  # keys come from settings: a handful (tests override them)
            _KEYED.clear()
        _KEYED[key] = pads
    return pads


_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


def digest(key: str, text: str) -> bytes:
    """hmac.digest(key.encode(), text.encode(), "sha256")."""
    inner, outer = _keyed(key)
    inner = inner.copy()
    inner.update(text.encode())
    outer = outer.copy()
    outer.update(inner.digest())
    return outer.digest()


def mac(text: str, length: int, key: str | None = None) -> str:
    digest_ = digest(key or settings.SECRET_KEY, text)
    if not 0 < length <= 51:
        return base64.b32encode(digest_).decode().lower()[:length]
    # The first `length` characters of the digest's base32, five bits each (what b32encode's
    # first characters are, without encoding the whole digest: a notice makes a dozen MACs).
    size = (5 * length + 7) // 8
    bits, number = size * 8, int.from_bytes(digest_[:size], "big")
    return "".join([_BASE32[(number >> (bits - 5 * (i + 1))) & 31] for i in range(length)])


def verify(text: str, given: str, length: int) -> bool:
    """Whether `given` is the MAC of `text` under the current key or a fallback (constant time)."""
    given = (given or "").lower()
    return any(hmac.compare_digest(mac(text, length, key), given) for key in keys())
