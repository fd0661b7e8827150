"""Golden logs: complete games recorded earlier must replay to the same state and scores."""

import json
from pathlib import Path

import pytest

from games.elixirus import GAME
from games.testing import check_golden

FILES = sorted((Path(__file__).resolve().parents[2] / "golden" / "elixirus").glob("*.json"))


def test_there_are_golden_logs():
    assert len(FILES) >= 2


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_golden_log_replays_identically(path):
    check_golden(GAME, json.loads(path.read_text()))
