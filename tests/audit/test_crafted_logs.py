"""Every crafted log fails, with its reason: each attack of tests/audit/crafted.py, made on every
recorded export it fits (every game, both chain schemes, before and after the end), is checked
by the offline verifier as a player would run it, and must end in a PROBLEM line with the
attack's words, never in VERIFIED and never in a traceback (issue 26: 23 of 78 forged files
passed before).

The table in pbem/SECURITY.md ("Crafted logs") is what this test saw; it fails when the two
differ. After a change, write it anew with PBEM_WRITE_SECURITY_TABLE=1 and read the difference."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from pbem.audit import verify

from . import forgery
from .crafted import KINDS, Kind

SECURITY_MD = Path(__file__).resolve().parents[2] / "pbem" / "SECURITY.md"
START, END = "<!-- crafted-logs:start -->", "<!-- crafted-logs:end -->"
FITS = {
    "any": {"complete", "partial", "withheld"},
    "checkable": {"complete", "partial"},
    "complete": {"complete"},
    "partial": {"partial"},
    "withheld": {"withheld"},
}


def forgeries(kind: Kind):
    """(log name, the forged document or bytes, what the player holds: heads and a copy of the
    heads feed) for every recorded log the attack fits, not yet encoded."""
    for name in forgery.names():
        if forgery.facts(name)[0] not in FITS[kind.fits]:
            continue
        doc = forgery.load(name)
        heads = [(doc["head"]["version"], doc["head"]["hash"])] if kind.head else []
        forged, feed = kind.craft(doc), None
        if isinstance(forged, tuple):
            forged, feed = forged
        if forged is not None:
            yield name, forged, (heads, feed)


def encoded(forged) -> bytes:
    return forged if isinstance(forged, bytes) else json.dumps(forged).encode()


def crafted(kind: Kind):
    """(log name, forged bytes, what the player holds) for every recorded log the attack fits,
    one at a time (a 64 MB file is made for each)."""
    for name, forged, held in forgeries(kind):
        yield name, encoded(forged), held


def checked(name: str, raw: bytes, held) -> verify.Findings:
    heads, feed = held
    return verify.verify_bytes(raw, heads, forgery.facts(name)[1], feed)


def fails_as_expected(kind: Kind, found: verify.Findings) -> bool:
    words = kind.expect.split(" | ")
    return not found.ok and any(w in problem for w in words for problem in found.problems)


def slug(kind: Kind) -> str:
    return re.sub(r"[^a-z0-9]+", "_", kind.name.lower()).strip("_")[:60]


def test_the_recorded_logs_themselves_verify():
    """The ground the attacks start from: every recorded export verifies (but a scheme-1 log
    before its end, whose hashes are withheld, and which says so)."""
    for name in forgery.names():
        doc = forgery.load(name)
        found = verify.verify_document(doc, spec=forgery.spec_for(doc))
        if forgery.kind_of(doc) == "withheld":
            assert found.problems == [verify.WITHHELD], name
        else:
            assert found.ok, (name, found.problems)


def test_every_game_and_both_schemes_are_recorded():
    docs = [forgery.load(name) for name in forgery.names()]
    for scheme in (1, 2):
        kinds = {d["game"]["kind"] for d in docs if d["game"]["chain_scheme"] == scheme and d["reader"]["complete"]}
        assert kinds == set(forgery.GAMES), scheme
        before = {
            d["game"]["kind"] for d in docs if d["game"]["chain_scheme"] == scheme and not d["reader"]["complete"]
        }
        assert before == set(forgery.GAMES) - {"diceduel"}, scheme


# The verifier reads 14 files of 200,001 draws and 34 of 64 MB: minutes on a loaded machine.
SLOW = {"200,001 draws on one event", "a file larger than the limit (64 MB)"}


@pytest.mark.parametrize(
    "kind", [pytest.param(k, marks=pytest.mark.slow) if k.name in SLOW else k for k in KINDS], ids=slug
)
def test_a_crafted_log_fails_with_its_reason(kind: Kind):
    files = 0
    for name, raw, heads in crafted(kind):
        files += 1
        found = checked(name, raw, heads)
        assert fails_as_expected(kind, found), (name, found.problems[:3] or "VERIFIED")
    assert files, f"{kind.name}: no recorded log to craft it from"


def test_the_crafted_logs_are_many_and_distinct():
    assert len(KINDS) >= 78 and len({k.name for k in KINDS}) == len(KINDS)


def render(rows: list[tuple[str, int, str]]) -> str:
    lines = [
        START,
        "",
        "| # | attack on an exported log | files | what the verifier says (on the first) |",
        "| --- | --- | --- | --- |",
    ]
    for number, (name, files, said) in enumerate(rows, start=1):
        lines.append(f"| {number} | {name} | {files} | {said.replace('|', '/')} |")
    total = sum(files for _name, files, _said in rows)
    lines += ["", f"{len(rows)} kinds; {total} crafted files; 0 verified.", "", END]
    return "\n".join(lines)


@pytest.mark.slow  # crafts every attack on every recorded log (about 2,400 files) to count them
def test_the_table_in_security_md_is_what_the_verifier_says():
    rows = []
    for kind in KINDS:
        files, first = 0, None
        for case in forgeries(kind):  # counted; only the first is encoded and checked
            files, first = files + 1, first or case
        assert first is not None, f"{kind.name}: no recorded log to craft it from"
        name, forged, heads = first
        found = checked(name, encoded(forged), heads)
        said = next(p for p in found.problems if any(w in p for w in kind.expect.split(" | ")))
        said = re.sub(r"[0-9a-f]{16,}…?", "…", said)
        said = said if len(said) <= 160 else said[:157] + "..."
        rows.append((kind.name + (" (checked with the true last head)" if kind.head else ""), files, said))
    table = render(rows)
    text = SECURITY_MD.read_text()
    if os.environ.get("PBEM_WRITE_SECURITY_TABLE"):
        head, _, rest = text.partition(START)
        SECURITY_MD.write_text(head + table + rest.partition(END)[2])
    else:
        assert table in text, "pbem/SECURITY.md's crafted-log table differs (PBEM_WRITE_SECURITY_TABLE=1)"
