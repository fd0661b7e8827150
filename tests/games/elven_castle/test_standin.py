"""The stand-in (games/elven_castle/standin.py): clearly better than random players, and the
sensible choice for each decision the game asks for, in chosen positions. Soak runs (pytest
-m soak tests/games) play stand-ins beside random players with the invariants of the bot suite."""

from __future__ import annotations

import copy
import math
from math import comb

import pytest

from games.elven_castle import GAME, rules, standin, standin_v1
from games.testing import decisions_digest, play_with_standins, winners

from .helpers import check, given, table, table1
from .test_bots import CONFIGS, options_for

GAMES_PER_COUNT = 20


def chance_of_at_least(wins: int, games: int, p: float) -> float:
    """P(X >= wins) for X ~ Binomial(games, p): how likely a player of fair strength wins so often."""
    return sum(comb(games, k) * p**k * (1 - p) ** (games - k) for k in range(wins, games + 1))


def standin_move(t, seat=None):
    seat = t.state["turn"] if seat is None else seat
    return GAME.standin(GAME.view(t.state, seat), GAME.legal(t.state, seat))


def best_reply(t, seat):
    """The most `seat` could score with one placement now."""
    state = dict(t.state, turn=seat, phase="place")
    return max((standin.points(state, *p) for p in rules.placements(state, seat)), default=0)


def hand(**pieces):
    return {k: pieces.get(k, 0) for k in rules.KINDS}


# --- Strength --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_stand_in_wins_far_more_than_its_fair_share_among_random_players(players):
    sole_wins = 0
    for seed in range(GAMES_PER_COUNT):
        seat = seed % players  # the stand-in's seat goes round the table
        table_ = play_with_standins(GAME, players, [seat], options_for(players, "AB"[seed % 2], seed), seed=seed)
        sole_wins += winners(GAME, table_) == [seat]
    # A player of the fair share's strength would win this often less than once in 10,000 runs.
    assert chance_of_at_least(sole_wins, GAMES_PER_COUNT, 1 / players) < 1e-4, (sole_wins, GAMES_PER_COUNT)
    assert sole_wins >= 0.75 * GAMES_PER_COUNT


def test_stand_in_games_keep_every_invariant_and_replay():
    for players in (2, 3, 4):
        play_with_standins(GAME, players, [0], options_for(players, "B", players), seed=players, check=check)
        play_with_standins(GAME, players, range(players), options_for(players, "A", players), seed=players, check=check)


# --- Placements ------------------------------------------------------------------------------

# The rulebook's figure: two columns four spans high at c and e, a bridge on the ground at d.
FIGURE = [
    (0, "place window c1 north level 0"),
    (0, "place window c5 north level 0"),
    (1, "place window c3 north level 2"),
    (1, "place window e1 north level 0"),
    (2, "place window e5 north level 0"),
    (2, "place window e3 north level 2"),
    (3, "place bridge d3 north level 0"),
]


def test_the_stand_in_takes_the_placement_that_scores_most():
    t = table1(4)
    for seat, text in FIGURE:
        given(t, seat, text)
    t.state["turn"] = 3
    move = standin_move(t)
    gains = [standin.points(t.state, *standin.place_of(c)) for c in GAME.legal(t.state, 3)]
    assert max(gains) == 3  # the figure's arch: c4 east level 4 over the bridge at d
    assert standin.points(t.state, *standin.place_of(move)) == 3


def test_the_stand_in_opens_no_arch_for_the_next_player_when_nothing_scores():
    t = table1(2)
    given(t, 0, "place bridge a3 east level 0")
    t.state["turn"] = 1
    # the first placement listed, a1 east, two squares from it, would give the next player an arch
    careless = GAME.legal(t.state, 1)[0]
    assert GAME.describe(careless) == "place bridge a1 east level 0"
    trial = copy.deepcopy(t)
    trial.act(1, careless)
    assert best_reply(trial, 0) == 1
    t.act(1, standin_move(t))
    assert best_reply(t, 0) == 0


