"""Checks an exported game log on your own machine, with no server:

    python -m pbem.verify GAME.json [--head VERSION:HASH ...]

It needs nothing but Python's standard library and the `games/` folder of this repository (a
test holds it to that): the hash chain under the game's scheme (pbem/CHAIN.md), every payload it
can open against its commitment, any head you kept from a notice, and, once the game is over and
the seed revealed, every random outcome re-derived from the seed and the whole game replayed
through its rules to the same final state and result. Exit status 0 when everything holds, 1
with one line per problem.

Export the file with `manage.py export_game GAME [--seat N]`, from the audit page, or from
GET /api/games/N/export.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import games
from games.base import GameSpec, rederive
from pbem.log import chain, fold

FORMAT = "pbem-log"
FORMAT_VERSION = 1


@dataclass
class Findings:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)  # what was checked and held

    @property
    def ok(self) -> bool:
        return not self.problems


class UnknownKind(LookupError):
    pass


def find_spec(kind: str) -> GameSpec:
    """The game's rules from `games/` (each package exposes GAME)."""
    for module in pkgutil.iter_modules(games.__path__):
        if module.ispkg:
            spec = getattr(importlib.import_module(f"games.{module.name}"), "GAME", None)
            if isinstance(spec, GameSpec) and spec.name == kind:
                return spec
    raise UnknownKind(f"no game {kind!r} in games/ (is this the repository the game was played with?)")


def verify_document(doc: dict, heads: Sequence[tuple[int, str]] = (), spec: GameSpec | None = None) -> Findings:
    """Every check the document allows; `spec`: the game's rules (default: found in games/)."""
    found = Findings()
    if doc.get("format") != FORMAT or doc.get("format_version") != FORMAT_VERSION:
        found.problems.append(
            f"this is not a pbem log of format {FORMAT} {FORMAT_VERSION} "
            f"(it says {doc.get('format')!r} {doc.get('format_version')!r})"
        )
        return found
    game, events = doc["game"], doc["events"]
    scheme = game["chain_scheme"]
    if scheme not in chain.SCHEMES:
        found.problems.append(
            f"chain scheme {scheme} is unknown to this verifier (it knows "
            f"{', '.join(map(str, chain.SCHEMES))}): update the repository"
        )
        return found
    found.facts.append(f"game #{game['id']} ({game['kind']}), hash chain scheme {scheme}")
    seed = _seed(doc, events, found)
    _check_chain(game, events, scheme, seed, found)
    _check_heads(doc, events, heads, found)
    _check_draws(events, seed, found)
    _replay(doc, events, spec, found)
    return found


def _seed(doc: dict, events: list[dict], found: Findings) -> bytes | None:
    """The revealed seed, checked against the commitment published by the first event."""
    revealed = [ev["payload"]["seed"] for ev in events if ev["type"] == "pbem.SeedRevealed" and ev["payload"]]
    seed = doc.get("seed") or (revealed[0] if revealed else None)
    if seed is None:
        found.notes.append(
            "the seed is still secret (the game is not over): random outcomes and hidden "
            "payloads can be checked once it is revealed at the end"
        )
        return None
    commitments = {doc["game"]["seed_commitment"]}
    created = [ev for ev in events if ev["type"] == "pbem.GameCreated" and ev["payload"]]
    if created:
        commitments.add(created[0]["payload"]["seed_commitment"])
    if revealed and revealed[0] != seed:
        found.problems.append("the seed the log reveals differs from the seed beside it in the file")
    if {chain.seed_commitment(seed)} != commitments:
        found.problems.append("the revealed seed does not match the commitment published at the start")
        return None
    found.facts.append("the revealed seed matches the commitment published by the first event")
    return bytes.fromhex(seed)


