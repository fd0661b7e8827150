"""Preparation and stage A (using apprentices), as the rulebook describes them."""

from collections import Counter

import pytest

from games.elixirus import GAME
from games.elixirus.data_model import ALL_TOKENS, COLOURS, CRYSTAL, INGREDIENTS, VARIETIES
from games.testing import Table

from .helpers import place, rejected, table


def test_game_contents_114_ingredients_with_6_crystals():
    assert len(ALL_TOKENS) == 114
    assert Counter(ALL_TOKENS)[CRYSTAL] == 6
    plain = [t for t in ALL_TOKENS if t != CRYSTAL]
    assert len(set(plain)) == 108
    assert Counter(INGREDIENTS[t][0] for t in plain) == {c: 18 for c in COLOURS}
    assert Counter(INGREDIENTS[t][1] for t in plain) == {v: 18 for v in VARIETIES}
    assert {INGREDIENTS[t][2] for t in plain} == {1, 2, 3}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_flips_players_plus_one_adjacent_pieces_with_four_ingredients_each(players):
    t = Table(GAME, players, seed=b"setup")
    s = t.state
    face_up = [p for p in range(6) if s["up"][p]]
    assert len(face_up) == min(players + 1, 6)
    # adjacent: starting at the signpost, the face-up pieces follow one another clockwise
    assert [(s["signpost"] + i) % 6 for i in range(len(face_up))] == sorted(
        face_up, key=lambda p: (p - s["signpost"]) % 6
    )
    for p in range(6):
        filled = [c for c in s["curves"][p] if c is not None]
        assert len(filled) == (4 if s["up"][p] else 0)
    assert len(s["bag"]) == 114 - 4 * len(face_up)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_signpost_on_the_first_face_up_piece_clockwise(players):
    s = Table(GAME, players, seed=b"sign").state
    assert s["up"][s["signpost"]] and not s["up"][(s["signpost"] - 1) % 6]


def test_five_players_all_six_pieces_face_up_signpost_on_a_random_piece():
    signposts = {Table(GAME, 5, seed=f"five{i}".encode()).state["signpost"] for i in range(30)}
    assert len(signposts) > 1
    assert all(Table(GAME, 5, seed=b"five").state["up"])


def test_each_player_takes_a_different_concoction_table_and_three_apprentices():
    s = Table(GAME, 5, seed=b"tables").state
    assert sorted(s["tables"]) == ["T1", "T2", "T3", "T4", "T5"]
    assert s["left"] == [3] * 5


def test_face_down_pieces_are_unknown_to_everyone():
    t = Table(GAME, 2, seed=b"hidden")
    laid = [e for e in t.events if e.type == "ForestLaid"][0]
    assert laid.visible_to == ()
    assert sum(p is None for p in laid.public["circle"]) == 3
    v = GAME.view(t.state, 0)
    assert [f["piece"] is None for f in v["forest"]] == [not u for u in t.state["up"]]


def test_the_starting_marker_holder_places_first_then_clockwise_one_at_a_time():
    t = table(3, start=1)
    order = []
    for _ in range(9):
        seat = GAME.waiting_for(t.state)[0]
        order.append(seat)
        t.act(seat, GAME.legal(t.state, seat)[0])
    assert order == [1, 2, 0] * 3
    assert t.state["phase"] == "collect"


def test_only_one_apprentice_may_occupy_a_space():
    t = table(2)
    place(t, (0, "steal", 2))
    assert "taken" in rejected(t, 1, {"type": "place", "piece": "steal", "space": 2})


def test_apprentices_go_only_on_face_up_pieces():
    t = table(2)  # steal, swap, draw face up; replace, dance, collect face down
    assert "face down" in rejected(t, 0, {"type": "place", "piece": "dance", "space": 1})
    assert {c["piece"] for c in GAME.legal(t.state, 0)} == {"steal", "swap", "draw"}


def test_placing_out_of_turn_is_rejected():
    t = table(2, start=0)
    assert rejected(t, 1, {"type": "place", "piece": "steal", "space": 1})
    assert GAME.legal(t.state, 1) == []


def test_spaces_are_numbered_one_to_three():
    t = table(2)
    assert "spaces 1, 2 and 3" in rejected(t, 0, {"type": "place", "piece": "steal", "space": 4})
