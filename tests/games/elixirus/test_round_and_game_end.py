"""End of the round, end of the game, scoring A-F and the tie-breakers."""

from collections import Counter

from games.base import rank
from games.elixirus import GAME
from games.elixirus.rules import scores_breakdown, total

from .helpers import FULL, all_tokens, pos, table, take, types
from .test_concocting import RECOVERY_T1, VITALITY_T1, brewing, everyone_done, fill, put

LOVE_T1 = ["green blossom 1", "red stem 1", "blue berry 1", "green leaf 1"]
FERTILITY_T1 = ["red root 1", "yellow leaf 1", "green stem 1", "orange seed 1", "purple blossom 1"]


def test_end_of_round_leftovers_to_box_signpost_moves_pieces_flip_refill_marker_passes():
    t = brewing()  # 2 players: steal (signpost), swap, draw face up; replace face down next
    s = t.state
    leftovers = [tok for p in range(6) for tok in s["curves"][p] if tok is not None]
    assert len(leftovers) == 12 and s["start"] == 0
    events = everyone_done(t)
    ended = events[-1]
    assert ended.type == "RoundEnded"
    assert Counter(s["box"]) == Counter(leftovers)
    assert s["signpost"] == pos(t, "swap")
    assert [s["up"][pos(t, e)] for e in ("steal", "swap", "draw", "replace")] == [False, True, True, True]
    assert s["known"][pos(t, "replace")] and ended.reveals and ended.data["piece"] == s["circle"][pos(t, "replace")]
    for e in ("swap", "draw", "replace"):
        assert all(tok is not None for tok in s["curves"][pos(t, e)])
    assert all(tok is None for tok in s["curves"][pos(t, "steal")])
    assert s["start"] == 1 and GAME.waiting_for(s) == [1]
    assert s["round"] == 2 and s["phase"] == "place" and s["left"] == [3, 3]
    assert all_tokens(s) == FULL


def test_a_piece_seen_before_stays_known_when_face_down():
    t = brewing()
    everyone_done(t)
    assert t.state["known"][pos(t, "steal")] and not t.state["up"][pos(t, "steal")]
    assert GAME.view(t.state, 1)["forest"][pos(t, "steal")]["piece"] == "steal"


def test_five_players_no_flipping_but_the_signpost_moves():
    t = brewing(players=5, tables=("T1", "T2", "T3", "T4", "T5"))
    sign = t.state["signpost"]
    everyone_done(t)
    assert all(t.state["up"]) and t.state["signpost"] == (sign + 1) % 6
    assert all(tok is not None for p in range(6) for tok in t.state["curves"][p])


def test_an_empty_bag_is_refilled_from_the_box():
    t = brewing()
    s = t.state
    s["box"], s["bag"] = s["bag"][:-5], s["bag"][-5:]
    events = everyone_done(t)
    ended = events[-1]
    assert ended.type == "RoundEnded" and ended.data["poured"] == 5
    assert all(tok is not None for p in range(6) if s["up"][p] for tok in s["curves"][p])
    assert s["box"] == [] and all_tokens(s) == FULL


def test_when_no_ingredient_is_left_to_collect_the_game_ends():
    t = brewing()
    s = t.state
    for p in range(6):
        for c in range(4):
            if s["curves"][p][c] is not None:
                s["poison"][0].append(s["curves"][p][c])
                s["curves"][p][c] = None
    s["poison"][0].extend(s["bag"])
    s["bag"] = []
    events = everyone_done(t)
    assert events[-1].type == "GameEnded" and events[-1].data["reason"] == "exhausted"
    assert GAME.result(s) is not None and GAME.waiting_for(s) == []


def _only_leftovers_remain(t, leftovers=("green berry 2", "purple root 1")):
    """Bag and box empty, the forest holding only these leftovers, everything else on the tables."""
    s = t.state
    for p in range(6):
        for c in range(4):
            if s["curves"][p][c] is not None:
                s["poison"][0].append(s["curves"][p][c])
                s["curves"][p][c] = None
    s["poison"][0].extend(s["bag"])
    s["bag"] = []
    for tok, (p, c) in zip(leftovers, [(p, 0) for p in range(6) if s["up"][p]]):
        s["poison"][0].remove(tok)
        s["curves"][p][c] = tok
    return s


