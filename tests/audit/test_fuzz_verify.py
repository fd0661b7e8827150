"""The offline verifier fuzzed: Hypothesis mutates the recorded exports of every game under both
chain schemes (tests/chain_logs/) — a value replaced, a key or an item dropped or added, items
swapped, a string or number nudged, the bytes cut or flipped — and, half the time, recomputes the
chain afterwards as a forger holding the file could (tests/audit/forgery.py: then the check is
made with the log's true last head, as a player holding a notice makes it). Every mutation must
end in a PROBLEM line: never VERIFIED, never a traceback, never a hang (each run has a 60 s alarm).

The default run is short (PBEM_FUZZ_EXAMPLES, 150 examples); the long run is marked soak:

    PBEM_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -m soak -s tests/audit/test_fuzz_verify.py

and prints how many mutations it tried and how each was refused (PBEM_FUZZ_PROGRESS=FILE: the
counts so far, written every 500 mutations).
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.audit import verify
from pbem.log import chain

from . import forgery

NAMES = forgery.names()
HANG_SECONDS = 60
TRIED: Counter = Counter()
# A long run writes its counts here every 500 mutations (PBEM_FUZZ_PROGRESS=FILE).
PROGRESS = Path(os.environ["PBEM_FUZZ_PROGRESS"]) if os.environ.get("PBEM_FUZZ_PROGRESS") else None

# Values a mutation may put anywhere: JSON of every type, with the edges the format bounds.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.sampled_from([0, 1, -1, 63, 64, 2**53, 2**64, 2**64 + 1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["", "0" * 64, "ab" * 32, "pbem.GameEnded", "pbem.SeedRevealed", "2026-12-01T00:00:00+00:00"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
# Weighted towards the changes that keep a file's form (a nudged digit, swapped items), which
# only the chain and the checks behind it can catch.
OPERATIONS = ("replace", "drop", "add", "swap", "swap", "nudge", "nudge", "nudge", "repeat")


def walk(doc, steps: list[int]):
    """(container, key) reached by following `steps` from the top (each step picks a child)."""
    parent, key, node = None, None, doc
    for step in steps:
        children = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        if not children:
            break
        parent, key = node, children[step % len(children)]
        node = parent[key]
    return parent, key


def nudged(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value[:-1] + ("0" if value[-1:] != "0" else "1") if value else "x"
    return None


def mutate(doc: dict, operation: str, steps: list[int], value, other: int) -> bool:
    """Applies one mutation in place; False when it found nothing to change."""
    parent, key = walk(doc, steps)
    if parent is None:
        return False
    if operation == "replace":
        parent[key] = value
    elif operation == "nudge":
        parent[key] = nudged(parent[key])
    elif operation == "drop":
        del parent[key]
    elif operation == "add":
        if isinstance(parent, dict):
            parent[f"x{other % 7}"] = value
        else:
            parent.insert(key, value)
    elif operation == "repeat" and isinstance(parent, list):
        parent.insert(key, json.loads(json.dumps(parent[key])))
    elif operation == "swap" and isinstance(parent, list) and len(parent) > 1:
        there = other % len(parent)
        parent[key], parent[there] = parent[there], parent[key]
    else:
        return False
    return True


def same_file(a, b: dict) -> bool:
    """Equal as JSON but for what nothing covers and nothing depends on: the export's time, and
    which reader it names when every reader of the two sees the same events (before anything is
    hidden, a seat's export and a spectator's are one file)."""
    return isinstance(a, dict) and chain.canonical(_essence(a)) == chain.canonical(_essence(b))


def _essence(doc: dict):
    essence = {k: v for k, v in doc.items() if k != "exported_at"}
    reader, events = doc.get("reader"), doc.get("events")
    if isinstance(reader, dict) and isinstance(events, list) and all(isinstance(ev, dict) for ev in events):
        seat = reader.get("seat")
        seen = [
            ev.get("visible_to") is None or (isinstance(ev.get("visible_to"), list) and seat in ev["visible_to"])
            for ev in events
        ]
        essence["reader"] = {**reader, "seat": seen}
    return essence


def byte_mutation(raw: bytes, where: int, how: int) -> bytes:
    at = where % max(len(raw), 1)
    if how == 0:
        return raw[:at]  # cut
    if how == 1:
        return raw[:at] + bytes([raw[at] ^ 0x20]) + raw[at + 1 :]  # a flipped bit
    return raw[:at] + b'"\\u0000{[' + raw[at:]  # garbage inserted


@st.composite
def forged_files(draw):
    name = draw(st.sampled_from(NAMES))
    original = forgery.load(name)
    if draw(st.integers(0, 9)) == 0:
        raw = json.dumps(original).encode()
        return name, byte_mutation(raw, draw(st.integers(0, 2**32)), draw(st.integers(0, 2))), [], "bytes"
    doc, changed = forgery.load(name), False
    for _ in range(draw(st.integers(1, 3))):
        steps = draw(st.lists(st.integers(0, 2**16), min_size=1, max_size=7))
        if draw(st.integers(0, 3)) and "events" in doc:  # mostly inside an event: the chain's content
            steps = [list(doc).index("events"), *steps]
        operation = draw(st.sampled_from(OPERATIONS))
        changed |= mutate(doc, operation, steps, draw(VALUES), draw(st.integers(0, 2**16)))
    resealed = draw(st.booleans())
    if resealed and isinstance(doc, dict):
        try:
            forgery.reseal(doc)
        except Exception:  # noqa: BLE001 - the mutation broke what resealing reads: send it as it is
            resealed = False
    if not changed or same_file(doc, original):
        return name, None, [], "unchanged"
    heads = [(original["head"]["version"], original["head"]["hash"])] if resealed else []
    return name, json.dumps(doc).encode(), heads, "resealed" if resealed else "plain"


def never_passes(case) -> None:
    name, raw, heads, how = case
    if raw is None:
        TRIED["unchanged (not counted)"] += 1
        return
    signal.alarm(HANG_SECONDS)  # a hang fails the run instead of holding it
    try:
        found = verify.verify_bytes(raw, heads, forgery.spec_for(forgery.load(name)))
    finally:
        signal.alarm(0)
    assert not found.ok, f"a mutation of {name} ({how}) verified:\n{verify.report(found)}"
    TRIED[f"{how}: {kind_of_problem(found.problems[0])}"] += 1
    if PROGRESS and sum(TRIED.values()) % 500 == 0:
        PROGRESS.write_text(summary())


def kind_of_problem(problem: str) -> str:
    """A problem's words without its numbers and hashes: the counts are by check, not by event."""
    return re.sub(r"[0-9]+", "N", re.sub(r"[0-9a-f]{8,}…?", "HASH", problem))[:48]


