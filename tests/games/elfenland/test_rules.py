"""Elfenland rules, one test per rule of the rulebook, in its order (given / when / then)."""

from __future__ import annotations

import pytest

from games.base import Event, Rejected, Rng
from games.elfenland import GAME
from games.elfenland import board as B
from games.elfenland import rules as R

from .common import check, conserved, given, table

ROAD_EL_LA = "elvenhold-lapphalya:road"
DESERT_AB_FE = "al_baran-feodor:desert"


def types(events):
    return [e.type for e in events]


def move(route, to, *cards):
    return {"type": "move", "route": route, "to": to, "cards": sorted(cards)}


# --- components and preparations ------------------------------------------------------------


def test_components_match_the_rulebook():
    assert sum(B.CARD_COUNTS.values()) == 72 and B.CARD_COUNTS["raft"] == 12
    assert all(v == 10 for k, v in B.CARD_COUNTS.items() if k != "raft")
    assert sum(B.COUNTER_COUNTS.values()) == 48 and set(B.COUNTER_COUNTS.values()) == {8}
    assert "raft" not in B.COUNTER_COUNTS  # "There are no Raft Counters"
    assert len(B.PIECE_TOWNS) == 20 and B.START == "elvenhold" and B.START not in B.PIECE_TOWNS
    assert len(B.ROUTES) == 48 and len(B.TOWN_CARDS) == 12


def test_preparations_every_elf_in_elvenhold_eight_cards_one_trouble_each():
    t = table(4)
    st = t.state
    assert st["elf"] == ["elvenhold"] * 4
    assert all(R.hand_size(st, s) == 8 for s in range(4))
    assert st["trouble_left"] == [True] * 4
    assert st["round"] == 1 and st["first"] == 0
    assert sum(st["deck"].values()) == 72 - 32  # "Any remaining cards are not used during the Round"
    assert all(e.visible_to == (e.data["seat"],) for e in t.events if e.type == "CardsDealt")


def test_step1_each_player_draws_one_secret_counter_in_turn_order():
    t = table(3)
    drawn = [e for e in t.events if e.type == "SecretCounterDrawn"]
    assert [e.data["seat"] for e in drawn] == [0, 1, 2]
    assert all(e.visible_to == (e.data["seat"],) and e.public == {"seat": e.data["seat"]} for e in drawn)
    assert all(len(t.state["down"][s]) == 1 for s in range(3))
    v = GAME.view(t.state, 1)
    assert v["seats"][0]["down"] == 1 and v["down"] == t.state["down"][1]


def test_step2_five_face_up_counters_refilled_after_each_take():
    t = table(3)
    st = t.state
    assert st["phase"] == "draw" and len(st["pool"]) == 5 and st["turn"] == 0
    c = st["pool"][0]
    events = t.act(0, {"type": "take", "counter": c})
    assert types(events) == ["CounterTaken"] and events[0].data["refill"] is not None
    assert len(t.state["pool"]) == 5 and t.state["up"][0] == [c] and t.state["turn"] == 1


def test_step2_blind_draw_is_kept_face_up():
    t = table(3)
    events = t.act(0, {"type": "draw"})
    assert events[0].type == "CounterDrawn" and events[0].visible_to is None
    assert t.state["up"][0] == [events[0].data["counter"]]
    assert len(t.state["pool"]) == 5


def test_step2_three_draws_each_in_turn_order_then_placement():
    t = table(2)
    order = []
    while t.state["phase"] == "draw":
        order.append(t.state["turn"])
        t.act(t.state["turn"], {"type": "draw"})
    assert order == [0, 1, 0, 1, 0, 1]
    assert [R.held(t.state, s) for s in range(2)] == [4, 4]  # "a total of 4 counters"
    assert t.state["phase"] == "place" and t.state["turn"] == 0


def test_step2_take_a_counter_not_face_up_is_rejected():
    t = table(2)
    missing = next(c for c in B.COUNTER_TYPES if c not in t.state["pool"])
    with pytest.raises(Rejected, match="no face-up"):
        t.act(0, {"type": "take", "counter": missing})


