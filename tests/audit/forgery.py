"""A forger's tools, for the crafted logs and the fuzzer: the recorded exports of every game
under both schemes (tests/chain_logs/), and `reseal`, which recomputes a log's chain as anyone
holding the file could: every hash (scheme 1 after the end), every public part and link (scheme
2), every commitment the file gives the key of (the seed after the end, a payload's key before
it), the head, and `final` by replaying the rules. What it cannot recompute stays as it was: a
hidden payload's commitment, and the heads already mailed out or published.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

from games.base import GameSpec
from pbem.audit import verify
from pbem.log import chain, fold

LOGS = Path(__file__).resolve().parents[1] / "chain_logs"
GAMES = ("diceduel", "elfenland", "elfenwizards", "elixirus", "elven_castle", "zauberschwert")


def names() -> list[str]:
    return sorted(path.stem for path in LOGS.glob("scheme*.json"))


@cache
def _raw(name: str) -> str:
    return (LOGS / f"{name}.json").read_text()


def load(name: str) -> dict:
    """A fresh copy of a recorded log, to change at will."""
    return json.loads(_raw(name))


@cache
def facts(name: str) -> tuple[str, GameSpec | None]:
    """(kind_of, spec_for) of a recorded log, read once: what to craft from it and how to check it."""
    doc = load(name)
    return kind_of(doc), spec_for(doc)


def spec_for(doc: dict) -> GameSpec | None:
    """The rules to hand the verifier: the toy game lives in tests/, not games/."""
    if doc["game"]["kind"] == "diceduel":
        from tests import toygame

        return toygame.GAME
    return None


def kind_of(doc: dict) -> str:
    """complete | partial (scheme 2 before the end: checkable) | withheld (scheme 1 before the end)."""
    if doc["reader"]["complete"]:
        return "complete"
    return "partial" if doc["game"]["chain_scheme"] == 2 else "withheld"


def heads_of(doc: dict) -> dict[int, str]:
    return {ev["seq"]: ev["hash"] for ev in doc["events"]}


def reseal(doc: dict, final: bool = True) -> dict:
    """The chain recomputed from what the file shows (see the module); returns `doc`."""
    game_id, events = doc["game"]["id"], doc["events"]
    seed = bytes.fromhex(doc["seed"]) if doc.get("seed") else None
    scheme = doc["game"]["chain_scheme"]
    prev = chain.GENESIS
    for ev in events:
        if ev.get("hash") is None and scheme == 1:
            return doc  # withheld: nothing to recompute
        ev["prev_hash"] = prev
        if scheme == 1:
            ev["hash"] = chain.hash_v1(game_id, ev["seq"], ev, prev)
        else:
            _reseal_parts(ev, game_id, seed)
            ev["hash"] = chain.link(game_id, ev["seq"], prev, ev["parts"])
        prev = ev["hash"]
    if events:
        doc["head"] = {"version": events[-1]["seq"], "hash": events[-1]["hash"]}
    if final and doc.get("final") is not None:
        doc["final"] = recomputed_final(doc)
    return doc


def _reseal_parts(ev: dict, game_id: int, seed: bytes | None) -> None:
    parts = ev.setdefault("parts", {k: "0" * 64 for k in chain.PARTS})
    parts["what"] = chain.what_digest(ev)
    parts["when"] = chain.when_digest(ev["created_at"])
    key = chain.chain_key(seed) if seed is not None else None
    if key is not None:
        parts["payload"] = chain.payload_commitment(chain.payload_key(key, game_id, ev["seq"]), ev["payload"])
        parts["draws"] = chain.draws_commitment(key, game_id, ev["seq"], ev.get("rng"))
    elif ev.get("payload_key") and ev["payload"] is not None:
        parts["payload"] = chain.payload_commitment(bytes.fromhex(ev["payload_key"]), ev["payload"])


def recomputed_final(doc: dict) -> dict:
    """`final` as the server would write it for this (altered) log, replayed through the rules."""
    spec = spec_for(doc) or verify.find_spec(doc["game"]["kind"])
    rows = [
        (ev["seq"], ev["type"], ev["payload"], ev["public"], ev["visible_to"], ev["reveals"], ev["schema_version"])
        for ev in doc["events"]
    ]
    try:
        state = fold.fold_rows(spec, fold.new_state(), rows, fold.undone_in(rows))
        return {"state_digest": chain.state_digest(state), "scores": fold.scores_with_corrections(spec, state)}
    except Exception:  # noqa: BLE001 - the rules refuse this log: the forger keeps the old final
        return copy.deepcopy(doc["final"])


def renumber(doc: dict) -> dict:
    """Events numbered 1, 2, … again (after one was cut or added), as a forger would."""
    for position, ev in enumerate(doc["events"], start=1):
        ev["seq"] = position
    return doc


def feed_of(doc: dict, every: int = 10) -> dict:
    """A copy of the public heads feed as a mirror kept it while the game went on: this game's
    head at every `every`-th event and at its last, between entries of another game."""
    from pbem.audit import heads_feed

    game_id, entries, prev = doc["game"]["id"], [], heads_feed.GENESIS
    versions = [ev["seq"] for ev in doc["events"] if ev["seq"] % every == 0] + [doc["events"][-1]["seq"]]
    heads = []
    for version in sorted(set(versions)):
        heads += [(game_id + 1000, 1, "cd" * 32), (game_id, version, doc["events"][version - 1]["hash"])]
    for n, (game, version, head) in enumerate(heads, start=1):
        at = doc["events"][-1]["created_at"]
        entry = heads_feed.entry_hash(n, game, version, head, at, prev)
        entries.append({"n": n, "game": game, "version": version, "hash": head, "at": at, "prev": prev, "entry": entry})
        prev = entry
    return {"format": heads_feed.FORMAT, "format_version": heads_feed.FORMAT_VERSION, "entries": entries}
