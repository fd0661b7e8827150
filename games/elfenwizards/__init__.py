"""Elfenwizards (Alan R. Moon, White Wind): a game of wizards competing for titles with dice.

See RULINGS.md for every decision where the rulebook is silent or ambiguous, and data/board.json
for the (proposed) board and placement table.
"""

from __future__ import annotations

from games.base import GameSpec, Option

from .board import COLOURS
from .grammar import describe, help, parse
from .rules import decide, evolve, legal, result, score_sheet, setup, summary, timeout, waiting_for
from .view import narrate, render_html, render_text, view

GAME = GameSpec(
    name="elfenwizards",
    title="Elfenwizards",
    min_players=3,
    max_players=5,
    version=1,
    setup=setup,
    decide=decide,
    evolve=evolve,
    waiting_for=waiting_for,
    legal=legal,
    result=result,
    view=view,
    parse=parse,
    describe=describe,
    help=help,
    narrate=narrate,
    render_text=render_text,
    render_html=render_html,
    summary=summary,
    score_sheet=score_sheet,
    timeout=timeout,
    options=(
        Option("translator_variant", False,
               "Translator's variant: removing a gray magic token costs 3 pips instead of 4"),
    ),
    colours=COLOURS,
    rulebook="Alan R. Moon's Elfenwizards: 3-5 players, up to four turns of dice-driven elections for titles.",
)
