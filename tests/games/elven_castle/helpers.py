"""Shared helpers for the Elven Castle tests: a table in a given position."""

from __future__ import annotations

import json
from dataclasses import replace

from games.elven_castle import GAME, rules
from games.testing import Table, canonical, event_to_json


def table(players=4, options=None, seed=b"elven", version=None):
    """A new table; `version=1`: a game as started before rules version 2 (no "rules" in its
    GameStarted, as in the logs written then), played under the rules of version 1."""
    t = Table(GAME, players, options or {}, seed=seed)
    if version == 1:
        started = t.events[0]
        old = replace(started, data={k: v for k, v in started.data.items() if k != "rules"})
        t.events, t.log = [old], [canonical(event_to_json(old))]
        t.state = GAME.evolve(None, old)
        assert rules.rules_version(t.state) == 1
    return t


def table1(players=4, options=None, seed=b"elven"):
    """A table under rules version 1 (the tests written for it, kept: old games still play by it)."""
    return table(players, options, seed, version=1)


def given(t, seat, text):
    """Seat `seat` places by command text, whoever's turn it was (a position is being built)."""
    t.state["turn"] = seat
    t.state["phase"] = "place"
    return t.say(seat, text)


def placed(events):
    return [e for e in events if e.type == "PiecePlaced"][0].data


def invariants(t):
    """Components conserved, the grid matches the pieces, scores match the score sheet."""
    s = t.state
    per = rules.DATA["per_player"]
    for seat in range(s["players"]):
        hand = s["hands"][seat]
        on_board = {k: 0 for k in rules.KINDS}
        for p in s["pieces"]:
            if p["owner"] == seat:
                on_board[p["kind"]] += 1
        assert all(v >= 0 for v in hand.values()), hand
        assert hand["bridge"] + on_board["bridge"] + 2 * (hand["staircase"] + on_board["staircase"]) == per["bridge"]
        for k in ("window", "portal", "balcony"):
            assert hand[k] + on_board[k] == per[k]
        assert hand["staircase"] <= 1
        sheet = sum(line.points for line in GAME.score_sheet(s) if line.seat == seat)
        assert sheet == s["scores"][seat]
    scen = rules.SCENARIOS.get(s["options"]["scenario"])
    assert sum(1 for p in s["pieces"] if p["owner"] is None) == (len(scen["grey"]) if scen else 0)
    cells = 0
    for p in s["pieces"]:
        for dx, dy, dz, _r in rules.SHAPES[p["kind"]][p["dir"]]:
            i = (p["z"] + dz) * rules.PLANE + (p["y"] + dy) * rules.W + p["x"] + dx
            assert s["occ"][i] == p["id"]
            cells += 1
        for q in p["on"]:
            assert q < p["id"]
    assert sum(1 for c in s["occ"] if c >= 0) == cells
    assert GAME.summary(s)["scores"] == s["scores"]
    assert json.loads(json.dumps(s)) == s


def no_leak(t):
    """Everything is public in Elven Castle: every seat sees exactly what a spectator sees."""
    public = GAME.view(t.state, None)
    for seat in range(t.players):
        v = GAME.view(t.state, seat)
        assert {k: x for k, x in v.items() if k != "seat"} == {k: x for k, x in public.items() if k != "seat"}


def check(t):
    invariants(t)
    no_leak(t)
