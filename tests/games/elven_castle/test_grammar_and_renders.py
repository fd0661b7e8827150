"""Elven Castle: the text grammar (forgiving, 'did you mean'), help, and the two renders."""

from __future__ import annotations

import re

import pytest

from games.base import ParseError, Rejected
from games.elven_castle import GAME
from games.testing import play_random

from .helpers import given, table, table1


def test_parse_full_command():
    t = table(2)
    assert GAME.parse("place bridge c3 east level 0", t.state, 0) == {
        "type": "place",
        "piece": "bridge",
        "x": 2,
        "y": 2,
        "z": 0,
        "dir": "e",
    }


def test_parse_is_short_case_insensitive_and_forgiving():
    t = table(2)
    want = {"type": "place", "piece": "window", "x": 3, "y": 4, "z": 0, "dir": "n"}
    for text in (
        "Window D5 North",
        "window d5 n",
        "WIN d5n",
        "put window d5 north level 0",
        "window d5 n 0",
        "window d5 n l0",
        "window, d5, n",
        "  wíndow  d5  N  ",
    ):
        assert GAME.parse(text, t.state, 0) == want, text


def test_parse_west_or_south_symmetric_piece_is_the_same_piece_from_its_other_end():
    t = table(2)
    assert GAME.parse("bridge e3 west", t.state, 0) == GAME.parse("bridge c3 east", t.state, 0)
    assert GAME.parse("portal c5 south", t.state, 0) == GAME.parse("portal c2 north", t.state, 0)
    # the balcony is not symmetric: its overhang says which way it points
    assert GAME.parse("balcony e3 west", t.state, 0)["dir"] == "w"


def test_parse_infers_the_level_when_only_one_fits():
    t = table(2)
    given(t, 0, "place bridge a1 north")
    given(t, 1, "place bridge c1 north")
    assert GAME.parse("bridge a2 east", t.state, 0)["z"] == 1


def test_parse_asks_for_the_level_when_several_fit():
    t = table(2)
    for seat, text in (
        (0, "bridge a1 east"),
        (1, "bridge a3 east"),
        (0, "bridge d1 east"),
        (1, "bridge d3 east"),
        (0, "bridge b1 north 1"),
        (1, "bridge d1 north 1"),
    ):
        given(t, seat, text)
    # b2 east fits on the ground under the two arches, and on top of them at level 2
    with pytest.raises(ParseError, match="level 0 or 2"):
        GAME.parse("bridge b2 east", t.state, 0)
    assert GAME.parse("bridge b2 east level 2", t.state, 0)["z"] == 2


def test_parse_did_you_mean_on_a_near_miss():
    t = table(2)
    with pytest.raises(ParseError, match="Did you mean: bridge"):
        GAME.parse("brigde c3 east", t.state, 0)
    with pytest.raises(ParseError, match="Did you mean: north"):
        GAME.parse("bridge c3 nroth", t.state, 0)
    with pytest.raises(ParseError, match="which way"):
        GAME.parse("bridge c3", t.state, 0)
    with pytest.raises(ParseError, match="Say where"):
        GAME.parse("bridge", t.state, 0)
    with pytest.raises(ParseError, match="a1 to i9"):
        GAME.parse("bridge j3 east", t.state, 0)


def test_a_placement_the_rules_forbid_is_rejected_with_the_reason():
    t = table(2)
    first = t.state["turn"]
    with pytest.raises(Rejected, match="out of the board"):
        t.say(first, "portal h1 east")


def test_staircase_commands_parse_and_describe():
    t = table(2)
    for text, cmd in (
        ("make staircase", {"type": "staircase"}),
        ("no staircase", {"type": "decline"}),
        ("yes", {"type": "staircase"}),
        ("no", {"type": "decline"}),
        ("staircase", {"type": "staircase"}),
        ("pass", {"type": "decline"}),
    ):
        assert GAME.parse(text, t.state, 0) == cmd
        assert GAME.parse(GAME.describe(cmd), t.state, 0) == cmd


def test_grammar_avoids_the_platform_words():
    t = table(2)
    for word in ("help", "board", "history", "say", "undo", "away", "back", "notices"):
        with pytest.raises(ParseError):
            GAME.parse(word, t.state, 0)


def test_every_legal_command_describes_to_a_line_that_parses_back():
    t = table(3, {"scenario": "legacy", "staircase": True})
    seat = t.state["turn"]
    for cmd in GAME.legal(t.state, seat):
        line = GAME.describe(cmd)
        assert not line.startswith(("-", ">", "From:", "To:", "Sent:", "Subject:"))
        assert GAME.parse(line, t.state, seat) == cmd


def test_help_lists_the_commands_with_examples_for_the_phase():
    t = table1(2, {"staircase": True})
    seat = t.state["turn"]
    text = GAME.help(t.state, seat)
    assert "place bridge c3 east level 0" in text and "possible placements" in text
    example = [line.strip() for line in text.splitlines() if line.startswith("  place ")][-1]
    GAME.parse(example, t.state, seat)
    given(t, 0, "place bridge a1 north")
    given(t, 1, "place bridge c1 north")
    t.state["scores"][0] = 7
    given(t, 0, "place bridge a2 east 1")
    assert "make staircase" in GAME.help(t.state, 0)


def test_render_text_fits_80_columns_and_its_coordinates_are_commands():
    for n, opts in ((2, {}), (4, {"scenario": "library", "staircase": True, "penalties": True})):
        t = play_random(GAME, n, opts, seed=5)
        for seat in (None, 0):
            text = GAME.render_text(GAME.view(t.state, seat))
            assert max(len(line) for line in text.splitlines()) <= 80
            assert "Game over" in text
        for line in text.splitlines():
            m = re.match(r" #(\d+)\s+\S (\w+)\s+([a-i][1-9]) (\w+)\s+level (\d+)", line)
            if m:
                cmd = GAME.parse(f"place {m.group(2)} {m.group(3)} {m.group(4)} level {m.group(5)}", t.state, 0)
                p = t.state["pieces"][int(m.group(1))]
                assert (cmd["x"], cmd["y"], cmd["z"], cmd["dir"]) == (p["x"], p["y"], p["z"], p["dir"])


def test_render_text_shows_the_map_with_levels_and_owners():
    t = table(2)
    given(t, 0, "place window c3 east")
    text = GAME.render_text(GAME.view(t.state, 1))
    row3 = [line for line in text.splitlines() if line.startswith(" 3 ")][0]
    assert row3.split()[1:6] == [".", ".", "R2.0", "R2.0", "R2.0"]


def test_render_html_is_an_inline_svg_without_scripts():
    t = play_random(GAME, 3, {"scenario": "altar"}, seed=2)
    html = GAME.render_html(GAME.view(t.state, None))
    assert (
        html.count("<svg") == 3
        and "<script" not in html
        and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    )
    assert "#e00000" in html  # the altar's red frame


def test_narrate_every_event():
    t = play_random(GAME, 4, {"staircase": True, "penalties": True, "scenario": "library"}, seed=1)
    names = ["Ann", "Bob", "Cy", "Di"]
    texts = [GAME.narrate(e, names) for e in t.events]
    assert texts[0].startswith("A game of Elven Castle for 4 players")
    assert any("placed a" in x for x in texts) and "the game is over" in texts[-1]