def test_the_stand_in_spoils_an_arch_only_the_next_player_can_use():
    t = table1(2)
    given(t, 1, "place window a1 north level 0")
    given(t, 1, "place window d1 north level 0")  # two columns three apart: a portal's arch, 2 spans
    t.state["hands"][0] = hand(bridge=10)  # the stand-in holds no portal; the next player does
    t.state["turn"] = 0
    assert best_reply(t, 0) == 0 and best_reply(t, 1) == 2
    t.act(0, standin_move(t, 0))
    assert best_reply(t, 1) < 2


# A position from a bot game where the balcony and the bridge would score the same at f2.
OPENING = [
    (0, "place bridge a1 east level 0"),
    (1, "place bridge d1 east level 0"),
    (2, "place portal d7 east level 0"),
    (0, "place bridge g1 east level 0"),
    (1, "place balcony d5 south level 0"),
    (2, "place bridge a2 east level 0"),
    (0, "place bridge e2 east level 0"),
    (1, "place bridge f4 north level 0"),
]


def test_the_stand_in_keeps_windows_portals_and_balconies_while_a_bridge_does_as_well():
    t = table1(3)
    for seat, text in OPENING:
        given(t, seat, text)
    t.state["turn"] = 2
    balcony = GAME.parse("place balcony f2 north level 1", t.state, 2)
    bridge = GAME.parse("place bridge f2 north level 1", t.state, 2)
    assert balcony in GAME.legal(t.state, 2)
    assert standin.points(t.state, *standin.place_of(balcony)) == standin.points(t.state, *standin.place_of(bridge))
    assert standin_move(t) == bridge  # the rulebook's TIP: keep the special pieces for the end


def test_the_stand_in_uses_a_portal_where_only_a_portal_scores():
    t = table1(2)
    given(t, 1, "place window a1 north level 0")
    given(t, 1, "place window d1 north level 0")
    # The next player holds no portal. (When he holds one, version 2 keeps its own: the portal
    # now would score 2, and his on the arch beside it 2 as well, so the TIP's 0.5 decides.)
    t.state["hands"][1] = hand(bridge=10)
    t.state["turn"] = 0
    move = standin_move(t)
    assert move["piece"] == "portal" and standin.points(t.state, *standin.place_of(move)) == 2


def test_with_penalties_the_stand_in_plays_its_windows_before_the_game_ends_and_keeps_them_without():
    for penalties, piece in ((True, "window"), (False, "bridge")):
        t = table(2, {"penalties": penalties})
        t.state["turn"] = 0
        t.state["hands"] = [hand(bridge=1, window=2), hand(bridge=1)]
        # the game ends at the next player's second turn: two placements left, two windows in hand
        assert standin.my_turns_left(t.state, 0) == 2
        assert standin_move(t)["piece"] == piece


def test_the_stand_in_takes_the_library_bonus_for_a_connection():
    t = table(4, {"scenario": "library"})
    given(t, 0, "place window d1 east level 0")
    given(t, 1, "place bridge c1 east level 2")  # joins the grey corner a1-c1 to the window d1-f1
    t.state["turn"] = 2
    move = standin_move(t)
    events = GAME.decide(t.state, 2, move, None)
    assert events[0].data["bonus"] == 3  # the first connection of two grey blocks: +3


