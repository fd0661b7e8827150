"""Records complete bot games as golden fixtures under tests/golden/<game>/.

    .venv/bin/python -m tests.games.make_golden [GAME ...]      # default: every game below

CI replays every file (tests/games/test_contract.py), so a change that would replay a game in
progress differently fails. Record again (and commit the new files) only when a rules change is
meant to change old games, and bump that game's GAME.version then.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from games.testing import play_random, play_with_standins, save_golden

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

# game: [(file name, players, options, bot seed), ...]; a name with "standins" is a game of
# stand-ins at every seat (games.testing.play_with_standins), the others random bots.
GAMES = {
    "elfenland": [
        ("base_3p.json", 3, {}, 101),
        ("home_cities_4p.json", 4, {"home_cities": True}, 202),
        ("lakes_boatmen_2p.json", 2, {"lakes": True, "boatmen": True}, 303),
    ],
    "elfenwizards": [
        ("three_players.json", 3, {}, 101),
        ("four_players_translator_variant.json", 4, {"translator_variant": True}, 202),
        ("five_players.json", 5, {}, 303),
        # placement data version 2 (RULINGS: "Data version 2"); the three above were recorded with
        # version 1: recording them again would lose the proof that version-1 games still replay
        ("three_players_data2_standins.json", 3, {}, 505),
        # recorded with placement data version 2, before version 3 changed the 5-player placement
        # (RULINGS: "Data version 3"): recording it again would lose that proof too
        ("five_players_data2_standins.json", 5, {}, 606),
        # recorded with placement data version 3, before version 4 dealt the 5-player rows to the
        # colours (RULINGS: "Data version 4"): recording it again would lose that proof too
        ("five_players_data3_standins.json", 5, {}, 707),
        # recorded with placement data version 4, before version 5 changed the dealt 5-player rows
        # (RULINGS: "Data version 5"): recording it again would lose that proof too
        ("five_players_data4_standins.json", 5, {}, 808),
    ],
    "elixirus": [  # 2 players, seed 4, ends with a fourth cork
        ("elixirus_2p_seed4.json", 2, {}, 4),
        ("elixirus_2p_seed11.json", 2, {}, 11),
        ("elixirus_3p_seed23.json", 3, {}, 23),
        ("elixirus_5p_seed57.json", 5, {}, 57),
        ("elixirus_4p_standins_seed1.json", 4, {}, 1),  # stand-ins only: ends by the fourth cork
    ],
    "elven_castle": [
        ("2p_variant_a.json", 2, {"scoring": "A"}, 11),
        ("3p_variant_b_staircase_penalties.json", 3, {"scoring": "B", "staircase": True, "penalties": True}, 12),
        ("4p_library_staircase.json", 4, {"scenario": "library", "staircase": True, "penalties": True}, 15),
    ],
    "zauberschwert": [
        ("two_players.json", 2, {}, 101),
        ("three_players.json", 3, {}, 202),
        ("four_players.json", 4, {}, 303),
        ("three_players_data2.json", 3, {}, 404),  # card data version 2 (RULINGS: "Data version 2")
    ],
}


def record(game: str, out: Path = GOLDEN) -> None:
    spec = importlib.import_module(f"games.{game}").GAME
    for name, players, options, seed in GAMES[game]:
        if "standins" in name:
            table = play_with_standins(spec, players, range(players), options, seed=seed)
        else:
            table = play_random(spec, players, options, seed=seed)
        path = out / game / name
        save_golden(table, path)
        print(f"{path}: {len(table.events)} events, scores {spec.result(table.state).scores}")


def main(argv: list[str]) -> None:
    for game in argv or list(GAMES):
        record(game)


if __name__ == "__main__":
    main(sys.argv[1:])
