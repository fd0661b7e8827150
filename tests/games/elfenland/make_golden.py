"""Records a few complete bot games as golden fixtures: python -m tests.games.elfenland.make_golden

CI replays them (test_golden.py), so a rules change that would alter games in progress fails.
"""

from __future__ import annotations

from pathlib import Path

from games.elfenland import GAME
from games.testing import play_random, save_golden

OUT = Path(__file__).resolve().parents[2] / "golden" / "elfenland"

GAMES = [
    ("base_3p", 3, {}, 101),
    ("home_cities_4p", 4, {"home_cities": True}, 202),
    ("lakes_boatmen_2p", 2, {"lakes": True, "boatmen": True}, 303),
]


def main() -> None:
    for name, players, options, seed in GAMES:
        table = play_random(GAME, players, options, seed=seed)
        path = OUT / f"{name}.json"
        save_golden(table, path)
        print(f"{path}: {len(table.events)} events, {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
