"""Elfenland on the platform: created by name, played by text lines, as the email path does."""

from __future__ import annotations

from games.elfenland import GAME
from pbem.log import eventlog
from pbem.play import services


def test_created_and_played_through_the_platform(make_game):
    game = make_game(3, "elfenland", {"home_cities": "yes", "lakes": "no"})
    state = eventlog.load(game).state["game"]
    assert state["opts"] == {"home_cities": True, "lakes": False, "boatmen": False}
    services.submit(game.pk, 0, "draw")
    state = eventlog.load(game).state["game"]
    line = GAME.describe({"type": "take", "counter": state["pool"][0]})
    services.submit(game.pk, 1, line.upper())
    state = eventlog.load(game).state["game"]
    assert state["turn"] == 2 and len(state["up"][0]) == 1 and len(state["up"][1]) == 1
