"""The 80-column board of the mails: never wider, never missing anything the view shows."""

from __future__ import annotations

import pytest

from games.elixirus import GAME
from games.elixirus.rules import SEAT_COLOURS
from games.elixirus.view import short, text_lines
from games.testing import play_random


def shown_tokens(v):
    """Every ingredient the view shows: the forest's curves, each table (or one's own secret
    concocting), the bowls, what lies in front of each seat, what the seat drew."""
    toks = [t for f in v["forest"] if f["up"] for t in f["curves"] if t is not None]
    for s, tab in enumerate(v["tables"]):
        shown = v["mine"] if s == v["seat"] and v["mine"] is not None else tab
        toks += shown["front"] + shown["poison"] + [t for t in shown["book"] if t]
        toks += [t for lst in shown["flasks"].values() for t in lst] + ([shown["bowl"]] if shown["bowl"] else [])
    return toks


def check_text(v):
    text = GAME.render_text(v)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    # Wrapping only moves words to the next line: every character of every logical line stays.
    assert "".join(text.split()) == "".join("".join(text_lines(v)).split())
    flat = " ".join(text.split())
    for tok in shown_tokens(v):
        assert short(tok) in flat or tok in flat, f"{tok} is not in the text"
    for s, tab in enumerate(v["tables"]):
        assert f"{SEAT_COLOURS[s].upper()}" in flat and f"score {sum(tab['score'])}" in flat
    for f in v["forest"]:
        if f["up"]:
            assert (f["piece"] or "?").capitalize() in flat


@pytest.mark.parametrize("players", (2, 3, 4, 5))
def test_the_text_board_fits_80_columns_and_keeps_everything_for_every_seat_and_the_spectator(players):
    def check(table):
        for seat in [*range(players), None]:
            check_text(GAME.view(table.state, seat))

    for seed in range(2):
        play_random(GAME, players, seed=9000 + 10 * players + seed, check=check, check_every=2)


def test_a_long_line_wraps_at_a_space_with_an_indent_and_a_word_longer_than_a_line_is_cut_not_lost():
    from games.elixirus.view import _wrap

    line = "poison (-40): " + " ".join(["red-roo2"] * 12)
    wrapped = _wrap(line).splitlines()
    assert all(len(part) <= 80 for part in wrapped) and wrapped[1].startswith("      red-roo2")
    assert "".join("".join(wrapped).split()) == "".join(line.split())
    word = "x" * 100
    assert "".join(_wrap(word).split()) == word
