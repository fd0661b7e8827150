"""One test per rule of the rulebook: given a situation, when a command, then these events or a rejection."""

import pytest

from games.base import Rejected
from games.testing import Table
from games.zauberschwert import GAME
from games.zauberschwert.rules import ADV, SPELL_ID, share_out

from .helpers import BLUE, GREEN, RED, YELLOW, find, place_all, table_at, types

# ---------------------------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------------------------


def test_setup_adventure_deck_is_stacked_c_at_the_bottom_b_then_a_on_top():
    table = Table(GAME, 3, seed=b"setup")
    shuffled = find(table.events, "DecksShuffled")
    letters = [ADV[c]["letter"] for c in shuffled.data["adventure"]]
    assert letters == ["A"] * 9 + ["B"] * 9 + ["C"] * 7
    assert len(shuffled.data["artifacts"]) == 28
    assert shuffled.visible_to == () and shuffled.public == {"adventure": 25, "artifacts": 28}


def test_setup_each_player_has_2_magic_and_round_one_adds_2_and_shows_two_cards():
    table = Table(GAME, 4, seed=b"setup")
    start = find(table.events, "GameStarted").data["start"]
    assert table.state["start"] == start
    assert table.state["mp"] == [4, 4, 4, 4]  # 2 at the start + 2 in phase B of round 1
    assert find(table.events, "MagicSupplied").data["income"] == [2, 2, 2, 2]
    assert len(find(table.events, "RoundStarted").data["revealed"]) == 2
    assert table.state["step"] == "place" and GAME.waiting_for(table.state) == [start]


# ---------------------------------------------------------------------------------------------
# Phase A and B
# ---------------------------------------------------------------------------------------------


def _finish_round(table):
    """Everyone passes through phase E (no spells, done trading, lay nothing)."""
    for _ in range(50):
        if table.state["step"] in ("place", "over"):
            return
        seat = GAME.waiting_for(table.state)[0]
        cmd = GAME.timeout(table.state, seat)
        table.act(seat, cmd)
    raise AssertionError("round did not finish")


def test_phase_a_a_leftover_creature_stays_and_only_one_card_is_turned_over():
    table = table_at(players=2, display=("A08", "A04"), start=RED, adv_deck=["B03", "B04", "B05"])
    events = place_all(table, {RED: 1, BLUE: 1})  # both on the energy orb; the goblins stay
    _finish_round(table)
    events = [e for e in table.events if e.type == "RoundStarted"]
    assert events[-1].data["revealed"] == ["B03"]
    assert table.state["display"] == ["A08", "B03"]


def test_phase_a_no_card_turned_over_when_two_creatures_are_left():
    table = table_at(players=2, display=("A08", "A06"), start=RED, adv_deck=["B03"])
    place_all(table, {})
    _finish_round(table)
    assert [e for e in table.events if e.type == "RoundStarted"][-1].data["revealed"] == []
    assert table.state["display"] == ["A08", "A06"] and table.state["adv_deck"] == ["B03"]


def test_phase_b_magic_never_above_30():
    table = table_at(players=2, display=("A04", "B03"), start=RED, mp=[29, 30], adv_deck=["B04", "B05"])
    place_all(table, {RED: 0, BLUE: 1})
    assert table.state["mp"] == [30, 30]  # +3 and +4 from the orbs, capped


def test_start_player_passes_left_at_the_end_of_the_round():
    table = table_at(players=3, display=("A04", "B03"), start=RED, adv_deck=["B04", "B05"])
    place_all(table, {})
    _finish_round(table)
    assert find(table.events, "RoundEnded").data["start"] == 1 and table.state["start"] == 1


# ---------------------------------------------------------------------------------------------
# Phase C
# ---------------------------------------------------------------------------------------------


def test_phase_c_players_place_in_turn_order_from_the_start_player():
    table = table_at(players=4, display=("A04", "B03"), start=GREEN)
    with pytest.raises(Rejected):
        table.act(RED, {"type": "place", "slot": 0})
    table.act(GREEN, {"type": "place", "slot": 0})
    assert GAME.waiting_for(table.state) == [YELLOW]
    with pytest.raises(Rejected):
        table.act(GREEN, {"type": "place", "slot": 1})  # a placed wizard may not be moved


def test_phase_c_passing_gives_one_magic_point():
    table = table_at(players=2, display=("A04", "B03"), start=RED, mp=[5, 5])
    events = table.act(RED, {"type": "pass"})
    assert find(events, "WizardPassed").data == {"seat": RED, "magic": 1}
    assert table.state["mp"][RED] == 6


