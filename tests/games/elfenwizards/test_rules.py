"""Elfenwizards: one test per rule of the rulebook (given a position, when a command, then events)."""

from __future__ import annotations

import pytest

from games.base import Rejected
from games.elfenwizards import GAME
from games.elfenwizards.board import PLACEMENT
from games.elfenwizards.rules import award, end_reason, winners
from games.testing import Table

from .helpers import BLUE, GREEN, RED, first, stage, types, where

# ---------------------------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_follows_the_placement_table(players):
    t = Table(GAME, players)
    s = t.state
    table = PLACEMENT[str(players)]
    assert s["colours"] == table["colours"]
    # each colour plays its own row, or at 5 players the row dealt to it (RULINGS "Data version 4")
    rows = t.events[0].data.get("rows", range(players))
    assert bool(table.get("rows_dealt")) == (players == 5) == ("rows" in t.events[0].data)
    for seat, row in enumerate(rows):
        spaces = sorted(sp for o, sp, _g in s["wiz"] if o == seat)
        assert spaces == sorted(table["positions"][table["colours"][row]])
    assert all(sp != "GD" for _o, sp, _g in s["wiz"])  # the Grand Druid starts empty
    assert s["gsupply"] == 12  # gray magic tokens in the Gray Magic space
    assert s["supply"] == [7] * players  # 7 minor spells each
    assert s["scores"] == [0] * players


def test_three_players_use_red_green_blue_four_add_yellow_five_add_black():
    assert Table(GAME, 3).state["colours"] == ["red", "green", "blue"]
    assert Table(GAME, 4).state["colours"] == ["red", "green", "blue", "yellow"]
    assert Table(GAME, 5).state["colours"] == ["red", "green", "blue", "yellow", "black"]


def test_first_player_is_random_and_holds_the_dragon_then_rolls_all_seven_dice():
    dragons = set()
    for k in range(12):
        t = Table(GAME, 4, seed=f"s{k}".encode())
        start = first(t.events, "GameStarted")
        dragons.add(start.data["dragon"])
        rolled = first(t.events, "DiceRolled")
        assert rolled.data["seat"] == start.data["dragon"]
        assert len(rolled.data["dice"]) == 7
        assert GAME.waiting_for(t.state) == [start.data["dragon"]]
    assert len(dragons) > 1


def test_game_is_for_three_to_five_players():
    with pytest.raises(Rejected):
        Table(GAME, 2)
    with pytest.raises(Rejected):
        Table(GAME, 6)


# ---------------------------------------------------------------------------------------------
# Phases 2 and 3: casting and allocation of major spells
# ---------------------------------------------------------------------------------------------


def test_phase2_player_places_some_dice_then_the_next_player_rolls():
    t = stage("cast1", dragon=GREEN, rolled=[6, 5, 4, 3, 2, 1, 1])
    t.act(GREEN, {"type": "place", "die": 6, "space": "druid"})
    t.act(GREEN, {"type": "place", "die": 1, "space": "minor"})
    events = t.act(GREEN, {"type": "done"})
    assert types(events)[:2] == ["CastingEnded", "DiceRolled"]
    assert events[1].data["seat"] == BLUE  # clockwise from the dragon
    assert t.state["front"][GREEN] == 5
    assert t.state["major"]["druid"] == [[GREEN, 6]]
    assert t.state["mdice"] == [[GREEN, 1]]


def test_phase2_placing_every_die_ends_the_players_turn():
    t = stage("cast1", dragon=RED, rolled=[2, 3])
    t.act(RED, {"type": "place", "die": 2, "space": "gray"})
    events = t.act(RED, {"type": "place", "die": 3, "space": "wizard"})
    assert types(events)[1:3] == ["CastingEnded", "DiceRolled"]
    assert GAME.waiting_for(t.state) == [GREEN]


def test_phase2_a_player_may_place_no_die_at_all():
    t = stage("cast1", dragon=RED, rolled=[6, 6, 5, 4, 3, 2, 1])
    events = t.act(RED, {"type": "done"})
    assert first(events, "CastingEnded").data["kept"] == 7
    assert t.state["front"][RED] == 7


def test_dice_left_in_a_space_keep_their_face_into_the_next_turn():
    t = stage("gray9", gdice=[[RED, 6]], mdice=[[RED, 5]])
    assert t.state["pend"][RED] == "back"  # no gray magic token to remove
    events = t.act(RED, {"type": "takeback", "dice": []})
    assert t.state["turn"] == 2
    assert t.state["gdice"] == [[RED, 6]] and t.state["mdice"] == [[RED, 5]]
    rolled = first(events, "DiceRolled")
    assert rolled.data["seat"] == RED and len(rolled.data["dice"]) == 5  # only the dice in front are rolled


def test_malformed_commands_are_rejected():
    t = stage("cast1", dragon=RED, rolled=[1, 2])
    for bad in [
        {"type": "place", "die": True, "space": "druid"},
        {"type": "place", "die": "2", "space": "druid"},
        {"type": "cast", "spell": 1, "wizard": "red1"},
        {"type": "nonsense"},
        {},
    ]:
        with pytest.raises(Rejected):
            t.act(RED, bad)


def test_a_die_can_be_placed_only_with_a_face_that_was_rolled():
    t = stage("cast1", dragon=RED, rolled=[2, 3])
    with pytest.raises(Rejected):
        t.act(RED, {"type": "place", "die": 6, "space": "druid"})
    with pytest.raises(Rejected):
        t.act(RED, {"type": "place", "die": 2, "space": "nowhere"})


