"""Elven Castle: one test per rule of the rulebook (and per ruling of RULINGS.md)."""

from __future__ import annotations

import pytest

from games.base import Event, Rejected, Rng
from games.elven_castle import GAME, rules
from games.testing import Table

from .helpers import check, given, placed, table, table1

# The rulebook's figure: an arch on columns four spans high with a bridge on the ground under it.
FIGURE = [
    (0, "place window c1 north level 0"),
    (0, "place window c5 north level 0"),
    (1, "place window c3 north level 2"),
    (1, "place window e1 north level 0"),
    (2, "place window e5 north level 0"),
    (2, "place window e3 north level 2"),
    (3, "place bridge d3 north level 0"),
]
FIGURE_ARCH = "place bridge c4 east level 4"


def build(t, moves):
    for seat, text in moves:
        given(t, seat, text)
    return t


# --- Setup -----------------------------------------------------------------------------------


def test_setup_each_player_has_13_bridges_2_windows_1_portal_1_balcony_and_architect_on_start():
    t = table(3)
    assert t.state["hands"] == [{"bridge": 13, "window": 2, "portal": 1, "balcony": 1, "staircase": 0}] * 3
    assert t.state["scores"] == [0, 0, 0]
    assert t.state["pieces"] == []


def test_setup_first_player_is_drawn_by_the_rng_and_recorded():
    events = rules.setup(4, GAME.resolve_options(4, {}), Rng(b"x", 1))
    assert events[0].type == "GameStarted" and events[0].data["first"] in range(4)
    firsts = {rules.setup(4, GAME.resolve_options(4, {}), Rng(bytes([i]), 1))[0].data["first"] for i in range(40)}
    assert firsts == {0, 1, 2, 3}


def test_options_scenarios_are_for_3_or_4_players_only():
    with pytest.raises(Rejected, match="3-4 players"):
        GAME.resolve_options(2, {"scenario": "altar"})
    assert GAME.resolve_options(3, {"scenario": "library"})["scenario"] == "library"
    with pytest.raises(Rejected):
        GAME.resolve_options(3, {"scoring": "C"})


# --- Placement -------------------------------------------------------------------------------


def test_a_piece_may_be_placed_on_the_ground_and_scores_zero():
    t = table(2)
    d = placed(given(t, 0, "place bridge a1 east level 0"))
    assert d["on"] == [] and d["points"] == 0 and t.state["scores"][0] == 0


def test_a_piece_placed_on_the_ground_with_both_columns_scores_zero_even_over_nothing_in_variant_b():
    t = table(2, {"scoring": "B"})
    assert placed(given(t, 0, "place portal c3 north level 0"))["points"] == 0


def test_a_piece_may_be_placed_on_top_of_two_pieces():
    t = table1(2)
    given(t, 0, "place bridge a1 north level 0")
    given(t, 1, "place bridge c1 north level 0")
    d = placed(given(t, 0, "place bridge a2 east level 1"))
    assert d["on"] == [0, 1] and d["points"] == 1


def test_a_piece_leaving_a_hanging_column_is_rejected():
    t = table(2)
    given(t, 0, "place bridge a1 north level 0")
    t.state["turn"] = 1
    with pytest.raises(Rejected, match="hanging column at c2"):
        t.act(1, {"type": "place", "piece": "bridge", "x": 0, "y": 1, "z": 1, "dir": "e"})


def test_a_piece_resting_on_only_one_piece_is_rejected():
    t = table(2)
    given(t, 0, "place bridge a1 north level 0")
    t.state["turn"] = 1
    with pytest.raises(Rejected, match="only one piece"):
        t.act(1, {"type": "place", "piece": "bridge", "x": 0, "y": 0, "z": 1, "dir": "n"})