def test_late_in_the_altar_scenario_the_topmost_piece_is_worth_up_to_the_altars_6_points():
    t = table(3, {"scenario": "altar"})
    for seat, text in [
        (0, "place window a1 north level 0"),
        (1, "place window c1 north level 0"),
        (2, "place bridge a9 east level 0"),
    ]:
        given(t, seat, text)
    t.state["hands"] = [hand(bridge=1), hand(bridge=1), hand(bridge=1)]  # the last round
    t.state["turn"] = 0
    topmost, low = ("bridge", 0, 0, 2, "e"), ("bridge", 4, 4, 0, "e")  # a1 east on the windows; e5 east
    altar = standin.preferences(t.state, 0, [topmost, low])
    plain = standin.preferences(dict(t.state, options=dict(t.state["options"], scenario="none")), 0, [topmost, low])
    late = (3 / 6) ** 2  # 3 pieces placed, 3 still in hand
    assert altar[0] - plain[0] == pytest.approx(6 * late) and altar[1] == plain[1]


# --- Version 2: the look past the next player's answer ---------------------------------------


def test_the_stand_in_looks_past_the_next_players_careful_answer_to_its_own_next_placement():
    t = table(2)
    given(t, 1, "place portal b3 east level 0")  # blue has placed his only portal; red holds one
    given(t, 0, "place window c7 east level 0")
    t.state["turn"] = 1
    view, legal = GAME.view(t.state, 1), GAME.legal(t.state, 1)
    careless = GAME.parse("place bridge a1 east level 0", t.state, 1)
    # One ply sees nothing wrong with the bridge at a1-c1 (it scores 0 and leaves nothing): the
    # first stand-in plays it. But red's careful answer is a bridge at f1, its foot three squares
    # from the one at c1: an arch only a portal spans, and blue has none left to spoil it with.
    assert standin_v1.standin(view, legal) == careless
    trial = copy.deepcopy(t)
    trial.act(1, careless)
    assert standin_move(trial, 0) == GAME.parse("place bridge f1 east level 0", trial.state, 0)
    trial.act(0, standin_move(trial, 0))
    state = standin.state_from_view(GAME.view(trial.state, 1))
    blue = standin.Evaluation(state, 1, rules.placements(state, 1))
    assert min(blue.reply(i) for i in range(len(blue.places))) == 3  # whatever blue does, red scores 3
    # Version 2 plays the next placements out as each player would, and keeps clear of it.
    move = standin_move(t)
    assert move != careless
    t.act(1, move)
    t.act(0, standin_move(t, 0))
    assert best_reply(t, 0) < 3


def test_on_its_last_placement_the_stand_in_takes_the_highest_piece_of_equal_value():
    t = table(2)
    t.state["hands"][1]["window"] = 3
    for text in (
        "place bridge a1 north level 0",
        "place bridge b1 north level 0",
        "place bridge c1 north level 0",
        "place window e1 north level 0",
        "place window f1 north level 0",
        "place window g1 north level 0",
    ):
        given(t, 1, text)
    t.state["hands"] = [hand(bridge=1), hand()]  # red's last placement: the game ends after it
    t.state["turn"] = 0
    view, legal = GAME.view(t.state, 0), GAME.legal(t.state, 0)
    low = GAME.parse("place bridge a1 east level 1", t.state, 0)  # on the bridges, over the one at b
    high = GAME.parse("place bridge e1 east level 2", t.state, 0)  # on the windows, over the one at f
    assert standin.points(t.state, *standin.place_of(low)) == standin.points(t.state, *standin.place_of(high)) == 1
    assert max(standin.points(t.state, *standin.place_of(c)) for c in legal) == 1
    assert standin_v1.standin(view, legal) == low  # the first stand-in took the first of equals
    move = standin_move(t)
    assert standin.points(t.state, *standin.place_of(move)) == 1 and move["z"] == 2  # the rulebook's tie-breaker


# --- Version 3: the opponent to beat ---------------------------------------------------------


