"""Checks an exported game log on your own machine, with no server:

    python -m pbem.verify GAME.json [--head VERSION:HASH ...] [--heads-feed HEADS.json] [--acts [SEAT]]
                          [--language en|de|fr]

It needs nothing but Python's standard library and the `games/` folder of this repository (a
test holds it to that). First the file is held to its written format (pbem/audit/
pbem-log-1.schema.json, with bounds on its size and depth); then the hash chain is checked under
the scheme its first event commits to (pbem/CHAIN.md), every payload shown against its
commitment, every header field against what the chain covers, any head you kept from a notice or
a mirror of the public heads feed, and, once the game is over and the seed revealed, the end,
every random outcome and the deal re-derived from the seed and the whole game replayed through
its rules to the same final state and result. It lists the acts credited to each seat, so a
player can see that every move under their name was theirs. Exit status 0 when everything
holds, 1 with one PROBLEM line per problem, said in English, German or French (--language; by
default the LANG environment variable's language if it is de or fr, else English).

Export the file with `manage.py export_game GAME [--seat N]`, from the audit page, or from
GET /api/games/N/export.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

import games
from games.base import GameSpec, Rejected, Rng, forced_move, rederive
from games.i18n import supported, using
from pbem.audit import heads_feed, logfile, schema
from pbem.audit.language import LANGUAGE_CHOICES, _, gettext_noop
from pbem.log import chain, clocks, fold

FORMAT = "pbem-log"
FORMAT_VERSION = 1
SCHEMA_FILE = "pbem-log-1.schema.json"
END_TYPES = ("pbem.GameEnded", "pbem.Abandoned")
# Platform events the header is derived from: every reader must see them.
HEADER_TYPES = ("pbem.GameCreated", "pbem.GameStarted", "pbem.PlayerReplaced", "pbem.Paused", "pbem.Resumed")
HEADER_FIELDS = ("kind", "title", "options", "reducer_version", "seed_commitment")

# Said in the reader's language (issue 33): `using(language)` around the checks (the command's
# --language, the caller's own choice), English by default; the texts are the platform's
# catalogue, read without Django (pbem/audit/language.py). Hashes, numbers, event types and the
# words of other modules (the schema's, the clocks', the heads feed's) stay as they are.
WITHHELD = gettext_noop(
    "nothing in this file can be checked: its hashes are withheld (a scheme-1 game before its end "
    "hides them, since each would confirm a guess at a hidden payload); export the log again once "
    "the game is over"
)


@dataclass
class Findings:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)  # what was checked and held
    acts: list[str] = field(default_factory=list)  # every act credited to a seat, one line each

    @property
    def ok(self) -> bool:
        return not self.problems


class UnknownKind(LookupError):
    pass


class Stop(Exception):
    """Raised by a check after its problem is recorded: nothing after it could be trusted."""


def find_spec(kind: str) -> GameSpec:
    """The game's rules from `games/` (each package exposes GAME)."""
    for module in pkgutil.iter_modules(games.__path__):
        if module.ispkg:
            spec = getattr(importlib.import_module(f"games.{module.name}"), "GAME", None)
            if isinstance(spec, GameSpec) and spec.name == kind:
                return spec
    raise UnknownKind(
        _("no game {kind} in games/ (is this the repository the game was played with?)").format(kind=repr(kind))
    )


@dataclass
class Log:
    """The file and what the checks establish as they go (the scheme, the seed, the rules)."""

    doc: dict
    heads: Sequence[tuple[int, str]] = ()
    spec: GameSpec | None = None
    feed: dict | None = None  # a copy of the public heads feed (pbem/audit/heads_feed.py)
    scheme: int | None = None  # as the chain's first event commits to it, not as the file says
    seed: bytes | None = None
    meta: dict | None = None  # the platform's part of the state, from the platform events

    @property
    def game(self) -> dict:
        return self.doc["game"]

    @property
    def events(self) -> list[dict]:
        return self.doc["events"]

    @property
    def complete(self) -> bool:
        return self.doc["reader"]["complete"]

    @property
    def reader(self) -> int | None:
        return self.doc["reader"]["seat"]

    def rules(self, found: Findings) -> GameSpec | None:
        if self.spec is None:
            try:
                self.spec = find_spec(self.game["kind"])
            except UnknownKind as exc:
                found.problems.append(_("replay: {error}").format(error=exc))
                self.spec = False  # type: ignore[assignment]  # looked for once
        return self.spec or None


# ---------------------------------------------------------------------------------------------
# The checks, in order: each adds what it found; one that raises Stop ends the checking. A new
# check (the clocks re-derived from the deadline events, say) is one more function, listed in
# CHECKS in its place and in pbem/CHAIN.md's list; the recorded logs, crafted logs and fuzzer
# (tests/audit/) then hold it to every file they make.
# ---------------------------------------------------------------------------------------------


