"""Forced moves (issue 32): `forced_move` gives a seat's move only where the rules leave it
exactly one, in every game; where forced moves occur in a game's play, they are found there.
The service plays them for a seat that asked for it (tests/play/test_orders.py), as the move
typed would be: the same command, decided the same way."""

from __future__ import annotations

import importlib
import json

import pytest

from games.base import forced_move
from games.testing import Table

GAMES = ("elfenland", "elfenwizards", "elixirus", "elven_castle", "zauberschwert")
# Where the rulebook leaves a seat one move often enough to show in a few games (a lone
# "done" after brewing, a lone "take" of the last ingredients, a lone "pass" or "decline").
OCCUR = {"elixirus", "zauberschwert"}


def survey(name: str, seeds=(b"f1", b"f2")):
    spec = importlib.import_module(f"games.{name}").GAME
    forced, choices = [], 0
    for seed in seeds:
        table = Table(spec, 3, seed=seed)
        for _ in range(20000):
            awaited = spec.waiting_for(table.state)
            if not awaited:
                break
            seat = awaited[0]
            legal = spec.legal(table.state, seat)
            move = forced_move(spec, table.state, seat)
            distinct = {json.dumps(c, sort_keys=True) for c in legal}
            if len(distinct) == 1:
                assert move == legal[0]
                forced.append(spec.describe(move))
            else:
                assert move is None, f"{name}: a 'forced' move where {len(distinct)} moves are legal"
                choices += 1
            for other in range(3):
                if other not in awaited:
                    assert forced_move(spec, table.state, other) is None  # never for a seat not awaited
            table.act(seat, move or spec.standin(spec.view(table.state, seat), legal))
    return forced, choices


@pytest.mark.parametrize("name", GAMES)
def test_a_forced_move_is_the_only_legal_move_and_never_one_among_choices(name):
    forced, choices = survey(name)
    assert choices > 0
    if name in OCCUR:
        assert forced, f"{name}: no forced move in two games"


def test_elixirus_done_after_brewing_with_nothing_left_to_put_is_forced():
    forced, _ = survey("elixirus")
    assert "done" in forced


def test_zauberschwert_a_lone_pass_or_decline_is_forced():
    forced, _ = survey("zauberschwert")
    assert any(move == "pass" or move.startswith("decline") or move == "done" for move in forced)
