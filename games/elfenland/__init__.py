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
            N_("a secret City Card each; one town piece lost per route between your Elf and your City at the end"),
            label=N_("Home Cities"),
        ),
        Option("lakes", False, N_("cross Mare Nebulae with one raft card"), label=N_("Lakes")),
        Option("boatmen", False, N_("cross Mare Nebulae with any three cards"), label=N_("Boatmen")),
    ),
    colours=view.COLOURS,
    rulebook=N_("Collect town pieces over four rounds by placing transport counters and playing matching cards."),
)
