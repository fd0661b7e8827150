"""Elixirus (Piatnik 2025): collect ingredients in the forest, concoct potions. For 2-5 players."""

from games.base import GameSpec
from games.i18n import N_

from . import grammar, orders, picture, rules, standin, view

GAME = GameSpec.from_modules(
    rules,
    grammar,
    view,
    picture,
    standin,
    orders,
    name="elixirus",
    title="Elixirus",
    min_players=2,
    max_players=5,
    version=1,
    options=(),
    colours=rules.SEAT_COLOURS,
    can_act=rules.can_act,
    rulebook=N_(
        "Elixirus: place apprentices in the forest, collect ingredients, fill your flasks; "
        "the game ends when someone takes a fourth cork."
    ),
)