def test_phase_c_several_wizards_may_share_a_card():
    table = table_at(players=3, display=("A04", "B03"), start=RED, mp=[1, 1, 1])
    events = place_all(table, {RED: 1, BLUE: 1, GREEN: 1})
    assert find(events, "OrbResolved").data["seats"] == [RED, BLUE, GREEN]
    assert table.state["mp"] == [5, 5, 5]


# ---------------------------------------------------------------------------------------------
# Phase D: order of resolution
# ---------------------------------------------------------------------------------------------


def test_phase_d_if_the_start_player_passed_the_next_players_card_goes_first():
    table = table_at(players=3, display=("A04", "B03"), start=RED, mp=[0, 0, 0])
    events = place_all(table, {RED: None, BLUE: 1, GREEN: 0})
    orbs = [e.data["card"] for e in events if e.type == "OrbResolved"]
    assert orbs == ["B03", "A04"]


def test_phase_d_unchosen_spells_orbs_and_holy_sites_leave_unchosen_creatures_stay():
    for other in ("A01", "A04", "B04"):
        table = table_at(players=2, display=("A08", other), start=RED, adv_deck=["B05", "B06"])
        events = place_all(table, {})
        assert find(events, "AdventuresEnded").data["removed"] == [other]
        assert table.state["display"] == ["A08", "B05"]  # the goblins stay, one new card joins them
        assert other in table.state["gone"]


def test_phase_d_each_card_is_resolved_once_even_with_several_wizards():
    table = table_at(players=4, display=("B04", "A04"), start=RED)
    events = place_all(table, {RED: 0, BLUE: 0, GREEN: 0})
    assert types(events).count("HolySiteResolved") == 1


# ---------------------------------------------------------------------------------------------
# Spells
# ---------------------------------------------------------------------------------------------


def test_spell_a_lone_wizard_gets_it_free():
    table = table_at(players=2, display=("B01", "A04"), start=RED, mp=[5, 5])
    events = place_all(table, {RED: 0, BLUE: 1})
    assert find(events, "SpellWon").data == {"seat": RED, "card": "B01", "slot": 0, "price": 0}
    assert table.state["spells"][RED] == ["B01"] and table.state["mp"][RED] == 5


def test_spell_auction_first_bid_from_the_start_player_or_the_next_participant_clockwise():
    table = table_at(players=4, display=("B01", "A04"), start=RED, mp=[5, 5, 5, 5])
    events = place_all(table, {RED: 1, BLUE: 1, GREEN: 0, YELLOW: 0})
    assert find(events, "AuctionOpened").data["seats"] == [GREEN, YELLOW]
    assert GAME.waiting_for(table.state) == [GREEN]


def test_spell_auction_raise_or_pass_no_more_than_you_have_passing_is_final_only_the_winner_pays():
    table = table_at(players=3, display=("B01", "A04"), start=RED, mp=[6, 3, 9])
    place_all(table, {RED: 0, BLUE: 0, GREEN: 0})
    table.act(RED, {"type": "bid", "amount": 2})
    with pytest.raises(Rejected, match="at least 3"):
        table.act(BLUE, {"type": "bid", "amount": 2})
    with pytest.raises(Rejected, match="more than your 3"):
        table.act(BLUE, {"type": "bid", "amount": 4})
    table.act(BLUE, {"type": "pass"})
    table.act(GREEN, {"type": "bid", "amount": 4})
    assert GAME.waiting_for(table.state) == [RED]  # Blue passed for good: skipped
    table.act(RED, {"type": "bid", "amount": 5})
    events = table.act(GREEN, {"type": "pass"})
    assert find(events, "SpellWon").data == {"seat": RED, "card": "B01", "slot": 0, "price": 5}
    assert table.state["mp"] == [1 + 0, 3, 9]  # only the winner pays (the orb on the other card: nobody)


def test_rules_version_1_spell_auction_everybody_passing_leaves_the_spell_unsold():
    table = table_at(players=2, display=("B01", "A04"), start=RED, mp=[6, 3], rules=1)
    place_all(table, {RED: 0, BLUE: 0})
    table.act(RED, {"type": "pass"})
    events = table.act(BLUE, {"type": "pass"})
    assert find(events, "SpellUnsold").data["card"] == "B01"
    assert "B01" in table.state["gone"]


def test_a_contested_spell_is_always_sold_the_first_bidder_opens_the_bidding():
    # "The first bid comes either from the start player ... The following player must either
    # raise the bid or pass." The first bid is made, so the spell always finds a buyer.
    table = table_at(players=2, display=("B01", "A04"), start=RED, mp=[6, 3])
    place_all(table, {RED: 0, BLUE: 0})
    assert {"type": "pass"} not in GAME.legal(table.state, RED)
    assert {"type": "bid", "amount": 0} in GAME.legal(table.state, RED)
    with pytest.raises(Rejected, match="first bid must be made"):
        table.act(RED, {"type": "pass"})
    assert GAME.timeout(table.state, RED) == {"type": "bid", "amount": 0}  # a late opener bids 0
    table.act(RED, {"type": "bid", "amount": 0})
    events = table.act(BLUE, {"type": "pass"})
    assert find(events, "SpellWon").data == {"seat": RED, "card": "B01", "slot": 0, "price": 0}