def test_placed_dice_are_never_moved_there_is_no_command_for_it():
    t = stage("cast1", dragon=RED, rolled=[2, 3])
    t.act(RED, {"type": "place", "die": 2, "space": "druid"})
    kinds = {c["type"] for c in GAME.legal(t.state, RED)}
    assert kinds == {"place", "done"}
    assert all(c["die"] == 3 for c in GAME.legal(t.state, RED) if c["type"] == "place")


def test_phase3_rolls_the_remaining_dice_and_all_must_be_placed():
    t = stage("cast2", dragon=RED, rolled=[4, 4])
    with pytest.raises(Rejected, match="must place all"):
        t.act(RED, {"type": "done"})
    t.act(RED, {"type": "place", "die": 4, "space": "sorcerer"})
    events = t.act(RED, {"type": "place", "die": 4, "space": "sorcerer"})
    assert "CastingEnded" in types(events)


def test_phase3_reroll_costs_a_minor_spell_and_rerolls_all_remaining_dice_once():
    t = stage("cast2", dragon=RED, rolled=[1, 1, 2])
    events = t.act(RED, {"type": "reroll"})
    e = first(events, "DiceRerolled")
    assert len(e.data["dice"]) == 3 and e.data["before"] == [1, 1, 2]
    assert t.state["supply"][RED] == 6 and t.state["mspace"][RED] == 1  # paid into the Minor Spells space
    with pytest.raises(Rejected, match="already rerolled"):
        t.act(RED, {"type": "reroll"})


def test_phase3_no_reroll_after_placing_a_die_or_without_a_minor_spell():
    t = stage("cast2", dragon=RED, rolled=[1, 2])
    t.act(RED, {"type": "place", "die": 1, "space": "minor"})
    with pytest.raises(Rejected):
        t.act(RED, {"type": "reroll"})
    t = stage("cast2", dragon=RED, rolled=[1, 2], supply=[0, 7, 7])
    with pytest.raises(Rejected, match="costs one minor spell"):
        t.act(RED, {"type": "reroll"})
    assert {"type": "reroll"} not in GAME.legal(t.state, RED)


def test_every_roll_is_public_and_an_undo_barrier():
    t = stage("cast2", dragon=RED, rolled=[1, 1, 2])
    events = t.act(RED, {"type": "reroll"})
    assert first(events, "DiceRerolled").reveals and first(events, "DiceRerolled").visible_to is None
    assert all(e.reveals for e in Table(GAME, 3).events if e.type == "DiceRolled")


def test_phase2_reroll_is_not_allowed():
    t = stage("cast1", dragon=RED, rolled=[1, 2])
    with pytest.raises(Rejected):
        t.act(RED, {"type": "reroll"})


# ---------------------------------------------------------------------------------------------
# Phases 4 and 6: recovery of minor spells
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dice, recovered", [([4], 2), ([1, 1], 1), ([3, 1], 2), ([5], 2), ([6, 3], 4)])
def test_recovery_one_minor_spell_per_two_pips_remainder_lost(dice, recovered):
    t = stage("recover4", mdice=[[RED, v] for v in dice], mspace=[5, 0, 0], supply=[2, 7, 7])
    events = t.act(RED, {"type": "recover", "dice": sorted(dice, reverse=True)})
    e = first(events, "MinorSpellsRecovered")
    assert e.data["count"] == recovered
    assert t.state["supply"][RED] == 2 + recovered
    assert t.state["mdice"] == []
    assert t.state["front"][RED] == 7  # used dice go back in front of the player


def test_recovery_is_limited_to_the_players_spent_minor_spells():
    t = stage("recover4", mdice=[[RED, 6]], mspace=[1, 0, 0], supply=[6, 7, 7])
    t.act(RED, {"type": "recover", "dice": [6]})
    assert t.state["supply"][RED] == 7 and t.state["mspace"][RED] == 0


def test_rules_version_1_recovery_every_die_used_must_count():
    t = stage("recover4", mdice=[[RED, 6], [RED, 2]], mspace=[1, 0, 0], supply=[6, 7, 7], rules=1)
    with pytest.raises(Rejected, match="must count"):
        t.act(RED, {"type": "recover", "dice": [6, 2]})  # the 6 alone recovers the only spell
    with pytest.raises(Rejected):
        t.act(RED, {"type": "recover", "dice": [5]})  # not there


def test_recovery_may_spend_one_or_several_dice_and_remaining_points_are_lost():
    # Rulebook: "one minor spell for every two points of dice ... Any remaining points are lost."
    t = stage("recover4", mdice=[[RED, 6], [RED, 2]], mspace=[1, 0, 0], supply=[6, 7, 7])
    assert {"type": "recover", "dice": [6, 2]} in GAME.legal(t.state, RED)
    e = first(t.act(RED, {"type": "recover", "dice": [6, 2]}), "MinorSpellsRecovered")
    assert e.data["count"] == 1  # the only spent spell; the other 6 points are lost
    assert t.state["mdice"] == [] and t.state["supply"][RED] == 7 and t.state["front"][RED] == 7
    with pytest.raises(Rejected):
        stage("recover4", mdice=[[RED, 6]], mspace=[1, 0, 0]).act(RED, {"type": "recover", "dice": [5]})