def test_version_3_would_rather_an_opponent_behind_scored_than_the_one_who_would_lead():
    state = {"scores": [5, 9, 3, 4]}
    to_the_leader = [1, 1, 0, 0]  # what the look-ahead brings each seat after one candidate
    to_those_behind = [1, 0, 2, 1]  # after another: more points in all, none to the leader
    assert standin.against_all(state, 0, to_the_leader) > standin.against_all(state, 0, to_those_behind)
    assert standin.against_leader(state, 0, to_the_leader) == 1 - 10
    assert standin.against_leader(state, 0, to_those_behind) == 1 - 9 - standin.OTHERS_WEIGHT * 3
    assert standin.against_leader(state, 0, to_those_behind) > standin.against_leader(state, 0, to_the_leader)
    # an opponent who would overtake the leader becomes the one to beat
    assert standin.against_leader(state, 0, [0, 0, 7, 0]) == 0 - 10 - standin.OTHERS_WEIGHT * 0


# --- Version 4: drawing level with the leader, and finishing first -----------------------------


def test_version_4_counts_in_full_an_opponent_who_would_draw_level_with_the_leader():
    state = {"scores": [5, 9, 7, 4]}
    level = [1, 0, 2, 0]  # the third seat would come level with the leader (9)
    behind = [1, 0, 1, 0]  # ... or within a point of him (8)
    far = [1, 0, 0, 2]  # the fourth would stay far behind (6)
    # version 3: drawing level costs a quarter of its points, going past in full
    assert standin.against_leader(state, 0, level) == 1 - 9 - standin.OTHERS_WEIGHT * 2
    assert standin.against_leader(state, 0, [1, 0, 3, 0]) == 1 - 10
    # version 4: coming within LEVEL_MARGIN (1) of the leader costs in full too
    assert standin.LEVEL_MARGIN == 1
    assert standin.against_the_top(state, 0, level) == 1 - 9 - 2
    assert standin.against_the_top(state, 0, behind) == 1 - 9 - 1
    assert standin.against_the_top(state, 0, far) == 1 - 9 - standin.OTHERS_WEIGHT * 2
    assert standin.against_the_top(state, 0, far) > standin.against_the_top(state, 0, level)


def test_finishing_first_is_worth_more_strictly_ahead_on_points_than_on_the_tie_breaker():
    t = table(4)
    given(t, 0, "place bridge a1 north level 0")
    given(t, 1, "place window e1 north level 0")  # the second seat's piece is the higher
    state = standin.state_from_view(GAME.view(t.state, 0))
    win = standin.WIN
    assert standin.finishing_first(state, 0, [8, 7, 3, 2]) == win
    assert standin.finishing_first(state, 0, [8, 8, 3, 2]) == 0  # level, and his piece is higher
    assert standin.finishing_first(state, 1, [8, 8, 3, 2]) == win * standin.TIED_WIN
    assert standin.finishing_first(state, 2, [8, 8, 3, 2]) == 0
    assert standin.finishing_first(state, 0, [7, 8, 3, 2]) == 0
    assert 0 < standin.TIED_WIN < 1


def test_on_its_last_placement_the_stand_in_breaks_a_tie_on_points_when_it_can():
    t = table(4)
    for text in (
        "place bridge a1 north level 0",
        "place bridge b1 north level 0",
        "place bridge c1 north level 0",
        "place window e1 north level 0",
        "place window g1 north level 0",
    ):
        given(t, 1, text)
    t.state["hands"] = [hand(bridge=1), hand(), hand(), hand()]  # its last placement: the game ends after it
    t.state["scores"] = [5, 6, 3, 2]
    t.state["turn"] = 0
    level = GAME.parse("place bridge a1 east level 1", t.state, 0)  # over the bridge at b: 1, level with 6
    ahead = GAME.parse("place bridge e1 east level 2", t.state, 0)  # on the windows, over nothing at f
    assert standin.points(t.state, *standin.place_of(level)) == 1
    assert standin.points(t.state, *standin.place_of(ahead)) == 3
    assert standin_move(t) == ahead  # version 5, in play (and version 3): one point of margin is one point
    assert standin.standin_v4(GAME.view(t.state, 0), GAME.legal(t.state, 0)) == ahead
    state = standin.state_from_view(GAME.view(t.state, 0))
    assert standin.finishing_first(state, 0, [8, 6, 3, 2]) == standin.WIN


