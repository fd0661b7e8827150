"""Records complete bot games as golden fixtures: python -m tests.games.zauberschwert.make_golden"""

from pathlib import Path

from games.testing import play_random, save_golden
from games.zauberschwert import GAME

HERE = Path(__file__).resolve().parents[2] / "golden" / "zauberschwert"
GAMES = {"two_players.json": (2, 101), "three_players.json": (3, 202), "four_players.json": (4, 303)}


def main():
    for name, (players, seed) in GAMES.items():
        table = play_random(GAME, players, seed=seed)
        save_golden(table, HERE / name)
        print(name, len(table.events), "events", (HERE / name).stat().st_size // 1024, "KB")


if __name__ == "__main__":
    main()
