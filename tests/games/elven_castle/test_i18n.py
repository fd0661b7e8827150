"""Elven Castle in German and French (issue 33): the same move typed in English, German or
French is the same command, in any reader's language; orders and rejections speak the reader's
language; the end-of-game lines kept in English in the log are said in the reader's."""

from __future__ import annotations

import pytest

from games.base import ParseError, Rejected
from games.elven_castle import GAME
from games.elven_castle.words import sheet_detail
from games.i18n import using

from .helpers import table

SAME_MOVES = [
    ("place bridge c3 east level 0", "lege Brücke c3 Ost Ebene 0", "pose pont c3 est niveau 0"),
    ("bridge c3 e", "Brücke c3 o", "pont c3 est"),
    ("place window d4 north", "setze Fenster d4 Nord", "pose fenêtre d4 nord"),
    ("balcony b2 south level 0", "Balkon b2 Süd Ebene 0", "balcon b2 sud niveau 0"),
    ("portal e5 west", "Portal e5 West", "portail e5 ouest"),
    ("make staircase", "mache Treppe", "fais un escalier"),
    ("no staircase", "keine Treppe", "pas d'escalier"),
]


@pytest.mark.parametrize("english,german,french", SAME_MOVES)
def test_a_move_typed_in_german_or_french_is_the_english_command(english, german, french):
    state = table(3).state
    command = GAME.parse(english, state, 0)
    for language in ("en", "de", "fr"):
        with using(language):
            assert GAME.parse(english, state, 0) == command
            assert GAME.parse(german, state, 0) == command, (language, german)
            assert GAME.parse(french, state, 0) == command, (language, french)


def test_a_standing_order_in_each_language():
    state = table(3).state
    for language, text in (("en", "highest bridge"), ("de", "höchste Brücke"), ("fr", "plus haut pont")):
        with using(language):
            assert GAME.parse_order(text, state, 0) == {"highest": "bridge"}
            for order in ({"highest": "window"}, {"highest": None}):
                assert GAME.parse_order(GAME.describe_order(order), state, 0) == order


def test_a_rejection_speaks_the_readers_language():
    state = table(3).state
    seat = GAME.waiting_for(state)[0]
    command = {"type": "place", "piece": "bridge", "x": 8, "y": 2, "z": 0, "dir": "e"}
    with using("de"), pytest.raises(Rejected, match="^Das Teil Brücke würde über den Plan hinausragen"):
        GAME.decide(state, seat, command, None)
    with using("fr"), pytest.raises(Rejected, match="^La pièce pont dépasserait du plateau"):
        GAME.decide(state, seat, command, None)
    with using("fr"), pytest.raises(Rejected, match="^Ce n’est pas votre tour"):
        GAME.decide(state, (seat + 1) % 3, command, None)


def test_the_end_lines_of_the_log_are_said_in_the_readers_language():
    with using("de"):
        assert sheet_detail("left in hand: 1 window, 2 balcony") == "übrig im Vorrat: 1 Fenster, 2 Balkon"
        assert sheet_detail("bridge #4 at c3 alone on the ground") == "Brücke #4 bei c3 allein auf dem Boden"
        assert sheet_detail("portal c3 e level 2: arches 1+2") == "Portal c3 Ost Ebene 2: Bögen 1+2"
    assert sheet_detail("topmost piece at level 5") == "topmost piece at level 5"


def test_an_abbreviation_shared_with_another_languages_word_of_the_same_piece_still_works():
    state = table(3).state
    assert GAME.parse("por c3 e", state, 0)["piece"] == "portal"  # portal, portail
    assert GAME.parse("br c3 e", state, 0)["piece"] == "bridge"  # bridge, Brücke
    with pytest.raises(ParseError):
        GAME.parse("p c3 e", state, 0)  # place, portal, pont, … : several meanings


def test_the_scenario_options_help_names_every_scenario():
    from games.elven_castle import SCENARIO_CHOICES

    help_text = next(o.help for o in GAME.options if o.name == "scenario")
    assert help_text.endswith(": " + ", ".join(SCENARIO_CHOICES[1:]))
