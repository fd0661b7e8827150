"""The chooser (grammar.choices): the legal moves in two steps (what, then where or how), the
few worth a numbered code in a turn notice featured, and each tied to the element of the board
drawing where it is made. A game can be played by mail with the featured codes alone."""

from __future__ import annotations

import random
import re

import pytest

from games.base import MAX_FEATURED
from games.elfenland import GAME
from games.elfenland import board as B
from games.elfenland import rules as R
from games.testing import Table, canonical, winners

from .common import check, given, table

ROAD_EL_LA = "elvenhold-lapphalya:road"


def offered(t, seat=None):
    return GAME.choices(t.state, t.state["turn"] if seat is None else seat)


def featured(t, seat=None):
    return [c for c in offered(t, seat) if c.featured]


def by_command(choices):
    return {canonical(c.command): c for c in choices}


# --- each phase -------------------------------------------------------------------------------


def test_drawing_offers_each_face_up_counter_and_the_pile_all_featured():
    t = table(3)
    choices = offered(t, 0)
    assert all(c.featured for c in choices)
    takes = [c for c in choices if c.command["type"] == "take"]
    assert {c.group for c in takes} == {"Take a face-up counter"}
    assert {c.target for c in takes} == {f"pool-{c}" for c in t.state["pool"]}
    (blind,) = [c for c in choices if c.command == {"type": "draw"}]
    assert blind.group == "Draw blind" and blind.target == "pile"


def test_placing_groups_by_counter_then_route_with_the_plan_first_and_pass_featured():
    t = given(3, phase="place", turn=0, up={0: ["giant_pig"]}, down={0: ["dragon"]}, hands={0: ["giant_pig"] * 3})
    choices = offered(t)
    first = choices[0]
    assert first.featured and first.command["type"] == "place" and first.command["counter"] == "giant_pig"
    assert first.group == "Place Giant Pig" and first.label.startswith("on ") and first.target.startswith("route-")
    assert "Place your face-down Dragon" in {c.group for c in choices}
    (passing,) = [c for c in choices if c.command == {"type": "pass"}]
    assert passing.featured and passing.group == "Pass"
    assert 2 <= sum(c.featured for c in choices) <= MAX_FEATURED < len(choices)


def test_trouble_is_its_own_group_beside_the_counter_it_joins():
    t = given(3, phase="place", turn=0, up={0: []}, down={0: []}, board={ROAD_EL_LA: "giant_pig"})
    (trouble,) = [c for c in offered(t) if c.command["type"] == "trouble"]
    assert trouble.group == "Place your Trouble counter"
    assert trouble.label == "on Elvenhold–Lapphalya (open road), next to the pig"
    assert trouble.target == "route-elvenhold-lapphalya-road"


def test_moving_groups_by_destination_the_counters_payment_featured_not_every_caravan():
    t = given(
        3, phase="move", turn=0, hands={0: ["giant_pig", "raft", "unicorn", "dragon"]}, board={ROAD_EL_LA: "giant_pig"}
    )
    choices = offered(t)
    to_lapphalya = [c for c in choices if c.group == "Move to Lapphalya"]
    assert len(to_lapphalya) > 1  # the pig, and caravans of any three cards
    assert [c.label for c in to_lapphalya if c.featured] == ["with pig"]
    assert all(c.target == "town-lapphalya" for c in to_lapphalya)
    assert choices[0].group == "Move to Lapphalya" and "collects a town piece" in choices[0].note
    (end,) = [c for c in choices if c.command == {"type": "end"}]
    assert end.featured and end.group == "End the move"


def test_a_town_joined_by_road_and_river_gets_a_group_for_each():
    t = given(
        3,
        phase="move",
        turn=0,
        elf={0: "jxara"},
        hands={0: ["raft", "raft", "giant_pig"]},
        board={"jxara-virst:road": "giant_pig"},
    )
    groups = {c.group for c in offered(t)}
    assert {"Move to Virst by road", "Move to Virst by river"} <= groups
    river = [c for c in offered(t) if c.group == "Move to Virst by river"]
    assert [c.label for c in river] == ["with raft raft (up river)"]


def test_discarding_and_keeping_offer_every_card_or_counter_featured():
    t = given(
        3,
        phase="move",
        turn=0,
        up={0: ["dragon"]},
        down={0: ["giant_pig"]},
        hands={0: ["dragon", "dragon", "magic_cloud", "magic_cloud", "raft"]},
    )
    t.act(0, {"type": "end"})
    choices = offered(t, 0)
    assert {c.target for c in choices} == {"card-dragon", "card-magic_cloud", "card-raft"}
    assert all(c.featured and c.group == "Discard a card" for c in choices)
    assert choices[0].command["card"] != "dragon"  # the stand-in keeps the cards its counter needs
    st = t.state
    st["phase"], st["keep_await"], st["keep"], st["turn"] = "keep", [0], [None] * 3, None
    keep = offered(t, 0)
    assert {c.label for c in keep} == {"Dragon", "your face-down Giant Pig"}  # one must be kept (rules 2)
    del st["rules"]  # a game set up before rules version 2 may keep none
    assert {c.label for c in offered(t, 0)} == {"Dragon", "your face-down Giant Pig", "none (keep no counter)"}
    assert all(c.featured for c in keep)