def test_limit_of_five_counters_a_full_seat_draws_no_more():
    t = table(2)
    st = t.state
    # Given seat 1 already holds five counters (the limit), its draws in step 2 are skipped.
    st["up"][1] = ["dragon", "dragon", "dragon", "unicorn"]
    st["pile"]["dragon"] -= 3
    st["pile"]["unicorn"] -= 1
    turns = []
    while t.state["phase"] == "draw":
        turns.append(t.state["turn"])
        t.act(t.state["turn"], {"type": "draw"})
    assert turns == [0, 0, 0]
    assert R.held(t.state, 1) == 5
    conserved(t.state)


# --- placing counters ---------------------------------------------------------------------


def test_placing_in_turn_order_until_everyone_passes_in_a_row():
    t = given(3, phase="place", turn=0, up={0: ["giant_pig"], 1: ["dragon"], 2: ["unicorn"]})
    t.act(0, {"type": "pass"})
    t.act(1, {"type": "place", "counter": "dragon", "route": DESERT_AB_FE, "hidden": False})
    t.act(2, {"type": "pass"})
    # "A player who passes one turn may still place a counter on his next turn."
    t.act(0, {"type": "place", "counter": "giant_pig", "route": ROAD_EL_LA, "hidden": False})
    assert t.state["phase"] == "place"
    assert t.state["board"] == {DESERT_AB_FE: "dragon", ROAD_EL_LA: "giant_pig"}


def test_placement_ends_when_all_players_pass_consecutively():
    t = given(3, phase="place", turn=0, up={0: ["giant_pig"], 1: ["dragon"], 2: ["unicorn"]})
    t.act(0, {"type": "pass"})
    t.act(1, {"type": "pass"})
    assert t.state["phase"] == "place"
    t.act(2, {"type": "pass"})
    assert t.state["phase"] == "move" and t.state["turn"] == t.state["first"]


def test_giant_pig_may_not_be_placed_on_a_desert_track():
    # The rulebook's example.
    t = given(2, phase="place", turn=0, up={0: ["giant_pig"]})
    with pytest.raises(Rejected, match="Giant Pigs may not be used on desert tracks"):
        t.act(0, {"type": "place", "counter": "giant_pig", "route": DESERT_AB_FE, "hidden": False})


@pytest.mark.parametrize(
    "counter,forbidden",
    [
        ("giant_pig", "desert"),
        ("giant_pig", "mountain"),
        ("elfcycle", "desert"),
        ("unicorn", "road"),
        ("magic_cloud", "desert"),
    ],
)
def test_transport_limits_on_route_types(counter, forbidden):
    route = next(r for r in B.LAND_ROUTES if B.ROUTES[r]["type"] == forbidden)
    t = given(2, phase="place", turn=0, up={0: [counter]})
    with pytest.raises(Rejected, match="may not be used"):
        t.act(0, {"type": "place", "counter": counter, "route": route, "hidden": False})
    assert not any(c.get("counter") == counter and c.get("route") == route for c in GAME.legal(t.state, 0))


def test_no_counter_on_rivers_or_lakes():
    t = given(2, phase="place", turn=0, up={0: ["dragon"]})
    for route in ("jxara-virst:river", "elvenhold-virst:lake"):
        with pytest.raises(Rejected, match="river or a lake"):
            t.act(0, {"type": "place", "counter": "dragon", "route": route, "hidden": False})


def test_one_transportation_counter_per_route():
    t = given(2, phase="place", turn=0, up={0: ["dragon"]}, board={ROAD_EL_LA: "giant_pig"})
    with pytest.raises(Rejected, match="already has"):
        t.act(0, {"type": "place", "counter": "dragon", "route": ROAD_EL_LA, "hidden": False})


def test_placing_the_face_down_counter_reveals_it():
    t = given(2, phase="place", turn=0, up={0: []}, down={0: ["dragon"]})
    events = t.act(0, {"type": "place", "counter": "dragon", "route": DESERT_AB_FE, "hidden": True})
    assert events[0].reveals and events[0].visible_to is None and events[0].data["counter"] == "dragon"
    assert t.state["down"][0] == [] and t.state["board"][DESERT_AB_FE] == "dragon"


def test_trouble_goes_next_to_a_counter_already_placed():
    t = given(2, phase="place", turn=0, up={0: ["dragon"]}, board={ROAD_EL_LA: "giant_pig"})
    with pytest.raises(Rejected, match="has none"):
        t.act(0, {"type": "trouble", "route": DESERT_AB_FE})
    events = t.act(0, {"type": "trouble", "route": ROAD_EL_LA})
    assert types(events) == ["TroublePlaced"] and t.state["trouble"] == {ROAD_EL_LA: 0}
    assert t.state["passes"] == 0 and t.state["turn"] == 1  # placing Trouble is a turn


