"""Records complete bot games as golden fixtures: `.venv/bin/python -m tests.games.elfenwizards.make_golden`.

Run it again (and commit the new files) only when a rules change is meant to change old games;
bump GAME.version then.
"""

from __future__ import annotations

from pathlib import Path

from games.elfenwizards import GAME
from games.testing import play_random, save_golden

OUT = Path(__file__).resolve().parents[2] / "golden" / "elfenwizards"
GAMES = [
    ("three_players", 3, {}, 101),
    ("four_players_translator_variant", 4, {"translator_variant": True}, 202),
    ("five_players", 5, {}, 303),
]


def main():
    for name, players, options, seed in GAMES:
        table = play_random(GAME, players, options, seed=seed)
        path = OUT / f"{name}.json"
        save_golden(table, path)
        print(f"{path}: {len(table.events)} events, scores {GAME.result(table.state).scores}")


if __name__ == "__main__":
    main()