def test_spell_is_usable_once_a_round_by_its_owner_even_after_passing():
    table = table_at(players=2, display=("A04", "B03"), start=RED, mp=[10, 10], spells=[[SPELL_ID["Transformus"]], []])
    place_all(table, {RED: None, BLUE: 1})
    assert table.state["step"] == "spells" and GAME.waiting_for(table.state) == [RED]
    events = table.act(RED, {"type": "cast", "spell": "Transformus"})
    assert find(events, "TransformusCast").data == {"seat": RED, "magic": 4, "power": 1}
    assert table.state["mp"][RED] == 10 + 1 - 4 and table.state["ps"][RED] == 1
    # used this round: the spell window moved on
    assert table.state["step"] != "spells"
    with pytest.raises(Rejected):
        GAME.decide(table.state, RED, {"type": "cast", "spell": "Transformus"}, None)


def test_spells_of_several_players_are_used_from_the_start_player_on():
    spells = [[SPELL_ID["Transformus"]], [], [SPELL_ID["Retransformus"]]]
    hand = [[], [], ["ART16"]]
    table = table_at(players=3, display=("A04", "B03"), start=BLUE, mp=[10, 10, 10], spells=spells, hand=hand)
    place_all(table, {})
    assert GAME.waiting_for(table.state) == [GREEN]  # Blue starts but has no spell; Green is next clockwise
    table.act(GREEN, {"type": "done"})
    assert GAME.waiting_for(table.state) == [RED]


def test_addus_gives_one_more_magic_point_in_phase_b():
    table = table_at(
        players=2,
        display=("A04", "B03"),
        start=RED,
        mp=[5, 5],
        spells=[[SPELL_ID["Addus"]], []],
        adv_deck=["B04", "B05"],
    )
    place_all(table, {})
    _finish_round(table)
    supplied = [e for e in table.events if e.type == "MagicSupplied"][-1]
    assert supplied.data == {"income": [3, 2], "addus": [RED]}
    assert table.state["mp"] == [5 + 1 + 3, 5 + 1 + 2]


def test_fulmentus_changes_a_creatures_strength_by_2_for_this_fight():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[3, 5], spells=[[], [SPELL_ID["Fulmentus"]]])
    place_all(table, {RED: 0, BLUE: 1})
    assert table.state["step"] == "fulmentus" and GAME.waiting_for(table.state) == [BLUE]
    table.act(BLUE, {"type": "fulmentus", "delta": -2})
    assert table.state["fight"]["strength"] == 3
    events = table.act(RED, {"type": "fight"})
    assert find(events, "CreatureDefeated").data["winners"][0]["paid"] == 3
    assert SPELL_ID["Fulmentus"] in table.state["used"][BLUE]


def test_fulmentus_raising_the_strength_can_make_a_lone_wizard_fail():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[6, 5], spells=[[], [SPELL_ID["Fulmentus"]]])
    place_all(table, {RED: 0, BLUE: 1})
    events = table.act(BLUE, {"type": "fulmentus", "delta": 2})
    assert find(events, "CreatureWithstood").data["reason"] == "cannot_pay"
    assert table.state["mp"][RED] == 6 and "A08" in table.state["display"]


def test_stonex_gives_a_power_stone_to_an_owner_who_gained_none_this_round():
    table = table_at(
        players=2,
        display=("A04", "B04"),
        start=RED,
        spells=[[SPELL_ID["Stonex"]], [SPELL_ID["Stonex"]]],
        adv_deck=["B05", "B06"],
    )
    # (two Stonex owners is impossible in a real game; here it shows both cases at once)
    place_all(table, {RED: 0, BLUE: 1})  # Red: energy orb, Blue: holy site (2 power stones)
    _finish_round(table)
    cast = [e.data for e in table.events if e.type == "StonexCast"]
    assert cast == [{"seat": RED, "power": 1}]
    assert table.state["ps"] == [1, 2]