def test_only_one_trouble_counter_per_route():
    t = given(2, phase="place", turn=1, board={ROAD_EL_LA: "giant_pig"}, trouble={ROAD_EL_LA: 0})
    with pytest.raises(Rejected, match="only one per route"):
        t.act(1, {"type": "trouble", "route": ROAD_EL_LA})


def test_trouble_once_per_game():
    t = given(
        2,
        phase="place",
        turn=0,
        up={0: ["dragon"]},
        board={ROAD_EL_LA: "giant_pig", DESERT_AB_FE: "dragon"},
        trouble={ROAD_EL_LA: 0},
    )
    with pytest.raises(Rejected, match="one per game"):
        t.act(0, {"type": "trouble", "route": DESERT_AB_FE})


def test_trouble_not_on_rivers_or_lakes():
    t = given(2, phase="place", turn=0, board={ROAD_EL_LA: "giant_pig"})
    with pytest.raises(Rejected, match="rivers or lakes"):
        t.act(0, {"type": "trouble", "route": "jxara-virst:river"})


def test_a_seat_with_nothing_to_place_passes_automatically():
    # Seat 1 holds no counter and its Trouble has no counter to go next to: its pass is automatic.
    t = given(3, phase="place", turn=0, up={0: ["dragon"], 1: [], 2: ["unicorn"]}, down={0: [], 1: [], 2: []})
    events = t.act(0, {"type": "place", "counter": "dragon", "route": DESERT_AB_FE, "hidden": False})
    assert types(events) == ["CounterPlaced"]
    assert t.state["turn"] == 1  # now seat 1 could place Trouble: it is asked
    t = given(3, phase="place", turn=0, up={0: ["dragon"], 1: [], 2: ["unicorn"]}, down={0: [], 1: [], 2: []})
    t.state["trouble_left"][1] = False
    t.state["trouble_used"] = 1
    events = t.act(0, {"type": "place", "counter": "dragon", "route": DESERT_AB_FE, "hidden": False})
    assert types(events) == ["CounterPlaced", "Passed"] and events[1].data == {"seat": 1, "auto": True}
    assert t.state["turn"] == 2


# --- moving -------------------------------------------------------------------------------


def test_movement_needs_a_counter_on_the_route():
    t = given(2, phase="move", turn=0, hands={0: ["giant_pig"] * 4})
    with pytest.raises(Rejected, match="no counter"):
        t.act(0, move(ROAD_EL_LA, "lapphalya", "giant_pig"))


def test_movement_with_one_matching_card():
    t = given(2, phase="move", turn=0, hands={0: ["giant_pig", "dragon"]}, board={ROAD_EL_LA: "giant_pig"})
    events = t.act(0, move(ROAD_EL_LA, "lapphalya", "giant_pig"))
    assert events[0].data["how"] == "counter" and t.state["elf"][0] == "lapphalya"
    assert t.state["hands"][0]["giant_pig"] == 0


def test_movement_card_must_match_the_counter():
    t = given(2, phase="move", turn=0, hands={0: ["dragon", "unicorn"]}, board={ROAD_EL_LA: "giant_pig"})
    with pytest.raises(Rejected, match="takes 1 pig card"):
        t.act(0, move(ROAD_EL_LA, "lapphalya", "dragon"))


@pytest.mark.parametrize(
    "counter,route_type,cards",
    [
        ("troll_wagon", "forest", 2),
        ("troll_wagon", "desert", 2),
        ("troll_wagon", "mountain", 2),
        ("troll_wagon", "road", 1),
        ("elfcycle", "mountain", 2),
        ("elfcycle", "road", 1),
        ("unicorn", "desert", 2),
        ("unicorn", "mountain", 1),
        ("magic_cloud", "road", 2),
        ("magic_cloud", "forest", 2),
        ("magic_cloud", "mountain", 1),
        ("dragon", "forest", 2),
        ("dragon", "desert", 1),
        ("giant_pig", "forest", 1),
    ],
)
def test_slow_routes_take_two_cards(counter, route_type, cards):
    route = next(r for r in B.LAND_ROUTES if B.ROUTES[r]["type"] == route_type)
    a, b = B.ROUTES[route]["a"], B.ROUTES[route]["b"]
    t = given(2, phase="move", turn=0, elf={0: a}, hands={0: [counter] * 3}, board={route: counter})
    moves = [
        c
        for c in GAME.legal(t.state, 0)
        if c["type"] == "move" and c["route"] == route and set(c["cards"]) == {counter} and len(c["cards"]) < 3
    ]
    assert moves == [move(route, b, *[counter] * cards)]
    if cards == 2:
        with pytest.raises(Rejected):
            t.act(0, move(route, b, counter))


