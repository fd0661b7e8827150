"""Zauberschwert & Drachenei in German and French (issue 33): every command typed in English,
German or French is the same command in any reader's language (cards, artifacts and players'
colours by their German or French names); a whole game played in German or French words, or at a
table where each seat writes its own language, leaves the very log of the game played in English;
the narration, rejections, help, standing orders and score sheet speak the reader's language
while the log keeps the English names."""

from __future__ import annotations

import random

import pytest

from games.base import Event, ParseError, Rejected
from games.i18n import using
from games.testing import Table, event_to_json
from games.zauberschwert import GAME
from games.zauberschwert import words as W
from games.zauberschwert.rules import ART, ARTIFACTS

from .helpers import BLUE, GREEN, RED, place_all, table_at

# (English, German, French): each localised command form, typed as a player would
SAME_MOVES = [
    ("place 1", "setze 1", "place 1"),
    ("place 2", "setze rechts", "place droite"),
    ("place goblins", "setze Goblins", "place gobelins"),
    ("place energy orb", "setze auf Energiekugel", "place sur orbe d'énergie"),
    ("pass", "passe", "passe"),
    ("skip", "verzichte", "renonce"),
    ("fulmentus up", "fulmentus hoch", "fulmentus plus"),
    ("fulmentus down", "fulmentus runter", "fulmentus moins"),
    ("cast fulmentus down", "wirke Fulmentus runter", "lance fulmentus moins"),
    ("fight", "kämpfe", "combats"),
    ("withdraw", "zurückziehen", "retraite"),
    ("together", "gemeinsam", "ensemble"),
    ("alone", "allein", "seul"),
    ("bid 7", "biete 7", "enchéris 7"),
    ("take stones", "nimm Machtsteine", "prends pierres de pouvoir"),
    ("take magic", "nimm Magiepunkte", "prends points de magie"),
    ("cast transformus", "wirke Transformus", "lance transformus"),
    ("cast retransformus potion", "wirke Retransformus Zaubertrank", "lance retransformus potion"),
    (
        "cast retransformus crystal ball 1",
        "wirke Retransformus Kristallkugel 1",
        "lance retransformus boule de cristal 1",
    ),
    ("cast harpagarus green", "wirke Harpagarus Grün", "lance harpagarus vert"),
    ("cast harpagarus from yellow", "wirke Harpagarus bei Gelb", "lance harpagarus sur jaune"),
    ("done", "fertig", "fini"),
    (
        "offer potion to blue for magic wand 2",
        "tausche Zaubertrank mit Blau gegen Zauberstab 2",
        "propose potion à bleu contre baguette magique 2",
    ),
    (
        "offer dragon egg 1 to green for phoenix feather",
        "tausche Drachenei 1 mit Grün gegen Phönixfeder",
        "propose oeuf de dragon 1 à vert contre plume de phénix",
    ),
    ("accept blue", "annehmen Blau", "accepte bleu"),
    ("decline yellow", "ablehnen Gelb", "refuse jaune"),
    ("lay magic sword", "lege Zauberschwert aus", "pose épée magique"),
    ("lay out golden amulet", "auslegen Goldamulett", "pose amulette d’or"),
    ("lay archmage staff", "lege Magierstab aus", "pose bâton d'archimage"),
    # as a player writes a sentence, or without accents and umlauts
    ("accept red", "nimm das Angebot von Rot an", "accepte l'offre de rouge"),
    ("decline red", "lehne das Angebot von Rot ab", "refuse l’offre de rouge"),
    ("place 2", "setze meinen Zauberer auf die Karte 2", "place mon magicien sur la carte 2"),
    ("fight", "kaempfe", "combattre"),
    ("lay phoenix feather", "lege Phoenixfeder aus", "pose plume de phenix"),
    (
        "offer rune stone to green for goblet",
        "tausche Runenstein an Gruen gegen Kelch",
        "propose pierre runique a vert pour calice",
    ),
]


@pytest.mark.parametrize("english,german,french", SAME_MOVES)
def test_a_move_typed_in_german_or_french_is_the_english_command(english, german, french):
    state = table_at(display=("A08", "B03")).state
    command = GAME.parse(english, state, RED)
    for language in ("en", "de", "fr"):
        with using(language):
            assert GAME.parse(english, state, RED) == command, (language, english)
            assert GAME.parse(german, state, RED) == command, (language, german)
            assert GAME.parse(french, state, RED) == command, (language, french)
            assert GAME.parse(GAME.describe(command), state, RED) == command, (language, command)


