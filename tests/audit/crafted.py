"""The crafted logs: each kind is one attack on an exported log, named after it, made from the
recorded exports of every game under both schemes (tests/audit/forgery.py), with the words of
the PROBLEM line the verifier must give. tests/audit/test_crafted_logs.py runs every kind on
every log it fits and writes the table in pbem/SECURITY.md.

`fits`: which logs the attack is made on — "complete" (after the end), "partial" (a seat's or
a spectator's export before the end, scheme 2), "checkable" (both), "withheld" (scheme 1
before the end), "any". `head`: the attack is checked as a player holding the log's last true
head (from a notice or the public heads feed) would check it: a forger who recomputes the whole
chain is caught only there, and the table says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from .forgery import feed_of, renumber, reseal


@dataclass(frozen=True)
class Kind:
    name: str
    # The forged file (or the file and a copy of the heads feed to check it with); None: not
    # possible on this log.
    craft: Callable[[dict], dict | bytes | tuple[dict, dict] | None]
    expect: str  # words of the PROBLEM line (alternatives split by " | ": scheme 1's and 2's words)
    fits: str = "any"
    head: bool = False


KINDS: list[Kind] = []


def kind(name: str, expect: str, fits: str = "any", head: bool = False):
    def register(craft):
        KINDS.append(Kind(name, craft, expect, fits, head))
        return craft

    return register


# --- finding an event of the sort an attack needs ---------------------------------------------


def index_of(doc: dict, test) -> int | None:
    return next((i for i, ev in enumerate(doc["events"]) if test(ev)), None)


def hidden(doc):
    return index_of(doc, lambda ev: ev["visible_to"] is not None and ev["payload"] is not None)


def drawn(doc):
    return index_of(doc, lambda ev: ev.get("rng"))


def move(doc):
    return index_of(doc, lambda ev: ev["actor_kind"] == "seat" and not ev["type"].startswith("pbem."))


def of_type(doc, etype):
    return index_of(doc, lambda ev: ev["type"] == etype)


def shown_payload(doc):
    return index_of(doc, lambda ev: ev["payload"] is not None and ev["seq"] > 1)


def shown_move(doc):
    return index_of(doc, lambda ev: ev["payload"] is not None and not ev["type"].startswith("pbem."))


def hidden_from_some(doc):
    return index_of(doc, lambda ev: ev["visible_to"] is not None)


def setup_events(doc) -> list[dict]:
    """The events the game's setup dealt: after pbem.GameStarted, before anyone acted."""
    start = of_type(doc, "pbem.GameStarted")
    dealt = []
    for ev in doc["events"][start + 1 :]:
        if ev["actor_kind"] != "system" or ev["type"].startswith("pbem."):
            break
        dealt.append(ev)
    return dealt


def dumped(doc) -> bytes:
    return json.dumps(doc).encode()


def later(moment: str, seconds: int = 1) -> str:
    return (datetime.fromisoformat(moment) + timedelta(seconds=seconds)).isoformat()


# --- the file as a file -------------------------------------------------------------------------