def test_a_piece_may_not_run_into_another_or_leave_the_board():
    t = table(2)
    given(t, 0, "place bridge a1 east level 0")
    t.state["turn"] = 1
    with pytest.raises(Rejected, match="run into piece #0"):
        t.act(1, {"type": "place", "piece": "bridge", "x": 2, "y": 0, "z": 0, "dir": "e"})
    with pytest.raises(Rejected, match="out of the board"):
        t.act(1, {"type": "place", "piece": "portal", "x": 6, "y": 0, "z": 0, "dir": "e"})


def test_a_player_places_only_pieces_he_still_has():
    t = table(2)
    given(t, 0, "place portal a1 east level 0")
    t.state["turn"] = 0
    with pytest.raises(Rejected, match="no portal left"):
        t.act(0, {"type": "place", "piece": "portal", "x": 0, "y": 4, "z": 0, "dir": "e"})


def test_the_space_under_an_arch_is_free_and_a_piece_may_stand_there():
    t = table(2)
    given(t, 0, "place bridge a1 north level 0")
    given(t, 1, "place bridge c1 north level 0")
    given(t, 0, "place bridge a2 east level 1")
    d = placed(given(t, 1, "place bridge b1 north level 0"))  # under the opening b2 at level 0
    assert d["z"] == 0


def test_the_turn_passes_to_the_neighbour_on_the_left():
    t = table(3)
    first = t.state["turn"]
    t.say(first, "place bridge a1 east")
    assert t.state["turn"] == (first + 1) % 3
    t.say((first + 1) % 3, "place bridge a3 east")
    t.say((first + 2) % 3, "place bridge a5 east")
    assert t.state["turn"] == first
    assert GAME.waiting_for(t.state) == [first]
    assert all(GAME.legal(t.state, s) == [] for s in range(3) if s != first)


# --- Scoring ---------------------------------------------------------------------------------


def test_figure_variant_a_arch_on_pieces_stacked_three_spans_high_scores_3():
    t = build(table1(4), FIGURE)
    d = placed(given(t, 3, FIGURE_ARCH))
    assert d["arches"] == [3] and d["points"] == 3
    check(t)


def test_figure_variant_b_arch_on_columns_four_spans_high_from_the_ground_scores_4():
    t = build(table1(4, {"scoring": "B"}), FIGURE)
    d = placed(given(t, 3, FIGURE_ARCH))
    assert d["arches"] == [4] and d["points"] == 4


def test_scoring_counts_the_spans_of_the_arch_under_the_new_piece():
    t = build(table1(4), FIGURE[:3])
    # the window on c3 stands two levels up on two windows, with nothing under its opening
    assert t.state["sheet"][-1][2] == 2 and t.state["scores"][1] == 2


def test_an_arch_with_a_piece_right_under_its_opening_scores_0_in_variant_a_and_its_level_in_b():
    for variant, points in (("A", 0), ("B", 1)):
        t = table1(2, {"scoring": variant})
        given(t, 0, "place bridge a1 east level 0")
        given(t, 1, "place bridge d1 east level 0")
        d = placed(given(t, 0, "place bridge c1 east level 1"))  # opening over d1, a foot of #1
        assert d["points"] == points


def test_the_architect_moves_forward_by_the_points_scored():
    t = build(table1(4), FIGURE)
    given(t, 3, FIGURE_ARCH)
    assert t.state["scores"] == [0, 2, 2, 3]
    assert [(line.seat, line.points) for line in GAME.score_sheet(t.state) if line.points] == [(1, 2), (2, 2), (3, 3)]


# --- End of the game -------------------------------------------------------------------------


