"""Zauberschwert & Drachenei (2-4 players): wizards, spells, creatures and artifacts.

Rules: ../shared/seeds/001 (the rulebook); cards: data/cards.json; rulings: RULINGS.md.
"""

from games.base import GameSpec, Option

from . import grammar, rules, view

GAME = GameSpec(
    name="zauberschwert",
    title="Zauberschwert & Drachenei",
    min_players=2,
    max_players=4,
    version=1,
    setup=rules.setup,
    decide=rules.decide,
    evolve=rules.evolve,
    waiting_for=rules.waiting_for,
    legal=rules.legal,
    result=rules.result,
    view=view.view,
    parse=grammar.parse,
    describe=grammar.describe,
    help=grammar.help,
    narrate=view.narrate,
    render_text=view.render_text,
    render_html=view.render_html,
    summary=rules.summary,
    score_sheet=rules.score_sheet,
    timeout=rules.timeout,
    options=(
        Option("offers_per_round", rules.RULES["offers_per_round"],
               "trade offers each player may make in one phase E (so trading by mail ends)", minimum=1, maximum=20),
    ),
    colours=rules.COLOURS,
    rulebook="Zauberschwert & Drachenei: place wizards on adventures, win spells, fight creatures, "
             "collect artifacts; most power stones wins.",
)
