"""Records complete bot games of Elven Castle as golden fixtures (tests/golden/elven_castle/).

Run from the repository root: .venv/bin/python -m tests.games.elven_castle.make_golden
"""

from __future__ import annotations

from pathlib import Path

from games.elven_castle import GAME
from games.testing import play_random, save_golden

OUT = Path(__file__).resolve().parents[2] / "golden" / "elven_castle"

GAMES = {
    "2p_variant_a.json": (2, {"scoring": "A"}, 11),
    "3p_variant_b_staircase_penalties.json": (3, {"scoring": "B", "staircase": True, "penalties": True}, 12),
    "4p_library_staircase.json": (4, {"scenario": "library", "staircase": True, "penalties": True}, 15),
}


def main():
    for name, (players, options, seed) in GAMES.items():
        table = play_random(GAME, players, options, seed=seed)
        save_golden(table, OUT / name)
        print(name, len(table.events), "events", GAME.result(table.state).scores)


if __name__ == "__main__":
    main()
