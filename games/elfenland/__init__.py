"""Elfenland (Alan R. Moon, Amigo 1998), for 2-6 players, with the Home Cities, Lakes and
Boatmen variants. Rules: rules.py; grammar and chooser: grammar.py; views and renders: view.py
(the drawings: drawing.py); the stand-in: standin.py; the map and component counts:
data/elfenland_map.json; rulings: RULINGS.md.
"""

from __future__ import annotations

from games.base import GameSpec, Option
from games.i18n import N_

from . import grammar, orders, rules, standin, view

GAME = GameSpec.from_modules(
    rules,
    grammar,
    view,
    standin,
    orders,
    name="elfenland",
    title="Elfenland",
    min_players=2,
    max_players=6,
    version=1,
    options=(
        Option(
            "home_cities",
            False,
            N_(
                "Home Cities: a secret City Card each; one town piece lost per route "
                "between your Elf and your City at the end"
            ),
        ),
        Option("lakes", False, N_("Lakes: cross Mare Nebulae with one raft card")),
        Option("boatmen", False, N_("Boatmen: cross Mare Nebulae with any three cards")),
    ),
    colours=view.COLOURS,
    rulebook=N_("Collect town pieces over four rounds by placing transport counters and playing matching cards."),
)