def test_phase4_unused_dice_stay_in_the_minor_spells_space():
    t = stage("recover4", mdice=[[RED, 6], [RED, 2]], mspace=[1, 0, 0], supply=[6, 7, 7])
    t.act(RED, {"type": "recover", "dice": [2]})
    assert t.state["mdice"] == [[RED, 6]]
    assert t.state["phase"] == "compete"


def test_phase4_nothing_to_do_without_spent_minor_spells():
    t = stage("recover4", mdice=[[RED, 6]], mspace=[0, 0, 0])
    assert t.state["pend"] == [None, None, None]


def test_phase6_unused_dice_may_stay_for_the_next_turn_or_be_taken_back():
    t = stage("recover6", mdice=[[RED, 6], [RED, 3], [GREEN, 2]], mspace=[1, 0, 0], supply=[6, 7, 7])
    assert GAME.waiting_for(t.state) == [RED, GREEN]
    t.act(RED, {"type": "recover", "dice": [3]})
    assert t.state["pend"][RED] == "back"
    t.act(RED, {"type": "takeback", "dice": []})  # the 6 stays for next turn
    assert t.state["mdice"] == [[RED, 6], [GREEN, 2]]
    events = t.act(GREEN, {"type": "takeback", "dice": [2]})
    assert first(events, "DiceTakenBack").data["dice"] == [2]
    assert [RED, 6] in t.state["mdice"] and [GREEN, 2] not in t.state["mdice"]


# ---------------------------------------------------------------------------------------------
# Phase 5: competition for titles
# ---------------------------------------------------------------------------------------------


def worked_example_table():
    """Rulebook example: a blue wizard on the 1st Druid space, a red one on the second."""
    return stage(
        "compete",
        dragon=RED,
        layout={"blue1": "D1", "red1": "D2", "green1": "W1"},
        major={"druid": [[RED, 6], [BLUE, 5], [BLUE, 6]]},
    )


def test_worked_example_blue_5_and_6_beat_red_6_and_a_minor_spell_for_grand_druid():
    t = worked_example_table()
    t.act(RED, {"type": "cast", "spell": 6, "wizard": "red1"})
    t.act(RED, {"type": "cast", "spell": "minor", "wizard": "red1"})
    t.act(GREEN, {"type": "pass"})
    t.act(BLUE, {"type": "cast", "spell": 5, "wizard": "blue1"})
    t.act(BLUE, {"type": "cast", "spell": 6, "wizard": "blue1"})
    t.act(RED, {"type": "pass"})
    events = t.act(BLUE, {"type": "pass"})
    awarded = first(events, "TitlesAwarded")
    gd = awarded.data["results"][0]
    assert gd["titles"] == ["GD"]
    assert gd["candidates"] == [["blue1", 11, [6, 5]], ["red1", 7, [6, 0]]]
    assert gd["won"] == [["blue1", "GD"]]
    assert [t.state["names"].index("red1"), "ROUT_D"] in awarded.data["moves"]
    assert awarded.data["gd"] == BLUE
    assert where(t, "blue1") == "GD"
    assert t.state["gd_count"][BLUE] == 1


def test_competition_each_player_casts_two_spells_in_turn_order():
    t = worked_example_table()
    assert GAME.waiting_for(t.state) == [RED]
    t.act(RED, {"type": "cast", "spell": 6, "wizard": "red1"})
    assert GAME.waiting_for(t.state) == [RED]
    with pytest.raises(Rejected, match="second"):
        t.act(RED, {"type": "pass"})
    t.act(RED, {"type": "cast", "spell": "minor", "wizard": "red1"})
    assert GAME.waiting_for(t.state) == [GREEN]


def test_competition_a_player_with_one_spell_left_casts_only_that_one():
    t = stage("compete", dragon=RED, supply=[1, 7, 7])
    t.act(RED, {"type": "cast", "spell": "minor", "wizard": "red2"})
    assert GAME.waiting_for(t.state) == [GREEN]
    # red has nothing left: passes automatically on his next turn
    t.act(GREEN, {"type": "pass"})
    events = t.act(BLUE, {"type": "pass"})
    assert any(e.type == "Passed" and e.data.get("auto") and e.data["seat"] == RED for e in events)


def test_competition_passing_is_final():
    t = stage("compete", dragon=RED)
    t.act(RED, {"type": "pass"})
    t.act(GREEN, {"type": "cast", "spell": "minor", "wizard": "green2"})
    t.act(GREEN, {"type": "cast", "spell": "minor", "wizard": "green2"})
    assert GAME.waiting_for(t.state) == [BLUE]
    t.act(BLUE, {"type": "cast", "spell": "minor", "wizard": "blue1"})
    t.act(BLUE, {"type": "cast", "spell": "minor", "wizard": "blue1"})
    assert GAME.waiting_for(t.state) == [GREEN]  # red, having passed, is skipped
    assert GAME.legal(t.state, RED) == []


def test_major_spells_are_cast_only_at_the_level_of_their_space():
    t = stage("compete", dragon=RED, major={"necromancer": [[RED, 5]]})
    with pytest.raises(Rejected, match="own level"):
        t.act(RED, {"type": "cast", "spell": 5, "wizard": "red2"})  # red2 is a Sorcerer (S3)
    t.act(RED, {"type": "cast", "spell": 5, "wizard": "red3"})  # red3 is a Necromancer (N2)
    assert t.state["cast"] == [[t.state["names"].index("red3"), RED, 5]]


