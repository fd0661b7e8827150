"""Elfenland in German and French (issue 33): the same move typed in English, German or French
is the same command (the log does not know the language); the standing orders and the
rejections speak the reader's language."""

from __future__ import annotations

import pytest

from games.base import ParseError, Rejected
from games.elfenland import GAME
from games.i18n import using

from .common import given

# (English, German, French): each line the same command, typed by a player in that language.
SAME_MOVES = [
    ("take pig", "nimm Schwein", "prends cochon"),
    ("take giant pig", "nimm Riesenschwein", "prends cochon géant"),
    ("draw", "zieh", "pioche"),
    ("draw blind", "ziehe verdeckt", "pioche"),
    ("place troll on Jxara-Virst", "lege Trollwagen auf Jxara-Virst", "pose chariot de trolls sur Jxara-Virst"),
    (
        "place hidden dragon on Jxara-Virst",
        "lege verdeckt Drache auf Jxara-Virst",
        "pose face cachée dragon sur Jxara-Virst",
    ),
    ("trouble on Jxara-Virst", "Hindernis auf Jxara-Virst", "obstacle sur Jxara-Virst"),
    ("pass", "passe", "passer"),
    ("move to Lapphalya", "reise nach Lapphalya", "va à Lapphalya"),
    ("move to Beata by river with raft", "reise nach Beata über Fluss mit Floß", "va à Beata par rivière avec radeau"),
    (
        "move to Beata by road with pig pig",
        "reise nach Beata über Ebene mit 2 Schwein",
        "va à Beata par plaine avec deux cochons",
    ),
    ("end", "ende", "fin"),
    ("discard cloud", "wirf Zauberwolke ab", "défausse nuage magique"),
    ("keep unicorn", "behalte Einhorn", "garde licorne"),
    ("keep hidden elfcycle", "behalte verdeckt Elfenrad", "garde face cachée vélo elfique"),
]


@pytest.fixture(scope="module")
def state():
    return given(
        phase="move",
        turn=0,
        hands={0: ["raft", "giant_pig", "giant_pig", "raft"]},
        board={"elvenhold-lapphalya:road": "giant_pig"},
        up={0: ["unicorn"]},
        down={0: ["elfcycle"]},
    ).state


@pytest.mark.parametrize("english,german,french", SAME_MOVES)
def test_a_move_typed_in_german_or_french_is_the_english_command(state, english, german, french):
    command = GAME.parse(english, state, 0)
    for language in ("en", "de", "fr"):
        with using(language):
            assert GAME.parse(english, state, 0) == command
            assert GAME.parse(german, state, 0) == command, (language, german)
            assert GAME.parse(french, state, 0) == command, (language, french)


def test_a_standing_order_in_each_language(state):
    wanted = {"take": ["troll_wagon", "magic_cloud"]}
    for language, text in (
        ("en", "take troll or cloud"),
        ("de", "nimm Troll oder Wolke"),
        ("fr", "prends troll ou nuage"),
    ):
        with using(language):
            assert GAME.parse_order(text, state, 0) == wanted
            assert GAME.parse_order(GAME.describe_order(wanted), state, 0) == wanted
            assert GAME.parse_order(GAME.describe_order({"take": []}), state, 0) == {"take": []}
    with using("de"):
        assert GAME.describe_order(wanted) == "nimm Troll oder Wolke"
        with pytest.raises(ParseError, match="Elfenland kennt die Daueraufträge „zieh verdeckt“"):
            GAME.parse_order("spring", state, 0)


def test_a_rejection_speaks_the_readers_language(state):
    command = {"type": "move", "route": "elvenhold-lapphalya:road", "to": "lapphalya", "cards": ["raft", "raft"]}
    with using("de"), pytest.raises(Rejected, match="^Diese Strecke kostet 1 Karte Schwein"):
        GAME.decide(state, 0, command, None)
    with using("fr"), pytest.raises(Rejected, match="^Cette route coûte 1 carte cochon"):
        GAME.decide(state, 0, command, None)
    with pytest.raises(Rejected, match="^That route takes 1 pig card, or 3 cards"):
        GAME.decide(state, 0, command, None)


def test_a_near_miss_is_suggested_in_the_readers_language(state):
    with using("de"), pytest.raises(ParseError, match="^Unbekannt \\(Stadt\\): „lapphalyax“. Meinten Sie: Lapphalya"):
        GAME.parse("reise nach Lapphalyax", state, 0)
