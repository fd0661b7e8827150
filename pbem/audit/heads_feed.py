"""The public heads feed's format, pure (the standard library only): what an entry's hash covers
and how a copy of the feed is checked, by the offline verifier (`--heads-feed`) and by anyone's
mirror. The service's side (appending, serving) is `pbem.audit.publish`; the format is in
pbem/CHAIN.md, "The public heads feed".

Entry n publishes one game's head (version, hash) at a time, chained to entry n - 1:

    entry = H("pbem-heads:1|{n}|{game}|{version}|{hash}|{at}|{prev}")

with `prev` the previous entry's `entry` (64 zeros before the first). The service only appends;
a mirror that kept entry n's hash sees any rewrite of entries 1 .. n, since every later `prev`
and `entry` would change.
"""

from __future__ import annotations

import hashlib

from pbem.audit import schema

FORMAT = "pbem-heads"
FORMAT_VERSION = 1
SCHEMA_FILE = "pbem-heads-1.schema.json"
GENESIS = "0" * 64


def entry_hash(n: int, game: int, version: int, head: str, at: str, prev: str) -> str:
    return hashlib.sha256(f"pbem-heads:1|{n}|{game}|{version}|{head}|{at}|{prev}".encode()).hexdigest()


def check(feed) -> list[str]:
    """The problems of a copy of the feed (its format, its numbering, each entry's hash and link)."""
    errors = schema.load(SCHEMA_FILE).errors(feed)
    if errors:
        return [f"it breaks the format of a {FORMAT} {FORMAT_VERSION} file ({SCHEMA_FILE}): {e}" for e in errors]
    problems: list[str] = []
    entries = feed["entries"]
    prev = GENESIS if entries and entries[0]["n"] == 1 else (entries[0]["prev"] if entries else GENESIS)
    for position, entry in enumerate(entries):
        n = entry["n"]
        if position and n != entries[position - 1]["n"] + 1:
            problems.append(f"entry {n} follows entry {entries[position - 1]['n']}: entries are missing or reordered")
        if entry["prev"] != prev:
            problems.append(f"entry {n} does not link to the entry before it: the feed was rewritten")
        fields = (n, entry["game"], entry["version"], entry["hash"], entry["at"], entry["prev"])
        if entry_hash(*fields) != entry["entry"]:
            problems.append(f"entry {n}: its hash does not follow from what it says: the entry was altered")
        prev = entry["entry"]
        if len(problems) >= 5:
            break
    return problems


def heads_of(feed: dict, game_id: int) -> list[tuple[int, str]]:
    """Every head the feed published for one game, in order."""
    return [(e["version"], e["hash"]) for e in feed["entries"] if e["game"] == game_id]
