"""The chooser's codes against the game (issue 27): python -m bench.codes [GAMES]

For every game and table size, over GAMES games of stand-ins only (default 50): the share of
decisions where the move the stand-in makes is one of the numbered codes a turn notice offers
(target 95 %), by kind of move, and whether every legal move is reachable in the web chooser's
two steps (group, then label) exactly once. Pure games: no database.
"""

from __future__ import annotations

import sys

from bench.balance import chooser_coverage

TABLES = {
    "elfenland": (3, 4),
    "elfenwizards": (3, 4, 5),
    "elixirus": (2, 3, 4),
    "elven_castle": (2, 3, 4),
    "zauberschwert": (2, 3, 4),
}


def run(games: int = 50) -> list[str]:
    from games import elfenland, elfenwizards, elixirus, elven_castle, zauberschwert

    specs = {
        "elfenland": elfenland.GAME,
        "elfenwizards": elfenwizards.GAME,
        "elixirus": elixirus.GAME,
        "elven_castle": elven_castle.GAME,
        "zauberschwert": zauberschwert.GAME,
    }
    lines = [f"the chooser's codes over {games} games of stand-ins a table (target: 95 % of decisions)"]
    for name, sizes in TABLES.items():
        for players in sizes:
            lines += chooser_coverage(specs[name], players, games)
            print(lines[-2], lines[-1], sep="\n", flush=True)
    return lines


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
