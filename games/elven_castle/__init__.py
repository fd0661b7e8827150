"""Elven Castle (Zvezda, 2013): 2-4 architects build one castle of arches; the higher the arch
under the piece you place, the more points. Rules: rules.py; commands: grammar.py; renders:
view.py; the proposed geometry and every ruling: RULINGS.md."""

from games.base import GameSpec, Option
from games.i18n import N_

from . import grammar, orders, rules, standin, view

SCENARIO_CHOICES = ("none",) + tuple(rules.SCENARIOS)
# each choice's name on the new-game page (the titles are marked in rules.SCENARIO_TITLES)
SCENARIO_LABELS = (N_("no scenario"),) + tuple(rules.SCENARIOS[k]["title"] for k in rules.SCENARIOS)

GAME = GameSpec.from_modules(
    rules,
    grammar,
    view,
    standin,
    orders,
    name="elven_castle",
    title="Elven Castle",
    min_players=2,
    max_players=4,
    version=1,
    options=(
        Option(
            "scoring",
            "A",
            N_("A: an arch's spans count down to the piece beneath it; B: down to the ground"),
            choices=("A", "B"),
            label=N_("Scoring"),
        ),
        Option(
            "staircase",
            False,
            N_("experienced: reaching exactly 8/16/24/32/40 lets you join two bridges into a staircase"),
            label=N_("Staircase"),
        ),
        Option(
            "penalties",
            False,
            N_(
                "experienced: -2 per window/portal/balcony/staircase left in hand and per "
                "piece standing alone on the ground"
            ),
            label=N_("Penalties"),
        ),
        Option(
            "scenario",
            "none",
            # the scenarios by their names (as the option takes them): tests check the list is complete
            N_("a 3-4 player scenario with grey pieces: altar, catacombs, legacy, library, royal-gates"),
            choices=SCENARIO_CHOICES,
            label=N_("Scenario"),
            choice_labels=SCENARIO_LABELS,
        ),
    ),
    colours=rules.COLOURS,
    check_options=rules.check_options,
    # Every scoring placement is a numbered code (RULINGS §10): up to 50 in a turn of random play.
    max_featured=None,
    rulebook=N_("Place an arch on the ground or on two pieces; score the height of the arch beneath it."),
)