def check_format(log: Log, found: Findings) -> None:
    """The written format (pbem/audit/pbem-log-1.schema.json) before anything else."""
    doc = log.doc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("format_version") != FORMAT_VERSION:
        said = (doc.get("format"), doc.get("format_version")) if isinstance(doc, dict) else (None, None)
        found.problems.append(
            _("this is not a pbem log of format {format} {version} (it says {said_format} {said_version})").format(
                format=FORMAT, version=FORMAT_VERSION, said_format=repr(said[0]), said_version=repr(said[1])
            )[:300]
        )
        raise Stop
    errors = schema.load(SCHEMA_FILE).errors(doc)
    for error in errors:
        found.problems.append(
            _("the file breaks the format of a {format} {version} file ({schema}): {error}").format(
                format=FORMAT, version=FORMAT_VERSION, schema=SCHEMA_FILE, error=error
            )
        )
    if errors:
        raise Stop
    found.facts.append(
        _("the file has the written format of a {format} {version} file").format(format=FORMAT, version=FORMAT_VERSION)
    )


def check_numbering(log: Log, found: Findings) -> None:
    for position, ev in enumerate(log.events, start=1):
        if ev["seq"] != position:
            found.problems.append(
                _(
                    "the event at position {position} is numbered {seq}: the events are out of order, or one is missing"
                ).format(position=position, seq=ev["seq"])
            )
            raise Stop
    head, last = log.doc["head"], log.events[-1]
    if head["version"] != last["seq"] or head["hash"] != last["hash"]:
        shown = f"{head['version']}:{(head['hash'] or 'null')[:16]}…"
        found.problems.append(
            _("the file's head {head} is not its last event ({seq})").format(head=shown, seq=last["seq"])
        )


def check_scheme(log: Log, found: Findings) -> None:
    """The scheme is the one whose form the first event's hash takes, never the file's word."""
    first, said, game_id = log.events[0], log.game["chain_scheme"], log.game["id"]
    if first["hash"] is None:
        found.problems.append(_(WITHHELD))
        raise Stop
    log.scheme = scheme_of_first(game_id, first)
    if log.scheme is None:
        found.problems.append(
            _(
                "event 1: its hash follows from no chain scheme this verifier knows ({schemes}): the first "
                "event, or the game's number, was altered"
            ).format(schemes=", ".join(map(str, chain.SCHEMES)))
        )
        raise Stop
    if log.scheme != said:
        found.problems.append(
            _("the file says chain scheme {said}, but its first event is hashed under scheme {scheme}").format(
                said=said, scheme=log.scheme
            )
        )
        raise Stop
    found.facts.append(
        _("game #{game} ({kind}), hash chain scheme {scheme} (its first event's)").format(
            game=game_id, kind=log.game["kind"], scheme=log.scheme
        )
    )


def scheme_of_first(game_id: int, first: dict) -> int | None:
    parts = first.get("parts")
    if parts is not None and chain.link(game_id, 1, chain.GENESIS, parts) == first["hash"]:
        return 2
    if "rng" in first and first["payload"] is not None and "causation_id" in first:
        if chain.hash_v1(game_id, 1, first, chain.GENESIS) == first["hash"]:
            return 1
    return None


def check_platform_events(log: Log, found: Findings) -> None:
    """The platform's own events where they belong: the creation first and alone, the events the
    header comes from shown to every reader, one end at most and the seed right after it."""
    events = log.events
    if events[0]["type"] != "pbem.GameCreated":
        found.problems.append(
            _("event 1 is {type}, not the game's creation (pbem.GameCreated)").format(type=events[0]["type"])
        )
    for ev in events:
        if ev["type"] == "pbem.GameCreated" and ev["seq"] != 1:
            found.problems.append(_("event {seq}: a second creation of the game").format(seq=ev["seq"]))
        if ev["type"] in HEADER_TYPES + END_TYPES + ("pbem.SeedRevealed",) and ev["visible_to"] is not None:
            found.problems.append(
                _("event {seq}: {type} is hidden from some seats, yet every seat sees it").format(
                    seq=ev["seq"], type=ev["type"]
                )
            )
        if ev["type"] in HEADER_TYPES + END_TYPES and ev["payload"] is None:
            found.problems.append(
                _("event {seq}: {type} is withheld from this reader, yet every seat sees it").format(
                    seq=ev["seq"], type=ev["type"]
                )
            )
    started = [ev["seq"] for ev in events if ev["type"] == "pbem.GameStarted"]
    if len(started) > 1:
        found.problems.append(
            _("the game starts more than once (events {events})").format(events=", ".join(map(str, started)))
        )
    if found.problems:
        raise Stop