def _check_chain(game: dict, events: list[dict], scheme: int, seed: bytes | None, found: Findings) -> None:
    game_id = game["id"]
    sealer = chain.Sealer(scheme, game_id, seed)
    prev, linked, opened, unopened = chain.GENESIS, 0, 0, 0
    unlinkable = False
    withheld = scheme == 1 and any(ev["hash"] is None for ev in events)
    if withheld:
        found.notes.append(
            "this game's chain (scheme 1) hashes its hidden payloads, so its hashes are withheld "
            "until the end: export it again then"
        )
    for position, ev in enumerate(events, start=1):
        seq = ev["seq"]
        if seq != position:
            found.problems.append(
                f"the event at position {position} is numbered {seq}: the events are out of order, or one is missing"
            )
        if withheld:
            continue
        if ev["prev_hash"] != prev:
            found.problems.append(
                f"event {seq}: it does not link to the event before it (its previous hash is not that event's hash)"
            )
        prev = ev["hash"]
        if scheme == 1:
            if ev["payload"] is None or "rng" not in ev:
                unlinkable = True
                continue
            if chain.hash_v1(game_id, seq, ev, ev["prev_hash"]) != ev["hash"]:
                found.problems.append(f"event {seq}: its content does not match its hash (altered?)")
            linked += 1
            continue
        parts = ev["parts"]
        if chain.what_digest(ev) != parts["what"]:
            found.problems.append(f"event {seq}: its type, actor or visibility differ from what the chain recorded")
        if chain.when_digest(ev["created_at"]) != parts["when"]:
            found.problems.append(
                f"event {seq}: its time ({ev['created_at']}) differs from the time the chain recorded"
            )
        key = chain.payload_key(sealer.key, game_id, seq) if sealer.key else _hex_key(ev.get("payload_key"))
        if ev["payload"] is not None and key is not None:
            opened += 1
            if chain.payload_commitment(key, ev["payload"]) != parts["payload"]:
                found.problems.append(f"event {seq}: its payload differs from what the chain committed to")
        else:
            unopened += 1
        if sealer.key is not None and "rng" in ev:
            if chain.draws_commitment(sealer.key, game_id, seq, ev["rng"]) != parts["draws"]:
                found.problems.append(f"event {seq}: its random outcomes differ from what the chain committed to")
        if chain.link(game_id, seq, ev["prev_hash"], parts) != ev["hash"]:
            found.problems.append(f"event {seq}: its hash does not follow from its parts and the hash before it")
        linked += 1
    if scheme == 1 and unlinkable and not withheld:
        found.notes.append(
            "scheme 1 hashes every hidden payload and random draw: its links can be checked "
            "only with all of them, in an export made after the end"
        )
    if linked:
        found.facts.append(f"{linked} events checked link by link from the first")
    if scheme >= 2:
        found.facts.append(f"{opened} payloads checked against their commitments")
        if unopened:
            found.notes.append(
                f"{unopened} payloads hidden from this reader stay sealed in their commitments "
                "until the seed is revealed"
            )
        if seed is not None:
            found.notes.append(
                "each event's origin (mail Message-ID, API key) is committed but not exported: "
                "only the server's verify_games opens it"
            )


def _hex_key(text):
    try:
        return bytes.fromhex(text) if text else None
    except ValueError:
        return None


def _check_heads(doc: dict, events: list[dict], heads, found: Findings) -> None:
    by_seq = {ev["seq"]: ev["hash"] for ev in events}
    head = doc["head"]
    if head["hash"] is None:  # withheld (scheme 1 before the end): nothing to compare
        if heads:
            found.notes.append("the heads given can be checked once the game is over (scheme 1)")
        return
    last = events[-1] if events else None
    if last is None or head["version"] != last["seq"] or head["hash"] != last["hash"]:
        found.problems.append(f"the file's head {head['version']}:{head['hash'][:16]}… is not its last event")
    for version, digest in heads:
        have = by_seq.get(version)
        if have == digest:
            found.facts.append(f"head {version}:{digest[:16]}… is in the log")
        elif have is None:
            found.problems.append(
                f"head {version}:{digest[:16]}… is not in the log: it has {len(events)} events, none numbered {version}"
            )
        else:
            found.problems.append(
                f"head {version}:{digest[:16]}… is not in the log: event {version} has hash "
                f"{have[:16]}…, so the log changed after that head was given out"
            )