def test_with_two_players_version_3_values_as_version_2_up_to_a_constant():
    state = {"scores": [4, 7]}
    for got in ([0, 0], [2, 1], [1, 3], [0, 5]):
        assert standin.against_leader(state, 0, got) == standin.against_all(state, 0, got) - 7


# --- Version 5: a soft max over the field, and its own reply -------------------------------------


def test_version_5_minds_an_opponent_who_would_draw_level_with_the_leader_more_than_one_far_behind():
    state = {"scores": [5, 9, 7, 4]}
    to_the_third = [0, 0, 2, 0]  # the third seat would come level with the leader (9)
    to_the_fourth = [0, 0, 0, 2]  # the fourth would stay far behind (6)
    # version 3: both cost a quarter of their points, alike
    assert standin.against_leader(state, 0, to_the_third) == standin.against_leader(state, 0, to_the_fourth)
    # version 5: the closer to the top, the more an opponent's points cost
    assert standin.against_the_field(state, 0, to_the_third) < standin.against_the_field(state, 0, to_the_fourth)


def test_version_5_prices_an_opponents_points_with_no_kink_where_he_draws_level_or_goes_past():
    state = {"scores": [5, 9, 7, 4]}

    def cost(count, gain):  # what the third seat's points after the look-ahead cost seat 0
        return count(state, 0, [0, 0, 0, 0]) - count(state, 0, [0, 0, gain, 0])

    v3 = [cost(standin.against_leader, g + 1) - cost(standin.against_leader, g) for g in range(4)]
    v5 = [cost(standin.against_the_field, g + 1) - cost(standin.against_the_field, g) for g in range(4)]
    assert v3 == [0.25, 0.25, 0.5, 1]  # to 8, to 9 (level with the leader): a quarter; past him: in full
    assert all(0 < a < b < 1 for a, b in zip(v5, v5[1:]))  # the nearer the top, the dearer
    jumps = [b - a for a, b in zip(v5, v5[1:])]
    assert max(jumps) < 0.15  # smoothly: about 0.33, 0.42, 0.52, 0.62 (version 3 jumps by 0.5)
    # the opponents' shares sum to one: a point to each of them costs exactly one point
    assert standin.against_the_field(state, 0, [0, 1, 1, 1]) == pytest.approx(
        standin.against_the_field(state, 0, [0, 0, 0, 0]) - 1
    )
    # it never counts less than the best opponent's score, nor more than SOFTNESS * log(3) beyond
    value = standin.against_the_field(state, 0, [0, 0, 0, 0])
    assert -9 - standin.SOFTNESS * math.log(3) < value < -9


def test_with_four_players_version_5_looks_past_the_three_opponents_to_its_own_next_score():
    """Version 3 plays out the next two placements; version 5 the three opponents' and then what
    the seat itself could score after them (its own reply), at the cost of fewer candidates."""
    assert (standin.FIELD_PLIES, standin.FIELD_WIDTH) == (3, 5) and (standin.PLIES, standin.LOOKAHEAD) == (2, 8)
    table_ = play_with_standins(GAME, 4, [0, 1, 2, 3], {}, seed=3)
    state, own_replies = None, 0
    for event in table_.events:
        state = GAME.evolve(state, event)
        if event.type != "PiecePlaced" or not GAME.waiting_for(state):
            continue
        me = (state["turn"] - 1) % 4  # the seat that has just placed
        after = standin.state_from_view(GAME.view(state, state["turn"]))
        assert standin.rollout_gains(after, standin.PLIES)[me] == 0  # two placements: never its own
        own_replies += standin.rollout_gains(after, standin.FIELD_PLIES)[me] > 0
    assert own_replies > 0


# --- Staircase offers ------------------------------------------------------------------------