def test_a_move_is_described_in_the_readers_words():
    offer = {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART02"}
    assert GAME.describe(offer) == "offer potion to blue for magic wand 2"
    with using("de"):
        assert GAME.describe(offer) == "tausche Zaubertrank mit Blau gegen Zauberstab 2"
        assert GAME.describe({"type": "lay", "artifact": "dragon_egg"}) == "lege Drachenei aus"
        assert GAME.describe({"type": "withdraw"}) == "zurückziehen"
    with using("fr"):
        assert GAME.describe(offer) == "propose potion à bleu contre baguette magique 2"
        assert GAME.describe({"type": "cast", "spell": "Harpagarus", "target": GREEN}) == "lance harpagarus vert"
        assert GAME.describe({"type": "bonus", "take": "stones"}) == "prends pierres"


def test_the_narration_says_the_logged_english_names_in_the_readers_language():
    names = ["Anna", "Bruno", "Chloé"]
    data = {"from": RED, "to": BLUE, "give": "ART16", "want": "ART09"}
    offer = Event("OfferMade", data, visible_to=(RED, BLUE), public={"from": RED, "to": BLUE}, reveals=True)
    fight = Event("FightBegun", {"slot": 0, "card": "A08", "seats": [RED, GREEN], "strength": 5})
    assert GAME.narrate(offer, names) == "Anna offers Bruno Potion for Dragon egg 1."
    assert GAME.narrate(fight, names) == "Anna and Chloé face the Goblins (strength 5, star)."
    with using("de"):
        assert GAME.narrate(offer, names) == "Anna bietet Bruno Zaubertrank gegen Drachenei 1 an."
        assert GAME.narrate(fight, names) == "Anna und Chloé stellen sich den Goblins (Stärke 5, Stern)."
        assert GAME.narrate(offer.as_seen_by(GREEN), names) == "Anna macht Bruno ein Angebot."
    with using("fr"):
        assert GAME.narrate(offer, names) == "Anna propose à Bruno : Potion contre Œuf de dragon 1."
        assert GAME.narrate(fight, names) == "Anna et Chloé affrontent les Gobelins (force 5, étoile)."
    assert offer.data == {"from": RED, "to": BLUE, "give": "ART16", "want": "ART09"}  # the log: ids


def test_a_rejection_and_a_parse_error_speak_the_readers_language():
    table = table_at(display=("A08", "B03"))
    with using("de"), pytest.raises(Rejected, match="^Du bist nicht am Zug"):
        GAME.decide(table.state, BLUE, {"type": "pass"}, None)
    with using("fr"), pytest.raises(Rejected, match="^Ce n’est pas votre tour"):
        GAME.decide(table.state, BLUE, {"type": "pass"}, None)
    with using("de"), pytest.raises(Rejected, match="„setze 1“"):
        GAME.decide(table.state, RED, {"type": "bid", "amount": 3}, None)
    with using("fr"), pytest.raises(ParseError, match="^Commande vide"):
        GAME.parse("", table.state, RED)
    with using("de"), pytest.raises(ParseError, match="Zauberstab 1"):
        GAME.parse("tausche Zauberstab mit Blau gegen Zaubertrank", table.state, RED)
    with using("fr"), pytest.raises(ParseError, match="« propose <votre carte> à <couleur> contre <carte> »"):
        GAME.parse("propose potion", table.state, RED)


def test_a_standing_order_in_each_language():
    state = table_at().state
    for language, none, decline in (
        ("en", "no offers", "decline offers"),
        ("de", "keine Angebote", "Angebote ablehnen"),
        ("fr", "aucune offre", "refuser les offres"),
    ):
        with using(language):
            assert GAME.parse_order(none, state, RED) == {"trade": "none"}
            assert GAME.parse_order(decline, state, RED) == {"trade": "decline"}
            for order in ({"trade": "none"}, {"trade": "decline"}):
                assert GAME.parse_order(GAME.describe_order(order), state, RED) == order
    with using("de"), pytest.raises(ParseError, match="Daueraufträge"):
        GAME.parse_order("manchmal", state, RED)


def test_the_score_sheet_lines_kept_in_english_are_said_in_the_readers_language():
    assert W.sheet_detail("Spiders (alone)") == "Spiders (alone)"
    with using("de"):
        assert W.sheet_detail("Spiders (together)") == "Spinnen (gemeinsam)"
        assert W.sheet_detail("Artifact bonus (Star Sapphire)") == "Artefaktbonus (Sternsaphir)"
        assert W.sheet_detail("Holy site") == "Heilige Stätte"
        assert W.sheet_detail("Stonex") == "Stonex"
    with using("fr"):
        assert W.sheet_detail("Dragons (auction)") == "Dragons (enchères)"
        assert W.sheet_label(3) == "Manche 3"


def test_the_german_artifacts_are_the_names_the_card_data_gives():
    with using("de"):
        for card in ART.values():
            assert W.artifact(card["artifact"]) == card["name_de_proposed"], card["id"]
    for key, artifact in ARTIFACTS.items():
        assert W.artifact(key) == artifact["name"]  # the English ones are the data's


def test_the_spells_effects_are_the_card_data_in_english():
    from games.zauberschwert.rules import ADV

    for cid, card in ADV.items():
        if card["type"] == "spell":
            assert W.spell_effect(cid) == card["effect_text"]
            with using("de"):
                assert W.spell_effect(cid) != card["effect_text"]


def test_a_help_and_a_board_in_german_and_french():
    table = table_at(display=("A08", "B03"))
    with using("de"):
        assert "setze 1" in GAME.help(table.state, RED)
        assert "Auslage:" in GAME.render_text(GAME.view(table.state, RED))
        assert "Goblins — Stärke 5, Stern" in GAME.render_svg(GAME.view(table.state, RED))
    with using("fr"):
        assert "place 1" in GAME.help(table.state, RED)
        assert "Cartes exposées :" in GAME.render_text(GAME.view(table.state, RED))
        assert "Orbe d’énergie" in GAME.render_html(GAME.view(table.state, RED))


def test_accept_without_a_colour_in_german():
    table = table_at(players=2, display=("A04", "B03"), hand=[["ART16"], ["ART17"]])
    place_all(table, {})
    table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART17"})
    with using("de"):
        assert GAME.parse("annehmen", table.state, BLUE) == {"type": "accept", "from": RED}


def _play_by_words(languages: tuple[str, ...], seed: int = 3):
    """A game of stand-ins, every move typed as words in its seat's language and parsed back in it
    (what a reply by mail does): the log and the words typed."""
    players = len(languages)
    table = Table(GAME, players, seed=f"words-{seed}".encode())
    pick = random.Random(seed)
    typed = []
    while awaited := GAME.waiting_for(table.state):
        seat = pick.choice(awaited)
        command = GAME.standin(GAME.view(table.state, seat), GAME.legal(table.state, seat))
        with using(languages[seat]):
            text = GAME.describe(command)
            parsed = GAME.parse(text, table.state, seat)
        typed.append((languages[seat], text))
        table.act(seat, parsed)
    return [event_to_json(e) for e in table.events], typed


@pytest.mark.parametrize("languages", [("de", "de", "de"), ("fr", "fr", "fr"), ("de", "fr", "en")])
def test_a_game_played_in_german_or_french_words_leaves_the_english_log(languages):
    english_log, english_words = _play_by_words(("en", "en", "en"))
    log, typed = _play_by_words(languages)
    assert log == english_log
    assert log[-1]["type"] == "GameEnded"
    # the words really were the seats' own: German or French command words, not the English ones
    for language in set(languages) - {"en"}:
        verbs = {text.split()[0] for lang, text in typed if lang == language}
        assert verbs & LOCAL_VERBS[language], (language, verbs)
        assert not verbs & ENGLISH_ONLY_VERBS, (language, verbs)


LOCAL_VERBS = {
    "de": {"setze", "passe", "fertig", "wirke", "biete", "tausche"},
    "fr": {"passe", "fini", "lance", "propose"},
}
ENGLISH_ONLY_VERBS = {"pass", "done", "cast", "bid", "offer", "accept", "decline", "lay", "take", "fight"}


@pytest.mark.parametrize("language", ["de", "fr"])
def test_the_text_board_fits_80_columns_in_german_and_french(language):
    """Every board of a whole game of four, as each seat and a spectator read it."""
    from games.testing import play_with_standins

    views = []

    def keep(table):
        views.extend(GAME.view(table.state, seat) for seat in (None, 0, 3))

    play_with_standins(GAME, 4, range(4), options={"offers_per_round": 2}, seed=11, check=keep)
    with using(language):
        widest = max(len(line) for v in views[::5] for line in GAME.render_text(v).splitlines())
    assert widest <= 80


def test_the_platform_pages_words_for_the_game_seats_and_phase():
    """What the platform asks a game by name (games.i18n.game_text): the seats' colours for the
    seating line, the summary's phase, the rulebook line and the option's label."""
    from games.i18n import game_text
    from games.zauberschwert.rules import COLOURS

    with using("de"):
        assert [game_text("zauberschwert", c) for c in COLOURS] == ["Rot", "Blau", "Grün", "Gelb"]
        assert game_text("zauberschwert", "over") == "Spielende"
        assert game_text("zauberschwert", "C") == "C"  # the rulebook's phase letters
    with using("fr"):
        assert [game_text("zauberschwert", c) for c in COLOURS] == ["rouge", "bleu", "vert", "jaune"]
        assert "pierres de pouvoir" in game_text("zauberschwert", GAME.rulebook)
        assert "phase E" in game_text("zauberschwert", GAME.options[0].title)
