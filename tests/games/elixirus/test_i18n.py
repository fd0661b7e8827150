"""Elixirus in German and French (issue 33): the same move typed in English, German or French is
the same command in any reader's language (ingredients "rote Wurzel 2" / "racine rouge 2", pieces
of forest by their effect, flasks); orders, rejections and the narration speak the reader's
language while the log keeps the English names."""

from __future__ import annotations

import pytest

from games.base import Event, ParseError, Rejected
from games.elixirus import GAME
from games.elixirus import words as W
from games.i18n import using

from .helpers import table
from .test_concocting import brewing

# (English, German, French) typed while placing or collecting (3 seats: pink is seat 2)
COLLECTING = [
    ("place steal 2", "setze stehlen 2", "place vol 2"),
    ("place collect 3", "setze Sammeln 3", "place cueillette 3"),
    ("take 2 4", "nimm 2 4", "prends 2 4"),
    ("steal red root 2 from pink", "stiehl rote Wurzel 2 von rosa", "vole racine rouge 2 à rose"),
    (
        "swap green leaf 1 for draw 3",
        "tausche grünes Blatt 1 gegen Ziehen 3",
        "échange feuille verte 1 contre pioche 3",
    ),
    (
        "swap purple stem 3 for swap 1",
        "tausche lila Stängel 3 gegen Tauschen 1",
        "échange tige violette 3 contre échange 1",
    ),
    ("keep blue seed 1 and crystal", "behalte blauen Samen 1 und Kristall", "garde graine bleue 1 et cristal"),
    ("replace dance 1 3", "ersetze Tanzen 1 3", "remplace danse 1 3"),
    ("dance replace 1 3", "tanze Ersetzen 1 3", "danse remplacement 1 3"),
    ("draw", "ziehe", "pioche"),
    ("basket", "Korb", "panier"),
    ("skip", "passe", "passe"),
]
BREWING = [
    ("put red root 2 on love", "lege rote Wurzel 2 auf Liebe", "pose racine rouge 2 sur amour"),
    ("put yellow berry 3 in the recipe book", "lege gelbe Beere 3 ins Rezeptbuch", "pose baie jaune 3 dans livre"),
    ("put orange blossom 1 on vitality", "lege orange Blüte 1 auf Lebenskraft", "pose fleur orange 1 sur vitalité"),
    ("put crystal in bowl", "lege Kristall in Schale", "pose cristal dans bol"),
    ("put red root 2 on poison", "lege rote Wurzel 2 auf Gift", "pose racine rouge 2 sur poison"),
    ("pick steal 3", "sammle Stehlen 3", "cueille vol 3"),
    ("done", "fertig", "fini"),
    ("reset", "zurück", "recommence"),
]


def _same(state, english, german, french):
    command = GAME.parse(english, state, 0)
    for language in ("en", "de", "fr"):
        with using(language):
            assert GAME.parse(english, state, 0) == command, (language, english)
            assert GAME.parse(german, state, 0) == command, (language, german)
            assert GAME.parse(french, state, 0) == command, (language, french)
            assert GAME.parse(GAME.describe(command), state, 0) == command, (language, command)


@pytest.mark.parametrize("english,german,french", COLLECTING)
def test_a_move_typed_in_german_or_french_is_the_english_command(english, german, french):
    _same(table(3).state, english, german, french)


@pytest.mark.parametrize("english,german,french", BREWING)
def test_a_concocting_line_typed_in_german_or_french_is_the_english_command(english, german, french):
    _same(brewing({0: ["red root 2"]}).state, english, german, french)


def test_a_move_is_described_in_the_readers_words():
    command = {"type": "put", "ing": "green leaf 1", "to": "love"}
    assert GAME.describe(command) == "put green leaf 1 on love"
    with using("de"):
        assert GAME.describe(command) == "lege grünes Blatt 1 auf Liebe"
    with using("fr"):
        assert GAME.describe(command) == "pose feuille verte 1 sur amour"


def test_the_narration_says_the_logged_english_names_in_the_readers_language():
    event = Event("IngredientStolen", {"seat": 0, "from": 1, "ing": "red stem 2"})
    names = ["Anna", "Bruno"]
    assert GAME.narrate(event, names) == "Anna steals red stem 2 from Bruno."
    with using("de"):
        assert GAME.narrate(event, names) == "Anna stiehlt Bruno roten Stängel 2."  # the object: accusative
    with using("fr"):
        assert GAME.narrate(event, names) == "Anna vole tige rouge 2 à Bruno."


@pytest.mark.parametrize(
    "token,nominative,accusative",
    [
        ("red stem 2", "roter Stängel 2", "roten Stängel 2"),  # masculine: the accusative differs
        ("blue seed 1", "blauer Samen 1", "blauen Samen 1"),
        ("red root 2", "rote Wurzel 2", "rote Wurzel 2"),  # feminine and neuter: the same
        ("green leaf 1", "grünes Blatt 1", "grünes Blatt 1"),
        ("orange berry 3", "orange Beere 3", "orange Beere 3"),  # 'orange' takes no ending
    ],
)
def test_a_german_ingredient_takes_the_case_its_sentence_needs(token, nominative, accusative):
    """A subject or a label is nominative, an object after a verb accusative: the translation
    says which ("{ing:acc}"), and the value carries every case."""
    with using("de"):
        said = W.ingredient(token)
        assert str(said) == f"{said}" == nominative
        assert f"{said:acc}" == accusative
        taken = GAME.narrate(Event("LeftoverPicked", {"seat": 0, "piece": "steal", "curve": 0, "ing": token}), ["A"])
        assert accusative in taken, taken  # "Mit dem Korbplättchen sammelst du roten Stängel 2 …"
        assert GAME.describe({"type": "put", "ing": token, "to": "love"}) == f"lege {accusative} auf Liebe"
        assert GAME.parse(f"lege {accusative} auf Liebe", brewing({0: [token]}).state, 0)["ing"] == token
    with using("en"), using("fr"):
        assert f"{W.ingredient(token):acc}" == f"{W.ingredient(token)}"  # no cases: the same text


def test_a_rejection_and_a_parse_error_speak_the_readers_language():
    t = table(3)
    with using("de"), pytest.raises(Rejected, match="^Du bist nicht am Zug|ist dran"):
        GAME.decide(t.state, 1, {"type": "place", "piece": "steal", "space": 1}, None)
    with using("fr"), pytest.raises(ParseError, match="^Commande vide"):
        GAME.parse("", t.state, 0)
    with using("de"), pytest.raises(ParseError, match="rote Wurzel 2"):
        GAME.parse("stiehl", t.state, 0)


def test_a_standing_order_in_each_language():
    state = table(3).state
    for language, text in (("en", "always draw"), ("de", "immer ziehe"), ("fr", "toujours pioche")):
        with using(language):
            assert GAME.parse_order(text, state, 0) == {"effect": "draw", "take": True}
            for order in ({"effect": "draw", "take": True}, {"effect": "steal", "take": False}):
                assert GAME.parse_order(GAME.describe_order(order), state, 0) == order
    with using("fr"), pytest.raises(ParseError, match="ordres permanents"):
        GAME.parse_order("parfois", state, 0)