def test_trouble_trollwagon_on_desert_takes_three_trollwagon_cards():
    # The rulebook's example: a Trollwagon Counter and a Trouble Counter on a Desert Track.
    t = given(
        2,
        phase="move",
        turn=0,
        elf={0: "feodor"},
        hands={0: ["troll_wagon"] * 3},
        board={DESERT_AB_FE: "troll_wagon"},
        trouble={DESERT_AB_FE: 1},
    )
    with pytest.raises(Rejected, match="with Trouble\\) takes 3 troll cards"):
        t.act(0, move(DESERT_AB_FE, "al_baran", "troll_wagon", "troll_wagon"))
    t.act(0, move(DESERT_AB_FE, "al_baran", "troll_wagon", "troll_wagon", "troll_wagon"))
    assert t.state["elf"][0] == "al_baran"


def test_rafts_travel_rivers_without_counters_downstream_one_card():
    t = given(2, phase="move", turn=0, hands={0: ["raft"] * 3})
    t.act(0, move("elvenhold-rivinia:river", "rivinia", "raft"))
    assert t.state["elf"][0] == "rivinia"


def test_rafts_upstream_are_slow():
    # Beata -> Elvenhold is downstream, so Elvenhold -> Beata is up river: two rafts.
    t = given(2, phase="move", turn=0, hands={0: ["raft"] * 3})
    with pytest.raises(Rejected, match="up river \\(slow\\) takes 2 raft"):
        t.act(0, move("beata-elvenhold:river", "beata", "raft"))
    t.act(0, move("beata-elvenhold:river", "beata", "raft", "raft"))
    t.act(0, move("beata-elvenhold:river", "elvenhold", "raft"))  # and back down for one
    assert t.state["elf"][0] == "elvenhold" and t.state["hands"][0]["raft"] == 0


def test_only_rafts_on_rivers_no_caravans():
    t = given(2, phase="move", turn=0, hands={0: ["dragon", "unicorn", "giant_pig", "raft"]})
    with pytest.raises(Rejected, match="no caravans on rivers"):
        t.act(0, move("elvenhold-rivinia:river", "rivinia", "dragon", "giant_pig", "unicorn"))


def test_crossing_mare_magnum_takes_two_rafts():
    t = given(2, phase="move", turn=0, hands={0: ["raft"] * 2})
    with pytest.raises(Rejected, match="Mare Magnum takes 2 raft"):
        t.act(0, move("elvenhold-strykhaven:lake", "strykhaven", "raft"))
    t.act(0, move("elvenhold-strykhaven:lake", "strykhaven", "raft", "raft"))
    assert t.state["elf"][0] == "strykhaven"


def test_crossing_mare_nebulae_takes_two_rafts_without_the_lakes_variant():
    t = given(2, phase="move", turn=0, elf={0: "yttar"}, hands={0: ["raft", "dragon", "dragon"]})
    with pytest.raises(Rejected, match="Mare Nebulae takes 2 raft"):
        t.act(0, move("grangor-yttar:lake", "grangor", "raft"))
    with pytest.raises(Rejected):  # no Boatmen without the variant
        t.act(0, move("grangor-yttar:lake", "grangor", "dragon", "dragon", "raft"))


def test_caravan_any_three_cards_rafts_included():
    t = given(
        2, phase="move", turn=0, hands={0: ["raft", "dragon", "unicorn", "unicorn"]}, board={ROAD_EL_LA: "giant_pig"}
    )
    events = t.act(0, move(ROAD_EL_LA, "lapphalya", "raft", "dragon", "unicorn"))
    assert events[0].data["how"] == "caravan" and t.state["elf"][0] == "lapphalya"
    assert R.hand_size(t.state, 0) == 1


