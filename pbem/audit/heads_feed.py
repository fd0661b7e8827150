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


def extend(kept: dict | None, page: dict) -> tuple[dict, list[str]]:
    """A mirror's copy `kept` (None: none yet) with a newly fetched `page` of the entries after its
    last one; the problems when the page is broken or does not continue the copy (which is what
    a rewrite of anything the mirror already holds looks like)."""
    problems = check(page)
    if problems:
        return kept or page, problems
    if kept is None:
        if page["entries"] and page["entries"][0]["n"] != 1:
            return page, ["a new mirror starts at entry 1 (fetch ?after=0)"]
        return page, []
    old, new = kept["entries"], page["entries"]
    if old and new and (new[0]["n"] != old[-1]["n"] + 1 or new[0]["prev"] != old[-1]["entry"]):
        return kept, [
            f"entry {new[0]['n']} does not continue the copy's last entry {old[-1]['n']}: "
            "the feed was rewritten after this mirror copied it"
        ]
    return {**kept, "entries": old + new, "next_after": None}, []


def mirror(url: str, path: str, fetch=None) -> list[str]:
    """Brings the copy at `path` up to date from the feed at `url` (…/heads.json), page by page;
    the problems (nothing is written then). `fetch(url) -> bytes` (default: urllib)."""
    fetch = fetch or _fetch
    file = Path(path)
    kept = json.loads(file.read_text(encoding="utf-8")) if file.exists() else None
    while True:
        after = kept["entries"][-1]["n"] if kept and kept["entries"] else 0
        page = json.loads(fetch(f"{url}{'&' if '?' in url else '?'}after={after}"))
        kept, problems = extend(kept, page)
        if problems:
            return problems
        if not page["entries"] or page.get("next_after") is None:
            break
    file.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
    return []


def _fetch(url: str) -> bytes:
    from urllib.request import urlopen  # here: the verifier imports this module and needs no HTTP

    with urlopen(url, timeout=30) as answer:  # noqa: S310 - the feed's address, given by the user
        return answer.read(64 * 1024 * 1024)


def main(argv: list[str] | None = None) -> int:
    """python3 -m pbem.audit.heads_feed URL FILE: mirror the feed at URL into FILE (kept between runs)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python3 -m pbem.audit.heads_feed https://SITE/heads.json MIRROR.json")
        return 2
    problems = mirror(args[0], args[1])
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
