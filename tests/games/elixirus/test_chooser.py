"""The chooser (choices): every legal move once, in two steps (group, then label), the moves
that matter first, a few featured for the turn notice's codes, a board target where there is one."""

from __future__ import annotations

import json

import pytest

from games.base import MAX_FEATURED
from games.elixirus import GAME
from games.testing import canonical, play_random

from .helpers import set_curves, table
from .test_standin import JUNK_T1, brewing


def check_choices(state, seat):
    offered = GAME.choices(state, seat)
    assert sorted(canonical(c.command) for c in offered) == sorted(canonical(c) for c in GAME.legal(state, seat))
    assert sum(c.featured for c in offered) <= MAX_FEATURED
    assert all(c.group and c.label for c in offered)
    pairs = [(c.group, c.label) for c in offered]
    assert len(pairs) == len(set(pairs)), "two moves read the same in the chooser"
    if offered:
        assert any(c.featured for c in offered)
    html = GAME.render_html(GAME.view(state, seat))
    assert all(f'id="{c.target}"' in html for c in offered if c.target)


@pytest.mark.parametrize("players", (2, 3, 4, 5))
def test_every_legal_move_is_offered_once_and_readable_at_every_table_size(players):
    def check(t):
        for seat in GAME.waiting_for(t.state):
            check_choices(json.loads(canonical(t.state)), seat)

    play_random(GAME, players, seed=4200 + players, check=check, check_every=3)


def test_in_stage_a_the_space_where_an_ingredient_fits_comes_first_and_few_are_featured():
    t = table(2, tables=["T1", "T2"])
    set_curves(t, "steal", JUNK_T1)
    set_curves(t, "draw", ["purple seed 1", "blue berry 1", "green leaf 1", "purple stem 1"])
    set_curves(t, "swap", ["blue seed 2", "red root 3", "green stem 2", "purple berry 2"])
    offered = GAME.choices(t.state, 0)
    assert offered[0].group == "Swap piece" and offered[0].target == f"space-swap-{offered[0].command['space']}"
    assert "red root 3 for your recipe book" == offered[0].note
    assert 1 <= sum(c.featured for c in offered) <= 6 < len(offered)


def test_in_concocting_the_placements_that_score_come_first_and_the_poison_flask_last():
    t = brewing({0: ["red root 3", "orange seed 2", "green berry 1"]})
    offered = GAME.choices(t.state, 0)
    first = offered[0]
    assert first.command == {"type": "put", "ing": "red root 3", "to": "book"} and first.note.startswith("scores 6")
    assert first.group == "red root 3" and first.label == "in your recipe book" and first.target == "book-0"
    kinds = [c.command["to"] for c in offered if c.command["type"] == "put"]
    assert kinds.index("poison") > max(i for i, k in enumerate(kinds) if k in ("book", "vitality"))
    # green berry 1 fits nowhere: its bowl and poison moves are featured, the others' poison moves are not
    featured = {(c.command["ing"], c.command["to"]) for c in offered if c.featured and c.command["type"] == "put"}
    assert ("green berry 1", "bowl") in featured and ("red root 3", "poison") not in featured