def test_retransformus_discards_a_hand_card_and_draws_the_top_artifact():
    table = table_at(
        players=2,
        display=("A04", "B03"),
        start=RED,
        spells=[[SPELL_ID["Retransformus"]], []],
        hand=[["ART05", "ART16"], []],
    )
    top = table.state["art_deck"][0]
    place_all(table, {})
    events = table.act(RED, {"type": "cast", "spell": "Retransformus", "card": "ART05"})
    cast = find(events, "RetransformusCast")
    assert cast.data == {"seat": RED, "discard": "ART05", "draw": top}
    assert cast.visible_to == (RED,) and cast.public == {"seat": RED, "discard": "ART05"}
    assert table.state["hand"][RED] == ["ART16", top] and table.state["discards"] == ["ART05"]


def test_retransformus_may_not_discard_half_of_a_complete_two_part_artifact():
    table = table_at(
        players=2,
        display=("A04", "B03"),
        start=RED,
        spells=[[SPELL_ID["Retransformus"]], []],
        hand=[["ART05", "ART06", "ART16"], []],
    )
    place_all(table, {})
    with pytest.raises(Rejected):
        table.act(RED, {"type": "cast", "spell": "Retransformus", "card": "ART05"})
    assert {c.get("card") for c in GAME.legal(table.state, RED)} == {"ART16", None}


def test_harpagarus_takes_a_random_card_another_player_received_this_round():
    table = table_at(
        players=2,
        display=("B04", "A04"),
        start=RED,
        mp=[5, 5],
        spells=[[SPELL_ID["Harpagarus"]], []],
        hand=[[], ["ART20"]],
    )
    top = table.state["art_deck"][0]
    place_all(table, {RED: 1, BLUE: 0})  # Blue draws one card at the holy site
    assert GAME.legal(table.state, RED) == [{"type": "cast", "spell": "Harpagarus", "target": BLUE}, {"type": "done"}]
    events = table.act(RED, {"type": "cast", "spell": "Harpagarus", "target": BLUE})
    cast = find(events, "HarpagarusCast")
    assert cast.data["card"] == top  # the only card Blue received this round (ART20 was older)
    assert cast.visible_to == (RED, BLUE) and "card" not in cast.public and cast.reveals
    assert table.state["hand"] == [[top], ["ART20"]] and table.state["mp"][RED] == 5 + 3 - 2


# ---------------------------------------------------------------------------------------------
# Energy orbs and holy sites
# ---------------------------------------------------------------------------------------------


def test_energy_orb_gives_every_wizard_on_it_its_magic_points():
    table = table_at(players=3, display=("C02", "A04"), start=BLUE, mp=[1, 2, 3])
    events = place_all(table, {RED: 0, GREEN: 0, BLUE: 1})
    orb = [e.data for e in events if e.type == "OrbResolved" and e.data["card"] == "C02"][0]
    assert orb["seats"] == [GREEN, RED]  # seating order from the start player (Blue)
    assert table.state["mp"] == [6, 5, 8]


def test_holy_site_gives_every_wizard_power_stones_and_one_artifact_dealt_from_the_start_player():
    table = table_at(players=3, display=("C03", "A04"), start=BLUE)
    deck = list(table.state["art_deck"])
    events = place_all(table, {RED: 0, BLUE: 0, GREEN: 0})
    assert [e.data["seat"] for e in find(events, "ArtifactsDrawn")] == [BLUE, GREEN, RED]
    assert table.state["hand"] == [[deck[2]], [deck[0]], [deck[1]]]
    assert table.state["ps"] == [3, 3, 3]


def test_artifact_deck_is_not_replenished_when_used_up():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[10, 10], art_deck=["ART16"])
    place_all(table, {RED: 0, BLUE: 0})
    table.act(RED, {"type": "together"})
    events = table.act(BLUE, {"type": "together"})
    assert find(events, "ArtifactsDrawn").data == {"seat": RED, "cards": ["ART16"]}  # Blue gets nothing
    assert table.state["art_deck"] == [] and table.state["hand"] == [["ART16"], []]


# ---------------------------------------------------------------------------------------------
# Creatures
# ---------------------------------------------------------------------------------------------


def test_creature_alone_who_cannot_pay_keeps_wizard_back_loses_nothing_and_the_creature_stays():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[4, 4])
    events = place_all(table, {RED: 0, BLUE: 1})
    assert find(events, "CreatureWithstood").data["reason"] == "cannot_pay"
    assert table.state["mp"][RED] == 4 and table.state["display"][0] == "A08"


def test_creature_alone_may_withdraw_even_when_able_to_pay():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[9, 4])
    place_all(table, {RED: 0, BLUE: 1})
    events = table.act(RED, {"type": "withdraw"})
    assert find(events, "CreatureWithstood").data["reason"] == "withdrew"
    assert table.state["mp"][RED] == 9 and table.state["display"][0] == "A08"


