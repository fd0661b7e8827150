"""A table without the platform: plays a game in memory, for rule tests, bots and golden logs.

Pure Python, like the games. `Table` follows the platform's rules for seeds and event numbers
(the rng handed to setup/decide is derived from the seed and the number of the first event the
call produces, counting from 1), so a log recorded here replays on the platform and back.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path

from games.base import Event, GameSpec, Rejected, Rng, may_act


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state_digest(state) -> str:
    return hashlib.sha256(canonical(state).encode()).hexdigest()


def event_to_json(event: Event) -> dict:
    # Built by hand: dataclasses.asdict deep-copies the data and costs as much as the game's rules.
    return {
        "type": event.type,
        "data": event.data,
        "visible_to": list(event.visible_to) if event.visible_to is not None else None,
        "public": event.public,
        "reveals": event.reveals,
    }


def event_from_json(raw: dict) -> Event:
    visible = raw.get("visible_to")
    return Event(
        raw["type"],
        raw["data"],
        tuple(visible) if visible is not None else None,
        raw.get("public"),
        raw.get("reveals", False),
    )


def fold(spec: GameSpec, events, state=None):
    for event in events:
        state = spec.evolve(state, event)
    return state


class Table:
    """One game in memory: `act(seat, command)` decides and applies like the platform would."""

    def __init__(self, spec: GameSpec, players: int, options: dict | None = None, seed: bytes = b"test-seed"):
        self.spec = spec
        self.players = players
        self.options = spec.resolve_options(players, options)
        self.seed = seed
        self.events: list[Event] = []
        self.log: list[str] = []  # the events as stored (canonical JSON), for replays
        self.check_mutation = True  # compare the state before and after decide (costly on big states)
        self.state = None
        self._apply(spec.setup(players, dict(self.options), Rng(seed, 1)))

    def _apply(self, events: list[Event]) -> list[Event]:
        for event in events:
            # The JSON round trip is what the database does to every event.
            stored = canonical(event_to_json(event))
            self.log.append(stored)
            event = event_from_json(json.loads(stored))
            self.events.append(event)
            self.state = self.spec.evolve(self.state, event)
        return events

    def act(self, seat: int, command: dict) -> list[Event]:
        """Decides and applies; raises Rejected (and changes nothing) when the rules say no."""
        if not may_act(self.spec, self.state, seat):
            raise Rejected("It is not your turn.")
        before = canonical(self.state) if self.check_mutation else None
        rng = Rng(self.seed, len(self.events) + 1)
        try:
            events = self.spec.decide(self.state, seat, command, rng)
        finally:
            if before is not None:
                assert canonical(self.state) == before, "decide mutated the state"
        return self._apply(events)

    def say(self, seat: int, text: str) -> list[Event]:
        """Parses a command line as a player would type it, then acts."""
        return self.act(seat, self.spec.parse(text, self.state, seat))

    def view(self, seat: int | None):
        return self.spec.view(self.state, seat)

    def replayed(self):
        """The state rebuilt from the log alone: must equal the live state."""
        return fold(self.spec, [event_from_json(json.loads(e)) for e in self.log])


def play_random(
    spec: GameSpec,
    players: int,
    options: dict | None = None,
    seed: int = 0,
    max_steps: int = 20000,
    check=None,
    check_every: int = 1,
) -> Table:
    """A bot picks at random among `legal()` until the game ends; `check(table)` after each step.

    Also checks what every game must keep: decide does not mutate the state (Table.act), each
    chosen command survives describe -> parse, a seat not awaited has no legal command, the
    game ends, and the log replays to the live state.
    """
    pick = random.Random(seed)
    table = Table(spec, players, options, seed=f"bot-{seed}".encode())
    for step in range(max_steps):
        awaited = spec.waiting_for(table.state)
        if not awaited:
            break
        seat = pick.choice(awaited)
        choices = spec.legal(table.state, seat)
        assert choices, f"seat {seat} is awaited but has no legal command (step {step})"
        command = pick.choice(choices)
        table.check_mutation = step % check_every == 0
        if step % check_every == 0:
            text = spec.describe(command)
            assert spec.parse(text, table.state, seat) == command, f"{text!r} does not parse back to {command}"
            for other in range(players):
                if other not in awaited:
                    assert spec.legal(table.state, other) == [], f"seat {other} not awaited yet has legal commands"
        table.act(seat, command)
        if check and step % check_every == 0:
            check(table)
    else:
        raise AssertionError(f"the game did not end within {max_steps} steps")
    assert spec.result(table.state) is not None, "no one is awaited, yet the game has no result"
    assert canonical(table.replayed()) == canonical(table.state), "replay differs from the live state"
    return table


def play_with_standins(
    spec: GameSpec,
    players: int,
    standins,
    options: dict | None = None,
    seed: int = 0,
    max_steps: int = 20000,
    check=None,
) -> Table:
    """A game where the seats in `standins` are played by the game's stand-in (`spec.standin`,
    from each seat's own view) and the others by the random-legal bot of `play_random`; the
    same checks as `play_random` on the way (each stand-in move legal, the game ends, replay)."""
    assert spec.standin is not None, f"{spec.name} has no stand-in"
    standins = set(standins)
    pick = random.Random(seed)
    table = Table(spec, players, options, seed=f"bot-{seed}".encode())
    for step in range(max_steps):
        awaited = spec.waiting_for(table.state)
        if not awaited:
            break
        seat = pick.choice(awaited)
        legal = spec.legal(table.state, seat)
        assert legal, f"seat {seat} is awaited but has no legal command (step {step})"
        if seat in standins:
            command = spec.standin(spec.view(table.state, seat), legal)
            assert command in legal, f"the stand-in chose {command}, which is not legal"
        else:
            command = pick.choice(legal)
        table.act(seat, command)
        if check:
            check(table)
    else:
        raise AssertionError(f"the game did not end within {max_steps} steps")
    assert spec.result(table.state) is not None, "no one is awaited, yet the game has no result"
    assert canonical(table.replayed()) == canonical(table.state), "replay differs from the live state"
    return table


def decisions_digest(spec: GameSpec, standin, players: int, options: dict, seed: int, openings: int = 0) -> str:
    """The digest (16 hex digits) of every [seat, command] of a game played by `standin` at every
    seat after `openings` random moves: the seat to move and those moves drawn from
    random.Random(seed). It pins a stand-in kept as the bench's baseline (`standin_v1`) to the
    decisions of the module it was once a frozen copy of."""
    table = Table(spec, players, options, seed=f"v1rec-{players}-{seed}".encode())
    pick, log = random.Random(seed), []
    while awaited := spec.waiting_for(table.state):
        seat = pick.choice(awaited)
        legal = spec.legal(table.state, seat)
        if openings:
            command, openings = pick.choice(legal), openings - 1
        else:
            command = standin(spec.view(table.state, seat), legal)
        log.append([seat, command])
        table.act(seat, command)
    return hashlib.sha256(json.dumps(log, sort_keys=True).encode()).hexdigest()[:16]


def winners(spec: GameSpec, table: Table) -> list[int]:
    """The seats sharing first place."""
    result = spec.result(table.state)
    assert result is not None, "the game has not ended"
    return result.ranking()[0]


# ---------------------------------------------------------------------------------------------
# Golden logs: complete games kept as fixtures and replayed in CI
# ---------------------------------------------------------------------------------------------


def golden_record(table: Table) -> dict:
    result = table.spec.result(table.state)
    return {
        "game": table.spec.name,
        "version": table.spec.version,
        "players": table.players,
        "options": table.options,
        "seed": table.seed.hex(),
        "events": [json.loads(e) for e in table.log],
        "final_state_sha256": state_digest(table.state),
        "scores": list(result.scores) if result else None,
    }


def save_golden(table: Table, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(golden_record(table), indent=1, ensure_ascii=False) + "\n")


def check_golden(spec: GameSpec, record: dict) -> None:
    """Replays a golden log; raises AssertionError if today's code gives another outcome."""
    state = fold(spec, [event_from_json(e) for e in record["events"]])
    assert state_digest(state) == record["final_state_sha256"], f"{spec.name}: golden log replays differently"
    result = spec.result(state)
    assert (list(result.scores) if result else None) == record["scores"], f"{spec.name}: final scores differ"


def deep_contains(obj, needle) -> bool:
    """True when `needle` appears anywhere inside `obj` (as a value or inside a string)."""
    if obj == needle:
        return True
    if isinstance(obj, dict):
        return any(deep_contains(v, needle) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(deep_contains(v, needle) for v in obj)
    if isinstance(obj, str) and isinstance(needle, str):
        return needle in obj
    return False


copy_state = copy.deepcopy
