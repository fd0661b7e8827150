"""Golden logs of complete games replay to the recorded final state and scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.elfenland import GAME
from games.testing import check_golden

GOLDEN = sorted((Path(__file__).resolve().parents[2] / "golden" / "elfenland").glob("*.json"))


def test_there_are_golden_logs():
    assert len(GOLDEN) >= 3


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_log_replays(path):
    record = json.loads(path.read_text())
    assert record["game"] == "elfenland" and record["version"] == GAME.version
    check_golden(GAME, record)