def test_when_nobody_collects_the_last_leftovers_in_a_round_the_game_ends():
    """RULINGS #35: bag and box empty, nobody placed anything this round: the next round would lay
    out the same unwanted leftovers for the same tables, so the game ends and is scored."""
    t = brewing()
    s = _only_leftovers_remain(t)
    events = everyone_done(t)
    assert events[-1].type == "GameEnded" and events[-1].data["reason"] == "unwanted"
    assert GAME.result(s) is not None and "nobody would collect the ingredients left" in GAME.narrate(
        events[-1], ["Ann", "Bob"]
    )


def test_a_round_without_collecting_goes_on_while_the_bag_still_holds_ingredients():
    t = brewing()
    s = _only_leftovers_remain(t)
    s["bag"].append(s["poison"][0].pop())
    assert everyone_done(t)[-1].type == "RoundEnded"


def test_a_round_goes_on_when_someone_placed_an_ingredient_even_with_the_bag_and_box_empty():
    t = brewing({0: ["orange root 1"]})
    _only_leftovers_remain(t)
    t.act(0, {"type": "put", "ing": "orange root 1", "to": "vitality"})
    assert everyone_done(t)[-1].type == "RoundEnded"


def _three_corks(t, seat=0):
    fill(t, seat, "vitality", VITALITY_T1, cork=5)
    fill(t, seat, "recovery", RECOVERY_T1, cork=5)
    fill(t, seat, "love", LOVE_T1, cork=2)


def test_the_game_ends_when_someone_takes_a_fourth_cork_after_the_round_is_played():
    t = brewing({0: ["purple blossom 1"], 1: ["orange leaf 3"]}, bowls={0: "yellow berry 3"})
    _three_corks(t)
    fill(t, 0, "fertility", FERTILITY_T1[:4])
    put(t, 0, "purple blossom 1", "fertility")
    t.act(0, {"type": "done"})
    assert t.state["phase"] == "brew"  # the round is played to its end
    put(t, 1, "orange leaf 3", "book")
    events = t.act(1, {"type": "done"})
    assert types(events) == ["BrewDone", "PotionsRevealed", "GameEnded"]
    assert t.state["corks"][0]["fertility"] == 5 and len(t.state["corks"][0]) == 4
    # the bowl's ingredient goes to the poison flask
    assert t.state["bowl"][0] is None and t.state["poison"][0] == ["yellow berry 3"]
    assert GAME.result(t.state).scores == [total(t.state, 0), total(t.state, 1)]
    assert t.state["book"][1][0] == "orange leaf 3"  # the other player's last concocting counts


def test_several_players_may_take_a_fourth_cork_in_the_same_round():
    t = brewing({0: ["purple blossom 1"], 1: ["green stem 2"]})
    _three_corks(t, 0)
    fill(t, 0, "fertility", FERTILITY_T1[:4])
    fill(t, 1, "vitality", ["green root 3", "purple berry 3", "purple root 3", "yellow leaf 3"], cork=2)
    fill(t, 1, "love", ["red berry 3", "yellow stem 3", "orange seed 3", "blue stem 3"], cork=5)
    fill(t, 1, "fertility", ["orange root 3", "yellow seed 3", "green leaf 3", "blue leaf 3", "red stem 3"], cork=5)
    fill(t, 1, "recovery", ["orange stem 2", "red blossom 2", "red stem 2", "yellow root 3"])
    put(t, 0, "purple blossom 1", "fertility")
    put(t, 1, "green stem 2", "recovery")
    events = everyone_done(t)
    assert events[-1].type == "GameEnded"
    assert len(t.state["corks"][0]) == 4 and len(t.state["corks"][1]) == 4
    assert t.state["corks"][1]["recovery"] == 2  # seat 0 sealed recovery in an earlier round


