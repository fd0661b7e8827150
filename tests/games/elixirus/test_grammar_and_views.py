"""The text grammar, help, narration and the renders."""

import random

import pytest

from games.base import ParseError
from games.elixirus import GAME
from games.testing import Table

from .helpers import place, say, table
from .test_concocting import brewing

PLATFORM_WORDS = {"help", "board", "history", "say", "undo", "away", "back", "notices"}


def test_commands_are_short_case_and_accent_insensitive():
    t = table(2)
    assert GAME.parse("PLACE Steal 2", t.state, 0) == {"type": "place", "piece": "steal", "space": 2}
    assert GAME.parse("pl stéal 2", t.state, 0) == {"type": "place", "piece": "steal", "space": 2}
    b = brewing({0: ["red root 2", "crystal"]})
    assert GAME.parse("Put Red Root 2 on Healing", b.state, 0) == {"type": "put", "ing": "red root 2", "to": "healing"}
    assert GAME.parse("put 2 red roots in the recipe book", b.state, 0) == {
        "type": "put",
        "ing": "red root 2",
        "to": "book",
    }
    assert GAME.parse("put crystal bowl", b.state, 0) == {"type": "put", "ing": "crystal", "to": "bowl"}
    # the rulebook calls the blossom variety "flower"
    assert GAME.parse("put yellow flower 1 poison", b.state, 0)["ing"] == "yellow blossom 1"
    # "place" also means "put" while concocting
    assert GAME.parse("place red root 2 on love", b.state, 0)["type"] == "put"


def test_near_misses_get_a_did_you_mean():
    b = brewing({0: ["red root 2"]})
    with pytest.raises(ParseError) as err:
        GAME.parse("put red root 2 on vitalty", b.state, 0)
    assert "Did you mean: vitality" in str(err.value)
    with pytest.raises(ParseError) as err:
        GAME.parse("plase steal 2", table(2).state, 0)
    assert "Did you mean" in str(err.value) and "place" in str(err.value)
    with pytest.raises(ParseError):
        GAME.parse("put red 2 on love", b.state, 0)


def test_steal_names_the_victim_by_colour_or_finds_the_only_holder():
    t = table(3)
    t.state["front"][1] = ["red root 2"]
    assert GAME.parse("steal red root 2", t.state, 0) == {"type": "steal", "ing": "red root 2", "from": 1}
    assert GAME.parse("steal red root 2 from black", t.state, 0) == {"type": "steal", "ing": "red root 2", "from": 1}


def test_every_legal_command_reads_back_through_describe_and_parse():
    rnd = random.Random(3)
    for players in (2, 5):
        t = Table(GAME, players, seed=b"grammar")
        for _ in range(400):
            awaited = GAME.waiting_for(t.state)
            if not awaited:
                break
            seat = rnd.choice(awaited)
            options = GAME.legal(t.state, seat)
            for cmd in options:
                text = GAME.describe(cmd)
                assert GAME.parse(text, t.state, seat) == cmd, text
                first = text.split()[0]
                assert first not in PLATFORM_WORDS and not text.startswith(("-", ">", "From:", "To:"))
            t.act(seat, rnd.choice(options))


def test_help_lists_the_commands_of_the_current_stage_with_examples():
    t = table(2)
    text = GAME.help(t.state, 0)
    assert "place <piece> <space>" in text and "e.g. 'place steal 1'" in text
    assert "not awaited" in GAME.help(t.state, 1)
    b = brewing({0: ["red root 2"]})
    text = GAME.help(b.state, 0)
    assert "put <ingredient>" in text and "put red root 2 on" in text


def test_draw_reveals_its_three_ingredients_only_to_the_drawer_in_narration():
    t = table(2, signpost=0)
    place(t, (0, "draw", 3), (1, "steal", 1), (0, "steal", 2), (1, "swap", 1), (0, "swap", 2), (1, "draw", 1))
    while not (t.state["step"] == "effect" and GAME.waiting_for(t.state) == [0]):
        seat = GAME.waiting_for(t.state)[0]
        t.act(seat, GAME.legal(t.state, seat)[0] if t.state["step"] == "take" else {"type": "skip"})
    event = say(t, 0, "draw")[0]
    drawn = event.data["drawn"]
    names = ["Ann", "Bob"]
    assert all(tok in GAME.narrate(event, names) for tok in drawn)
    public = GAME.narrate(event.as_seen_by(1), names)
    assert public == "Ann draws 3 ingredients from the bag and looks at them."
    say(t, 0, f"keep {drawn[0]}")
    kept = t.events[-1]
    assert drawn[0] in GAME.narrate(kept.as_seen_by(1), names)
    assert drawn[1] not in GAME.narrate(kept.as_seen_by(1), names) or drawn[1] == drawn[0]


def test_every_event_can_be_narrated_in_both_forms_and_renders_fit_80_columns():
    from games.testing import play_random

    t = play_random(GAME, 3, seed=77)
    names = ["Ann", "Bob", "Cy"]
    for event in t.events:
        assert GAME.narrate(event, names)
        assert GAME.narrate(event.as_seen_by(None), names)
    for seat in (0, 1, 2, None):
        v = GAME.view(t.state, seat)
        text = GAME.render_text(v)
        assert max(len(line) for line in text.splitlines()) <= 80
        html = GAME.render_html(v)
        assert html.startswith('<div class="elixirus">') and "<svg" in html and "<script" not in html


def test_render_shows_the_own_secret_concocting_only_to_its_owner():
    b = brewing({0: ["orange root 1"]})
    say(b, 0, "put orange root 1 on vitality")
    mine = GAME.render_text(GAME.view(b.state, 0))
    theirs = GAME.render_text(GAME.view(b.state, 1))
    assert "ora-roo1" in mine and "ora-roo1" not in theirs
    assert "hidden from the others" in mine


def test_timeout_skips_an_effect_and_finishes_an_empty_concocting_only():
    b = brewing({0: ["orange root 1"]})
    assert GAME.timeout(b.state, 0) is None
    assert GAME.timeout(b.state, 1) == {"type": "done"}
    assert GAME.timeout(table(2).state, 0) is None


def test_help_fits_an_80_column_email_in_every_stage():
    from games.testing import play_random

    def check(table):
        for seat in range(table.players):
            assert all(len(line) <= 80 for line in GAME.help(table.state, seat).splitlines())

    play_random(GAME, 3, seed=8, check=check, check_every=3)