def test_spells_may_be_cast_for_an_opponents_wizard():
    t = stage("compete", dragon=RED)
    t.act(RED, {"type": "cast", "spell": "minor", "wizard": "green2"})
    assert t.state["cast"][0][1] == RED


def test_rules_version_1_a_lone_candidate_can_be_supported_only_by_its_owner():
    t = stage("compete", dragon=RED, layout={"red1": "W1"}, rules=1)  # D1 empty, green1 alone on D2
    with pytest.raises(Rejected, match="Only green"):
        t.act(RED, {"type": "cast", "spell": "minor", "wizard": "green1"})
    assert all(c.get("wizard") != "green1" for c in GAME.legal(t.state, RED))


def test_anyone_may_cast_for_a_lone_candidate_opponents_only_cannot_oppose_it():
    # Rulebook: "If there is only one candidate for a title ... Opponents cannot place points to
    # oppose it": with nobody to oppose it for, a spell for it is support, which nothing forbids.
    t = stage("compete", dragon=RED, layout={"red1": "W1"})  # D1 empty, green1 alone on D2
    assert {"type": "cast", "spell": "minor", "wizard": "green1"} in GAME.legal(t.state, RED)
    t.act(RED, {"type": "cast", "spell": "minor", "wizard": "green1"})
    assert t.state["cast"] == [[t.state["names"].index("green1"), RED, 0]]


def test_when_one_player_controls_both_candidates_opponents_cannot_oppose():
    t = stage("compete", dragon=RED, layout={"green1": "D1", "red1": "W1", "green2": "D2"})
    with pytest.raises(Rejected, match="Only green"):
        t.act(RED, {"type": "cast", "spell": "minor", "wizard": "green1"})
    t.act(RED, {"type": "pass"})
    t.act(GREEN, {"type": "cast", "spell": "minor", "wizard": "green2"})


def test_a_wizard_not_standing_for_a_title_cannot_receive_spells():
    t = stage("compete", dragon=RED, layout={"red1": "GD"})
    with pytest.raises(Rejected, match="not a candidate"):
        t.act(RED, {"type": "cast", "spell": "minor", "wizard": "red1"})


# ---------------------------------------------------------------------------------------------
# Award of titles
# ---------------------------------------------------------------------------------------------


def awarded(t, casts, passes=True):
    """Casts (seat, spell, wizard) directly into the state, then everyone passes."""
    s = t.state
    for seat, spell, name in casts:
        s["cast"].append([s["names"].index(name), seat, 0 if spell == "minor" else spell])
        if spell == "minor":
            s["supply"][seat] -= 1
        else:
            s["front"][seat] -= 1
    return award(s)


def result_for(data, title):
    return next(r for r in data["results"] if title in r["titles"])


def test_a_tie_leaves_the_title_vacant_and_both_candidates_are_routed():
    t = stage("compete", dragon=RED)
    data = awarded(t, [(RED, 5, "red1"), (GREEN, 5, "green1")])
    assert result_for(data, "GD")["won"] == []
    assert data["gd"] is None
    moves = dict((t.state["names"][w], sp) for w, sp in data["moves"])
    assert moves["red1"] == "ROUT_D" and moves["green1"] == "ROUT_D"


def test_with_no_points_at_all_the_title_is_not_awarded():
    t = stage("compete", dragon=RED)
    data = awarded(t, [])
    assert all(r["won"] == [] for r in data["results"])


def test_a_lone_candidate_wins_with_one_point_but_not_with_none():
    t = stage("compete", dragon=RED, layout={"red1": "W1"})  # green1 alone for Grand Druid
    assert result_for(awarded(t, []), "GD")["won"] == []
    t = stage("compete", dragon=RED, layout={"red1": "W1"})
    assert result_for(awarded(t, [(GREEN, "minor", "green1")]), "GD")["won"] == [["green1", "GD"]]


def test_same_player_controls_both_candidates_the_one_with_points_wins():
    t = stage("compete", dragon=RED, layout={"green1": "D1", "red1": "W1", "green2": "D2"})
    data = awarded(t, [(GREEN, "minor", "green2")])
    assert result_for(data, "GD")["won"] == [["green2", "GD"]]


def test_titles_are_awarded_top_to_bottom_left_to_right():
    t = stage("compete", dragon=RED)
    data = awarded(t, [])
    assert [r["titles"] for r in data["results"]] == [
        ["GD"],
        ["D1"],
        ["D2"],
        ["S1"],
        ["S2"],
        ["S3"],
        ["S4"],
        ["N1", "N2"],
        ["N3", "N4"],
        ["N5", "N6"],
        ["N7", "N8"],
    ]


def test_losers_go_to_the_rout_space_of_their_level_and_plain_wizards_stay():
    t = stage("compete", dragon=RED)
    data = awarded(t, [(RED, "minor", "red2"), (GREEN, "minor", "red5")])  # red2 (S3) beats blue2 (S4)
    moves = dict((t.state["names"][w], sp) for w, sp in data["moves"])
    assert moves["red2"] == "D2" and moves["blue2"] == "ROUT_S"
    assert moves["red1"] == "ROUT_D"  # no points for either Druid: both routed
    assert moves["red3"] == "ROUT_N"
    assert moves["red5"] == "N1"  # alone with points among W1's candidates
    assert "green5" not in moves  # stays on W1