def test_creatures_together_cost_split_rounded_up_and_who_cannot_pay_drops_out_and_the_rest_split_again():
    state = {"mp": [4, 2, 4, 4]}
    # strength 10 among four: 3 each; Blue (2) drops; 10/3 -> 4 each: the others can pay
    assert share_out(state, [0, 1, 2, 3], 10) == ([0, 2, 3], 4, [1])
    # strength 12: 3 each, Blue drops; 4 each, Red drops; 6 each, nobody can pay: the creature stays
    assert share_out({"mp": [3, 2, 4, 4]}, [0, 1, 2, 3], 12) == ([], 0, [1, 0, 2, 3])
    # strength 5 between two: 3 each (rounded up)
    assert share_out({"mp": [3, 3]}, [0, 1], 5) == ([0, 1], 3, [])


def test_creatures_together_dropped_players_pay_nothing_and_get_nothing():
    table = table_at(players=3, display=("B09", "A04"), start=RED, mp=[9, 2, 9])  # shadows strength 9
    place_all(table, {RED: 0, BLUE: 0, GREEN: 0})
    table.act(RED, {"type": "together"})
    events = table.act(GREEN, {"type": "together"})  # Blue (2 < 9) is not asked: together is all he can do
    won = find(events, "CreatureDefeated").data
    # 9/3 = 3: Blue cannot pay and drops out; 9/2 -> 5 each for Red and Green
    assert won["dropped"] == [BLUE]
    assert [(w["seat"], w["paid"], w["power"]) for w in won["winners"]] == [(RED, 5, 3), (GREEN, 5, 3)]
    assert table.state["mp"] == [4, 2, 4]


def test_creatures_together_a_single_survivor_pays_all_and_takes_the_one_wizard_reward():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[6, 2])
    place_all(table, {RED: 0, BLUE: 0})
    events = table.act(RED, {"type": "together"})
    won = find(events, "CreatureDefeated").data
    assert won["dropped"] == [BLUE]
    assert won["winners"][0]["seat"] == RED and won["winners"][0]["paid"] == 5
    assert won["winners"][0]["power"] == 3 and won["winners"][0]["artifacts"] == 2  # one-wizard reward


def test_creatures_together_nobody_can_pay_the_creature_stays():
    table = table_at(players=2, display=("C07", "A04"), start=RED, mp=[7, 7])  # dragons strength 16
    events = place_all(table, {RED: 0, BLUE: 0})
    assert find(events, "CreatureWithstood").data["reason"] == "cannot_pay"
    assert table.state["mp"] == [7, 7] and table.state["display"][0] == "C07"


def test_creature_auction_first_bid_at_least_the_strength():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[9, 9])
    place_all(table, {RED: 0, BLUE: 0})
    table.act(RED, {"type": "together"})
    table.act(BLUE, {"type": "alone"})
    assert GAME.waiting_for(table.state) == [RED]  # the start player bids first even if Blue asked for it
    with pytest.raises(Rejected, match="at least 5"):
        table.act(RED, {"type": "bid", "amount": 4})


def test_creature_alone_needs_at_least_the_strength_in_magic():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[4, 9])
    place_all(table, {RED: 0, BLUE: 0})
    assert GAME.waiting_for(table.state) == [BLUE]  # Red cannot claim it alone, so is not asked
    with pytest.raises(Rejected):
        GAME.decide(table.state, RED, {"type": "alone"}, None)


def test_rules_version_1_creature_auction_with_no_bid_leaves_the_creature():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[9, 9], rules=1)
    place_all(table, {RED: 0, BLUE: 0})
    table.act(RED, {"type": "alone"})
    table.act(RED, {"type": "pass"})
    events = table.act(BLUE, {"type": "pass"})
    assert find(events, "CreatureWithstood").data["reason"] == "no_bid"
    assert table.state["mp"] == [9, 9] and table.state["display"][0] == "A08"


def test_creature_auction_the_first_bidder_who_can_pay_must_open():
    table = table_at(players=3, display=("A08", "A04"), start=RED, mp=[3, 9, 9])
    place_all(table, {RED: 0, BLUE: 0, GREEN: 0})
    table.act(BLUE, {"type": "alone"})
    assert GAME.legal(table.state, RED) == [{"type": "pass"}]  # 3 magic: cannot bid the strength 6
    table.act(RED, {"type": "pass"})
    with pytest.raises(Rejected, match="first bid must be made"):
        table.act(BLUE, {"type": "pass"})
    table.act(BLUE, {"type": "bid", "amount": 6})
    events = table.act(GREEN, {"type": "pass"})
    assert find(events, "CreatureDefeated").data["winners"][0]["seat"] == BLUE


