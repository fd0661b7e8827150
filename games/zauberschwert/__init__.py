"""Zauberschwert & Drachenei (2-4 players): wizards, spells, creatures and artifacts.

Rules: ../shared/seeds/001 (the rulebook); cards: data/cards.json; rulings: RULINGS.md.
"""

from games.base import GameSpec, Option
from games.i18n import N_

from . import board, grammar, orders, rules, standin, view

GAME = GameSpec.from_modules(
    rules,
    grammar,
    view,
    board,
    standin,
    orders,
    name="zauberschwert",
    title="Zauberschwert & Drachenei",
    min_players=2,
    max_players=4,
    version=1,
    options=(
        Option(
            "offers_per_round",
            0,
            N_(
                "0: no limit, as in the rulebook (a limit keeps a player from holding up trading "
                "by mail with offer after offer)"
            ),
            label=N_("Trade offers per player in one phase E"),
            minimum=0,
            maximum=20,
        ),
    ),
    colours=rules.COLOURS,
    rulebook=N_(
        "Zauberschwert & Drachenei: place wizards on adventures, win spells, fight creatures, "
        "collect artifacts; most power stones wins."
    ),
)
