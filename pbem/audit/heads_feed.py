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
import json
import sys
from pathlib import Path

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


def extend(kept: dict | None, page: dict) -> tuple[dict | None, list[str]]:
    """A mirror's copy `kept` (None: none yet) with a newly fetched `page`; the problems when the
    page is broken, when an entry the copy holds differs from it (a rewrite), or when the page
    does not continue the copy."""
    problems = check(page)
    if problems:
        return kept, problems
    old, new = (kept or {"entries": []})["entries"], page["entries"]
    if not old:
        if new and new[0]["n"] != 1:
            return kept, ["a new mirror starts at entry 1 (fetch ?after=0)"]
        return {**page, "next_after": None}, []
    first = old[0]["n"]
    for entry in new:
        if entry["n"] <= old[-1]["n"] and entry["n"] >= first and entry != old[entry["n"] - first]:
            return kept, [f"entry {entry['n']} is not what this mirror copied: the feed was rewritten since"]
    fresh = [entry for entry in new if entry["n"] > old[-1]["n"]]
    if fresh and (fresh[0]["n"] != old[-1]["n"] + 1 or fresh[0]["prev"] != old[-1]["entry"]):
        return kept, [
            f"entry {fresh[0]['n']} does not continue the copy's last entry {old[-1]['n']}: "
            "the feed was rewritten after this mirror copied it"
        ]
    return {**(kept or {}), "entries": old + fresh, "next_after": None}, []


def mirror(url: str, path: str, fetch=None, full: bool = False) -> list[str]:
    """Brings the copy at `path` up to date from the feed at `url` (…/heads.json), page by page,
    fetching again the last entry it holds (which must not have changed), or with `full` every
    entry from the first; the problems (nothing is written then). `fetch(url) -> bytes`
    (default: urllib)."""
    fetch = fetch or _fetch
    file = Path(path)
    kept = json.loads(file.read_text(encoding="utf-8")) if file.exists() else None
    held = kept["entries"] if kept else []
    after = 0 if full or not held else held[-1]["n"] - 1
    while after is not None:
        page = json.loads(fetch(f"{url}{'&' if '?' in url else '?'}after={after}"))
        kept, problems = extend(kept, page)
        if problems:
            return problems
        after = page.get("next_after")
    file.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
    return []


def _fetch(url: str) -> bytes:
    from urllib.request import urlopen  # here: the verifier imports this module and needs no HTTP

    with urlopen(url, timeout=30) as answer:  # noqa: S310 - the feed's address, given by the user
        return answer.read(64 * 1024 * 1024)


def main(argv: list[str] | None = None) -> int:
    """python3 -m pbem.audit.heads_feed URL FILE [--full]: mirror the feed at URL into FILE (kept
    between runs); --full fetches and compares every entry again, not only the last one held."""
    args = sys.argv[1:] if argv is None else argv
    full = "--full" in args
    args = [a for a in args if a != "--full"]
    if len(args) != 2:
        print("usage: python3 -m pbem.audit.heads_feed https://SITE/heads.json MIRROR.json [--full]")
        return 2
    problems = mirror(args[0], args[1], full=full)
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