def test_a_seat_not_awaited_is_offered_nothing():
    t = table(3)
    assert GAME.choices(t.state, 1) == []


# --- targets are on the board -----------------------------------------------------------------


def _ids(markup):
    return set(re.findall(r'\bid="([^"]+)"', markup))


def test_every_target_is_an_element_of_the_picture_and_of_both_web_drawings():
    rnd = random.Random(3)
    checked = 0
    for players, options in ((3, {}), (5, {"home_cities": True, "boatmen": True})):
        tb = Table(GAME, players, options, seed=b"targets")
        while GAME.waiting_for(tb.state):
            seat = GAME.waiting_for(tb.state)[0]
            choices = GAME.choices(tb.state, seat)
            targets = {c.target for c in choices if c.target}
            if targets:
                v = GAME.view(tb.state, seat)
                html = GAME.render_html(v, {t: f"/go/{t}" for t in targets})
                assert targets <= _ids(GAME.render_svg(v))
                assert targets <= _ids(html) and {f"n-{t}" for t in targets} <= _ids(html)
                checked += 1
            tb.act(seat, rnd.choice(choices).command)
    assert checked > 100


# --- playable by mail with the featured codes alone -------------------------------------------


def _sensible(state, seat, choices):
    """What the featured codes must always include."""
    codes = [c for c in choices if c.featured]
    assert 1 <= len(codes) <= MAX_FEATURED
    legal = GAME.legal(state, seat)
    for ending in ({"type": "pass"}, {"type": "end"}):
        if ending in legal:
            assert ending in [c.command for c in codes], f"{ending} not featured"
    mine = {t for t, _ in state["got"][seat]}
    if state["phase"] == "move" and any(
        c["type"] == "move" and c["to"] in B.PIECE_TOWNS and c["to"] not in mine for c in legal
    ):
        assert any(c.command.get("to") in B.PIECE_TOWNS and c.command.get("to") not in mine for c in codes), (
            "a town piece can be collected, but no featured move collects one"
        )
    if state["phase"] == "place":
        here = state["elf"][seat]
        hand = state["hands"][seat]
        payable = [
            c
            for c in legal
            if c["type"] == "place"
            and here in (B.ROUTES[c["route"]]["a"], B.ROUTES[c["route"]]["b"])
            and B.ROUTES[c["route"]]["b" if B.ROUTES[c["route"]]["a"] == here else "a"] not in mine
            and hand[c["counter"]] >= B.counter_cost(c["counter"], c["route"])
        ]
        if payable:
            assert any(c.command["type"] == "place" for c in codes), "a payable placement, none featured"


@pytest.mark.parametrize("options", [{}, {"home_cities": True}], ids=["base", "home_cities"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_whole_game_played_with_featured_codes_only(players, options):
    """Every seat picks at random among the featured codes only, in every phase: the game
    reaches its end, and each decision offered the sensible ways on (and pass / end)."""
    rnd = random.Random(players)
    tb = Table(GAME, players, options, seed=f"codes-{players}".encode())
    steps = 0
    while GAME.waiting_for(tb.state):
        seat = rnd.choice(GAME.waiting_for(tb.state))
        choices = GAME.choices(tb.state, seat)
        _sensible(tb.state, seat, choices)
        tb.act(seat, rnd.choice([c for c in choices if c.featured]).command)
        steps += 1
        if steps % 25 == 0:
            check(tb)
    assert GAME.result(tb.state) is not None


def test_the_first_code_each_time_beats_random_players():
    """A player who always sends code 1 (the chooser's recommendation) against random players:
    it wins at least 7 of 8 four-player games (a fair share wins 2)."""
    wins = 0.0
    for game in range(8):
        rnd = random.Random(game)
        tb = Table(GAME, 4, {}, seed=f"first-{game}".encode())
        me = game % 4
        while GAME.waiting_for(tb.state):
            seat = rnd.choice(GAME.waiting_for(tb.state))
            if seat == me:
                command = GAME.choices(tb.state, seat)[0].command
            else:
                command = rnd.choice(R.legal(tb.state, seat))
            tb.act(seat, command)
        first = winners(GAME, tb)
        wins += (me in first) / len(first)
    assert wins >= 7