@pytest.mark.parametrize(
    "points, expected",
    [
        ([5, 3, 1], [0, 1]),  # the two best take the two Necromancer titles
        ([4, 4, 1], [0, 1]),  # two tied for first: both
        ([4, 4, 4], []),  # more than two tied for first: no title
        ([6, 2, 2], [0]),  # two tied for second: only the leader
        ([3, 0, 0], [0]),  # at least one point
        ([0, 0, 0], []),
        ([2, 1], [0, 1]),  # two candidates for two titles, each with a point
        ([2], [0]),
    ],
)
def test_necromancer_rule_for_more_than_two_candidates(points, expected):
    assert winners(points, 2) == expected


@pytest.mark.parametrize("points, expected", [([3, 1], [0]), ([3, 3], []), ([0, 0], []), ([1], [0]), ([0], [])])
def test_one_title_goes_to_the_single_best_with_at_least_one_point(points, expected):
    assert winners(points, 1) == expected


def test_necromancer_contest_on_a_wizard_space():
    t = stage("compete", dragon=RED)  # W1 holds red5, green5
    data = awarded(t, [(RED, 3, "red5"), (RED, 2, "green5")])
    assert result_for(data, "N1")["won"] == [["red5", "N1"], ["green5", "N2"]]


def test_two_necromancers_tied_for_first_take_n1_and_n2_in_turn_order():
    t = stage("compete", dragon=GREEN)  # W1 holds red5, green5
    data = awarded(t, [(RED, 3, "red5"), (RED, 3, "green5")])
    assert result_for(data, "N1")["won"] == [["green5", "N1"], ["red5", "N2"]]


def test_after_the_award_spells_are_returned_major_dice_in_front_minor_spells_to_the_space():
    t = worked_example_table()
    t.act(RED, {"type": "cast", "spell": 6, "wizard": "red1"})
    t.act(RED, {"type": "cast", "spell": "minor", "wizard": "red1"})
    t.act(GREEN, {"type": "pass"})
    t.act(BLUE, {"type": "cast", "spell": 5, "wizard": "blue1"})
    t.act(BLUE, {"type": "cast", "spell": "minor", "wizard": "blue1"})
    t.act(RED, {"type": "pass"})
    t.act(BLUE, {"type": "pass"})  # blue's 6 stays unused on the Major Spells space: wasted
    s = t.state
    assert s["front"] == [7, 7, 7]
    assert s["mspace"][RED] == 1 and s["supply"][RED] == 6
    assert s["mspace"][BLUE] == 1 and s["supply"][BLUE] == 6
    assert all(v == [] for v in s["major"].values())
    assert s["cast"] == []


# ---------------------------------------------------------------------------------------------
# Phase 7: vacant titles; phase 8: demotion
# ---------------------------------------------------------------------------------------------


def test_routed_druid_takes_the_highest_vacant_title_never_the_grand_druid():
    # red1 routed from D1: D1 is the only vacancy at the Druid level (GD is never filled so)
    t = stage("vacant", dragon=RED, layout={"red1": "ROUT_D"}, settle=True)
    filled = first(t.settled, "TitleFilled")
    assert filled.data == {"seat": RED, "wizard": "red1", "space": "D1", "auto": True}
    assert where(t, "red1") == "D1"


def test_a_routed_necromancer_may_rise_to_a_vacant_sorcerer_title():
    t = stage("vacant", dragon=RED, layout={"red3": "ROUT_N", "red2": "W1"}, settle=True)  # S3 vacant
    assert first(t.settled, "TitleFilled").data["space"] == "S3"
    assert where(t, "red3") == "S3"


def test_routed_wizards_fill_vacancies_in_level_then_turn_order_with_a_choice():
    t = worked_example_table()
    t.act(RED, {"type": "cast", "spell": 6, "wizard": "red1"})
    t.act(RED, {"type": "cast", "spell": "minor", "wizard": "red1"})
    t.act(GREEN, {"type": "pass"})
    t.act(BLUE, {"type": "cast", "spell": 5, "wizard": "blue1"})
    t.act(BLUE, {"type": "cast", "spell": 6, "wizard": "blue1"})
    t.act(RED, {"type": "pass"})
    t.act(BLUE, {"type": "pass"})
    # blue1 is Grand Druid; red1 routed at the Druid level; D1 and D2 are both vacant (no
    # points were cast for the Sorcerers): red chooses.
    assert t.state["phase"] == "vacant"
    assert GAME.waiting_for(t.state) == [RED]
    assert GAME.legal(t.state, RED) == [{"type": "claim", "space": "D1"}, {"type": "claim", "space": "D2"}]
    with pytest.raises(Rejected):
        t.act(RED, {"type": "claim", "space": "GD"})
    t.act(RED, {"type": "claim", "space": "D2"})
    assert where(t, "red1") == "D2"
    # next the routed Sorcerers, dragon first: red2 (from S3) takes the last Druid title, D1;
    # then green2 chooses among the four vacant Sorcerer titles.
    assert where(t, "red2") == "D1"
    assert GAME.waiting_for(t.state) == [GREEN]
    assert [c["space"] for c in GAME.legal(t.state, GREEN)] == ["S1", "S2", "S3", "S4"]


def test_two_routed_druids_are_placed_in_turn_order():
    t = stage(
        "vacant",
        dragon=GREEN,
        layout={"red1": "ROUT_D", "green1": "ROUT_D", "red2": "W1", "blue1": "W1", "green2": "W1", "blue2": "W1"},
    )
    # D1, D2, S1..S4 vacant: green (dragon) chooses first
    assert GAME.waiting_for(t.state) == [GREEN]
    t.act(GREEN, {"type": "claim", "space": "D2"})
    # only D1 is left at the Druid level: red1 takes it automatically
    assert where(t, "red1") == "D1"


