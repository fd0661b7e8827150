"""What the game-wide management commands share: the games named on the command line."""

from __future__ import annotations

from pbem.models import Game


def add_game_arguments(parser) -> None:
    parser.add_argument("games", nargs="*", type=int, help="game ids (default: all)")


def named_games(ids: list[int], stderr) -> tuple:
    """The games named (all when none is), in id order, and the ids that name no game, each
    reported on `stderr` so that a mistyped id is never passed over in silence."""
    games = Game.objects.order_by("pk")
    if not ids:
        return games, set()
    games = games.filter(pk__in=ids)
    missing = set(ids) - set(games.values_list("pk", flat=True))
    for pk in sorted(missing):
        stderr.write(f"game #{pk}: no such game")
    return games, missing
