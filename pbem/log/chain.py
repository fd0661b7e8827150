"""The hash chain, under each scheme: what an event's hash covers (the spec is pbem/CHAIN.md).

Pure: the standard library only, so the offline verifier (`python -m pbem.verify`) computes the
chain with exactly this code, on a machine with no Django and no database. A test holds it to that.

Scheme 1 (games created before it was replaced): SHA-256 over the event's whole content, hidden
payload and random draws included. Anyone holding the public feed could confirm a guess at a
hidden payload by hashing it, so it is kept only to verify the games written with it.

Scheme 2: each event's hash covers five parts. What is public enters as a plain SHA-256 digest;
what may be secret enters as a keyed hash (BLAKE2b's MAC mode) under a key derived from the game's
secret seed, which is committed at the start and revealed at the end. So before the end nobody without the seed can confirm a guess,
yet everybody can check that the parts chain together; after the end everybody can recompute
every part from the revealed seed. The payload's key is per event, so a seat that may see a
payload can be handed that event's key and check its own events without learning any other.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime

GENESIS = "0" * 64
LATEST = 2
SCHEMES = (1, 2)
# The parts of a scheme-2 event, in the order the link hashes them.
PARTS = ("what", "when", "payload", "draws", "origin")


def _canonical_encoder():
    """json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False), built once.

    json.dumps builds a new encoder on every call, and JSONEncoder.encode builds a new C
    encoder on every call too; the append encodes several small values per command, so the C
    encoder is made once here with exactly the arguments JSONEncoder would give it (a test
    holds the two spellings equal). Without the C accelerator, the plain encoder.
    """

    def refuse(obj):
        raise TypeError(f"Object of type {obj.__class__.__name__} is not JSON serializable")

    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if c_make_encoder is None:  # pragma: no cover - CPython has it
        return json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
    encoder = c_make_encoder(None, refuse, json.encoder.encode_basestring, None, ":", ",", True, False, True)
    return lambda obj: "".join(encoder(obj, 0))


_CANONICAL = _canonical_encoder()


def canonical(obj) -> str:
    """The one JSON spelling that hashes are taken over (sorted keys, no spaces, UTF-8 as is)."""
    return _CANONICAL(obj)


def seed_commitment(seed_hex: str) -> str:
    """What the first event publishes: SHA-256 of the secret seed's bytes."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def state_digest(state) -> str:
    """SHA-256 of a state's canonical JSON, after the JSON round trip every stored state takes
    (tuples become lists, int keys strings), so a server's and a verifier's replay compare."""
    return hashlib.sha256(canonical(json.loads(json.dumps(state))).encode()).hexdigest()


def iso_time(value) -> str:
    return value.isoformat() if isinstance(value, datetime) else value


# ---------------------------------------------------------------------------------------------
# Scheme 1
# ---------------------------------------------------------------------------------------------