def test_remaining_routed_wizards_are_demoted_with_gray_magic_for_druids_and_sorcerers_only():
    t = stage("demote", dragon=RED, layout={"red1": "ROUT_D", "red2": "ROUT_S", "red3": "ROUT_N"})
    assert GAME.waiting_for(t.state) == [RED]
    e1 = first(t.act(RED, {"type": "demote", "to": "W4"}), "WizardDemoted")
    e2 = first(t.act(RED, {"type": "demote", "to": "W4"}), "WizardDemoted")
    e3 = first(t.act(RED, {"type": "demote", "to": "W2"}), "WizardDemoted")
    assert [(e.data["wizard"], e.data["gray"]) for e in (e1, e2, e3)] == [("red1", 1), ("red2", 1), ("red3", 0)]
    assert where(t, "red1") == "W4" and where(t, "red3") == "W2"
    assert t.state["gsupply"] == 10


def test_demotion_dragon_holder_places_all_his_wizards_first():
    t = stage("demote", dragon=GREEN, layout={"red1": "ROUT_D", "green3": "ROUT_N", "green2": "ROUT_S"})
    assert GAME.waiting_for(t.state) == [GREEN]
    t.act(GREEN, {"type": "demote", "to": "W1"})
    assert GAME.waiting_for(t.state) == [GREEN]
    t.act(GREEN, {"type": "demote", "to": "W1"})
    assert GAME.waiting_for(t.state) == [RED]


def test_demotion_gives_no_gray_magic_token_when_none_is_left():
    t = stage("demote", dragon=RED, layout={"red1": "ROUT_D"}, gray={"green5": 12})
    e = first(t.act(RED, {"type": "demote", "to": "W1"}), "WizardDemoted")
    assert e.data["gray"] == 0


# ---------------------------------------------------------------------------------------------
# Phase 9: removal of gray magic tokens
# ---------------------------------------------------------------------------------------------


def test_four_pips_remove_one_gray_magic_token():
    t = stage("gray9", gdice=[[RED, 5], [RED, 2], [RED, 1]], gray={"red1": 2, "red5": 1})
    events = t.act(RED, {"type": "remove", "dice": [5, 2, 1], "from": ["red1", "red5"]})
    e = first(events, "GrayMagicRemoved")
    assert len(e.data["from"]) == 2  # 8 pips: two tokens (the rulebook's example)
    assert sum(g for o, _sp, g in t.state["wiz"] if o == RED) == 1


def test_the_player_chooses_which_wizards_lose_the_gray_magic_tokens():
    # Rulebook: "remove one gray magic token from any one of their wizards".
    t = stage("gray9", gdice=[[RED, 5], [RED, 2], [RED, 1]], gray={"red1": 2, "red5": 1})
    ways = [c["from"] for c in GAME.legal(t.state, RED) if c["dice"] == [5, 2, 1]]
    assert sorted(ways) == [["red1", "red1"], ["red1", "red5"]]
    e = first(t.act(RED, {"type": "remove", "dice": [5, 2, 1], "from": ["red1", "red1"]}), "GrayMagicRemoved")
    assert e.data["from"] == ["red1", "red1"]
    assert t.state["wiz"][t.state["names"].index("red5")][2] == 1
    with pytest.raises(Rejected, match="Name 1 of your wizards"):
        stage("gray9", gdice=[[RED, 4]], gray={"red1": 1}).act(RED, {"type": "remove", "dice": [4], "from": ["red5"]})


def test_removal_may_spend_dice_whose_points_are_lost_a_5_2_1_with_one_token():
    # "for four points of dice (on one or several dice) ... Any remaining points are lost."
    t = stage("gray9", gdice=[[RED, 5], [RED, 2], [RED, 1]], gray={"red1": 1})
    e = first(t.act(RED, {"type": "remove", "dice": [5, 2, 1], "from": ["red1"]}), "GrayMagicRemoved")
    assert e.data["dice"] == [5, 2, 1] and e.data["from"] == ["red1"]
    assert t.state["gdice"] == []  # all three used: back in front, not left in the space


def test_rules_version_1_removal_every_die_must_count_and_the_game_picks_the_wizard():
    t = stage("gray9", gdice=[[RED, 5], [RED, 2], [RED, 1]], gray={"red1": 1}, rules=1)
    with pytest.raises(Rejected, match="must count"):
        t.act(RED, {"type": "remove", "dice": [5, 2, 1]})
    t = stage("gray9", gdice=[[RED, 5], [RED, 2], [RED, 1]], gray={"red1": 2, "red5": 1}, rules=1)
    assert all("from" not in c for c in GAME.legal(t.state, RED))
    e = first(t.act(RED, {"type": "remove", "dice": [5, 2, 1]}), "GrayMagicRemoved")
    assert e.data["from"] == ["red1", "red1"]  # the wizard with the most tokens