def _check_draws(events: list[dict], seed: bytes | None, found: Findings) -> None:
    if seed is None:
        return
    checked = 0
    for ev in events:
        draws = ev.get("rng")
        if not draws:
            continue
        checked += len(draws)
        if not rederive(seed, ev["seq"], draws):
            found.problems.append(f"event {ev['seq']}: its random outcomes do not follow from the seed")
    found.facts.append(f"{checked} random outcomes re-derived from the seed")


def _replay(doc: dict, events: list[dict], spec: GameSpec | None, found: Findings) -> None:
    if not doc["reader"].get("complete") or any(ev["payload"] is None for ev in events):
        seat = doc["reader"].get("seat")
        reader = f"seat {seat}'s" if seat is not None else "a spectator's"
        found.notes.append(
            f"this is {reader} log before the end: replaying the rules needs every payload, "
            "so export it again once the game is over"
        )
        return
    game = doc["game"]
    try:
        spec = spec or find_spec(game["kind"])
    except UnknownKind as exc:
        found.problems.append(f"replay: {exc}")
        return
    if spec.version != game["reducer_version"]:
        found.notes.append(
            f"the game was played with reducer version {game['reducer_version']}; these rules "
            f"are version {spec.version}"
        )
    rows = [
        (ev["seq"], ev["type"], ev["payload"], ev["public"], ev["visible_to"], ev["reveals"], ev["schema_version"])
        for ev in events
    ]
    undone = fold.undone_in(rows)
    state = fold.new_state()
    for row in rows:
        seq, etype, payload = row[0], row[1], row[2]
        if seq in undone:
            continue
        if etype == "pbem.GameEnded":
            expected = fold.final_standing(spec, state)
            recorded = {k: payload.get(k) for k in ("scores", "ranking", "tiebreak")}
            if expected != recorded:
                found.problems.append(
                    f"event {seq}: the end records {recorded}, but the rules replayed give {expected}"
                )
        try:
            state = fold.fold_rows(spec, state, [row], set())
        except Exception as exc:  # noqa: BLE001 - any failure to replay is a finding
            found.problems.append(f"event {seq}: replaying it through the rules failed: {exc!r}")
            return
    final = doc.get("final") or {}
    if chain.state_digest(state) != final.get("state_digest"):
        found.problems.append("replay: the rules reach another final state than the server did")
    scores = fold.scores_with_corrections(spec, state)
    if final.get("scores") is not None and scores != final["scores"]:
        found.problems.append(f"replay: the rules give final scores {scores}, the server shows {final['scores']}")
    if not found.problems:
        found.facts.append(f"replayed through the rules of {spec.title}: same final state, scores {scores}")


def report(found: Findings) -> str:
    lines = [f"ok: {fact}" for fact in found.facts] + [f"note: {note}" for note in found.notes]
    lines += [f"PROBLEM: {problem}" for problem in found.problems]
    lines.append(
        f"FAILED: {len(found.problems)} problem(s)" if found.problems else "VERIFIED: everything checked holds"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pbem.verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="the exported log (JSON); - reads standard input")
    parser.add_argument(
        "--head",
        action="append",
        default=[],
        metavar="VERSION:HASH",
        help="a head a notice quoted; the log must still contain it (repeatable)",
    )
    args = parser.parse_args(argv)
    try:
        heads = [chain.parse_head(text) for text in args.head]
    except chain.BadHead as exc:
        print(f"PROBLEM: {exc}")
        return 1
    try:
        raw = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()  # noqa: SIM115
        doc = json.loads(raw)
    except OSError as exc:
        print(f"PROBLEM: cannot read {args.file}: {exc.strerror}")
        return 1
    except ValueError as exc:
        print(f"PROBLEM: {args.file} is not JSON: {exc}")
        return 1
    try:
        found = verify_document(doc, heads)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        print(f"PROBLEM: {args.file} is not a complete pbem log (missing or malformed: {exc!r})")
        return 1
    print(report(found))
    return 0 if found.ok else 1


if __name__ == "__main__":
    sys.exit(main())
