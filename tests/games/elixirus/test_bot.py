"""Random bots over legal(): complete games for every player count, with invariant checks.

Soak run (1,000 games per player count): .venv/bin/python -m pytest -m soak tests/games/elixirus
"""

import pytest

from games.elixirus import GAME
from games.testing import play_random

from .helpers import check_invariants

COUNTS = (2, 3, 4, 5)


@pytest.mark.parametrize("players", COUNTS)
def test_random_bots_play_50_complete_games(players):
    ends = set()
    for seed in range(50):
        table = play_random(GAME, players, seed=1000 * players + seed, check=check_invariants, check_every=13)
        check_invariants(table)
        result = GAME.result(table.state)
        assert result is not None and len(result.scores) == players
        ends.add(table.state["end"])
    assert ends <= {"cork", "exhausted", "unwanted"}


@pytest.mark.soak
@pytest.mark.parametrize("players", COUNTS)
def test_soak_random_bots_1000_games(players):
    for seed in range(1000):
        play_random(GAME, players, seed=500_000 + 1000 * players + seed, check=check_invariants, check_every=3)