def test_typed_by_mail_remove_5_2_1_is_accepted_under_rules_version_2_and_names_the_wizards():
    # Issue 29: rules version 1 refused the command a player types, `remove 5 2 1` with one token.
    t = stage("gray9", gdice=[[RED, 5], [RED, 2], [RED, 1]], gray={"red1": 1})
    e = first(t.act(RED, GAME.parse("remove 5 2 1", t.state, RED)), "GrayMagicRemoved")
    assert e.data["dice"] == [5, 2, 1] and e.data["from"] == ["red1"]
    t = stage("gray9", gdice=[[RED, 5], [RED, 2], [RED, 1]], gray={"red1": 2, "red5": 1})
    e = first(t.act(RED, GAME.parse("remove 5 2 1 from red1 red5", t.state, RED)), "GrayMagicRemoved")
    assert e.data["from"] == ["red1", "red5"]  # the player's choice, not the wizard with the most
    old = stage("gray9", gdice=[[RED, 5], [RED, 2], [RED, 1]], gray={"red1": 1}, rules=1)
    with pytest.raises(Rejected, match="must count"):
        old.act(RED, GAME.parse("remove 5 2 1", old.state, RED))


def test_translators_variant_three_pips_remove_a_token():
    t = stage("gray9", gdice=[[RED, 3]], gray={"red1": 1}, options={"translator_variant": True})
    e = first(t.act(RED, {"type": "remove", "dice": [3]}), "GrayMagicRemoved")
    assert len(e.data["from"]) == 1
    t = stage("gray9", gdice=[[RED, 3]], gray={"red1": 1})
    assert t.state["pend"][RED] == "back"  # 3 pips are not enough without the variant
    assert GAME.legal(t.state, RED)[0]["type"] == "takeback"


def test_unused_gray_magic_dice_stay_or_are_taken_back():
    t = stage("gray9", gdice=[[RED, 4], [RED, 6]], gray={"red1": 1})
    t.act(RED, {"type": "remove", "dice": [4]})
    assert t.state["pend"][RED] == "back"
    t.act(RED, {"type": "takeback", "dice": []})
    assert t.state["gdice"] == [[RED, 6]]


# ---------------------------------------------------------------------------------------------
# Phase 10: scoring; end of the game
# ---------------------------------------------------------------------------------------------


def test_scoring_10_7_5_3_2_and_minus_one_per_gray_magic_token():
    t = stage("gray9", layout={"red1": "GD"}, gray={"red2": 2})
    # red: GD 10, S3 5 (red2), N2 3, N7 3, W1..W3 2 each = 27, minus 2 gray
    s = t.state
    assert s["pend"] == [None, None, None]
    t = stage("gray9", layout={"red1": "GD"}, gray={"red2": 2}, gdice=[[GREEN, 1]])
    events = t.act(GREEN, {"type": "takeback", "dice": [1]})
    scored = first(events, "TurnScored")
    assert scored.data["lines"][RED]["titles"] == 27
    assert scored.data["lines"][RED]["gray"] == -2
    assert scored.data["lines"][RED]["total"] == 25
    # green: D2 7, S2 5, N3 3, N6 3, three Wizards 6 = 24
    assert scored.data["lines"][GREEN]["total"] == 24
    assert t.state["scores"][:2] == [25, 24]


def test_the_game_ends_after_the_fourth_turn_with_a_point_per_minor_spell_in_front():
    t = stage("gray9", turn=4, gdice=[[GREEN, 1]], supply=[3, 7, 0], mspace=[4, 0, 5])
    events = t.act(GREEN, {"type": "takeback", "dice": [1]})
    end = first(events, "GameEnded")
    assert end.data["reason"] == "fourth_turn"
    assert end.data["bonus"] == [3, 7, 0]
    res = GAME.result(t.state)
    assert res is not None
    assert res.scores == [24 + 3, 24 + 7, 24 + 0]


def test_the_game_ends_when_a_player_becomes_grand_druid_for_the_second_time():
    t = stage("compete", turn=2)
    s = t.state
    s["gd_this_turn"] = RED
    s["gd_count"][RED] = 2
    assert end_reason(s) == "second_grand_druid"
    s["gd_count"][RED] = 1
    assert end_reason(s) is None


def test_the_game_ends_after_the_second_turn_without_a_grand_druid():
    t = stage("compete", turn=2)
    s = t.state
    s["no_gd"] = 2
    assert end_reason(s) == "no_grand_druid_twice"


def test_a_turn_without_grand_druid_is_counted_and_the_second_one_ends_the_game():
    t = stage("compete", dragon=RED, turn=3, supply=[0, 0, 0])
    t.state["no_gd"] = 1
    # no one casts a spell: everyone passes, no title is awarded
    s = t.state
    while GAME.waiting_for(s):
        seat = GAME.waiting_for(s)[0]
        t.act(seat, GAME.timeout(s, seat))
        s = t.state
    assert s["no_gd"] == 2
    assert s["phase"] == "over" and s["end_reason"] == "no_grand_druid_twice"
    assert s["turn"] == 3


def test_the_winner_has_the_highest_total_and_a_tie_is_shared():
    t = stage("gray9", turn=4, gdice=[[GREEN, 1]], supply=[2, 2, 1])
    t.act(GREEN, {"type": "takeback", "dice": [1]})
    res = GAME.result(t.state)
    assert res.scores == [26, 26, 25]
    assert res.ranking() == [[RED, GREEN], [BLUE]]


# ---------------------------------------------------------------------------------------------
# Phase 1: retirement of the Grand Druid
# ---------------------------------------------------------------------------------------------


def retire_table(**kw):
    t = stage("gray9", layout={"blue1": "GD"}, gdice=[[GREEN, 1]], **kw)
    t.act(GREEN, {"type": "takeback", "dice": [1]})  # scoring, then turn 2 begins with retirement
    return t


