"""Elfenwizards (Alan R. Moon, White Wind): a game of wizards competing for titles with dice.

See RULINGS.md for every decision where the rulebook is silent or ambiguous, and data/board.json
for the (proposed) board and placement table.
"""

from __future__ import annotations

from games.base import GameSpec, Option
from games.i18n import N_

from . import chooser, grammar, orders, picture, rules, standin, view
from .board import COLOURS

GAME = GameSpec.from_modules(
    rules,
    grammar,
    view,
    picture,
    standin,
    chooser,
    orders,
    name="elfenwizards",
    title="Elfenwizards",
    min_players=3,
    max_players=5,
    version=1,
    options=(
        Option(
            "translator_variant",
            False,
            N_("removing a gray magic token costs 3 pips instead of 4"),
            label=N_("Translator's variant"),
        ),
    ),
    colours=COLOURS,
    rulebook=N_("Alan R. Moon's Elfenwizards: 3-5 players, up to four turns of dice-driven elections for titles."),
)