def test_the_stand_in_makes_a_staircase_when_it_leads_and_declines_when_behind():
    for other_score, answer in ((0, "staircase"), (20, "decline")):
        t = table1(2, {"staircase": True})
        given(t, 1, "place bridge a1 north level 0")
        given(t, 1, "place bridge c1 north level 0")
        t.state["scores"] = [7, other_score]
        given(t, 0, "place bridge a2 east level 1")  # 1 point: 7 -> 8, a staircase score
        assert t.state["phase"] == "staircase"
        assert standin_move(t, 0) == {"type": answer}


# --- What it sees ----------------------------------------------------------------------------


def test_the_stand_in_chooses_from_the_seats_view_alone_deterministically_and_changes_nothing():
    table_ = play_with_standins(GAME, 3, [1], {"staircase": True}, seed=7)
    t = table(3, {"staircase": True})
    for event in table_.events[1:20]:
        t.state = GAME.evolve(t.state, event)
    seat = t.state["turn"]
    view, legal = GAME.view(t.state, seat), GAME.legal(t.state, seat)
    before = copy.deepcopy((view, legal))
    first = GAME.standin(view, legal)
    assert (view, legal) == before
    assert GAME.standin(copy.deepcopy(view), copy.deepcopy(legal)) == first
    # everything in Elven Castle is public: the spectator's view gives the same move
    assert GAME.standin(dict(GAME.view(t.state, None), seat=seat), legal) == first


# --- Soak ------------------------------------------------------------------------------------


@pytest.mark.soak
@pytest.mark.parametrize("config", CONFIGS, ids=[f"{n}p-variant{v}" for n, v in CONFIGS])
def test_soak_stand_ins_beside_random_players_keep_every_invariant(config, request):
    if "soak" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("soak run only: pytest -m soak tests/games")
    n, variant = config
    for seed in range(3000, 3300):
        seats = [seed % n] if seed % 3 else range(n)  # one stand-in, or every seat
        table_ = play_with_standins(GAME, n, seats, options_for(n, variant, seed), seed=seed, check=check)
        assert table_.state["end"]["reason"] in ("no pieces", "no space")


V1_GAMES = [
    # (players, options, seed, digest of [seat, command] of every placement), recorded from the
    # first stand-in's own module (a frozen copy until 2026-12-07) before it became today's code
    # with the look-ahead off; each game opens with one random placement a seat (games.testing.
    # decisions_digest).
    (2, {"scoring": "A", "staircase": True, "penalties": True}, 0, "3a54ac63e94c31f1"),
    (3, {"scoring": "B", "staircase": False, "penalties": True, "scenario": "altar"}, 3, "7f2e568d1c251a95"),
    (4, {"scoring": "B", "staircase": True, "penalties": False, "scenario": "catacombs"}, 5, "8f80b49cffc41451"),
]


@pytest.mark.parametrize(("players", "options", "seed", "digest"), V1_GAMES)
def test_version_1_is_kept_move_for_move(players, options, seed, digest):
    """standin_v1 (the bench's baseline) decides as the first stand-in did: the same placements,
    staircase answers included, in games of version 1 only."""
    assert decisions_digest(GAME, standin_v1.standin, players, options, seed, openings=players) == digest


V2_GAMES = [
    # (players, options, seed, digest), recorded from version 2's own module (standin.py at commit
    # afb47f1, before version 3) with games.testing.decisions_digest.
    (2, {"scoring": "A", "staircase": True, "penalties": True}, 0, "4e087b160bfe0e16"),
    (3, {"scoring": "B", "staircase": False, "penalties": True, "scenario": "altar"}, 3, "d231e5f1d35ecbf9"),
    (4, {"scoring": "A", "staircase": True, "penalties": False, "scenario": "catacombs"}, 5, "fa69e98a68fde695"),
]