def test_rules_version_1_creature_auction_last_bidder_standing_wins_without_raising():
    table = table_at(players=3, display=("A08", "A04"), start=RED, mp=[9, 9, 9], rules=1)
    place_all(table, {RED: 0, BLUE: 0, GREEN: 0})
    table.act(RED, {"type": "alone"})
    table.act(RED, {"type": "pass"})
    table.act(BLUE, {"type": "pass"})
    assert GAME.waiting_for(table.state) == [GREEN]
    events = table.act(GREEN, {"type": "bid", "amount": 6})
    assert find(events, "CreatureDefeated").data["winners"][0]["paid"] == 6


def test_artifact_bonus_with_potion_or_star_sapphire_the_player_chooses():
    # Goblins A08 show a star; the Star Sapphire (star, 2) lets its owner choose stones or magic.
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[9, 4], laid=[["ART19"], []])
    place_all(table, {RED: 0, BLUE: 1})
    events = table.act(RED, {"type": "fight"})
    assert find(events, "CreatureDefeated").data["choices"] == [[RED, "star_sapphire"]]
    assert table.state["step"] == "bonus" and GAME.waiting_for(table.state) == [RED]
    events = table.act(RED, {"type": "bonus", "take": "magic"})
    assert find(events, "BonusChosen").data == {"seat": RED, "artifact": "star_sapphire", "take": "magic", "amount": 2}
    assert table.state["mp"][RED] == 9 - 5 + 2 and table.state["ps"][RED] == 3


def test_artifact_bonus_only_for_artifacts_with_the_creatures_symbol_and_only_on_success():
    # Potion (moon) gives nothing against star goblins; a wizard who withdraws gets no bonus.
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[9, 4], laid=[["ART16", "ART09", "ART10"], []])
    place_all(table, {RED: 0, BLUE: 1})
    events = table.act(RED, {"type": "fight"})
    won = find(events, "CreatureDefeated").data
    assert won["winners"][0]["bonus_power"] == 3 and won["choices"] == []  # the dragon egg (star, 3)


def test_artifact_bonus_goes_to_each_sharing_winner_for_their_own_artifacts():
    laid = [["ART09", "ART10"], ["ART22"]]  # Red: dragon egg (star, 3 PS); Blue: elven boots (star, 1 MP)
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[5, 5], laid=laid)
    place_all(table, {RED: 0, BLUE: 0})
    table.act(RED, {"type": "together"})
    events = table.act(BLUE, {"type": "together"})
    won = find(events, "CreatureDefeated").data["winners"]
    assert [(w["bonus_power"], w["bonus_magic"]) for w in won] == [(3, 0), (0, 1)]
    assert table.state["ps"] == [1 + 3, 1] and table.state["mp"] == [2, 3]


# ---------------------------------------------------------------------------------------------
# Phase E: trading and laying out
# ---------------------------------------------------------------------------------------------


def _to_trading(hands, players=2, **kw):
    table = table_at(players=players, display=("A04", "B03"), start=RED, hand=hands, **kw)
    place_all(table, {})
    assert table.state["step"] == "trade"
    return table


def test_trading_card_for_card_from_the_hand():
    table = _to_trading([["ART01", "ART16"], ["ART02"]])
    events = table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART02"})
    offer = find(events, "OfferMade")
    assert offer.visible_to == (RED, BLUE) and offer.public == {"from": RED, "to": BLUE}
    # Blue answers; Red, not done, may meanwhile go on trading (rules version 2)
    assert GAME.waiting_for(table.state) == [RED, BLUE]
    events = table.act(BLUE, {"type": "accept", "from": RED})
    assert find(events, "OfferAccepted").visible_to == (RED, BLUE)
    assert sorted(table.state["hand"][RED]) == ["ART01", "ART02"] and table.state["hand"][BLUE] == ["ART16"]


def test_trading_only_cards_in_hand_never_laid_out_ones():
    table = _to_trading([["ART16"], ["ART17"]], laid=[["ART20"], ["ART13"]])
    with pytest.raises(Rejected):
        table.act(RED, {"type": "offer", "give": "ART20", "to": BLUE, "want": "ART17"})
    with pytest.raises(Rejected):
        table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART13"})


def test_trading_accepting_needs_the_asked_card_and_declining_ends_the_offer():
    table = _to_trading([["ART16"], ["ART17"]])
    table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART18"})
    assert {"type": "accept", "from": RED} not in GAME.legal(table.state, BLUE)
    with pytest.raises(Rejected):
        table.act(BLUE, {"type": "accept", "from": RED})
    table.act(BLUE, {"type": "decline", "from": RED})
    assert table.state["offers"] == [] and table.state["hand"] == [["ART16"], ["ART17"]]


