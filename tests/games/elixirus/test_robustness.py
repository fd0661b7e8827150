"""Malformed commands are rejected with a reason, never crash decide, and never change the state."""

import random

from games.base import Rejected
from games.elixirus import GAME
from games.testing import Table, canonical

JUNK = [
    {},
    {"type": None},
    {"type": "fly"},
    {"type": "place", "piece": [], "space": "x"},
    {"type": "place", "piece": "steal"},
    {"type": "take", "curves": "abc"},
    {"type": "take", "curves": [[1]]},
    {"type": "take", "curves": [1, 1]},
    {"type": "steal", "ing": None, "from": "x"},
    {"type": "swap", "ing": 3},
    {"type": "keep", "ings": "red root 1"},
    {"type": "keep", "ings": [None]},
    {"type": "replace", "piece": 1},
    {"type": "dance", "piece": "draw", "spaces": ["a", 1]},
    {"type": "put", "ing": ["x"], "to": 5},
    {"type": "put", "ing": "red root 1", "to": "book"},
    {"type": "pick", "piece": None, "curve": 9},
    {"type": "done"},
    {"type": "reset"},
    {"type": "basket"},
    {"type": "draw"},
    {"type": "skip"},
]


def test_malformed_commands_are_rejected_in_every_stage():
    rnd = random.Random(5)
    for players in (2, 4):
        t = Table(GAME, players, seed=b"junk")
        for _ in range(300):
            awaited = GAME.waiting_for(t.state)
            if not awaited:
                break
            seat = rnd.choice(awaited)
            before = canonical(t.state)
            for junk in JUNK:
                legal = GAME.legal(t.state, seat)
                if junk in legal:
                    continue
                try:
                    GAME.decide(t.state, seat, junk, None)
                except Rejected as err:
                    assert str(err)
                else:
                    assert junk["type"] == "reset", junk  # the one command accepted outside legal()
                assert canonical(t.state) == before
            t.act(seat, rnd.choice(GAME.legal(t.state, seat)))