@pytest.mark.parametrize(("players", "options", "seed", "digest"), V2_GAMES)
def test_version_2_is_kept_move_for_move(players, options, seed, digest):
    """standin.standin_v2 (the bench's baseline for version 3) decides as version 2 did."""
    assert decisions_digest(GAME, standin.standin_v2, players, options, seed, openings=players) == digest


@pytest.mark.parametrize(("players", "options", "seed", "digest"), V2_GAMES[:2])
def test_with_two_or_three_players_versions_3_4_and_5_decide_as_version_2_move_for_move(players, options, seed, digest):
    """Versions 3, 4 and 5 change the look-ahead from 4 players up (RULINGS §0: with 3 counting
    the leader apart gave the last to play 1.43x in variant A); below that they make version 2's
    moves, and so does the stand-in in play."""
    assert decisions_digest(GAME, standin.standin_v3, players, options, seed, openings=players) == digest
    assert decisions_digest(GAME, standin.standin_v4, players, options, seed, openings=players) == digest
    assert decisions_digest(GAME, standin.standin_v5, players, options, seed, openings=players) == digest
    assert decisions_digest(GAME, GAME.standin, players, options, seed, openings=players) == digest


def test_with_four_players_version_3_decides_otherwise_than_version_2():
    players, options, seed, digest = V2_GAMES[2]
    assert players == 4
    assert decisions_digest(GAME, standin.standin_v3, players, options, seed, openings=players) != digest


V3_GAMES = [
    # (players, options, seed, digest), recorded from version 3's own module (standin.py at commit
    # faa6a58, before version 4) with games.testing.decisions_digest: 4 players, where version 3
    # decides otherwise than version 2.
    (4, {"scoring": "A", "staircase": True, "penalties": False, "scenario": "catacombs"}, 5, "c68069bd2d00e4fc"),
    (4, {"scoring": "A", "staircase": False, "penalties": False}, 7, "439e60dd17691765"),
    (4, {"scoring": "B", "staircase": True, "penalties": True, "scenario": "altar"}, 11, "5fdd14958c0e17ae"),
]


@pytest.mark.parametrize(("players", "options", "seed", "digest"), V3_GAMES)
def test_version_3_is_kept_move_for_move(players, options, seed, digest):
    """standin.standin_v3 (the bench's baseline for versions 4 and 5) decides as version 3 did, in
    play until version 5 (RULINGS §0)."""
    assert decisions_digest(GAME, standin.standin_v3, players, options, seed, openings=players) == digest


@pytest.mark.parametrize(("players", "options", "seed", "digest"), V3_GAMES)
def test_with_four_players_version_4_decides_otherwise_than_version_3(players, options, seed, digest):
    assert decisions_digest(GAME, standin.standin_v4, players, options, seed, openings=players) != digest


V5_GAMES = [
    # (players, options, seed, digest), recorded from version 5 when it was put in play (the same
    # games as V3_GAMES) with games.testing.decisions_digest.
    (4, {"scoring": "A", "staircase": True, "penalties": False, "scenario": "catacombs"}, 5, "73485e8f1bfcb006"),
    (4, {"scoring": "A", "staircase": False, "penalties": False}, 7, "7ecb7a45e0ac4c9b"),
    (4, {"scoring": "B", "staircase": True, "penalties": True, "scenario": "altar"}, 11, "08802ffe6a50792f"),
]


@pytest.mark.parametrize(("players", "options", "seed", "digest"), V5_GAMES)
def test_version_5_is_kept_move_for_move_and_is_the_stand_in_in_play(players, options, seed, digest):
    assert decisions_digest(GAME, standin.standin_v5, players, options, seed, openings=players) == digest
    assert decisions_digest(GAME, GAME.standin, players, options, seed, openings=players) == digest


@pytest.mark.parametrize(("players", "options", "seed", "digest"), V3_GAMES)
def test_with_four_players_version_5_decides_otherwise_than_version_3(players, options, seed, digest):
    assert decisions_digest(GAME, standin.standin_v5, players, options, seed, openings=players) != digest