def test_caravan_with_trouble_takes_four_cards():
    t = given(
        2,
        phase="move",
        turn=0,
        hands={0: ["raft", "dragon", "unicorn", "unicorn"]},
        board={ROAD_EL_LA: "giant_pig"},
        trouble={ROAD_EL_LA: 1},
    )
    with pytest.raises(Rejected, match="or 4 cards of any kind"):
        t.act(0, move(ROAD_EL_LA, "lapphalya", "raft", "dragon", "unicorn"))
    t.act(0, move(ROAD_EL_LA, "lapphalya", "raft", "dragon", "unicorn", "unicorn"))
    assert t.state["elf"][0] == "lapphalya"


def test_no_caravan_without_a_counter_or_across_a_lake():
    t = given(2, phase="move", turn=0, hands={0: ["dragon"] * 3})
    with pytest.raises(Rejected, match="no counter"):
        t.act(0, move(ROAD_EL_LA, "lapphalya", "dragon", "dragon", "dragon"))
    with pytest.raises(Rejected, match="no caravans on lakes"):
        t.act(0, move("elvenhold-virst:lake", "virst", "dragon", "dragon", "dragon"))


def test_many_routes_in_one_turn_collecting_every_town_passed_and_ended_in():
    t = given(
        2,
        phase="move",
        turn=0,
        hands={0: ["giant_pig", "giant_pig", "dragon", "dragon"]},
        board={ROAD_EL_LA: "giant_pig", "feodor-lapphalya:forest": "giant_pig", DESERT_AB_FE: "dragon"},
    )
    t.act(0, move(ROAD_EL_LA, "lapphalya", "giant_pig"))
    t.act(0, move("feodor-lapphalya:forest", "feodor", "giant_pig"))
    t.act(0, move(DESERT_AB_FE, "al_baran", "dragon"))
    t.act(0, move(DESERT_AB_FE, "feodor", "dragon"))  # backtracking along the same route
    assert [g[0] for g in t.state["got"][0]] == ["lapphalya", "feodor", "al_baran"]
    assert GAME.summary(t.state)["scores"][0] == 3


def test_no_town_piece_in_elvenhold_and_none_twice():
    t = given(2, phase="move", turn=0, hands={0: ["giant_pig"] * 3}, board={ROAD_EL_LA: "giant_pig"})
    e1 = t.act(0, move(ROAD_EL_LA, "lapphalya", "giant_pig"))
    e2 = t.act(0, move(ROAD_EL_LA, "elvenhold", "giant_pig"))
    e3 = t.act(0, move(ROAD_EL_LA, "lapphalya", "giant_pig"))
    assert [e[0].data["collected"] for e in (e1, e2, e3)] == [True, False, False]


def test_discard_down_to_four_after_moving():
    t = given(2, phase="move", turn=0, hands={0: ["giant_pig", "dragon", "dragon", "unicorn", "raft", "raft", "raft"]})
    events = t.act(0, {"type": "end"})
    assert types(events) == ["MoveEnded"] and t.state["phase"] == "discard" and t.state["turn"] == 0
    with pytest.raises(Rejected, match="discard down to four"):
        t.act(0, {"type": "end"})
    t.act(0, {"type": "discard", "card": "raft"})
    t.act(0, {"type": "discard", "card": "raft"})
    events = t.act(0, {"type": "discard", "card": "dragon"})
    assert events[0].visible_to == (0,) and events[0].public == {"seat": 0, "auto": False}
    assert R.hand_size(t.state, 0) == 4 and t.state["turn"] == 1


def test_holding_four_or_fewer_no_discard():
    t = given(2, phase="move", turn=0, hands={0: ["giant_pig", "dragon", "dragon", "unicorn"], 1: ["raft"]})
    t.act(0, {"type": "end"})
    assert t.state["phase"] == "move" and t.state["turn"] == 1


def test_a_seat_with_no_possible_move_ends_automatically():
    t = given(
        3,
        phase="move",
        turn=0,
        hands={0: ["giant_pig"], 1: ["dragon"], 2: ["giant_pig"]},
        board={ROAD_EL_LA: "giant_pig"},
    )
    events = t.act(0, {"type": "end"})
    # seat 1 holds only a dragon and no route from Elvenhold takes it: its move ends by itself
    assert types(events) == ["MoveEnded", "MoveEnded"] and events[1].data == {"seat": 1, "auto": True}
    assert t.state["turn"] == 2