def check_links(log: Log, found: Findings) -> None:
    prev = chain.GENESIS
    for ev in log.events:
        if ev["prev_hash"] != prev:
            found.problems.append(
                _(
                    "event {seq}: it does not link to the event before it (its previous hash is not that event's hash)"
                ).format(seq=ev["seq"])
            )
        prev = ev["hash"]


def check_seed(log: Log, found: Findings) -> None:
    """A complete log's seed against the commitment the first event published (and the header)."""
    if not log.complete:
        found.notes.append(
            _(
                "the seed is still secret (the game is not over): random outcomes and hidden "
                "payloads can be checked once it is revealed at the end"
            )
        )
        return
    seed = log.doc["seed"]
    revealed = [ev["payload"].get("seed") for ev in log.events if ev["type"] == "pbem.SeedRevealed"]
    if any(other != seed for other in revealed):
        found.problems.append(_("the seed the log reveals differs from the seed beside it in the file"))
    commitment = chain.seed_commitment(seed)
    if commitment != log.events[0]["payload"].get("seed_commitment"):
        found.problems.append(_("the revealed seed does not match the commitment published by the first event"))
        return
    log.seed = bytes.fromhex(seed)
    found.facts.append(_("the revealed seed matches the commitment published by the first event"))


def check_hashes(log: Log, found: Findings) -> None:
    """Each event's hash from what it shows, under the chain's scheme."""
    before = len(found.problems)
    if log.scheme == 1:
        _check_hashes_v1(log, found)
    else:
        _check_hashes_v2(log, found)
    if len(found.problems) == before:  # no "ok" line beside a problem line about the same events
        found.facts.append(_("{count} events checked link by link from the first").format(count=len(log.events)))


def _check_hashes_v1(log: Log, found: Findings) -> None:
    game_id = log.game["id"]
    before = len(found.problems)
    for ev in log.events:
        if chain.hash_v1(game_id, ev["seq"], ev, ev["prev_hash"]) != ev["hash"]:
            found.problems.append(
                _("event {seq}: its content does not match its hash (altered?)").format(seq=ev["seq"])
            )
    if len(found.problems) == before:
        found.facts.append(
            _("{count} payloads and their random outcomes checked in their hashes (scheme 1)").format(
                count=len(log.events)
            )
        )


def _check_hashes_v2(log: Log, found: Findings) -> None:
    game_id = log.game["id"]
    key = chain.chain_key(log.seed) if log.seed is not None else None
    opened = altered = 0
    for ev in log.events:
        seq, parts = ev["seq"], ev["parts"]
        if chain.what_digest(ev) != parts["what"]:
            found.problems.append(
                _("event {seq}: its type, actor or visibility differ from what the chain recorded").format(seq=seq)
            )
        if chain.when_digest(ev["created_at"]) != parts["when"]:
            found.problems.append(
                _("event {seq}: its time ({time}) differs from the time the chain recorded").format(
                    seq=seq, time=ev["created_at"]
                )
            )
        pay_key = chain.payload_key(key, game_id, seq) if key else _given_key(ev)
        if ev["payload"] is not None and pay_key is not None:
            opened += 1
            if chain.payload_commitment(pay_key, ev["payload"]) != parts["payload"]:
                altered += 1
                found.problems.append(
                    _("event {seq}: its payload differs from what the chain committed to").format(seq=seq)
                )
        if key is not None and chain.draws_commitment(key, game_id, seq, ev["rng"]) != parts["draws"]:
            found.problems.append(
                _("event {seq}: its random outcomes differ from what the chain committed to").format(seq=seq)
            )
        if chain.link(game_id, seq, ev["prev_hash"], parts) != ev["hash"]:
            found.problems.append(
                _("event {seq}: its hash does not follow from its parts and the hash before it").format(seq=seq)
            )
    if not altered:  # else the problem lines say which payloads did not hold, and no "ok" line beside them
        found.facts.append(_("{count} payloads checked against their commitments").format(count=opened))
    if opened < len(log.events):
        found.notes.append(
            _(
                "{count} payloads hidden from this reader stay sealed in their commitments until the seed is revealed"
            ).format(count=len(log.events) - opened)
        )
    if key is not None:
        found.notes.append(
            _(
                "each event's origin (mail Message-ID, API key) is committed but not exported: "
                "only the server's verify_games opens it"
            )
        )


def _given_key(ev: dict) -> bytes | None:
    """A payload's key as the file gives it (scheme 2 before the end; the format says it is hex)."""
    return bytes.fromhex(ev["payload_key"]) if "payload_key" in ev else None


