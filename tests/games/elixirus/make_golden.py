"""Records a few complete bot games of Elixirus as golden fixtures.

Run from the repository root:  .venv/bin/python -m tests.games.elixirus.make_golden
"""

from pathlib import Path

from games.elixirus import GAME
from games.testing import play_random, save_golden

OUT = Path(__file__).resolve().parents[2] / "golden" / "elixirus"
GAMES = [(2, 4), (2, 11), (3, 23), (5, 57)]  # 2p seed 4 ends with a fourth cork


def main():
    for players, seed in GAMES:
        table = play_random(GAME, players, seed=seed)
        path = OUT / f"elixirus_{players}p_seed{seed}.json"
        save_golden(table, path)
        print(path, path.stat().st_size, "bytes,", len(table.events), "events")


if __name__ == "__main__":
    main()