def test_movement_in_turn_order_from_the_first_player():
    t = given(3, phase="move", turn=0, hands={0: ["raft"] * 2, 1: ["raft"] * 2, 2: ["raft"] * 2})
    seen = []
    while t.state["phase"] == "move":
        seen.append(t.state["turn"])
        t.act(t.state["turn"], {"type": "end"})
    assert seen == [0, 1, 2]


# --- end of the round ---------------------------------------------------------------------


def _finish_round(t):
    """Everyone passes/ends until the round is over (the keep step answered with the first choice)."""
    rnd = t.state["round"]
    while t.state["round"] == rnd and t.state["phase"] != "over":
        seat = GAME.waiting_for(t.state)[0]
        phase = t.state["phase"]
        cmd = {"draw": {"type": "draw"}, "place": {"type": "pass"}, "move": {"type": "end"}}.get(phase)
        t.act(seat, cmd or GAME.legal(t.state, seat)[0])


def test_end_of_round_counters_back_trouble_to_the_box_deal_up_to_eight_first_player_left():
    t = given(
        3,
        phase="move",
        turn=0,
        hands={0: ["raft"] * 2, 1: ["dragon"] * 6, 2: []},
        board={ROAD_EL_LA: "giant_pig", DESERT_AB_FE: "dragon"},
        trouble={ROAD_EL_LA: 2},
        up={0: ["dragon"], 1: [], 2: ["unicorn", "elfcycle"]},
        down={0: [], 1: ["giant_pig"], 2: []},
    )
    _finish_round(t)
    st = t.state
    assert st["round"] == 2 and st["first"] == 1
    assert st["board"] == {} and st["trouble"] == {} and st["trouble_used"] == 1
    assert st["trouble_left"] == [True, True, False]
    assert all(R.hand_size(st, s) == 8 for s in range(3))
    conserved(st)


def test_rules_version_1_keep_at_most_one_counter_chosen_in_secret():
    t = given(
        3,
        rules=1,
        phase="move",
        turn=0,
        hands={0: [], 1: [], 2: []},
        up={0: ["dragon", "unicorn"], 1: ["elfcycle"], 2: ["troll_wagon", "giant_pig"]},
        down={0: ["magic_cloud"], 1: [], 2: []},
    )
    while t.state["phase"] == "move":
        t.act(t.state["turn"], {"type": "end"})
    st = t.state
    assert st["phase"] == "keep" and GAME.waiting_for(st) == [0, 2]  # seat 1 holds only one: keeps it
    assert {"type": "keep", "counter": None, "hidden": False} in GAME.legal(st, 0)
    e = t.act(0, {"type": "keep", "counter": "magic_cloud", "hidden": True})
    assert e[0].visible_to == (0,) and e[0].public == {"seat": 0}
    assert GAME.view(t.state, 2)["seats"][0]["keep_chosen"] is True
    assert GAME.view(t.state, 2)["my_keep"] is None
    events = t.act(2, {"type": "keep", "counter": None, "hidden": False})
    reveal = next(e for e in events if e.type == "CountersKept")
    assert reveal.reveals and reveal.data["kept"][0] == {"counter": None, "hidden": True, "none": False}
    st = t.state
    assert st["round"] == 2
    # the kept face-down counter stays face down; seat 1 kept its single counter
    assert "magic_cloud" in st["down"][0] and "elfcycle" in st["up"][1]
    assert "troll_wagon" not in st["up"][2] and "giant_pig" not in st["up"][2]
    conserved(st)


def test_the_face_up_pool_goes_back_each_round_and_five_new_are_turned_up():
    t = given(2, phase="move", turn=0, hands={0: [], 1: []})
    while t.state["round"] == 1:
        t.act(t.state["turn"], GAME.legal(t.state, t.state["turn"])[-1])
    pool = [e for e in t.events if e.type == "PoolFilled"]
    assert len(pool) == 2 and len(pool[1].data["counters"]) == 5


def test_cards_reshuffled_with_the_unused_ones_and_dealt_in_secret():
    t = given(2, phase="move", turn=0, hands={0: ["raft"] * 4, 1: ["dragon", "dragon"]})
    n_events = len(t.events)
    _finish_round(t)
    dealt = [e for e in t.events[n_events:] if e.type == "CardsDealt"]
    assert [e.data["seat"] for e in dealt] == [1, 0]  # from the new First Player
    assert [len(e.data["cards"]) for e in dealt] == [6, 4]
    assert all(e.visible_to == (e.data["seat"],) and "cards" not in e.public for e in dealt)