def check_visibility(log: Log, found: Findings) -> None:
    """Before the end, the file shows exactly the payloads its reader may see: a payload shown to
    a reader who may not see it (another seat's hand, say) is no export of ours."""
    if log.complete:
        return
    seat, players = log.reader, len(log.events[0]["payload"].get("players") or ())
    if seat is not None and seat >= players:
        found.problems.append(
            _("the file is said to be seat {seat}'s, but the game has {players} seats").format(
                seat=seat, players=players
            )
        )
        return
    for ev in log.events:
        may = ev["visible_to"] is None or (seat is not None and seat in ev["visible_to"])
        if may and ev["payload"] is None:
            found.problems.append(
                _("event {seq}: its payload is left out, yet this reader may see it").format(seq=ev["seq"])
            )
        elif not may and ev["payload"] is not None:
            found.problems.append(
                _("event {seq}: its payload is shown, yet this reader may not see it").format(seq=ev["seq"])
            )


def check_header(log: Log, found: Findings) -> None:
    """Each field of the file's `game` against what the chain covers: the creation's payload,
    the players as replacements left them, the status as the platform's events leave it."""
    game, created = log.game, log.events[0]["payload"]
    for name in HEADER_FIELDS:
        if name not in created or not same_json(game[name], created[name]):
            found.problems.append(
                _("the file's {field} {value} is not what the game's first event recorded ({recorded})").format(
                    field=name, value=_short(game[name]), recorded=_short(created.get(name))
                )
            )
    log.meta = _platform_meta(log, found)
    if log.meta is None:
        return
    if game["players"] != log.meta["names"]:
        found.problems.append(
            _("the file names the players {file}, the chain {chain}").format(
                file=game["players"], chain=log.meta["names"]
            )
        )
    status = fold.status_of(log.meta)
    if game["status"] != status:
        found.problems.append(
            _("the file says the game is {file}, the chain that it is {chain}").format(
                file=game["status"], chain=status
            )
        )
    if log.complete != (status in ("finished", "abandoned")):
        said = (
            _("the file says it is complete, but the game is {status}")
            if log.complete
            else _("the file says it is a log before the end, but the game is {status}")
        )
        found.problems.append(said.format(status=status))
    if not found.problems:
        found.facts.append(_("the title, kind, options, players and status are what the chain records"))


def _platform_meta(log: Log, found: Findings) -> dict | None:
    meta = fold.new_state()["meta"]
    rows = [(ev["seq"], ev["type"], ev["payload"]) for ev in log.events]
    try:
        undone = fold.undone_in([row for row in rows if row[1] != "pbem.Undone" or row[2] is not None])
        for seq, etype, payload in rows:
            if etype.startswith(fold.PLATFORM_PREFIX) and payload is not None and seq not in undone:
                fold.apply_platform(meta, etype[len(fold.PLATFORM_PREFIX) :], payload, seq)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
        found.problems.append(_("the platform's events cannot be read: {error}").format(error=repr(exc))[:300])
        return None
    return meta


def check_end(log: Log, found: Findings) -> None:
    """A complete log holds its end (GameEnded or Abandoned), the seed revealed right after it,
    and no move of the game after that; a log before the end holds neither."""
    events = log.events
    ends = [ev["seq"] for ev in events if ev["type"] in END_TYPES]
    reveals = [ev["seq"] for ev in events if ev["type"] == "pbem.SeedRevealed"]
    if not log.complete:
        if ends or reveals:
            found.problems.append(_("the file is a log before the end, yet it holds the game's end or its seed"))
        return
    if len(ends) != 1 or reveals != [ends[0] + 1]:
        found.problems.append(
            _(
                "a complete log holds exactly one end (pbem.GameEnded or pbem.Abandoned) with the seed revealed "
                "right after it; this one has ends at {ends} and the seed at {seed}"
            ).format(ends=ends or _("none"), seed=reveals or _("none"))
        )
        return
    late = [ev["seq"] for ev in events[reveals[0] :] if not ev["type"].startswith(fold.PLATFORM_PREFIX)]
    if late:
        found.problems.append(_("events {events}: moves of the game after its end").format(events=late[:5]))
        return
    found.facts.append(
        _("the end (event {end}) and the seed (event {seed}) are in the log").format(end=ends[0], seed=reveals[0])
    )


def check_draws(log: Log, found: Findings) -> None:
    if log.seed is None:
        return
    checked = wrong = 0
    for ev in log.events:
        draws = ev["rng"]
        if draws is None:
            continue
        checked += len(draws)
        if not rederive(log.seed, ev["seq"], draws):
            wrong += 1
            found.problems.append(
                _("event {seq}: its random outcomes do not follow from the seed").format(seq=ev["seq"])
            )
    if not wrong:
        found.facts.append(_("{count} random outcomes re-derived from the seed").format(count=checked))


