"""Golden logs: complete games recorded earlier must replay to the same state and scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.elfenwizards import GAME
from games.testing import check_golden

FILES = sorted((Path(__file__).resolve().parents[2] / "golden" / "elfenwizards").glob("*.json"))


def test_there_are_golden_logs():
    assert len(FILES) >= 2


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_log_replays_identically(path):
    record = json.loads(path.read_text())
    assert record["game"] == GAME.name
    check_golden(GAME, record)