# --- end of the game ----------------------------------------------------------------------


def test_the_game_ends_after_the_fourth_round_most_town_pieces_wins():
    t = given(2, phase="move", turn=0, hands={0: ["raft"], 1: ["raft", "raft"]})
    t.state["round"] = 4
    t.state["got"][0] = [["lapphalya", 1], ["feodor", 2]]
    t.state["got"][1] = [["beata", 1]]
    t.act(0, {"type": "end"})
    events = t.act(1, {"type": "end"})
    assert types(events)[-2:] == ["RoundEnded", "GameEnded"]
    res = GAME.result(t.state)
    assert res.scores == [2, 1] and res.ranking() == [[0], [1]]
    check(t)


def test_tie_broken_by_most_movement_cards():
    t = given(2, phase="move", turn=0, hands={0: ["raft"], 1: ["raft", "raft"]})
    t.state["round"] = 4
    t.state["got"][0] = [["lapphalya", 1]]
    t.state["got"][1] = [["beata", 1]]
    t.act(0, {"type": "end"})
    t.act(1, {"type": "end"})
    res = GAME.result(t.state)
    assert res.scores == [1, 1] and res.ranking() == [[1], [0]]


def test_all_twenty_town_pieces_ends_the_game_after_the_round_is_completed():
    t = given(
        3, phase="move", turn=0, hands={0: ["giant_pig"], 1: ["raft"], 2: ["raft"]}, board={ROAD_EL_LA: "giant_pig"}
    )
    t.state["got"][0] = [[town, 1] for town in B.PIECE_TOWNS if town != "lapphalya"]
    t.act(0, move(ROAD_EL_LA, "lapphalya", "giant_pig"))
    # seat 0 has no card left, so its move ends by itself; the round is completed by the others
    assert t.state["all20"] and t.state["phase"] == "move" and t.state["turn"] == 1
    t.act(1, {"type": "end"})
    t.act(2, {"type": "end"})
    assert t.state["phase"] == "over" and t.state["round"] == 1
    assert GAME.result(t.state).scores[0] == 20


# --- hidden information -------------------------------------------------------------------


def test_views_show_hands_and_face_down_counters_to_their_owner_only():
    t = table(3, home_cities=True)
    st = t.state
    for viewer in (None, 0, 1, 2):
        v = GAME.view(st, viewer)
        if viewer is None:
            assert v["hand"] is None and v["down"] is None and v["home"] is None
        else:
            assert v["hand"] == st["hands"][viewer] and v["down"] == sorted(st["down"][viewer])
            assert v["home"] == st["home"][viewer]
        assert [s["down"] for s in v["seats"]] == [1, 1, 1]
    check(t)


def test_decide_rejects_a_seat_out_of_turn():
    t = table(3)
    with pytest.raises(Rejected, match="not your turn"):
        t.act(1, {"type": "draw"})
    with pytest.raises(Rejected):
        GAME.decide(t.state, 2, {"type": "draw"}, None)


def test_timeouts_are_the_passive_choices():
    t = table(2)
    assert GAME.timeout(t.state, 0) == {"type": "draw"} and GAME.timeout(t.state, 1) is None
    t = given(2, phase="place", turn=0)
    assert GAME.timeout(t.state, 0) == {"type": "pass"}
    t = given(2, phase="move", turn=1)
    assert GAME.timeout(t.state, 1) == {"type": "end"}


def test_no_keep_step_after_the_last_round():
    t = given(
        2,
        phase="move",
        turn=0,
        hands={0: ["raft"], 1: ["raft"]},
        up={0: ["dragon", "unicorn"], 1: ["elfcycle", "elfcycle"]},
    )
    t.state["round"] = 4
    t.act(0, {"type": "end"})
    events = t.act(1, {"type": "end"})
    assert "CounterKept" not in types(events) and t.state["phase"] == "over"
    conserved(t.state)