def check_deal(log: Log, found: Findings) -> None:
    """The game's setup (the deal, every shuffle in it) dealt again from the seed: the events
    after pbem.GameStarted must be exactly what the rules deal from it, draws included."""
    started = [ev["seq"] for ev in log.events if ev["type"] == "pbem.GameStarted"]
    if log.seed is None or not started or found.problems:
        return
    spec = log.rules(found)
    if spec is None:
        return
    created, rng = log.events[0]["payload"], Rng(log.seed, started[0] + 1)
    first = log.events[started[0]].get("payload") if len(log.events) > started[0] else None
    try:
        players = len(created["players"])
        options = spec.resolve_options(players, created["options"])
        if spec.setup_as_logged is not None and isinstance(first, dict):
            # Dealt with the component data the log recorded (an old game keeps its own); the
            # version is the log's word, but the deal must still match it event for event.
            dealt = spec.setup_as_logged(players, dict(options), rng, first)
        else:
            dealt = spec.setup(players, dict(options), rng)
    except (Rejected, KeyError, TypeError, ValueError) as exc:
        found.problems.append(
            _("the game's setup cannot be dealt again from its first event: {error}").format(error=exc)[:300]
        )
        return
    logged = log.events[started[0] : started[0] + len(dealt)]
    dealt = under_logged_rules(dealt, logged)
    for index, event in enumerate(dealt):
        want = stored_event(event, rng.draws if index == 0 and rng.used else None)
        have = logged[index] if index < len(logged) else None
        if have is None or any(not same_json(have[k], want[k]) for k in want):
            found.problems.append(
                _("event {seq}: the setup dealt from the seed differs from the log's").format(
                    seq=started[0] + 1 + index
                )
            )
            return
    found.facts.append(
        _("the setup ({count} events) dealt again from the seed: the same deal").format(count=len(dealt))
    )


def under_logged_rules(dealt: list, logged: list) -> list:
    """The deal as the rules version the log was written under would have recorded it. A game
    whose rules changed (Elfenwizards, Zauberschwert) writes its version as "rules" in the first
    dealt event, absent before version 2; the deal itself is the same. The version is the log's
    word, but covered by the chain and the heads, and the replay holds the log to that version's
    rules, so a version changed by a forger fails there."""
    if not dealt or not logged or not isinstance(dealt[0].data, dict):
        return dealt
    payload = logged[0].get("payload")
    data = dict(dealt[0].data)
    if "rules" in data:
        if isinstance(payload, dict) and "rules" in payload:
            data["rules"] = payload["rules"]
        else:
            del data["rules"]
    # The component data's version, likewise written only once data had versions (the deal
    # itself was made with the version the log says: setup_as_logged).
    if "data" in data and not (isinstance(payload, dict) and "data" in payload):
        del data["data"]
    return [replace(dealt[0], data=data), *dealt[1:]]


def stored_event(event, draws) -> dict:
    """A game's event as the platform stores it (emit_game_events): JSON, the draws on the first."""
    return json.loads(
        chain.canonical(
            {
                "type": event.type,
                "payload": event.data,
                "visible_to": list(event.visible_to) if event.visible_to is not None else None,
                "public": event.public,
                "reveals": event.reveals,
                "rng": draws,
            }
        )
    )


def same_json(a, b) -> bool:
    """Equal as JSON: true is not 1, and key order does not count."""
    return chain.canonical(a) == chain.canonical(b)


def check_replay(log: Log, found: Findings) -> None:
    if not log.complete:
        if log.reader is not None:
            said = _(
                "this is seat {seat}'s log before the end: replaying the rules needs every payload, "
                "so export it again once the game is over"
            )
        else:
            said = _(
                "this is a spectator's log before the end: replaying the rules needs every payload, "
                "so export it again once the game is over"
            )
        found.notes.append(said.format(seat=log.reader))
        return
    if found.problems:
        found.notes.append(_("the rules were not replayed: the log is already found altered above"))
        return
    spec = log.rules(found)
    if spec is None:
        return
    if spec.version != log.game["reducer_version"]:
        found.notes.append(
            _("the game was played with reducer version {played}; these rules are version {version}").format(
                played=log.game["reducer_version"], version=spec.version
            )
        )
    state = _replay(log, spec, found)
    if state is not None:
        _check_final(log, spec, state, found)


