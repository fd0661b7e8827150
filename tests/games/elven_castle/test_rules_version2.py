"""Rules version 2 (RULINGS.md, "Rules version 2"): a piece is an arch one span tall, so a piece
placed on two pieces scores its own span besides the free spans under it; a staircase, like any
piece, rests on two placed pieces. New games record the version in GameStarted; a log without it
replays and plays on under version 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.base import Rejected
from games.elven_castle import GAME, rules, standin
from games.testing import check_golden, event_from_json

from .helpers import check, given, placed, table, table1

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "elven_castle"

# The rulebook's figure under version 2: columns three levels high (a window and a bridge on it)
# at c and e, a bridge on the ground at d, and the arch on the columns at level 3. Its own span
# makes the columns of the resulting arch four spans high from the ground (variant B), and three
# down to the bridge beneath it (variant A).
FIGURE2 = [
    (0, "place window c1 north level 0"),
    (0, "place window c5 north level 0"),
    (1, "place bridge c3 north level 2"),
    (1, "place window e1 north level 0"),
    (2, "place window e5 north level 0"),
    (2, "place bridge e3 north level 2"),
    (3, "place bridge d3 north level 0"),
]
FIGURE2_ARCH = "place bridge c4 east level 3"


def build(t, moves):
    for seat, text in moves:
        given(t, seat, text)
    return t


def test_a_new_game_records_rules_version_2():
    t = table(3)
    assert rules.RULES_VERSION == 2
    assert t.events[0].data["rules"] == 2 and rules.rules_version(t.state) == 2
    assert GAME.view(t.state, 0)["rules"] == 2


@pytest.mark.parametrize("name", ["2p_variant_a", "3p_variant_b_staircase_penalties", "4p_library_staircase"])
def test_a_log_written_before_rules_version_2_replays_unchanged_under_version_1(name):
    record = json.loads((GOLDEN / f"{name}.json").read_text())
    check_golden(GAME, record)  # the same final state as when it was recorded
    state = None
    for raw in record["events"]:
        state = GAME.evolve(state, event_from_json(raw))
        assert "rules" not in state and rules.rules_version(state) == 1


def test_figure_variant_a_version_2_arch_three_spans_down_to_the_piece_beneath_scores_3():
    t = build(table(4), FIGURE2)
    d = placed(given(t, 3, FIGURE2_ARCH))
    assert d["arches"] == [3] and d["points"] == 3
    check(t)


def test_figure_variant_b_version_2_columns_four_spans_high_from_the_ground_score_4():
    t = build(table(4, {"scoring": "B"}), FIGURE2)
    d = placed(given(t, 3, FIGURE2_ARCH))
    assert d["arches"] == [4] and d["points"] == 4


def test_the_same_figure_under_version_1_scores_the_spans_under_the_deck_only():
    t = build(table1(4), FIGURE2)
    assert placed(given(t, 3, FIGURE2_ARCH))["points"] == 2
    t = build(table1(4, {"scoring": "B"}), FIGURE2)
    assert placed(given(t, 3, FIGURE2_ARCH))["points"] == 3


def test_a_piece_on_two_pieces_scores_its_own_span_and_the_free_spans_under_it():
    for variant in ("A", "B"):
        t = build(table(2, {"scoring": variant}), [(0, "place bridge a1 north"), (1, "place bridge c1 north")])
        d = placed(given(t, 0, "place bridge a2 east level 1"))  # deck over b2, nothing under it
        assert d["on"] == [0, 1] and d["arches"] == [2] and d["points"] == 2


def test_a_deck_right_on_a_piece_still_scores_its_own_span_in_variant_a_and_its_height_in_b():
    for variant, points in (("A", 1), ("B", 2)):
        t = build(table(2, {"scoring": variant}), [(0, "place bridge a1 east"), (1, "place bridge d1 east")])
        d = placed(given(t, 0, "place bridge c1 east level 1"))  # the opening over d1, a foot of #1
        assert d["points"] == points


def test_a_window_or_portal_on_two_pieces_scores_its_two_spans_high_opening():
    t = build(table(2), [(0, "place bridge a1 north"), (1, "place bridge d1 north")])
    assert placed(given(t, 0, "place portal a2 east level 1"))["arches"] == [3]  # 2 own + b2/c2 free
    t = build(table(2), [(0, "place bridge a1 north"), (1, "place bridge c1 north")])
    assert placed(given(t, 1, "place window a2 east level 1"))["arches"] == [3]


def test_a_piece_placed_on_the_ground_with_both_columns_scores_0_in_both_variants():
    for variant in ("A", "B"):
        t = table(2, {"scoring": variant})
        for seat, text in ((0, "place bridge a1 east"), (1, "place window a3 east"), (0, "place portal a5 east")):
            d = placed(given(t, seat, text))
            assert d["z"] == 0 and d["points"] == 0


STAIR_STEP = [
    (1, "place bridge a1 north level 0"),
    (1, "place bridge c1 north level 0"),
    (1, "place window e1 north level 0"),
]


def test_a_staircase_may_not_rest_on_the_ground_and_one_piece_in_version_2():
    t = build(table(2, {"staircase": True}), [(1, "place bridge e1 north level 0")])
    t.state["hands"][0].update(bridge=11, staircase=1)
    t.state["turn"] = 0
    command = {"type": "place", "piece": "staircase", "x": 0, "y": 1, "z": 0, "dir": "e"}
    with pytest.raises(Rejected, match="only one piece"):
        t.act(0, command)
    assert not [c for c in GAME.legal(t.state, 0) if c["piece"] == "staircase"]
    # version 1 allowed it (test_a_staircase_may_stand_with_two_feet_on_the_ground_and_its_high_foot_on_a_piece)
    t1 = build(table1(2, {"staircase": True}), [(1, "place bridge e1 north level 0")])
    t1.state["hands"][0].update(bridge=11, staircase=1)
    t1.state["turn"] = 0
    assert command in GAME.legal(t1.state, 0)


def test_a_staircase_on_pieces_scores_every_arch_with_its_own_spans_in_version_2():
    t = build(table(2, {"staircase": True}), STAIR_STEP)
    t.state["hands"][0].update(bridge=11, staircase=1)
    d = placed(given(t, 0, "place staircase a2 east level 1"))
    # lower arch: its own span over b2 and b2 free at level 0; upper: its own over d2, d2 free below
    assert d["arches"] == [2, 3] and d["points"] == 5 and d["on"] == [0, 1, 2]
    check(t)


def test_the_stand_in_sees_the_rules_version_of_its_game():
    for make, points in ((table, 1), (table1, 0)):
        t = build(make(2), [(0, "place bridge a1 east"), (1, "place bridge d1 east")])
        t.state["turn"] = 0
        state = standin.state_from_view(GAME.view(t.state, 0))
        assert standin.points(state, "bridge", 2, 0, 1, "e") == points
