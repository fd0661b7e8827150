"""Whole games on the platform, for the tests of notices and of playing by mail: a table of
three (or as many as the game needs) with a seed chosen by the test, and the stand-in's choice
for a seat, so that a game played by codes or links can be compared with one typed."""

from __future__ import annotations

from contextlib import contextmanager

from pbem.log import eventlog
from pbem.models import Game
from pbem.play import choosing, services, standins
from pbem.registry import get_game

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin"]
FIVE_GAMES = ["elfenland", "elfenwizards", "elixirus", "elven_castle", "zauberschwert"]


def people(kind: str) -> list[services.PlayerSpec]:
    spec = get_game(kind)
    count = min(max(spec.min_players, 3), spec.max_players)
    return [services.PlayerSpec(name, f"{name.lower()}@example.org") for name in NAMES[:count]]


@contextmanager
def seeded(seed_hex: str):
    """Games created in the block get this secret seed (the same deal and draws for the same
    moves): Game.seed's default, swapped for the block."""
    field = Game._meta.get_field("seed")
    default = field.default
    field.default = lambda: seed_hex
    field.__dict__.pop("_get_default", None)  # Django keeps the default it made first (a cached property)
    try:
        yield
    finally:
        field.default = default
        field.__dict__.pop("_get_default", None)


def state_of(game: Game) -> dict:
    return eventlog.load(Game.objects.get(pk=game.pk)).state


def standin_choice(game: Game, seat: int) -> dict | None:
    spec = get_game(game.kind)
    return standins.choose(spec, state_of(game)["game"], seat)


def code_of(game: Game, seat: int, command: dict, version: int | None = None) -> int | None:
    """The code the seat's notice at `version` (now by default) gives `command`, if it offers it."""
    spec = get_game(game.kind)
    state = eventlog.load(Game.objects.get(pk=game.pk), at=version).state
    menu = choosing.menu(spec, state["game"], seat)
    return next((code for code, choice in menu.codes() if choice.command == command), None)


def play_typed(game: Game, max_moves: int = 5000) -> int:
    """Plays the game to its end, every seat the stand-in's choice typed as a command (through
    services.submit, as a reply's lines go); returns the number of moves."""
    spec = get_game(game.kind)
    for moves in range(max_moves):
        game.refresh_from_db()
        if game.status != "running":
            return moves
        seat = game.awaited[0]
        command = standin_choice(game, seat)
        assert command is not None, f"seat {seat} is awaited but has no move"
        services.submit(game.pk, seat, spec.describe(command))
    raise AssertionError(f"{game.kind} did not end within {max_moves} moves")


def final_scores(game: Game) -> list:
    return list(Game.objects.get(pk=game.pk).scores)