def _replay(log: Log, spec: GameSpec, found: Findings) -> dict | None:
    rows = [
        (ev["seq"], ev["type"], ev["payload"], ev["public"], ev["visible_to"], ev["reveals"], ev["schema_version"])
        for ev in log.events
    ]
    state = fold.new_state()
    try:
        undone = fold.undone_in(rows)
    except (KeyError, TypeError) as exc:
        found.problems.append(_("replay: a take-back cannot be read: {error}").format(error=repr(exc)))
        return None
    by_seq = {ev["seq"]: ev for ev in log.events}
    for row in rows:
        seq, etype, payload = row[0], row[1], row[2]
        if seq in undone:
            continue
        try:
            if etype == "pbem.GameEnded":
                _check_standing(spec, state, seq, payload, found)
            if etype == "pbem.OrderPlayed":
                _check_order_played(log, spec, state, by_seq, seq, payload, found)
            state = fold.fold_rows(spec, state, [row], set())
        except Exception as exc:  # noqa: BLE001 - any failure of the rules on this file is a finding
            found.problems.append(
                _("event {seq}: replaying it through the rules failed: {error}").format(seq=seq, error=repr(exc))[:300]
            )
            return None
    return state


def _check_order_played(
    log: Log, spec: GameSpec, state: dict, by_seq: dict, seq: int, payload, found: Findings
) -> None:
    """An order given ahead played a move (pbem.play.orders): the order was in force, its words
    give that move now (a forced move: the only legal one), and the events after it are exactly
    what the rules decide for it with the game's draws."""
    if not isinstance(payload, dict) or "id" not in payload:
        return  # a reader's log before the end: the order's words are not in it
    seat, number = payload.get("seat"), payload.get("id")
    if not isinstance(seat, int) or by_seq[seq].get("actor_seat") != seat:
        found.problems.append(
            _("event {seq}: an order is played only by its own seat, as its own move").format(seq=seq)
        )
        return
    held = {o["id"]: o for o in state["meta"].get("orders", {}).get(str(seat), ())}
    order = held.get(number)
    if order is None:
        found.problems.append(
            _("event {seq}: seat {seat}'s order {number} was played, but no such order was in force").format(
                seq=seq, seat=seat, number=number
            )
        )
        return
    game = state["game"]
    legal = spec.legal(game, seat)
    if order["kind"] == "forced":
        move = forced_move(spec, game, seat)
    elif order["kind"] == "standing":
        move = spec.follow_order(order["order"], spec.view(game, seat), legal) if spec.follow_order else None
    else:
        move = order.get(payload.get("branch", ""))
    if move is None or move not in legal:
        found.problems.append(
            _("event {seq}: seat {seat}'s order {number} ({kind}) gives no legal move here").format(
                seq=seq, seat=seat, number=number, kind=order["kind"]
            )
        )
        return
    seed = log.doc.get("seed")
    if not isinstance(seed, str):
        return
    expected = spec.decide(game, seat, move, Rng(bytes.fromhex(seed), seq + 1))
    logged = [by_seq.get(seq + 1 + i) for i in range(len(expected))]
    if any(
        ev is None or ev["type"] != e.type or not same_json(ev["payload"], e.data) for ev, e in zip(logged, expected)
    ):
        found.problems.append(
            _("event {seq}: seat {seat}'s order {number} played another move than its words give").format(
                seq=seq, seat=seat, number=number
            )
        )


def _check_standing(spec: GameSpec, state: dict, seq: int, payload: dict, found: Findings) -> None:
    expected = fold.final_standing(spec, state)
    recorded = {k: payload.get(k) for k in ("scores", "ranking", "tiebreak")}
    if expected != recorded:
        found.problems.append(
            _("event {seq}: the end records {recorded}, but the rules replayed give {expected}").format(
                seq=seq, recorded=recorded, expected=expected
            )[:300]
        )


def _check_final(log: Log, spec: GameSpec, state: dict, found: Findings) -> None:
    final = log.doc["final"]
    if chain.state_digest(state) != final["state_digest"]:
        found.problems.append(_("replay: the rules reach another final state than the server did"))
    scores = fold.scores_with_corrections(spec, state)
    if scores != final["scores"]:
        found.problems.append(
            _("replay: the rules give final scores {scores}, the server shows {shown}").format(
                scores=scores, shown=final["scores"]
            )
        )
    if not found.problems:
        found.facts.append(
            _("replayed through the rules of {game}: same final state, scores {scores}").format(
                game=spec.title, scores=scores
            )
        )