@kind("not JSON: the file cut in the middle", "it is not JSON")
def _(doc):
    raw = dumped(doc)
    return raw[: len(raw) // 2]


@kind("JSON nested 100,000 deep", "nested deeper than 64")
def _(doc):
    return b"[" * 100_000 + b"]" * 100_000


@kind("JSON nested 65 deep inside a payload", "nests 6")
def _(doc):
    i = shown_payload(doc)
    deep: object = 1
    for _level in range(65):
        deep = [deep]
    doc["events"][i]["payload"]["deep"] = deep
    return doc


@kind("a key repeated in an event (two readers could take two values)", "appears twice in one object")
def _(doc):
    raw = dumped(doc)
    return raw.replace(b'"seq": 1,', b'"seq": 1, "seq": 2,', 1)


@kind("NaN in a payload", "NaN is not a JSON number")
def _(doc):
    doc["events"][shown_payload(doc)]["payload"]["nan"] = float("nan")
    return dumped(doc)  # Python's json writes NaN


@kind("a number too large for a float (1e999)", "too large for a number")
def _(doc):
    return dumped(doc).replace(b'"seq": 1,', b'"seq": 1e999,', 1)


@kind("an integer of 5,000 digits", "an integer of 5,000 digits is larger than any a log holds")
def _(doc):
    return dumped(doc).replace(b'"seq": 1,', b'"seq": ' + b"9" * 5000 + b",", 1)


@kind("a lone UTF-16 surrogate in a payload", "lone UTF-16 surrogate")
def _(doc):
    i = shown_payload(doc)
    doc["events"][i]["payload"]["text"] = "MARK"
    return dumped(doc).replace(b'"MARK"', b'"\\ud800"')


@kind("bytes that are not UTF-8", "not UTF-8")
def _(doc):
    return dumped(doc).replace(b'"format"', b'"\xff\xfeformat"', 1)


@kind("a file larger than the limit (64 MB)", "larger than the 67,108,864 bytes a log may have")
def _(doc):
    return b" " * (64 * 1024 * 1024 + 1)


@kind("the file is a JSON list", "not a pbem log of format")
def _(doc):
    return dumped([doc])


@kind("the format's name changed", "not a pbem log of format")
def _(doc):
    doc["format"] = "pbem-log-x"
    return doc


@kind("a format version from the future", "not a pbem log of format")
def _(doc):
    doc["format_version"] = 2
    return doc


@kind("a field the format does not have, at the top", "'note' is not part of the format")
def _(doc):
    doc["note"] = "trust me"
    return doc


@kind("a field the format does not have, in an event", "'trusted' is not part of the format")
def _(doc):
    doc["events"][2]["trusted"] = True
    return doc


@kind("an event without its hash", "'hash' is missing")
def _(doc):
    del doc["events"][2]["hash"]
    return doc


@kind("head.hash set to null", "head.hash: a null where the format wants a string", fits="checkable")
def _(doc):
    doc["head"]["hash"] = None
    return doc


@kind("the head left out", "'head' is missing")
def _(doc):
    del doc["head"]
    return doc


@kind("no events at all", "events: must hold at least 1 items")
def _(doc):
    doc["events"] = []
    return doc


@kind("an event's number written as a string", "events[0].seq: a string where the format wants an integer")
def _(doc):
    doc["events"][0]["seq"] = "1"
    return doc


@kind("an event's number written as 1.0", "events[0].seq: a number with a fraction")
def _(doc):
    doc["events"][0]["seq"] = 1.0
    return doc


@kind("reveals written as 1 instead of true", "reveals: an integer where the format wants a boolean")
def _(doc):
    doc["events"][0]["reveals"] = 1
    return doc


@kind("an actor of no kind the platform has", 'actor_kind: must be "seat" or "system"')
def _(doc):
    doc["events"][0]["actor_kind"] = "god"
    return doc


@kind("an event visible to seat -1", "visible_to[0]: must be at least 0")
def _(doc):
    doc["events"][1]["visible_to"] = [-1]
    return doc


@kind("a time that is not a time", 'created_at: "yesterday" is not of the form')
def _(doc):
    doc["events"][1]["created_at"] = "yesterday"
    return doc


@kind("a time with a newline after it", "is not of the form")
def _(doc):
    doc["events"][1]["created_at"] += "\n"
    return doc


@kind("a chain scheme nobody knows (3)", "game.chain_scheme: must be 1 or 2, not 3")
def _(doc):
    doc["game"]["chain_scheme"] = 3
    return doc


@kind("exported_at that is not a time", "exported_at:")
def _(doc):
    doc["exported_at"] = "now"
    return doc


# --- the scheme: the chain's, never the file's word -----------------------------------------------


@kind(
    "scheme 1 claimed, every hash null (a scheme-2 log before the end)",
    "nothing in this file can be checked: its hashes are withheld",
    fits="partial",
)
def _(doc):
    doc["game"]["chain_scheme"] = 1
    doc["head"]["hash"] = None
    for ev in doc["events"]:
        ev["hash"] = ev["prev_hash"] = None
        ev.pop("parts", None)
        ev.pop("payload_key", None)
    return doc


@kind(
    "scheme 1 claimed, every hash null (a complete log)",
    "head.hash: a null where the format wants a string",
    fits="complete",
)
def _(doc):
    doc["game"]["chain_scheme"] = 1
    doc["head"]["hash"] = None
    for ev in doc["events"]:
        ev["hash"] = ev["prev_hash"] = None
        ev.pop("parts", None)
        ev.setdefault("causation_id", "")
        ev.setdefault("actor_user_id", None)
    return doc


@kind("scheme 1 claimed for a scheme-2 chain, hashes kept", "event 1: its hash follows from no chain scheme")
def _(doc):
    if doc["game"]["chain_scheme"] != 2 or not doc["reader"]["complete"]:
        return None
    doc["game"]["chain_scheme"] = 1
    for ev in doc["events"]:
        ev.pop("parts")
        ev.update(causation_id="", actor_user_id=None)
    return doc


@kind("scheme 2 claimed for a scheme-1 chain, with made-up parts", "event 1: its hash follows from no chain scheme")
def _(doc):
    if doc["game"]["chain_scheme"] != 1 or not doc["reader"]["complete"]:
        return None
    doc["game"]["chain_scheme"] = 2
    for ev in doc["events"]:
        del ev["causation_id"], ev["actor_user_id"]
        ev["parts"] = {k: "0" * 64 for k in ("what", "when", "payload", "draws", "origin")}
    return doc


@kind(
    "a scheme-1 log before its end (hashes withheld) read as verified",
    "nothing in this file can be checked",
    fits="withheld",
)
def _(doc):
    return doc


@kind("the game's number changed", "event 1: its hash follows from no chain scheme", fits="checkable")
def _(doc):
    doc["game"]["id"] += 1
    return doc


# --- the chain, changed in place ----------------------------------------------------------------


@kind(
    "a payload changed",
    "its payload differs from what the chain committed to | does not match its hash",
    fits="checkable",
)
def _(doc):
    i = shown_payload(doc)
    doc["events"][i]["payload"]["forged"] = True
    return doc


@kind(
    "a hidden payload changed (another seat's hand)",
    "differs from what the chain committed to | does not match its hash",
    fits="complete",
)
def _(doc):
    i = hidden(doc)
    if i is None:
        return None
    doc["events"][i]["payload"]["forged"] = True
    return doc


@kind("a payload changed in a scheme-1 log", "its content does not match its hash", fits="complete")
def _(doc):
    if doc["game"]["chain_scheme"] != 1:
        return None
    doc["events"][move(doc)]["payload"]["forged"] = True
    return doc


@kind("an event's type changed", "its type, actor or visibility differ", fits="checkable")
def _(doc):
    if doc["game"]["chain_scheme"] != 2:
        return None
    i = move(doc)
    doc["events"][i]["type"] = "Forged"
    return doc


@kind("an act credited to another seat", "differ from what the chain recorded", fits="checkable")
def _(doc):
    if doc["game"]["chain_scheme"] != 2:
        return None
    ev = doc["events"][move(doc)]
    ev["actor_seat"] = (ev["actor_seat"] + 1) % len(doc["game"]["players"])
    return doc


@kind("an act credited to another seat, under scheme 1", "its content does not match its hash", fits="complete")
def _(doc):
    if doc["game"]["chain_scheme"] != 1:
        return None
    ev = doc["events"][move(doc)]
    ev["actor_seat"] = (ev["actor_seat"] + 1) % len(doc["game"]["players"])
    return doc


@kind("a seat's act passed off as the system's", "differ | does not match its hash", fits="checkable")
def _(doc):
    ev = doc["events"][move(doc)]
    ev["actor_kind"], ev["actor_seat"] = "system", None
    return doc


@kind("a hidden event made public", "differ | does not match its hash", fits="complete")
def _(doc):
    i = hidden(doc)
    if i is None:
        return None
    doc["events"][i]["visible_to"] = None
    return doc


@kind("an event's public form changed", "differ | does not match its hash", fits="checkable")
def _(doc):
    i = index_of(doc, lambda ev: ev["public"] is not None)
    if i is None:
        return None
    doc["events"][i]["public"]["forged"] = True
    return doc


@kind("reveals flipped", "differ | does not match its hash", fits="checkable")
def _(doc):
    doc["events"][1]["reveals"] = not doc["events"][1]["reveals"]
    return doc


@kind("a payload's schema version changed", "differ | does not match its hash", fits="checkable")
def _(doc):
    doc["events"][1]["schema_version"] += 1
    return doc


@kind("an event's time moved by a second", "differ | does not match its hash", fits="checkable")
def _(doc):
    doc["events"][4]["created_at"] = later(doc["events"][4]["created_at"])
    return doc


@kind("two events swapped", "the events are out of order, or one is missing")
def _(doc):
    events = doc["events"]
    events[3], events[4] = events[4], events[3]
    return doc


@kind("an event cut out of the middle", "the events are out of order, or one is missing")
def _(doc):
    del doc["events"][5]
    return doc


@kind("an event repeated", "the events are out of order, or one is missing")
def _(doc):
    doc["events"].insert(5, dict(doc["events"][5]))
    return doc


@kind("the last event cut, the head left as it was", "is not its last event")
def _(doc):
    doc["events"].pop()
    return doc


@kind("a previous hash altered", "does not link to the event before it", fits="checkable")
def _(doc):
    doc["events"][6]["prev_hash"] = "ab" * 32
    return doc


@kind("an event's hash altered", "does not link to the event before it", fits="checkable")
def _(doc):
    doc["events"][6]["hash"] = "ab" * 32
    return doc


@kind("a part altered (what)", "differ from what the chain recorded", fits="checkable")
def _(doc):
    if doc["game"]["chain_scheme"] != 2:
        return None
    doc["events"][6]["parts"]["what"] = "ab" * 32
    return doc


@kind("a part altered (the payload's commitment)", "its payload differs", fits="checkable")
def _(doc):
    i = shown_payload(doc)
    if doc["game"]["chain_scheme"] != 2 or i is None:
        return None
    doc["events"][i]["parts"]["payload"] = "ab" * 32
    return doc


@kind(
    "a part altered (the draws' commitment)",
    "its random outcomes differ from what the chain committed to",
    fits="complete",
)
def _(doc):
    if doc["game"]["chain_scheme"] != 2:
        return None
    doc["events"][6]["parts"]["draws"] = "ab" * 32
    return doc


@kind("a part altered (the origin's commitment)", "its hash does not follow from its parts", fits="checkable")
def _(doc):
    if doc["game"]["chain_scheme"] != 2:
        return None
    doc["events"][6]["parts"]["origin"] = "ab" * 32
    return doc


@kind("the origin changed in a scheme-1 log", "its content does not match its hash", fits="complete")
def _(doc):
    if doc["game"]["chain_scheme"] != 1:
        return None
    doc["events"][6]["causation_id"] = "<forged@example.org>"
    return doc


# --- the draws ---------------------------------------------------------------------------------


@kind("one random outcome changed", "random outcomes", fits="complete")
def _(doc):
    i = drawn(doc)
    n, value = doc["events"][i]["rng"][0]
    doc["events"][i]["rng"][0] = [n, (value + 1) % n]
    return doc


@kind(
    "one random outcome changed, chain recomputed", "its random outcomes do not follow from the seed", fits="complete"
)
def _(doc):
    i = drawn(doc)
    n, value = doc["events"][i]["rng"][0]
    doc["events"][i]["rng"][0] = [n, (value + 1) % n]
    return reseal(doc)


@kind(
    "a draw of more than 2**64 outcomes (Rng looped for ever)", "must be at most 18446744073709551616", fits="complete"
)
def _(doc):
    doc["events"][drawn(doc)]["rng"].append([2**64 + 1, 5])
    return doc


@kind("a draw of 0 outcomes", "must be at least 1", fits="complete")
def _(doc):
    doc["events"][drawn(doc)]["rng"].append([0, 0])
    return doc


@kind("an outcome as large as its draw ([6, 6])", "random outcomes", fits="complete")
def _(doc):
    doc["events"][drawn(doc)]["rng"].append([6, 6])
    return reseal(doc)


@kind("200,001 draws on one event", "may hold at most 100000 items", fits="complete")
def _(doc):
    doc["events"][drawn(doc)]["rng"] = [[2, 0]] * 200_001
    return doc


@kind("one event's draws left out (the key removed)", "'rng' is missing", fits="complete")
def _(doc):
    del doc["events"][drawn(doc)]["rng"]
    return doc


@kind("every draw left out (each rng key removed)", "'rng' is missing", fits="complete")
def _(doc):
    for ev in doc["events"]:
        del ev["rng"]
    return doc


@kind(
    "every draw set to null, chain recomputed", "the setup dealt from the seed differs from the log's", fits="complete"
)
def _(doc):
    for ev in doc["events"]:
        ev["rng"] = None
    return reseal(doc)


@kind("draws shown before the end", "may not hold 'rng'", fits="partial")
def _(doc):
    doc["events"][3]["rng"] = [[6, 1]]
    return doc


# --- the header: every field against what the chain covers -------------------------------------


@kind("the title changed", "the file's title", fits="checkable")
def _(doc):
    doc["game"]["title"] = "A Friendly Game"
    return doc


@kind("the kind changed (before the end)", "the file's kind", fits="partial")
def _(doc):
    doc["game"]["kind"] = "elfenland" if doc["game"]["kind"] != "elfenland" else "elixirus"
    return doc


@kind("the kind changed (after the end)", "the file's kind", fits="complete")
def _(doc):
    doc["game"]["kind"] = "elfenland" if doc["game"]["kind"] != "elfenland" else "elixirus"
    return doc


@kind("the options changed", "the file's options", fits="checkable")
def _(doc):
    doc["game"]["options"]["forged"] = True
    return doc


@kind("a player renamed", "the file names the players", fits="checkable")
def _(doc):
    doc["game"]["players"][0] = "Mallory"
    return doc


@kind("the players reordered", "the file names the players", fits="checkable")
def _(doc):
    doc["game"]["players"].reverse()
    return doc


@kind("a player added", "the file names the players", fits="checkable")
def _(doc):
    doc["game"]["players"].append("Mallory")
    return doc


@kind("the status changed (finished to abandoned, or back)", "the file says the game is", fits="complete")
def _(doc):
    doc["game"]["status"] = "abandoned" if doc["game"]["status"] == "finished" else "finished"
    return doc


@kind("the status changed (running to paused)", "the file says the game is", fits="partial")
def _(doc):
    doc["game"]["status"] = "paused" if doc["game"]["status"] != "paused" else "running"
    return doc


@kind("the status changed to finished before the end", "the file says the game is finished", fits="partial")
def _(doc):
    doc["game"]["status"] = "finished"
    return doc


@kind("the reducer version changed", "the file's reducer_version", fits="checkable")
def _(doc):
    doc["game"]["reducer_version"] += 1
    return doc


@kind("the seed's commitment changed in the header", "the file's seed_commitment", fits="checkable")
def _(doc):
    doc["game"]["seed_commitment"] = "ab" * 32
    return doc


# --- the reader ---------------------------------------------------------------------------------


@kind("a complete log passed off as a log before the end", "may not hold", fits="complete")
def _(doc):
    doc["reader"]["complete"] = False
    return doc


@kind("a log before the end passed off as complete", "'seed' is missing", fits="partial")
def _(doc):
    doc["reader"]["complete"] = True
    return doc


@kind("a spectator's or a seat's export passed off as another seat's", "yet this reader may", fits="partial")
def _(doc):
    def sees(seat):
        return [ev["visible_to"] is None or (seat is not None and seat in ev["visible_to"]) for ev in doc["events"]]

    mine = sees(doc["reader"]["seat"])
    others = [None, *range(len(doc["game"]["players"]))]
    other = next((seat for seat in others if sees(seat) != mine), "none")
    if other == "none":
        return None  # nothing is hidden yet: every reader's export is the same file
    doc["reader"]["seat"] = other
    return doc


@kind("the reader's seat beyond the table", "but the game has", fits="partial")
def _(doc):
    doc["reader"]["seat"] = 63
    return doc


@kind("a reader named in a complete log", "reader.seat: an integer where the format wants a null", fits="complete")
def _(doc):
    doc["reader"]["seat"] = 0
    return doc


# --- payloads shown before the end ----------------------------------------------------------------


@kind("a payload shown without its payload_key", "'payload_key' is missing", fits="partial")
def _(doc):
    del doc["events"][shown_payload(doc)]["payload_key"]
    return doc


@kind("a payload_key that is not hex", 'payload_key: "not-a-key" is not of the form', fits="partial")
def _(doc):
    doc["events"][shown_payload(doc)]["payload_key"] = "not-a-key"
    return doc


@kind("another event's payload_key", "its payload differs from what the chain committed to", fits="partial")
def _(doc):
    events = [ev for ev in doc["events"] if ev.get("payload_key")]
    events[1]["payload_key"] = events[2]["payload_key"]
    return doc


@kind("another seat's hidden hand invented, without a key", "'payload_key' is missing", fits="partial")
def _(doc):
    i = index_of(doc, lambda ev: ev["payload"] is None)
    if i is None:
        return None
    doc["events"][i]["payload"] = {"cards": ["forged"]}
    return doc


@kind("another seat's hidden hand invented, with a made-up key", "yet this reader may not see it", fits="partial")
def _(doc):
    i = index_of(doc, lambda ev: ev["payload"] is None)
    if i is None:
        return None
    doc["events"][i].update(payload={"cards": ["forged"]}, payload_key="ab" * 32)
    return doc


@kind("a payload the reader may see left out", "yet this reader may see it", fits="partial")
def _(doc):
    ev = doc["events"][shown_move(doc)]
    ev["payload"] = None
    del ev["payload_key"]
    return doc


@kind("the seed shown before the end", "may not hold 'seed' or 'final'", fits="partial")
def _(doc):
    doc["seed"] = "ab" * 32
    return doc


@kind(
    "a seat's own payload changed and its chain recomputed by that seat", "is not in the log", fits="partial", head=True
)
def _(doc):
    i = index_of(doc, lambda ev: ev.get("payload_key") and ev["visible_to"] is not None) or shown_payload(doc)
    doc["events"][i]["payload"]["forged"] = True
    return reseal(doc)


# --- the seed and the end -------------------------------------------------------------------------


@kind("a complete log without its seed", "'seed' is missing", fits="complete")
def _(doc):
    del doc["seed"]
    return doc


@kind("a complete log without its final state", "'final' is missing", fits="complete")
def _(doc):
    del doc["final"]
    return doc


@kind("another seed beside the log", "the seed the log reveals differs from the seed beside it", fits="complete")
def _(doc):
    doc["seed"] = "ab" * 32
    return doc


@kind(
    "another seed, revealed in the log too, chain recomputed",
    "does not match the commitment published",
    fits="complete",
)
def _(doc):
    doc["seed"] = "ab" * 32
    doc["events"][of_type(doc, "pbem.SeedRevealed")]["payload"]["seed"] = "ab" * 32
    return reseal(doc, final=False)


@kind("cut before GameEnded (or Abandoned), final recomputed", "a complete log holds exactly one end", fits="complete")
def _(doc):
    end = index_of(doc, lambda ev: ev["type"] in ("pbem.GameEnded", "pbem.Abandoned"))
    doc["events"] = doc["events"][:end]
    return reseal(doc)


@kind("cut before SeedRevealed, final recomputed", "a complete log holds exactly one end", fits="complete")
def _(doc):
    doc["events"] = doc["events"][: of_type(doc, "pbem.SeedRevealed")]
    return reseal(doc)


@kind(
    "cut after the end (a score correction dropped), final recomputed", "is not in the log", fits="complete", head=True
)
def _(doc):
    if doc["events"][-1]["type"] == "pbem.SeedRevealed":
        return None
    doc["events"].pop()
    return reseal(doc)


@kind("a move added after the end, chain recomputed", "moves of the game after its end", fits="complete")
def _(doc):
    extra = dict(doc["events"][move(doc)], seq=len(doc["events"]) + 1)
    doc["events"].append(extra)
    return reseal(doc)


@kind("the end's scores changed, chain recomputed", "the end records", fits="complete")
def _(doc):
    if of_type(doc, "pbem.GameEnded") is None:
        return None  # abandoned: no scores recorded at the end
    end = doc["events"][of_type(doc, "pbem.GameEnded")]["payload"]
    end["scores"][0] += 10
    return reseal(doc)


@kind("the final state's digest changed", "the rules reach another final state", fits="complete")
def _(doc):
    doc["final"]["state_digest"] = "ab" * 32
    return doc


@kind("the final scores changed", "replay: the rules give final scores", fits="complete")
def _(doc):
    doc["final"]["scores"][0] += 10
    return doc


@kind("a second start of the game, chain recomputed", "the game starts more than once", fits="complete")
def _(doc):
    i = of_type(doc, "pbem.GameStarted")
    doc["events"].insert(i + 1, dict(doc["events"][i]))
    return reseal(renumber(doc))


@kind("a second creation of the game, chain recomputed", "a second creation of the game", fits="checkable")
def _(doc):
    doc["events"].insert(1, json.loads(json.dumps(doc["events"][0])))
    return reseal(renumber(doc))


@kind(
    "the creation's payload hidden from the reader", "payload: a null where the format wants an object", fits="partial"
)
def _(doc):
    doc["events"][0]["payload"] = None
    del doc["events"][0]["payload_key"]
    return doc


@kind(
    "the deal changed (two hands swapped), chain recomputed", "the setup dealt from the seed differs", fits="complete"
)
def _(doc):
    dealt = [ev for ev in setup_events(doc) if ev["visible_to"] is not None][:2]
    if len(dealt) < 2 or dealt[0]["payload"] == dealt[1]["payload"]:
        return None
    dealt[0]["payload"], dealt[1]["payload"] = dealt[1]["payload"], dealt[0]["payload"]
    return reseal(doc)


def _data_version_claimed(doc, version):
    """The first dealt event claims component data `version` (a game whose data has versions:
    Elfenwizards, Zauberschwert); the deal left as it was."""
    dealt = setup_events(doc)
    first = dealt[0]["payload"] if dealt else None
    if not isinstance(first, dict) or "data" not in first or first["data"] == version:
        return None
    first["data"] = version
    return reseal(doc)


@kind(
    "a component data version the game never had, chain recomputed",
    "This game has no data version 99",
    fits="complete",
)
def _(doc):
    return _data_version_claimed(doc, 99)


@kind(
    "an older component data version claimed for today's deal, chain recomputed",
    "the setup dealt from the seed differs",
    fits="complete",
)
def _(doc):
    return _data_version_claimed(doc, 1)


@kind("a move cut out, events renumbered, chain recomputed", "is not in the log", fits="complete", head=True)
def _(doc):
    del doc["events"][move(doc) + 3]
    return reseal(renumber(doc))


@kind(
    "a payload changed, chain and final recomputed (a forger holding the seed)",
    "is not in the log",
    fits="complete",
    head=True,
)
def _(doc):
    i = index_of(doc, lambda ev: ev["type"] in ("pbem.Said", "pbem.Abandoned"))
    doc["events"][i]["payload"]["text"] = "I resign"
    return reseal(doc)


# --- heads --------------------------------------------------------------------------------------


@kind(
    "a head the log no longer holds (its event rewritten)",
    "so the log changed after that head was given out",
    fits="checkable",
    head=True,
)
def _(doc):
    doc["events"][-1]["created_at"] = later(doc["events"][-1]["created_at"])
    return reseal(doc)


@kind(
    "a log rewritten and its chain recomputed, checked with a mirror of the heads feed",
    "is not in the log",
    fits="checkable",
)
def _(doc):
    feed = feed_of(doc)
    doc["events"][1]["created_at"] = later(doc["events"][1]["created_at"])
    return reseal(doc), feed


@kind("a copy of the heads feed with an entry altered", "the heads feed: entry", fits="checkable")
def _(doc):
    feed = feed_of(doc)
    feed["entries"][1]["hash"] = "ab" * 32
    return doc, feed


@kind("a copy of the heads feed with an entry dropped", "the heads feed: entry", fits="checkable")
def _(doc):
    feed = feed_of(doc)
    del feed["entries"][1]
    return doc, feed


@kind("a copy of the heads feed that is no feed", "the heads feed: it breaks the format", fits="checkable")
def _(doc):
    return doc, {"format": "pbem-heads", "format_version": 1, "entries": [{"n": "1"}]}