def test_retirement_from_the_second_turn_minor_spell_to_the_turn_counter_and_dragon_to_the_player():
    t = retire_table()
    assert t.state["turn"] == 2 and t.state["phase"] == "retire"
    assert GAME.waiting_for(t.state) == [BLUE]
    events = t.act(BLUE, {"type": "retire", "source": "supply", "to": "W3"})
    e = first(events, "GrandDruidRetired")
    assert e.data["counter"] == 1  # the turn that has just ended
    assert t.state["counter"] == [[1, BLUE]]
    assert t.state["supply"][BLUE] == 6
    assert t.state["dragon"] == BLUE
    assert where(t, "blue1") == "W3"
    assert first(events, "DiceRolled").data["seat"] == BLUE  # the new dragon holder casts first


def test_retirement_minor_spell_may_come_from_the_minor_spells_space():
    t = retire_table(mspace=[0, 0, 2])
    t.act(BLUE, {"type": "retire", "source": "space", "to": "W1"})
    assert t.state["mspace"][BLUE] == 1 and t.state["supply"][BLUE] == 5


def test_retirement_without_any_minor_spell_places_none():
    t = retire_table(supply=[7, 7, 0])
    assert GAME.legal(t.state, BLUE)[0] == {"type": "retire", "source": None, "to": "W1"}
    with pytest.raises(Rejected):
        t.act(BLUE, {"type": "retire", "source": "supply", "to": "W1"})
    t.act(BLUE, {"type": "retire", "source": None, "to": "W1"})
    assert t.state["counter"] == []


def test_no_retirement_on_the_first_turn():
    t = Table(GAME, 3)
    assert "retire" not in [e.data.get("phase") for e in t.events if e.type == "PhaseBegan"]
    assert t.state["phase"] == "cast1"


def test_without_a_grand_druid_the_dragon_stays():
    t = stage("gray9", dragon=GREEN, gdice=[[GREEN, 1]])
    t.act(GREEN, {"type": "takeback", "dice": [1]})
    assert t.state["turn"] == 2 and t.state["phase"] == "cast1"
    assert t.state["dragon"] == GREEN


# ---------------------------------------------------------------------------------------------
# Master of Seals and timeouts
# ---------------------------------------------------------------------------------------------


def test_score_sheet_breaks_down_each_turn_and_sums_to_the_scores():
    t = stage("gray9", turn=4, layout={"red1": "GD"}, gray={"red2": 1}, gdice=[[GREEN, 1]], supply=[2, 7, 7])
    t.act(GREEN, {"type": "takeback", "dice": [1]})
    sheet = GAME.score_sheet(t.state)
    for seat in range(3):
        assert sum(line.points for line in sheet if line.seat == seat) == t.state["scores"][seat]
    red = [(line.label, line.points, line.detail) for line in sheet if line.seat == RED]
    assert red == [
        ("Turn 4: titles", 27, "Grand Druid 1x10, Sorcerer 1x5, Necromancer 2x3, Wizard 3x2"),
        ("Turn 4: gray magic", -1, "1 token(s)"),
        ("Final: minor spells", 2, "2 minor spell(s) in front"),
    ]
    notice = GAME.narrate(first(t.events[-5:], "TurnScored"), ["Ann", "Bob", "Cid"])
    assert "Ann: +26" in notice and "Master of Seals" in notice


def test_timeout_gives_a_legal_command_in_every_phase():
    t = Table(GAME, 3)
    steps = 0
    while GAME.waiting_for(t.state) and steps < 3000:
        seat = GAME.waiting_for(t.state)[0]
        cmd = GAME.timeout(t.state, seat)
        assert cmd in GAME.legal(t.state, seat)
        t.act(seat, cmd)
        steps += 1
    assert GAME.result(t.state) is not None


def test_a_turn_runs_the_phases_in_the_rulebooks_order():
    t = Table(GAME, 4, seed=b"order")
    while t.state["turn"] == 1 or t.state["phase"] in ("begin",):
        seat = GAME.waiting_for(t.state)[0]
        t.act(seat, GAME.legal(t.state, seat)[0])
        if t.state["turn"] == 2:
            break
    phases = [e.data["phase"] for e in t.events if e.type == "PhaseBegan" and e.data["turn"] == 1]
    assert phases == ["cast1", "cast2", "recover4", "compete", "recover6", "vacant", "demote", "gray9"]
    kinds = [e.type for e in t.events]
    assert kinds.index("TitlesAwarded") < kinds.index("TurnScored") < kinds.index("TurnBegan")


def test_rules_version_1_on_a_wizard_space_held_by_one_player_only_he_may_cast():
    t = stage("compete", dragon=GREEN, layout={"green5": "W2"}, rules=1)  # W1 holds red5 only
    with pytest.raises(Rejected, match="Only red"):
        t.act(GREEN, {"type": "cast", "spell": "minor", "wizard": "red5"})


def test_on_a_wizard_space_of_one_players_wizards_only_he_may_cast_but_anyone_for_a_lone_one():
    t = stage("compete", dragon=GREEN, layout={"green5": "W2", "red6": "W1"})  # red5, red6 on W1
    with pytest.raises(Rejected, match="Only red"):
        t.act(GREEN, {"type": "cast", "spell": "minor", "wizard": "red5"})  # it would oppose red6
    t = stage("compete", dragon=GREEN, layout={"green5": "W2"})  # W1 holds red5 only
    t.act(GREEN, {"type": "cast", "spell": "minor", "wizard": "red5"})