def check_clocks(log: Log, found: Findings) -> None:
    """Every deadline re-derived from the clock the creation names (pbem/log/clocks.py): each
    turn's bank and deadline as `pbem.Clocks` records them, each outage forgiven, and each
    timeout at (not before) the seat's deadline. A game made with no clock: nothing to derive."""
    created = log.events[0].get("payload") or {}
    if not created.get("clock"):
        return
    events = []
    for ev in log.events:
        try:
            at = datetime.fromisoformat(ev["created_at"])
        except ValueError:
            found.problems.append(
                _("event {seq}: its time {time} is not a time").format(seq=ev["seq"], time=repr(ev["created_at"]))
            )
            return
        events.append((ev["seq"], ev["type"], ev["payload"], at))
    try:
        problems, checked = clocks.check(events)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        found.problems.append(
            _("clocks: a clock event is malformed ({error})").format(error=f"{type(exc).__name__}: {_short(str(exc))}")
        )
        return
    found.problems.extend(_("clocks: {problem}").format(problem=problem) for problem in problems)
    if not problems:
        found.facts.append(
            _("the clock ({clock}): {count} deadlines and banks re-derived").format(
                clock=clocks.describe(created["clock"]), count=checked
            )
        )


def check_heads(log: Log, found: Findings) -> None:
    """Each head the reader kept (a notice's, a mirror's) must still be in the log."""
    by_seq = {ev["seq"]: ev["hash"] for ev in log.events}
    for version, digest in log.heads:
        have = by_seq.get(version)
        if have == digest:
            found.facts.append(_("head {head} is in the log").format(head=f"{version}:{digest[:16]}…"))
        elif have is None:
            found.problems.append(
                _("head {head} is not in the log: it has {count} events, none numbered {version}").format(
                    head=f"{version}:{digest[:16]}…", count=len(log.events), version=version
                )
            )
        else:
            found.problems.append(
                _(
                    "head {head} is not in the log: event {version} has hash {hash}, so the log changed after "
                    "that head was given out"
                ).format(head=f"{version}:{digest[:16]}…", version=version, hash=f"{have[:16]}…")
            )


def check_heads_feed(log: Log, found: Findings) -> None:
    """A copy of the public heads feed: its own chain, then every head it published for this game."""
    if log.feed is None:
        return
    problems = heads_feed.check(log.feed)
    found.problems.extend(_("the heads feed: {problem}").format(problem=p) for p in problems)
    if problems:
        return
    published = heads_feed.heads_of(log.feed, log.game["id"])
    log.heads = list(published)
    before = len(found.problems)
    check_heads(log, found)
    if len(found.problems) == before:
        found.facts.append(
            _(
                "the heads feed ({entries} entries, chained) published {count} heads of this game, all in the log"
            ).format(entries=len(log.feed["entries"]), count=len(published))
        )


CHECKS: list[Callable[[Log, Findings], None]] = [
    check_format,
    check_numbering,
    check_scheme,
    check_platform_events,
    check_links,
    check_seed,
    check_hashes,
    check_visibility,
    check_header,
    check_end,
    check_draws,
    check_deal,
    check_replay,
    check_clocks,
    check_heads,
    check_heads_feed,
]


def verify_document(
    doc: dict, heads: Sequence[tuple[int, str]] = (), spec: GameSpec | None = None, feed: dict | None = None
) -> Findings:
    """Every check the document allows; `spec`: the game's rules (default: found in games/);
    `feed`: a copy of the public heads feed."""
    found, log = Findings(), Log(doc, heads, spec, feed)
    for check in CHECKS:
        try:
            check(log, found)
        except Stop:
            break
    if log.scheme is not None:
        found.acts = acts_by_seat(log)
    return found


def verify_bytes(
    raw: bytes,
    heads: Sequence[tuple[int, str]] = (),
    spec: GameSpec | None = None,
    feed: dict | None = None,
    max_bytes: int = logfile.MAX_BYTES,
) -> Findings:
    """verify_document on a file's bytes, read strictly first (what the command does)."""
    try:
        doc = logfile.read_bytes(raw, max_bytes)
    except logfile.Unreadable as exc:
        return Findings(problems=[_("the file is no pbem log: {error}").format(error=exc)])
    return verify_document(doc, heads, spec, feed)


# ---------------------------------------------------------------------------------------------
# Acts credited to each seat
# ---------------------------------------------------------------------------------------------


def acts_by_seat(log: Log) -> list[str]:
    """One line per act the log credits to a seat (by its player or the stand-in for it), in
    order, naming who held the seat then: every move under a player's name, to check offline."""
    holders = _holders(log)
    lines = []
    for ev in log.events:
        seat = ev["actor_seat"]
        if ev["actor_kind"] not in ("seat", "standin") or seat is None:
            continue
        who = holders.get(seat, {}).get(ev["seq"], f"seat {seat}")
        by = "" if ev["actor_kind"] == "seat" else " (by the stand-in)"
        what = chain.canonical(ev["payload"]) if ev["payload"] is not None else "(hidden from this reader)"
        lines.append(f"seat {seat} ({who}){by} #{ev['seq']} {ev['created_at']} {ev['type']} {what}")
    return lines