def test_patricia_scores_46_points():
    """The rulebook's scoring example on a table with enchanted orange and cursed 'flower' (blossom).
    A 34, B 12 (the example says four corks; 12 is 5 + 5 + 2, see RULINGS), C 4, D 2, E -3, F -3."""
    t = table(2, tables=["T5", "T1"])
    fill(t, 0, "vitality", ["purple root 3", "green stem 3", "yellow berry 3", "red leaf 3"], cork=5)
    fill(t, 0, "love", ["blue berry 3", "orange stem 2", "green seed 3", "red berry 2"], cork=5)
    fill(
        t, 0, "recovery", ["green root 3", "red blossom 1", "yellow stem 3", "blue seed 2", "purple blossom 1"], cork=2
    )
    fill(t, 0, "fertility", ["orange stem 1", "green blossom 1"])
    take(t.state, "blue root 2")
    t.state["book"][0] = ["blue root 2", None]
    for tok in ("yellow root 1", "purple leaf 2"):
        take(t.state, tok)
        t.state["poison"][0].append(tok)
    assert scores_breakdown(t.state, 0) == [34, 12, 4, 2, -3, -3]
    assert total(t.state, 0) == 46


def test_four_corks_can_never_be_worth_twelve_points():
    sums = {a * 5 + (4 - a) * 2 for a in range(5)}
    assert 12 not in sums and sums == {8, 11, 14, 17, 20}


def test_recipe_book_scores_twice_the_values_and_three_more_for_both():
    t = table(2, tables=["T1", "T2"])
    take(t.state, "red root 3")
    take(t.state, "blue blossom 2")
    t.state["book"][0] = ["red root 3", None]
    assert scores_breakdown(t.state, 0)[2] == 6
    t.state["book"][0] = ["red root 3", "blue blossom 2"]
    assert scores_breakdown(t.state, 0)[2] == 6 + 4 + 3


def test_enchanted_and_cursed_count_on_the_five_flasks_only_and_not_for_crystals():
    t = table(2, tables=["T1", "T2"])  # T1: enchanted yellow, cursed seed
    fill(t, 0, "recovery", ["yellow seed 1", "crystal"])  # yellow seed is both enchanted and cursed
    t.state["poison"][0] = ["yellow root 1"]
    take(t.state, "yellow root 1")
    a, b, c, d, e, f = scores_breakdown(t.state, 0)
    assert (a, d, e, f) == (1, 1, -1, -1)


def test_unsealed_flasks_score_their_ingredients_too():
    t = table(2, tables=["T1", "T2"])
    fill(t, 0, "healing", ["red leaf 3", "blue berry 2"])
    assert scores_breakdown(t.state, 0)[0] == 5


def test_a_tie_goes_to_the_most_ingredients_on_the_table_then_is_shared():
    t = brewing(tables=("T1", "T3"))
    fill(t, 0, "vitality", ["orange leaf 2"])  # 2 points, 1 ingredient
    fill(t, 1, "vitality", ["green leaf 2", "crystal"])  # 2 points, 2 ingredients
    s = t.state
    s["curves"] = [[None] * 4 for _ in range(6)]  # nothing left anywhere: the game ends after this round
    s["bag"], s["box"] = [], []
    assert everyone_done(t)[-1].type == "GameEnded"
    res = GAME.result(s)
    assert res.scores == [2, 2] and res.tiebreak == [(1,), (2,)]
    assert res.ranking() == [[1], [0]]
    assert rank([2, 2], [(2,), (2,)]) == [[0, 1]]  # same points, same ingredients: shared victory


def test_the_score_sheet_adds_up_to_the_scores_round_by_round():
    t = brewing({0: ["orange root 2"]})
    put(t, 0, "orange root 2", "vitality")
    everyone_done(t)
    sheet = GAME.score_sheet(t.state)
    assert [(line.round, line.seat, line.points) for line in sheet] == [(1, 0, 2), (1, 1, 0)]
    assert "concocting +2" in sheet[0].detail
    assert GAME.summary(t.state)["scores"] == [2, 0]