def test_the_game_ends_when_the_player_to_move_has_no_pieces_left():
    t = table(2)
    first = t.state["turn"]
    t.state["hands"][first] = {"bridge": 1, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    t.state["hands"][1 - first] = {"bridge": 1, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    t.say(first, "place bridge a1 east")
    events = t.say(1 - first, "place bridge a3 east")
    assert events[-1].type == "GameEnded" and events[-1].data["reason"] == "no pieces"
    assert GAME.waiting_for(t.state) == [] and GAME.result(t.state) is not None


def test_the_game_ends_when_the_player_to_move_has_no_space_for_any_piece():
    t = table(2)
    first = t.state["turn"]
    t.state["hands"][1 - first] = {"bridge": 0, "window": 0, "portal": 0, "balcony": 0, "staircase": 1}
    events = t.say(first, "place window e5 north")
    # a staircase needs a top one level up under its high foot: there is none anywhere
    assert events[-1].type == "GameEnded"
    assert events[-1].data == {"seat": 1 - first, "reason": "no space", "lines": []}


def test_the_winner_has_the_most_points():
    t = build(table(4), FIGURE)
    given(t, 3, FIGURE_ARCH)
    t.state["phase"] = "over"
    assert GAME.result(t.state).ranking()[0] == [3]


def test_a_tie_is_broken_by_the_highest_piece_in_the_castle():
    t = build(table1(4), FIGURE)
    t.state["phase"] = "over"
    # seats 1 and 2 both have 2 points; both have a window topping out at level 4
    res = GAME.result(t.state)
    assert res.scores[1] == res.scores[2] == 2
    assert res.tiebreak[1] == res.tiebreak[2] == (4,)
    given(t, 3, FIGURE_ARCH)
    t.state["scores"] = [0, 3, 3, 3]
    t.state["phase"] = "over"
    res = GAME.result(t.state)
    assert res.tiebreak == [(2,), (4,), (4,), (5,)]
    assert res.ranking() == [[3], [1, 2], [0]]


# --- Staircase (experienced players) ---------------------------------------------------------

STAIR_STEP = [
    (1, "place bridge a1 north level 0"),
    (1, "place bridge c1 north level 0"),
    (1, "place window e1 north level 0"),
]


def test_staircase_offered_on_reaching_exactly_16():
    t = build(table1(2, {"staircase": True}), STAIR_STEP[:2])
    t.state["scores"][0] = 15
    d = placed(given(t, 0, "place bridge a2 east level 1"))  # 1 point: 15 -> 16
    assert d["offer"] and t.state["phase"] == "staircase"
    assert GAME.legal(t.state, 0) == [{"type": "staircase"}, {"type": "decline"}]
    t.say(0, "make staircase")
    assert t.state["hands"][0]["bridge"] == 13 - 1 - 2 and t.state["hands"][0]["staircase"] == 1
    assert t.state["turn"] == 1 and t.state["phase"] == "place"


def test_staircase_not_offered_when_overshooting_15_plus_2_is_17():
    t = build(table1(4, {"staircase": True}), FIGURE[:2])
    t.state["scores"][1] = 15
    d = placed(given(t, 1, "place window c3 north level 2"))  # 2 points: 15 -> 17
    assert not d["offer"] and t.state["scores"][1] == 17 and t.state["phase"] == "place"


def test_staircase_not_offered_without_the_option_or_without_moving():
    t = build(table(2), STAIR_STEP[:2])
    t.state["scores"][0] = 15
    assert not placed(given(t, 0, "place bridge a2 east level 1"))["offer"]
    t = table(2, {"staircase": True})
    t.state["scores"][0] = 8
    assert not placed(given(t, 0, "place bridge a1 east level 0"))["offer"]  # 0 points: stays on 8


def test_staircase_can_be_declined_and_a_late_player_declines():
    t = build(table1(2, {"staircase": True}), STAIR_STEP[:2])
    t.state["scores"][0] = 7
    given(t, 0, "place bridge a2 east level 1")
    assert GAME.timeout(t.state, 0) == {"type": "decline"}
    t.say(0, "no staircase")
    assert t.state["hands"][0]["staircase"] == 0 and t.state["turn"] == 1


def test_staircase_cannot_be_made_except_right_after_reaching_a_threshold():
    t = table(2, {"staircase": True})
    with pytest.raises(Rejected, match="only right after a placement"):
        t.act(t.state["turn"], {"type": "staircase"})


def test_staircase_needs_two_bridges_in_hand():
    t = build(table(2, {"staircase": True}), STAIR_STEP[:2])
    t.state["scores"][0] = 7
    t.state["hands"][0]["bridge"] = 2  # one is placed now, one would be left
    assert not placed(given(t, 0, "place bridge a2 east level 1"))["offer"]


def test_only_one_staircase_per_player_at_a_time():
    t = build(table(2, {"staircase": True}), STAIR_STEP[:2])
    t.state["scores"][0] = 7
    t.state["hands"][0]["staircase"] = 1
    t.state["hands"][0]["bridge"] = 11
    assert not placed(given(t, 0, "place bridge a2 east level 1"))["offer"]


def test_a_staircase_placed_scores_every_arch_it_forms():
    t = build(table1(2, {"staircase": True}), STAIR_STEP)
    t.state["hands"][0].update(bridge=11, staircase=1)
    d = placed(given(t, 0, "place staircase a2 east level 1"))
    # lower arch one span over b2, upper arch two spans over d2
    assert d["arches"] == [1, 2] and d["points"] == 3
    assert d["on"] == [0, 1, 2]
    check(t)


def test_a_staircase_may_stand_with_two_feet_on_the_ground_and_its_high_foot_on_a_piece():
    t = build(table1(2, {"staircase": True}), [(1, "place bridge e1 north level 0")])
    t.state["hands"][0].update(bridge=11, staircase=1)
    d = placed(given(t, 0, "place staircase a2 east"))
    assert d["z"] == 0 and d["on"] == [0] and d["arches"] == [0, 1]


def test_a_staircase_may_not_leave_its_high_foot_hanging():
    t = build(table(2, {"staircase": True}), [(1, "place portal a1 north level 0")])
    t.state["hands"][0].update(bridge=11, staircase=1)
    t.state["turn"] = 0
    # both low feet on the portal (level 2), the high foot over a5 with nothing at level 2 under it
    with pytest.raises(Rejected, match="hanging column at a5"):
        t.act(0, {"type": "place", "piece": "staircase", "x": 0, "y": 0, "z": 2, "dir": "n"})


def test_staircase_made_after_a_scoring_move_can_end_the_game_for_the_next_player():
    t = build(table1(2, {"staircase": True}), STAIR_STEP[:2])
    t.state["scores"][0] = 7
    t.state["hands"][1] = {"bridge": 0, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    given(t, 0, "place bridge a2 east level 1")
    events = t.say(0, "make staircase")
    assert [e.type for e in events] == ["StaircaseMade", "GameEnded"]


# --- Remaining pieces (experienced players) --------------------------------------------------


def test_penalty_2_per_window_portal_balcony_or_staircase_left_in_hand():
    t = table(2, {"penalties": True})
    first = t.state["turn"]
    t.state["hands"][first] = {"bridge": 1, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    t.state["hands"][1 - first] = {"bridge": 3, "window": 2, "portal": 1, "balcony": 0, "staircase": 1}
    given(t, first, "place bridge a1 north")
    end = t.say(1 - first, "place bridge c1 north")[-1]
    assert end.type == "GameEnded" and end.data["reason"] == "no pieces"
    assert [1 - first, -8, "left in hand: 2 window, 1 portal, 1 staircase", "Penalty"] in end.data["lines"]
    assert not any(line[0] == first and "in hand" in line[2] for line in end.data["lines"])


def test_penalty_2_per_piece_standing_alone_on_the_ground():
    t = table1(2, {"penalties": True})
    first, other = t.state["turn"], 1 - t.state["turn"]
    t.state["hands"][first] = {"bridge": 3, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    t.state["hands"][other] = {"bridge": 2, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    t.say(first, "place bridge a1 north")  # #0: carries #3 at the end, not alone
    t.say(other, "place bridge c1 north")  # #1: carries #3, not alone
    t.say(first, "place bridge g7 east")  # #2: alone on the ground
    t.say(other, "place bridge a2 east 1")  # #3: on #0 and #1, one span
    end = t.say(first, "place bridge g9 east")[-1]  # #4 alone; the other has no piece left
    assert end.type == "GameEnded"
    assert end.data["lines"] == [
        [first, -2, "bridge #2 at g7 alone on the ground", "Penalty"],
        [first, -2, "bridge #4 at g9 alone on the ground", "Penalty"],
    ]
    assert t.state["scores"][first] == -4 and t.state["scores"][other] == 1


def test_penalties_are_subtracted_before_the_winner_is_determined():
    t = table(2, {"penalties": True})
    first = t.state["turn"]
    t.state["hands"][first] = {"bridge": 1, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    t.state["hands"][1 - first] = {"bridge": 0, "window": 1, "portal": 0, "balcony": 0, "staircase": 0}
    t.state["scores"] = [1, 1]
    events = t.say(first, "place bridge a1 north")
    assert events[-1].type != "GameEnded"
    end = t.say(1 - first, "place window e5 east")[-1]
    assert end.type == "GameEnded"
    res = GAME.result(t.state)
    assert res.scores[first] == 1 - 2 and res.scores[1 - first] == 1 - 2
    assert sum(line.points for line in GAME.score_sheet(t.state)) == sum(res.scores) - 2


def test_no_penalties_without_the_option():
    t = table(2)
    first = t.state["turn"]
    t.state["hands"][first] = {"bridge": 1, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    t.state["hands"][1 - first] = {"bridge": 0, "window": 0, "portal": 1, "balcony": 0, "staircase": 0}
    t.say(first, "place bridge a1 north")
    assert t.say(1 - first, "place portal e5 east")[-1].data["lines"] == []


# --- Scenarios (3-4 players) -----------------------------------------------------------------


def test_scenario_grey_pieces_are_set_up_before_the_game():
    for name, scen in rules.SCENARIOS.items():
        t = table(3, {"scenario": name})
        grey = [p for p in t.state["pieces"] if p["owner"] is None]
        assert len(grey) == len(scen["grey"])
        assert [tuple(p) for p in t.state["red"]] == [tuple(p) for p in scen["red"]]
        check(t)


def test_altar_no_piece_may_be_placed_on_the_altar():
    t = table(3, {"scenario": "altar"})
    altar = t.state["altar"]
    assert t.state["pieces"][altar]["kind"] == "bridge" and t.state["pieces"][altar]["z"] == 1
    given(t, 0, "place window b5 north level 0")  # top 2 at b5..b7
    t.state["turn"] = 1
    with pytest.raises(Rejected, match="altar"):  # feet on b5 (window) and d5 (a foot of the altar)
        t.act(1, {"type": "place", "piece": "bridge", "x": 1, "y": 4, "z": 2, "dir": "e"})
    for kind, x, y, z, d in rules.placements(t.state, 1):
        assert altar not in rules.check_place(t.state, 1, kind, x, y, z, d)[1]["on"]


def test_altar_the_owner_of_the_topmost_piece_gets_6_at_the_end():
    t = table(3, {"scenario": "altar"})
    for s in range(3):
        t.state["hands"][s] = {"bridge": 0, "window": 0, "portal": 0, "balcony": 0, "staircase": 0}
    t.state["hands"][0]["window"] = 1
    t.state["hands"][1]["bridge"] = 1
    given(t, 0, "place window a1 east")  # top 2
    events = given(t, 1, "place bridge a9 east")  # top 1; then seat 2 has nothing
    end = events[-1]
    assert end.type == "GameEnded"
    assert end.data["lines"] == [[0, 6, "topmost piece at level 2", "Altar"]]
    assert t.state["scores"][0] == 6


def test_catacombs_no_piece_on_the_ground_on_a_red_point():
    t = table(3, {"scenario": "catacombs"})
    t.state["turn"] = 0
    with pytest.raises(Rejected, match="d4 .marked in red"):
        t.act(0, {"type": "place", "piece": "bridge", "x": 1, "y": 3, "z": 0, "dir": "e"})  # feet b4, d4
    assert not any(
        z == 0 and [x + dx, y + dy] in t.state["red"]
        for kind, x, y, z, d in rules.placements(t.state, 0)
        for dx, dy, _dz in rules.FEET[kind][d]
    )


def test_catacombs_only_feet_occupy_a_point_an_overhang_may_reach_over_a_red_point():
    t = table(3, {"scenario": "catacombs"})
    d = placed(given(t, 0, "place balcony a4 east level 0"))  # feet a4, c4; overhang over d4 (red)
    assert (d["x"], d["y"], d["z"]) == (0, 3, 0)


def test_legacy_special_pieces_may_not_be_placed_on_grey_pieces_bridges_may():
    t = table1(3, {"scenario": "legacy"})
    given(t, 0, "place window a4 north level 0")  # top 2 at a4..a6, beside the grey window c5
    t.state["turn"] = 1
    with pytest.raises(Rejected, match="Legacy of the Ancients a window may not be placed on grey"):
        t.act(1, {"type": "place", "piece": "window", "x": 0, "y": 4, "z": 2, "dir": "e"})
    d = placed(given(t, 1, "place bridge a5 east level 2"))  # on the player window and the grey window
    assert d["points"] == 2 and len(d["on"]) == 2


def test_legacy_no_piece_on_the_ground_on_a_red_point():
    t = table(3, {"scenario": "legacy"})
    t.state["turn"] = 0
    with pytest.raises(Rejected, match="d4 .marked in red"):
        t.act(0, {"type": "place", "piece": "bridge", "x": 3, "y": 1, "z": 0, "dir": "n"})


def test_library_first_connection_3_second_connection_6():
    t = table(4, {"scenario": "library"})
    row1 = [(0, "place window d1 east level 0"), (1, "place bridge c1 east level 2")]
    build(t, row1)
    assert t.state["connections"] == 0
    d = placed(given(t, 2, "place bridge f1 east level 2"))
    assert d["connections"] == 1 and d["bonus"] == 3
    build(t, [(3, "place window d9 east level 0"), (0, "place bridge c9 east level 2")])
    d = placed(given(t, 1, "place bridge f9 east level 2"))
    assert d["connections"] == 1 and d["bonus"] == 6
    assert t.state["connections"] == 2
    check(t)


def test_library_no_piece_on_the_ground_on_the_red_aisle():
    t = table(3, {"scenario": "library"})
    t.state["turn"] = 0
    with pytest.raises(Rejected, match="marked in red"):
        t.act(0, {"type": "place", "piece": "bridge", "x": 4, "y": 2, "z": 0, "dir": "n"})


def test_royal_gates_window_portal_balcony_not_on_grey_pieces():
    t = table1(3, {"scenario": "royal-gates"})
    given(t, 0, "place window a4 north level 0")  # top 2 at a4..a6, beside the grey window c4..c6
    t.state["turn"] = 1
    for kind in ("window", "balcony"):
        with pytest.raises(Rejected, match=f"Royal Gates a {kind} may not be placed on grey"):
            t.act(1, {"type": "place", "piece": kind, "x": 0, "y": 4, "z": 2, "dir": "e"})
    assert placed(given(t, 1, "place bridge a5 east level 2"))["points"] == 2


def test_royal_gates_a_staircase_may_be_placed_on_grey_pieces():
    t = table1(3, {"scenario": "royal-gates", "staircase": True})
    given(t, 0, "place bridge d2 north level 0")
    given(t, 0, "place bridge f2 north level 0")
    t.state["hands"][1].update(bridge=11, staircase=1)
    d = placed(given(t, 1, "place staircase d4 east level 1"))  # high foot on the grey window h4
    grey = {p["id"] for p in t.state["pieces"] if p["owner"] is None}
    assert set(d["on"]) & grey and d["arches"] == [1, 2]


def test_events_are_json_and_replay():
    t = build(table(4), FIGURE)
    given(t, 3, FIGURE_ARCH)
    assert isinstance(t.events[0], Event)
    replay = Table(GAME, 4, {}, seed=b"elven")
    assert replay.state["turn"] == t.state["first"]


# --- The fast enumeration agrees with the rule check -------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"staircase": True},
        {"scenario": "legacy", "staircase": True},
        {"scenario": "altar"},
        {"scenario": "catacombs"},
        {"scenario": "royal-gates"},
    ],
)
def test_legal_lists_exactly_the_placements_the_rules_allow(options):
    from games.testing import fold, play_random

    done = play_random(GAME, 3, options, seed=21)
    for cut in (len(done.events) // 3, 2 * len(done.events) // 3):
        state = fold(GAME, done.events[:cut])
        for seat in range(3):
            state["hands"][seat]["staircase"] = 1
            levels = len(state["occ"]) // rules.PLANE + 1
            allowed = set()
            for kind in rules.KINDS:
                for d in rules.PLACE_DIRS[kind]:
                    for x in range(rules.W):
                        for y in range(rules.D):
                            for z in range(levels):
                                if rules.check_place(state, seat, kind, x, y, z, d)[0] is None:
                                    allowed.add((kind, x, y, z, d))
            assert set(rules.placements(state, seat)) == allowed


def test_a_late_player_is_not_played_for_since_every_turn_needs_a_placement():
    t = table(2)
    assert GAME.timeout(t.state, t.state["turn"]) is None


def test_malformed_commands_are_rejected_with_a_reason():
    t = table(2)
    seat = t.state["turn"]
    bad = [
        ({"type": "pass"}, "place one of your pieces"),
        ({"type": "place", "piece": "bridge"}, "Say which piece"),
        ({"type": "place", "piece": "bridge", "x": "c", "y": 0, "z": 0, "dir": "e"}, "Say which piece"),
        ({"type": "place", "piece": "tower", "x": 0, "y": 0, "z": 0, "dir": "e"}, "no piece 'tower'"),
        ({"type": "place", "piece": "bridge", "x": 0, "y": 0, "z": 0, "dir": "up"}, "no direction"),
        ({"type": "place", "piece": "bridge", "x": 0, "y": 0, "z": -1, "dir": "e"}, "Levels start at 0"),
        ({"type": "place", "piece": "bridge", "x": 9, "y": 0, "z": 0, "dir": "e"}, "out of the board"),
        ({"type": "staircase"}, "without staircases"),
    ]
    for command, reason in bad:
        with pytest.raises(Rejected, match=reason):
            t.act(seat, command)
    with pytest.raises(Rejected, match="not your turn"):
        GAME.decide(t.state, 1 - seat, {"type": "place", "piece": "bridge", "x": 0, "y": 0, "z": 0, "dir": "e"}, None)


def test_the_round_shown_at_the_end_is_the_last_round_played():
    """Two players with 17 pieces each play 17 rounds; the turn that finds no piece left would
    have begun round 18, which is not shown (summary, view, score sheet)."""
    from games.testing import play_random

    t = play_random(GAME, 2, {"penalties": True}, seed=3)
    assert t.state["end"]["reason"] == "no pieces" and t.state["moves"] == 34
    assert GAME.summary(t.state)["round"] == 17 and GAME.view(t.state, 0)["round"] == 17
    assert "round 17" in GAME.render_text(GAME.view(t.state, None))
    penalties = [line for line in GAME.score_sheet(t.state) if line.label == "Penalty"]
    assert penalties and {line.round for line in penalties} == {17}  # counted at the end of round 17
    assert max(line.round for line in GAME.score_sheet(t.state)) == 17
    mid = table(3)
    for seat, text in ((0, "place bridge a1 east"), (1, "place bridge a3 east")):
        given(mid, seat, text)
    assert GAME.summary(mid.state)["round"] == 1  # a round in progress is shown as it is