def _holders(log: Log) -> dict[int, dict[int, str]]:
    """seat -> {seq: the player who held the seat at that event}."""
    names = [p.get("name", "?") for p in log.events[0]["payload"].get("players") or () if isinstance(p, dict)]
    held: dict[int, dict[int, str]] = {seat: {} for seat in range(len(names))}
    for ev in log.events:
        payload = ev["payload"]
        if ev["type"] == "pbem.PlayerReplaced" and payload and payload.get("seat") in held:
            names[payload["seat"]] = str(payload.get("name"))
        for seat, name in enumerate(names):
            held[seat][ev["seq"]] = name
    return held


def acts_summary(found: Findings) -> list[str]:
    """How many acts each seat's holders are credited with (the lines themselves with --acts)."""
    counts: dict[str, int] = {}
    for line in found.acts:
        holder = line.split(" #", 1)[0]
        counts[holder] = counts.get(holder, 0) + 1
    return [f"{holder}: {count} acts credited" for holder, count in counts.items()]


# ---------------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------------


def report(found: Findings, acts: str | None = None) -> str:
    """The lines printed: facts, notes, acts (all, one seat's, or a count each), problems, verdict."""
    lines = [f"ok: {fact}" for fact in found.facts] + [f"note: {note}" for note in found.notes]
    if acts is None:
        lines += [f"acts: {line}" for line in acts_summary(found)]
    else:
        lines += [f"act: {line}" for line in found.acts if acts == "all" or line.startswith(f"seat {acts} ")]
    lines += [f"PROBLEM: {problem}" for problem in found.problems]
    lines.append(
        f"FAILED: {len(found.problems)} problem(s)" if found.problems else "VERIFIED: everything checked holds"
    )
    return "\n".join(lines)


def _short(value) -> str:
    text = chain.canonical(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python -m pbem.verify", description=__doc__.split("\n\n")[0])
    parse.add_argument("file", help="the exported log (JSON); - reads standard input")
    parse.add_argument(
        "--head",
        action="append",
        default=[],
        metavar="VERSION:HASH",
        help="a head a notice quoted; the log must still contain it (repeatable)",
    )
    parse.add_argument(
        "--heads-feed",
        metavar="FILE",
        help="a copy of the public heads feed (/heads.json): every head it published for this game must be in the log",
    )
    parse.add_argument(
        "--acts",
        nargs="?",
        const="all",
        metavar="SEAT",
        help="list every act credited to each seat (or to SEAT only): check that each move under your name was yours",
    )
    parse.add_argument("--max-bytes", type=int, default=logfile.MAX_BYTES, help="refuse a larger file (default 64 MB)")
    parse.add_argument(
        "--language",
        choices=LANGUAGE_CHOICES,
        help="the language of what was checked and of the problems found: en, de or fr (default: the "
        "language of the LANG environment variable if it is de or fr, else en); the line prefixes, "
        "the acts and the verdict stay in English",
    )
    return parse


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """The command's language when --language is not given: LANG's (de_DE.UTF-8 is de) where it
    is one the verifier speaks, else English."""
    return supported((os.environ if environ is None else environ).get("LANG"))


def _read(path: str, max_bytes: int):
    """The JSON in `path` (- for standard input), read with bounded work; Unreadable says why."""
    try:
        if path == "-":
            raw = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open(path, "rb") as handle:
                raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise logfile.Unreadable(_("cannot read it: {error}").format(error=exc.strerror)) from None
    return logfile.read_bytes(raw, max_bytes)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    with using(args.language or default_language()):
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    try:
        heads = [chain.parse_head(text) for text in args.head]
    except chain.BadHead as exc:
        print(f"PROBLEM: {exc}")
        return 1
    try:
        doc = _read(args.file, args.max_bytes)
    except logfile.Unreadable as exc:
        print(f"PROBLEM: {args.file}: {exc}")
        return 1
    try:
        feed = _read(args.heads_feed, args.max_bytes) if args.heads_feed else None
    except logfile.Unreadable as exc:
        print(f"PROBLEM: {args.heads_feed}: {exc}")
        return 1
    try:
        found = verify_document(doc, heads, feed=feed)
    except Exception as exc:  # noqa: BLE001 - fail closed: a file that trips the verifier is not verified
        error = f"{type(exc).__name__}: {exc}"
        print(
            "PROBLEM: "
            + _("the verifier could not finish on this file ({error}); please report it").format(error=error)
        )
        return 1
    print(report(found, args.acts))
    return 0 if found.ok else 1


if __name__ == "__main__":
    sys.exit(main())