def test_trading_is_free_no_limit_of_offers_by_default():
    # "All players who want to trade now negotiate freely": no limit unless the table sets one.
    table = _to_trading([["ART16"], ["ART17"]])
    for _ in range(5):
        table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART18"})
        table.act(BLUE, {"type": "decline", "from": RED})
    assert any(c["type"] == "offer" for c in GAME.legal(table.state, RED))
    table.act(RED, {"type": "done"})
    table.act(BLUE, {"type": "done"})
    assert table.state["step"] == "layout"


def test_a_table_may_limit_the_offers_per_round_option_offers_per_round():
    table = _to_trading([["ART16"], ["ART17"]], options={"offers_per_round": 2})
    for _ in range(2):
        table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART18"})
        table.act(BLUE, {"type": "decline", "from": RED})
    assert not any(c["type"] == "offer" for c in GAME.legal(table.state, RED))
    with pytest.raises(Rejected, match="2 offers"):
        table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART18"})


def test_rules_version_1_trading_ends_when_no_one_wants_to_trade_more_and_offers_are_limited():
    table = _to_trading([["ART16"], ["ART17"]], rules=1)
    for _ in range(2):
        table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART18"})
        table.act(BLUE, {"type": "decline", "from": RED})
    assert not any(c["type"] == "offer" for c in GAME.legal(table.state, RED))
    with pytest.raises(Rejected, match="2 offers"):
        table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART18"})
    table.act(RED, {"type": "done"})
    assert table.state["step"] == "trade"
    table.act(BLUE, {"type": "done"})
    assert table.state["step"] == "layout"  # trading is over once no one wants to trade any more


def test_trading_a_player_done_trading_still_answers_offers():
    table = _to_trading([["ART16"], ["ART17"]])
    table.act(BLUE, {"type": "done"})
    table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART17"})
    assert GAME.waiting_for(table.state) == [RED, BLUE]
    assert GAME.legal(table.state, BLUE) == [{"type": "accept", "from": RED}, {"type": "decline", "from": RED}]
    table.act(BLUE, {"type": "accept", "from": RED})
    assert table.state["hand"] == [["ART17"], ["ART16"]]


def test_lay_out_only_complete_artifacts_after_trading():
    table = _to_trading([["ART01", "ART16", "ART03"], ["ART02"]])
    table.act(RED, {"type": "offer", "give": "ART03", "to": BLUE, "want": "ART02"})
    table.act(BLUE, {"type": "accept", "from": RED})
    table.act(RED, {"type": "done"})
    table.act(BLUE, {"type": "done"})
    assert table.state["step"] == "layout" and GAME.waiting_for(table.state) == [RED]  # Blue has nothing complete
    assert GAME.legal(table.state, RED) == [
        {"type": "lay", "artifact": "magic_wand"},
        {"type": "lay", "artifact": "potion"},
        {"type": "done"},
    ]
    with pytest.raises(Rejected):
        table.act(RED, {"type": "lay", "artifact": "archmage_staff"})
    events = table.act(RED, {"type": "lay", "artifact": "magic_wand"})
    assert find(events, "ArtifactLaid").data == {"seat": RED, "artifact": "magic_wand", "cards": ["ART01", "ART02"]}
    table.act(RED, {"type": "done"})
    assert table.state["laid"][RED] == ["ART01", "ART02"] and table.state["hand"][RED] == ["ART16"]


# ---------------------------------------------------------------------------------------------
# End of the game
# ---------------------------------------------------------------------------------------------


def test_game_ends_when_the_display_cannot_be_refilled_to_two():
    table = table_at(players=2, display=("A04", "B03"), start=RED, adv_deck=["B04"])
    place_all(table, {})
    _finish_round(table)
    assert find(table.events, "GameEnded").data["reason"] == "display"
    assert GAME.result(table.state) is not None and GAME.waiting_for(table.state) == []


def test_winner_most_power_stones_then_magic_then_laid_out_artifact_cards():
    table = table_at(
        players=4,
        display=("A04", "B03"),
        start=RED,
        adv_deck=[],
        ps=[5, 5, 5, 4],
        mp=[7, 7, 6, 30],
        laid=[["ART16"], ["ART01", "ART02"], [], []],
    )
    place_all(table, {})  # everyone passes: +1 magic each
    _finish_round(table)
    result = GAME.result(table.state)
    assert result.ranking() == [[BLUE], [RED], [GREEN], [YELLOW]]


def test_game_ends_after_a_long_stall_with_an_empty_deck():
    table = table_at(players=2, display=("C07", "C06"), start=RED, adv_deck=[], mp=[0, 0])
    for _ in range(15):
        place_all(table, {})
        _finish_round(table)
    assert table.state["step"] == "over" and table.state["ended"] == "stall"