def test_discard_of_the_only_kind_of_card_held_is_automatic():
    t = given(2, phase="move", turn=0, hands={0: ["dragon"] * 6, 1: ["raft"]})
    events = t.act(0, {"type": "end"})
    assert types(events) == ["MoveEnded", "CardDiscarded", "CardDiscarded"]
    assert all(e.data["auto"] and e.visible_to == (0,) for e in events[1:])
    assert R.hand_size(t.state, 0) == 4 and t.state["turn"] == 1


def test_a_tie_on_pieces_and_cards_is_shared():
    t = given(2, phase="move", turn=0, hands={0: ["raft"], 1: ["raft"]})
    t.state["round"] = 4
    t.act(0, {"type": "end"})
    t.act(1, {"type": "end"})
    assert GAME.result(t.state).ranking() == [[0, 1]]


def test_timeouts_discard_the_most_plentiful_card_and_keep_none_under_rules_version_1():
    t = given(2, phase="move", turn=0, hands={0: ["dragon", "dragon", "raft", "unicorn", "elfcycle"], 1: ["raft"]})
    t.act(0, {"type": "end"})
    assert GAME.timeout(t.state, 0) == {"type": "discard", "card": "dragon"}
    t = given(2, phase="move", turn=0, hands={0: [], 1: []}, up={0: ["dragon", "unicorn"]}, rules=1)
    t.act(0, {"type": "end"})
    assert t.state["phase"] == "keep"
    assert GAME.timeout(t.state, 0) == {"type": "keep", "counter": None, "hidden": False}


def test_step_5_a_player_must_discard_down_to_1_counter_so_keep_none_is_refused():
    """Rulebook step 5: "Any players holding more than 1 Transportation Counter at this point must
    discard down to 1 counter" (RULINGS 16, rules version 2): one counter is kept, never none."""
    t = given(
        3,
        phase="move",
        turn=0,
        hands={0: [], 1: [], 2: []},
        up={0: ["dragon", "unicorn"], 1: ["elfcycle"], 2: ["troll_wagon", "giant_pig"]},
        down={0: ["magic_cloud"], 1: [], 2: []},
    )
    assert t.state["rules"] == 2
    while t.state["phase"] == "move":
        t.act(t.state["turn"], {"type": "end"})
    st = t.state
    assert st["phase"] == "keep" and GAME.waiting_for(st) == [0, 2]
    keeps = GAME.legal(st, 0)
    assert {"type": "keep", "counter": None, "hidden": False} not in keeps
    assert {(k["counter"], k["hidden"]) for k in keeps} == {
        ("dragon", False),
        ("unicorn", False),
        ("magic_cloud", True),
    }
    with pytest.raises(Rejected, match="must keep one counter"):
        GAME.decide(st, 2, GAME.parse("keep none", st, 2), Rng(b"k" * 32, 1))
    assert "keep none" not in GAME.help(st, 2)
    t.act(0, {"type": "keep", "counter": "magic_cloud", "hidden": True})
    t.act(2, {"type": "keep", "counter": "giant_pig", "hidden": False})
    st = t.state
    assert st["round"] == 2 and "magic_cloud" in st["down"][0] and st["up"][2] == ["giant_pig"]
    conserved(st)


def test_a_late_player_keeps_the_face_down_counter_else_the_first_face_up_one_under_rules_version_2():
    t = given(2, phase="move", turn=0, hands={0: [], 1: []}, up={0: ["unicorn", "dragon"]}, down={0: ["giant_pig"]})
    t.act(0, {"type": "end"})
    assert GAME.timeout(t.state, 0) == {"type": "keep", "counter": "giant_pig", "hidden": True}
    t = given(2, phase="move", turn=0, hands={0: [], 1: []}, up={0: ["unicorn", "dragon"]}, down={0: []})
    t.act(0, {"type": "end"})
    assert GAME.timeout(t.state, 0) == {"type": "keep", "counter": "dragon", "hidden": False}


def test_a_log_written_before_rules_version_2_replays_unchanged_and_offers_keep_none():
    events = list(GAME.setup(3, GAME.resolve_options(3, {}), Rng(b"s" * 32, 1)))
    old = [
        Event(e.type, {k: v for k, v in e.data.items() if k != "rules"}, e.visible_to, e.public, e.reveals)
        if e.type == "GameStarted"
        else e
        for e in events
    ]
    state = None
    for event in old:
        state = GAME.evolve(state, event)
    assert "rules" not in state and R.rules_version(state) == 1
