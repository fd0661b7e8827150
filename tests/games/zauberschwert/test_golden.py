"""Golden logs: complete games recorded earlier must replay to the same state and scores."""

import json
from pathlib import Path

import pytest

from games.testing import check_golden
from games.zauberschwert import GAME

GOLDEN = sorted((Path(__file__).resolve().parents[2] / "golden" / "zauberschwert").glob("*.json"))


def test_there_are_golden_games_for_two_three_and_four_players():
    assert {json.loads(p.read_text())["players"] for p in GOLDEN} == {2, 3, 4}


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game_replays_identically(path):
    record = json.loads(path.read_text())
    assert record["game"] == GAME.name and record["version"] == GAME.version
    check_golden(GAME, record)
