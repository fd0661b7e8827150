"""Elfenwizards: what players type, what they see."""

from __future__ import annotations

import pytest

from games.base import ParseError
from games.elfenwizards import GAME
from games.testing import Table, play_random

from .helpers import BLUE, GREEN, RED, classic, stage

PLATFORM_WORDS = ("help", "board", "history", "say", "undo", "away", "back", "notices")


@pytest.mark.parametrize(
    "text, command",
    [
        ("place 6 on druid", {"type": "place", "die": 6, "space": "druid"}),
        ("Place 6 Druids", {"type": "place", "die": 6, "space": "druid"}),
        ("place 2 minor", {"type": "place", "die": 2, "space": "minor"}),
        ("PLACE 4 on grey", {"type": "place", "die": 4, "space": "gray"}),
        ("place 3 n", {"type": "place", "die": 3, "space": "necromancer"}),
        ("place 1 on the wizard space", {"type": "place", "die": 1, "space": "wizard"}),
        ("done", {"type": "done"}),
        ("pass", {"type": "pass"}),
        ("reroll", {"type": "reroll"}),
        ("recover 6 2", {"type": "recover", "dice": [6, 2]}),
        ("recover 2, 6", {"type": "recover", "dice": [6, 2]}),
        ("recover none", {"type": "recover", "dice": []}),
        ("take back 3 1", {"type": "takeback", "dice": [3, 1]}),
        ("takeback none", {"type": "takeback", "dice": []}),
        ("remove 4", {"type": "remove", "dice": [4], "from": []}),  # red has no token to lose
        ("claim s2", {"type": "claim", "space": "S2"}),
        ("demote to w3", {"type": "demote", "to": "W3"}),
        ("retire from supply to W2", {"type": "retire", "source": "supply", "to": "W2"}),
        ("retire from the Minor Spells space to w1", {"type": "retire", "source": "space", "to": "W1"}),
    ],
)
def test_commands_are_short_and_case_insensitive(text, command):
    t = classic(Table(GAME, 3))
    assert GAME.parse(text, t.state, RED) == command
    assert GAME.parse(GAME.describe(command), t.state, RED) == command


@pytest.mark.parametrize(
    "text, wizard",
    [
        ("cast 5 on red3", "red3"),
        ("cast 5 on Red 3", "red3"),
        ("Cast minor for N2", "red3"),  # the wizard standing on N2
        ("cast m n2", "red3"),
        ("cast 2 on W2 blue", "blue7"),  # the only blue wizard on Wizard space W2
    ],
)
def test_cast_names_a_wizard_by_name_or_by_its_space(text, wizard):
    t = classic(Table(GAME, 3))
    assert GAME.parse(text, t.state, RED)["wizard"] == wizard


def test_a_near_miss_gets_a_did_you_mean():
    t = classic(Table(GAME, 3))
    with pytest.raises(ParseError) as err:
        GAME.parse("plcae 6 on druid", t.state, RED)
    assert "place" in err.value.suggestions
    with pytest.raises(ParseError) as err:
        GAME.parse("place 6 on sorceror", t.state, RED)
    assert "sorcerer" in err.value.suggestions
    assert GAME.parse("cast 5 on W1 red", t.state, RED)["wizard"] == "red5"


def test_ambiguous_wizard_space_asks_which_wizard():
    t = classic(Table(GAME, 3))
    with pytest.raises(ParseError) as err:
        GAME.parse("cast 5 on W2", t.state, RED)  # red6, green6, blue7 stand on W2
    assert "Several wizards" in str(err.value)
    with pytest.raises(ParseError):
        GAME.parse("cast 7 on red3", t.state, RED)


def test_grammar_does_not_use_the_platforms_words():
    from games.elfenwizards.grammar import VERBS

    assert not set(VERBS) & set(PLATFORM_WORDS)
    t = play_random(GAME, 3, seed=5)
    for seat in range(3):
        for line in GAME.help(t.state, seat).splitlines():
            assert not line.startswith(("-", ">", "From:", "To:", "Sent:", "Subject:"))


@pytest.mark.parametrize(
    "phase, word",
    [
        ("cast1", "done"),
        ("cast2", "reroll"),
        ("compete", "cast 5 on red3"),
        ("recover6", "take back"),
        ("gray9", "remove 4"),
        ("vacant", "claim"),
        ("demote", "demote to W3"),
    ],
)
def test_help_shows_the_commands_of_the_current_phase_with_examples(phase, word):
    t = stage(phase)
    assert word in GAME.help(t.state, RED)


def test_text_render_fits_80_columns_in_every_phase_and_html_has_an_svg_board():
    t = Table(GAME, 5)
    phases = set()
    steps = 0
    while GAME.waiting_for(t.state) and steps < 2000:
        v = GAME.view(t.state, 0)
        if t.state["phase"] not in phases:
            phases.add(t.state["phase"])
            text = GAME.render_text(v)
            assert max(len(line) for line in text.splitlines()) <= 80
            page = GAME.render_html(v)
            assert page.startswith('<div class="elfenwizards">') and "<svg" in page and "<script" not in page
        seat = GAME.waiting_for(t.state)[0]
        t.act(seat, GAME.legal(t.state, seat)[-1])
        steps += 1
    assert {"cast1", "cast2", "compete"} <= phases
    text = GAME.render_text(GAME.view(t.state, None))
    assert "Master of Seals" in text and max(len(line) for line in text.splitlines()) <= 80


def test_every_event_is_narrated_in_words():
    t = play_random(GAME, 4, seed=9)
    names = ["Ann", "Bob", "Cid", "Dee"]
    seen = set()
    for e in t.events:
        text = GAME.narrate(e, names)
        assert text and text != e.type, e.type
        seen.add(e.type)
    assert {"GameStarted", "DiceRolled", "DiePlaced", "SpellCast", "TitlesAwarded", "TurnScored", "GameEnded"} <= seen


def test_there_is_nothing_secret_every_seat_sees_what_a_spectator_sees():
    t = play_random(GAME, 3, seed=3)
    public = GAME.view(t.state, None)
    for seat in range(3):
        mine = GAME.view(t.state, seat)
        assert {k: v for k, v in mine.items() if k not in ("seat", "you")} == {
            k: v for k, v in public.items() if k not in ("seat", "you")
        }
    assert all(e.visible_to is None for e in t.events)


def test_a_turn_of_competition_played_by_typed_commands():
    """The rulebook's example, typed as players would type it in their mail."""
    t = stage(
        "compete",
        dragon=RED,
        layout={"blue1": "D1", "red1": "D2", "green1": "W1"},
        major={"druid": [[RED, 6], [BLUE, 5], [BLUE, 6]]},
    )
    t.say(RED, "Cast 6 on D2")
    t.say(RED, "cast minor for red1")
    t.say(GREEN, "PASS")
    t.say(BLUE, "cast 5 on blue 1")
    t.say(BLUE, "cast 6 on D1")
    t.say(RED, "pass")
    events = t.say(BLUE, "pass")
    gd = next(e for e in events if e.type == "TitlesAwarded").data["results"][0]
    assert gd["won"] == [["blue1", "GD"]]
    assert [c[1] for c in gd["candidates"]] == [11, 7]