def hash_v1(game_id: int, seq: int, row: dict, prev_hash: str) -> str:
    """SHA-256 over the event's canonical content, chained to the previous event's hash."""
    content = {
        "game": game_id,
        "seq": seq,
        "type": row["type"],
        "payload": row["payload"],
        "public": row.get("public"),
        "visible_to": row.get("visible_to"),
        "reveals": bool(row.get("reveals")),
        "rng": row.get("rng"),
        "actor": [row["actor_kind"], row.get("actor_seat"), row.get("actor_user_id")],
        "created_at": iso_time(row["created_at"]),
        "causation_id": row.get("causation_id", ""),
        "schema_version": row.get("schema_version", 1),
        "prev": prev_hash,
    }
    return hashlib.sha256((prev_hash + canonical(content)).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------
# Scheme 2
# ---------------------------------------------------------------------------------------------


def mac(key: bytes, message: bytes) -> bytes:
    """Keyed BLAKE2b, 32 bytes (RFC 7693's MAC mode): a keyed hash as strong as HMAC-SHA256 for
    this and about three times cheaper per call here, which the append pays for every event."""
    return hashlib.blake2b(message, key=key, digest_size=32).digest()


def chain_key(seed: bytes) -> bytes:
    """The game's commitment key: derived from the seed, so it is revealed with it."""
    if len(seed) > 64:
        raise ValueError("a seed is at most 64 bytes (the platform's are 32)")
    return mac(seed, b"pbem-chain:2:key")


def payload_key(key: bytes, game_id: int, seq: int) -> bytes:
    """The key of one event's payload commitment (handed to the seats that may see the payload)."""
    return mac(key, b"pbem-chain:2:payload-key:%d:%d" % (game_id, seq))


def payload_commitment(event_payload_key: bytes, payload) -> str:
    return mac(event_payload_key, canonical(payload).encode()).hex()


def draws_commitment(key: bytes, game_id: int, seq: int, rng) -> str:
    """The random draws: secret until the end even on a public event (a shuffle's draws are
    the order of a deck)."""
    return mac(key, b"pbem-chain:2:draws:%d:%d|" % (game_id, seq) + canonical(rng).encode()).hex()


def origin_commitment(key: bytes, game_id: int, seq: int, causation_id: str, user_id) -> str:
    """Where the command came from beyond what the feed shows (the mail's Message-ID, an API
    idempotency key, the desk user's id): checked by the server, never exported."""
    return mac(
        key, b"pbem-chain:2:origin:%d:%d|" % (game_id, seq) + canonical([causation_id or "", user_id]).encode()
    ).hex()


def what_digest(row: dict) -> str:
    """The public header: type, payload schema, who may see it, its public form, whether it
    reveals, and the acting kind and seat."""
    header = [
        row["type"],
        row.get("schema_version", 1),
        row.get("visible_to"),
        row.get("public"),
        bool(row.get("reveals")),
        row["actor_kind"],
        row.get("actor_seat"),
    ]
    return hashlib.sha256(canonical(header).encode()).hexdigest()


def when_digest(created_at) -> str:
    return hashlib.sha256(iso_time(created_at).encode()).hexdigest()


def link(game_id: int, seq: int, prev_hash: str, parts: dict) -> str:
    """The event's hash: its number, the previous hash and its five parts."""
    text = (
        f"pbem-chain:2|{game_id}|{seq}|{prev_hash}|{parts['what']}|{parts['when']}|{parts['payload']}|"
        f"{parts['draws']}|{parts['origin']}"
    )
    return hashlib.sha256(text.encode()).hexdigest()


class Sealer:
    """Hashes the events of one game under its scheme (holding the key derived from its seed).

    `seed` may be None only to check links whose parts are given (a verifier before the end).
    """

    __slots__ = ("scheme", "game_id", "key")

    def __init__(self, scheme: int, game_id: int, seed: bytes | None):
        if scheme not in SCHEMES:
            raise ValueError(f"unknown chain scheme {scheme!r} (this code knows {', '.join(map(str, SCHEMES))})")
        self.scheme = scheme
        self.game_id = game_id
        self.key = chain_key(seed) if seed is not None and scheme >= 2 else None

    def parts(self, seq: int, row: dict, when: str | None = None) -> dict | None:
        """The five parts of a scheme-2 event (None under scheme 1, which has none). `when`: the
        time's digest when the caller has it (every row of one append shares one time)."""
        if self.scheme == 1:
            return None
        key, game = self.key, self.game_id
        assert key is not None, "a scheme-2 chain is keyed by the game's seed"
        return {
            "what": what_digest(row),
            "when": when or when_digest(row["created_at"]),
            "payload": payload_commitment(payload_key(key, game, seq), row["payload"]),
            "draws": draws_commitment(key, game, seq, row.get("rng")),
            "origin": origin_commitment(key, game, seq, row.get("causation_id", ""), row.get("actor_user_id")),
        }

    def hash(self, seq: int, row: dict, prev_hash: str, when: str | None = None) -> str:
        if self.scheme == 1:
            return hash_v1(self.game_id, seq, row, prev_hash)
        parts = self.parts(seq, row, when)
        assert parts is not None
        return link(self.game_id, seq, prev_hash, parts)

    def payload_key(self, seq: int) -> str:
        assert self.key is not None, "scheme 1 has no payload keys"
        return payload_key(self.key, self.game_id, seq).hex()


# ---------------------------------------------------------------------------------------------
# Heads: a version and the hash of the event at that version (what every notice quotes)
# ---------------------------------------------------------------------------------------------

HEAD_RE = re.compile(r"^\s*(\d{1,9})\s*:\s*([0-9a-fA-F]{64})\s*$")
# In a pasted notice: "N:HASH" (the X-Pbem-Head header, the notice's own line), or "version N"
# followed within a few words by a 64-digit hash ("at version 12; the head of its hash chain: …").
_HEAD_IN_TEXT = re.compile(
    r"(?<![0-9A-Za-z])(\d{1,9}):([0-9a-fA-F]{64})(?![0-9a-fA-F])"
    r"|version\s+(\d{1,9})\b.{0,120}?(?<![0-9A-Za-z])([0-9a-fA-F]{64})(?![0-9a-fA-F])",
    re.IGNORECASE | re.DOTALL,
)
_GAME_IN_TEXT = re.compile(r"game\s+#(\d{1,12})", re.IGNORECASE)


class BadHead(ValueError):
    """A head that is not VERSION:HASH, with the reason."""


def parse_head(text: str) -> tuple[int, str]:
    """ "12:ab34…" -> (12, "ab34…"); raises BadHead saying what is wrong."""
    match = HEAD_RE.match(text or "")
    if not match:
        raise BadHead(
            f"{(text or '').strip()[:80]!r} is not a head: write the version, a colon and the "
            "64-digit hash, e.g. 12:3f5a…"
        )
    return int(match.group(1)), match.group(2).lower()


def heads_in_text(text: str) -> list[tuple[int, str]]:
    """Every head quoted in a pasted text (a whole notice, its headers included), in order, once each."""
    found: list[tuple[int, str]] = []
    for match in _HEAD_IN_TEXT.finditer(text or ""):
        version, digest = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        head = (int(version), digest.lower())
        if head not in found:
            found.append(head)
    return found


def games_in_text(text: str) -> set[int]:
    """The game numbers a pasted notice names ("game #12")."""
    return {int(n) for n in _GAME_IN_TEXT.findall(text or "")}