def test_game_ends_after_a_long_stall_with_cards_left_in_the_deck():
    table = table_at(players=2, display=("C07", "C06"), start=RED, adv_deck=["B03", "B04"], mp=[0, 0])
    for _ in range(14):
        place_all(table, {})
        _finish_round(table)
    assert table.state["step"] == "place" and table.state["idle"] == 14
    place_all(table, {})
    _finish_round(table)
    assert table.state["step"] == "over" and table.state["ended"] == "stall"


def test_a_round_in_which_a_card_leaves_the_display_resets_the_stall_count():
    table = table_at(players=2, display=("C07", "A04"), start=RED, adv_deck=["B03", "B04"], mp=[0, 0], idle=14)
    place_all(table, {})  # the energy orb, unchosen, leaves the display
    _finish_round(table)
    assert table.state["idle"] == 0 and table.state["step"] == "place"


def test_no_spells_in_phase_a_nothing_is_awaited_between_rounds():
    table = table_at(
        players=2,
        display=("A04", "B03"),
        start=RED,
        adv_deck=["B04", "B05"],
        spells=[[SPELL_ID["Transformus"]], []],
        mp=[0, 0],
    )
    place_all(table, {})  # Red has 1 magic: Transformus cannot be used, the round just ends
    assert table.state["step"] == "place" and table.state["round"] == 2


# ---------------------------------------------------------------------------------------------
# Timeouts
# ---------------------------------------------------------------------------------------------


def test_a_late_player_passes_withdraws_or_declines():
    table = table_at(players=2, display=("A08", "A04"), start=RED, mp=[9, 9])
    assert GAME.timeout(table.state, RED) == {"type": "pass"}
    assert GAME.timeout(table.state, BLUE) is None
    place_all(table, {RED: 0, BLUE: 1})
    assert GAME.timeout(table.state, RED) == {"type": "withdraw"}


def test_trading_offers_to_several_players_at_once_one_open_to_each():
    table = _to_trading([["ART16"], ["ART17"], ["ART18"]], players=3)
    table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART17"})
    assert RED in GAME.waiting_for(table.state)  # Red may go on trading meanwhile
    assert not any(c["type"] == "offer" and c["to"] == BLUE for c in GAME.legal(table.state, RED))
    with pytest.raises(Rejected, match="still open"):
        table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART18"})
    table.act(RED, {"type": "offer", "give": "ART16", "to": GREEN, "want": "ART18"})
    table.act(GREEN, {"type": "accept", "from": RED})  # Red's card goes to Green: the offer to Blue lapses
    assert table.state["offers"] == []
    assert table.state["hand"] == [["ART18"], ["ART17"], ["ART16"]]


def test_rules_version_1_trading_one_open_offer_at_a_time_and_an_offer_lapses_when_its_card_leaves_the_hand():
    table = _to_trading([["ART16"], ["ART17"], ["ART18"]], players=3, rules=1)
    table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART17"})
    assert RED not in GAME.waiting_for(table.state)  # Red waits for Blue's answer
    with pytest.raises(Rejected):
        GAME.decide(table.state, RED, {"type": "offer", "give": "ART16", "to": GREEN, "want": "ART18"}, None)
    table.act(GREEN, {"type": "offer", "give": "ART18", "to": RED, "want": "ART16"})
    table.act(RED, {"type": "accept", "from": GREEN})  # Red's potion goes to Green: the offer to Blue lapses
    assert table.state["offers"] == []
    assert table.state["hand"] == [["ART18"], ["ART17"], ["ART16"]]


def test_option_offers_per_round_sets_the_trading_limit():
    table = Table(GAME, 2, options={"offers_per_round": 1}, seed=b"opt")
    assert table.state["offers_limit"] == 1
    assert GAME.resolve_options(2) == {"offers_per_round": 0}  # 0: no limit, the default
    with pytest.raises(Rejected):
        GAME.resolve_options(2, {"offers_per_round": -1})
    with pytest.raises(Rejected):
        GAME.resolve_options(5, {})  # 2 to 4 players


def test_commands_with_wrong_kinds_of_values_are_rejected():
    table = table_at(players=2, display=("A08", "A04"), mp=[9, 9])
    for bad in ({"type": "place", "slot": True}, {"type": "place", "slot": 2}, {"type": "place"}, {"type": "bid"}):
        with pytest.raises(Rejected):
            GAME.decide(table.state, RED, bad, None)
    place_all(table, {RED: 0, BLUE: 0})
    table.act(RED, {"type": "alone"})
    for bad in ({"type": "bid", "amount": "9"}, {"type": "bid", "amount": True}, {"type": "bid", "amount": 10}):
        with pytest.raises(Rejected):
            GAME.decide(table.state, RED, bad, None)