def _hang(signum, frame):
    raise TimeoutError(f"the verifier ran for more than {HANG_SECONDS} s on one file")


@pytest.fixture(autouse=True)
def _alarm():
    before = signal.signal(signal.SIGALRM, _hang)
    yield
    signal.signal(signal.SIGALRM, before)


def fuzz(examples: str):
    return settings(
        max_examples=int(os.environ.get("PBEM_FUZZ_EXAMPLES", examples)),
        deadline=None,  # the machine may be busy: the alarm above is the bound that matters
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )


@fuzz("150")
@given(forged_files())
def test_no_mutation_of_a_real_log_verifies(case):
    never_passes(case)


@pytest.mark.soak
@fuzz("20000")
@given(forged_files())
def test_no_mutation_of_a_real_log_verifies_long_run(case):
    never_passes(case)


def summary() -> str:
    counted = sum(n for how, n in TRIED.items() if not how.startswith("unchanged"))
    lines = [f"fuzzed the verifier with {counted} mutations of {len(NAMES)} recorded logs, none verified:"]
    return "\n".join(lines + [f"  {n:6}  {how}" for how, n in TRIED.most_common()]) + "\n"


@pytest.fixture(scope="module", autouse=True)
def _tell():
    yield
    if TRIED:
        print("\n" + summary())
