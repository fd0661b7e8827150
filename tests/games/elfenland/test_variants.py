"""The rulebook's variants: Home Cities, Lakes, Boatmen (and the Elfenroads section we do not play)."""

from __future__ import annotations

import pytest

from games.base import Rejected
from games.elfenland import GAME
from games.elfenland import board as B

from .common import check, given, table


def move(route, to, *cards):
    return {"type": "move", "route": route, "to": to, "cards": sorted(cards)}


# --- Home Cities --------------------------------------------------------------------------


def test_home_cities_one_secret_city_card_each_from_the_twelve():
    t = table(6, home_cities=True)
    homes = t.state["home"]
    assert len(set(homes)) == 6 and set(homes) <= set(B.TOWN_CARDS)
    dealt = [e for e in t.events if e.type == "HomeCityDealt"]
    assert all(e.visible_to == (e.data["seat"],) and e.public == {"seat": e.data["seat"]} for e in dealt)
    for seat in range(6):
        assert GAME.view(t.state, seat)["home"] == homes[seat]
    assert GAME.view(t.state, None)["home"] is None


def test_no_city_cards_without_the_variant():
    t = table(3)
    assert t.state["home"] == [None] * 3
    assert not any(e.type == "HomeCityDealt" for e in t.events)


def _end_game(t):
    t.state["round"] = 4
    while t.state["phase"] != "over":
        t.act(t.state["turn"], {"type": "end"})


def test_shortest_route_distances():
    assert B.distance("kihromah", "yttar") == 4
    assert B.distance("elvenhold", "strykhaven") == 1  # the lake counts as a route
    assert B.distance("virst", "jxara") == 1
    assert all(B.distance(a, a) == 0 for a in B.TOWN_IDS)
    assert all(B.distance(a, b) == B.distance(b, a) for a in B.TOWN_IDS for b in B.TOWN_IDS)


def test_home_cities_one_town_piece_removed_per_route_away():
    t = given(
        2, phase="move", turn=0, hands={0: ["raft"], 1: ["raft"]}, elf={0: "kihromah", 1: "yttar"}, home_cities=True
    )
    t.state["home"] = ["yttar", "yttar"]
    t.state["got"][0] = [[town, 1] for town in ["lapphalya", "feodor", "dag_amura", "kihromah", "jxara", "virst"]]
    t.state["got"][1] = [[town, 1] for town in ["usselen", "yttar"]]
    _end_game(t)
    reveal = next(e for e in t.events if e.type == "HomeCitiesRevealed")
    assert reveal.reveals and reveal.data == {"homes": ["yttar", "yttar"], "distances": [4, 0]}
    res = GAME.result(t.state)
    assert res.scores == [2, 2]
    # tie: the player closest to the city on their City Card wins
    assert res.ranking() == [[1], [0]]
    sheet = [line for line in GAME.score_sheet(t.state) if line.label == "Home City"]
    assert [(line.seat, line.points) for line in sheet] == [(0, -4), (1, 0)]
    check(t)


def test_home_cities_cannot_remove_more_pieces_than_collected():
    t = given(
        2, phase="move", turn=0, hands={0: ["raft"], 1: ["raft"]}, elf={0: "kihromah", 1: "elvenhold"}, home_cities=True
    )
    t.state["home"] = ["yttar", "beata"]
    t.state["got"][0] = [["dag_amura", 1]]
    _end_game(t)
    res = GAME.result(t.state)
    assert res.scores == [0, 0] and res.detail["penalties"] == [1, 0]
    assert res.ranking() == [[1], [0]]  # Beata is 1 route from Elvenhold, Yttar 4 from Kihromah


def test_home_cities_equal_distance_then_most_cards():
    t = given(2, phase="move", turn=0, hands={0: ["raft"], 1: ["raft", "raft"]}, home_cities=True)
    t.state["home"] = ["beata", "strykhaven"]
    _end_game(t)
    assert GAME.result(t.state).ranking() == [[1], [0]]


def test_home_city_stays_secret_until_the_end():
    t = table(3, home_cities=True)
    for viewer in (None, 1, 2):
        assert GAME.view(t.state, viewer)["homes"] is None
    check(t)


# --- Lakes --------------------------------------------------------------------------------


def test_lakes_variant_mare_nebulae_for_one_raft():
    t = given(2, phase="move", turn=0, elf={0: "yttar"}, hands={0: ["raft", "raft"]}, lakes=True)
    t.act(0, move("grangor-yttar:lake", "grangor", "raft"))
    t.act(0, move("grangor-parundia:lake", "parundia", "raft"))
    assert t.state["elf"][0] == "parundia"


def test_lakes_variant_leaves_mare_magnum_at_two_rafts():
    t = given(2, phase="move", turn=0, hands={0: ["raft", "raft"]}, lakes=True)
    with pytest.raises(Rejected, match="Mare Magnum takes 2"):
        t.act(0, move("elvenhold-virst:lake", "virst", "raft"))


# --- Boatmen ------------------------------------------------------------------------------


def test_boatmen_any_three_cards_across_mare_nebulae():
    t = given(
        2, phase="move", turn=0, elf={0: "yttar"}, hands={0: ["dragon", "unicorn", "unicorn", "raft"]}, boatmen=True
    )
    events = t.act(0, move("parundia-yttar:lake", "parundia", "dragon", "unicorn", "unicorn"))
    assert events[0].data["how"] == "boatmen" and t.state["elf"][0] == "parundia"


def test_no_boatmen_on_mare_magnum():
    t = given(2, phase="move", turn=0, hands={0: ["dragon", "unicorn", "unicorn"]}, boatmen=True)
    with pytest.raises(Rejected, match="no caravans on lakes"):
        t.act(0, move("elvenhold-virst:lake", "virst", "dragon", "unicorn", "unicorn"))


def test_boatmen_and_lakes_together():
    t = given(
        2,
        phase="move",
        turn=0,
        elf={0: "yttar"},
        hands={0: ["raft", "dragon", "dragon", "dragon"]},
        boatmen=True,
        lakes=True,
    )
    legal = [c for c in GAME.legal(t.state, 0) if c["type"] == "move" and c["route"] == "grangor-yttar:lake"]
    assert move("grangor-yttar:lake", "grangor", "raft") in legal
    assert move("grangor-yttar:lake", "grangor", "dragon", "dragon", "dragon") in legal
    assert move("grangor-yttar:lake", "grangor", "dragon", "dragon", "raft") in legal


# --- Elfenroads on the Elfenland board ----------------------------------------------------


def test_elfenroads_rules_are_not_offered():
    # The section needs Elfenroads rules the rulebook does not contain (see RULINGS.md).
    assert {o.name for o in GAME.options} == {"home_cities", "lakes", "boatmen"}
    with pytest.raises(Rejected, match="no option"):
        GAME.resolve_options(3, {"elfenroads": True})
