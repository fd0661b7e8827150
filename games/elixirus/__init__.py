"""Elixirus (Piatnik 2025): collect ingredients in the forest, concoct potions. For 2-5 players."""

from games.base import GameSpec

from .grammar import describe, help, parse
from .rules import (
    SEAT_COLOURS,
    can_act,
    decide,
    evolve,
    legal,
    result,
    score_sheet,
    setup,
    summary,
    timeout,
    waiting_for,
)
from .view import narrate, render_html, render_text, view

GAME = GameSpec(
    name="elixirus",
    title="Elixirus",
    min_players=2,
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
    options=(),
    colours=SEAT_COLOURS,
    can_act=can_act,
    rulebook="Elixirus: place apprentices in the forest, collect ingredients, fill your flasks; "
    "the game ends when someone takes a fourth cork.",
)
