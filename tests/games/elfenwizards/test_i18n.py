"""Elfenwizards in German and French (issue 33): the same move typed in English, German or
French is the same command in any reader's language; orders, rejections and the Master of
Seals' lines (kept in English in the log) speak the reader's language."""

from __future__ import annotations

import pytest

from games.base import Rejected
from games.elfenwizards import GAME
from games.elfenwizards import words as W
from games.i18n import using
from games.testing import Table

from .helpers import RED, classic

SAME_MOVES = [
    ("place 6 on druid", "lege 6 auf Druide", "pose 6 sur druide"),
    ("place 2 minor", "lege 2 auf klein", "pose 2 sur mineur"),
    ("place 4 on grey", "lege 4 auf graue Magie", "pose 4 sur gris"),
    ("place 3 on sorcerer", "lege 3 auf Hexenmeister", "pose 3 sur sorcier"),
    ("done", "fertig", "fini"),
    ("reroll", "neuwurf", "relance"),
    ("pass", "passe", "passer"),
    ("recover 6 2", "erhole 6 2", "récupère 6 2"),
    ("recover none", "erhole keine", "récupère aucun"),
    ("take back 3 1", "nimm zurück 3 1", "reprends 3 1"),
    ("claim s2", "beanspruche S2", "revendique S2"),
    ("demote to w3", "herabstufen nach W3", "rétrograde vers W3"),
    ("retire from supply to W2", "abdanken aus Vorrat nach W2", "retraite depuis réserve vers W2"),
    ("retire from space to W1", "abdanken aus Feld nach W1", "retraite depuis case vers W1"),
    ("cast 5 on red3", "wirke 5 auf red3", "lance 5 sur red3"),
    ("cast minor for N2", "wirke klein für N2", "lance mineur pour N2"),
]


@pytest.mark.parametrize("english,german,french", SAME_MOVES)
def test_a_move_typed_in_german_or_french_is_the_english_command(english, german, french):
    state = classic(Table(GAME, 3)).state
    command = GAME.parse(english, state, RED)
    for language in ("en", "de", "fr"):
        with using(language):
            assert GAME.parse(english, state, RED) == command
            assert GAME.parse(german, state, RED) == command, (language, german)
            assert GAME.parse(french, state, RED) == command, (language, french)


def test_a_standing_order_in_each_language():
    state = classic(Table(GAME, 3)).state
    for language, text in (("en", "recover all"), ("de", "erhole alle"), ("fr", "récupère tout")):
        with using(language):
            assert GAME.parse_order(text, state, RED) == {"recover": "all"}
            for order in ({"recover": "all"}, {"recover": "none"}):
                assert GAME.parse_order(GAME.describe_order(order), state, RED) == order


def test_a_rejection_speaks_the_readers_language():
    state = classic(Table(GAME, 3)).state
    other = next(s for s in range(3) if s not in GAME.waiting_for(state))
    with using("de"), pytest.raises(Rejected, match="^Du bist nicht am Zug"):
        GAME.decide(state, other, {"type": "pass"}, None)


def test_the_master_of_seals_lines_of_the_log_are_said_in_the_readers_language():
    with using("de"):
        assert W.detail("titles 5 (Druid 1x4, Wizard 1x1), gray magic -1") == (
            "Titel 5 (Druide 1x4, Magier 1x1), graue Magie -1"
        )
        assert W.sheet_label("Turn 2: gray magic") == "Zug 2: graue Magie"
    with using("fr"):
        assert W.sheet_detail("3 minor spell(s) in front") == "3 sort(s) mineur(s) devant soi"
    assert W.detail("titles 5 (Druid 1x4, Wizard 1x1)") == "titles 5 (Druid 1x4, Wizard 1x1)"
