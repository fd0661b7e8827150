"""The glossary: the effects of the third spaces, each exactly as the rulebook says."""

from games.elixirus import GAME
from games.elixirus.rules import effect_of

from .helpers import CIRCLE, place, pos, rejected, set_curves, table, types

A = ["red root 1", "blue leaf 2", "green seed 3", "yellow stem 1"]
B = ["purple berry 3", "orange blossom 2", "red seed 1", "blue root 3"]
C = ["green leaf 1", "yellow berry 2", "orange root 3", "purple stem 2"]


def to_effect(t, seat):
    """Plays the collection (first legal choices) until `seat` is at an effect step."""
    while not (t.state["phase"] == "collect" and t.state["step"] == "effect" and GAME.waiting_for(t.state) == [seat]):
        who = GAME.waiting_for(t.state)[0]
        options = GAME.legal(t.state, who)
        t.act(who, options[0] if t.state["step"] != "effect" else {"type": "skip"})


# --- Steal --------------------------------------------------------------------------------------


def test_steal_takes_one_ingredient_another_player_collected_this_stage():
    t = table(2, signpost=0)  # steal, swap, draw face up; steal resolves first
    set_curves(t, "steal", A)
    place(t, (0, "steal", 1), (1, "steal", 3), (0, "steal", 2), (1, "swap", 1), (0, "swap", 2), (1, "swap", 3))
    t.act(0, {"type": "take", "curves": [2]})
    t.act(0, {"type": "take", "curves": [3, 4]})
    t.act(1, {"type": "take", "curves": [1]})
    options = GAME.legal(t.state, 1)
    assert {o.get("from") for o in options if o["type"] == "steal"} == {0}
    assert rejected(t, 1, {"type": "steal", "ing": "red root 1", "from": 1}).startswith("Steal takes")
    t.act(1, {"type": "steal", "ing": "green seed 3", "from": 0})
    assert "green seed 3" in t.state["front"][1] and "green seed 3" not in t.state["front"][0]


def test_steal_cannot_take_from_a_concoction_table():
    t = table(2, signpost=0)
    set_curves(t, "steal", A)
    t.state["flasks"][0]["vitality"] = ["orange root 1"]
    t.state["bag"].remove("orange root 1")
    place(t, (0, "steal", 1), (1, "steal", 3), (0, "swap", 1), (1, "swap", 2), (0, "draw", 1), (1, "draw", 2))
    t.act(0, {"type": "take", "curves": [2]})
    t.act(1, {"type": "take", "curves": [1]})
    assert "not from their table" in rejected(t, 1, {"type": "steal", "ing": "orange root 1", "from": 0})


# --- Swap ---------------------------------------------------------------------------------------


def test_swap_exchanges_a_collected_ingredient_with_one_on_any_forest_piece():
    t = table(2, signpost=0)
    set_curves(t, "steal", A)
    set_curves(t, "swap", B)
    set_curves(t, "draw", C)
    place(t, (0, "steal", 1), (1, "steal", 2), (0, "swap", 3), (1, "draw", 1), (0, "draw", 2), (1, "draw", 3))
    t.act(0, {"type": "take", "curves": [2]})  # blue leaf 2
    t.act(1, {"type": "take", "curves": [3, 4]})
    t.act(0, {"type": "take", "curves": [2]})  # orange blossom 2 from the swap piece
    # swap blue leaf 2 (collected on another piece this stage) for orange root 3 on the draw piece
    t.act(0, {"type": "swap", "ing": "blue leaf 2", "piece": "draw", "curve": 3})
    assert sorted(t.state["front"][0]) == ["orange blossom 2", "orange root 3"]
    assert t.state["curves"][pos(t, "draw")][2] == "blue leaf 2"


def test_swap_gives_only_an_ingredient_collected_in_this_stage():
    t = table(2, signpost=0)
    set_curves(t, "swap", B)
    t.state["bowl"][0] = "green stem 1"
    t.state["bag"].remove("green stem 1")
    place(t, (0, "swap", 3), (1, "steal", 1), (0, "steal", 2), (1, "draw", 1), (0, "draw", 2), (1, "draw", 3))
    t.act(1, GAME.legal(t.state, 1)[0])
    t.act(0, GAME.legal(t.state, 0)[0])
    t.act(0, {"type": "take", "curves": [2]})
    assert "collected in this stage" in rejected(
        t, 0, {"type": "swap", "ing": "green stem 1", "piece": "draw", "curve": 1}
    )


def test_swapping_for_the_first_curve_brings_no_bag_draw():
    t = table(2, signpost=0)
    set_curves(t, "swap", B)
    place(t, (0, "swap", 3), (1, "steal", 1), (0, "steal", 2), (1, "draw", 1), (0, "draw", 2), (1, "draw", 3))
    to_effect(t, 0)
    mine = t.state["front"][0][0]
    first = t.state["curves"][pos(t, "draw")][0]
    bag = len(t.state["bag"])
    t.act(0, {"type": "swap", "ing": mine, "piece": "draw", "curve": 1})
    assert len(t.state["bag"]) == bag and first in t.state["front"][0]


# --- Draw ---------------------------------------------------------------------------------------


def _draw_table():
    t = table(2, signpost=0)
    place(t, (0, "draw", 3), (1, "steal", 1), (0, "steal", 2), (1, "swap", 1), (0, "swap", 2), (1, "draw", 1))
    to_effect(t, 0)
    return t


def test_draw_three_seen_only_by_the_drawer_keep_one_or_two_return_the_rest():
    t = _draw_table()
    bag = len(t.state["bag"])
    events = t.act(0, {"type": "draw"})
    looked = events[0]
    assert looked.visible_to == (0,) and looked.public == {"seat": 0, "count": 3, "poured": None}
    drawn = looked.data["drawn"]
    assert len(drawn) == 3 and len(t.state["bag"]) == bag - 3
    assert GAME.view(t.state, 0)["looking"] == drawn
    assert GAME.view(t.state, 1)["looking"] is None and GAME.view(t.state, None)["looking"] is None
    assert "Keep 1 or 2" in rejected(t, 0, {"type": "keep", "ings": sorted(drawn)})
    assert "Keep 1 or 2" in rejected(t, 0, {"type": "keep", "ings": []})
    front = list(t.state["front"][0])
    kept = t.act(0, {"type": "keep", "ings": sorted(drawn[:2])})[0]
    assert kept.public == {"seat": 0, "keep": sorted(drawn[:2]), "back": 1}
    assert sorted(t.state["front"][0]) == sorted(front + drawn[:2])
    assert drawn[2] in t.state["bag"] and len(t.state["bag"]) == bag - 2


def test_draw_keep_one():
    t = _draw_table()
    drawn = t.act(0, {"type": "draw"})[0].data["drawn"]
    t.act(0, {"type": "keep", "ings": [drawn[1]]})
    assert drawn[0] in t.state["bag"] and drawn[2] in t.state["bag"]


def test_draw_keep_only_what_you_drew():
    t = _draw_table()
    drawn = t.act(0, {"type": "draw"})[0].data["drawn"]
    other = next(x for x in t.state["bag"] if x not in drawn)
    assert "did not draw" in rejected(t, 0, {"type": "keep", "ings": [other]})


# --- Replace ------------------------------------------------------------------------------------


def _replace_table():
    t = table(3, signpost=3)  # face up, in order: replace (signpost), dance, collect, steal
    set_curves(t, "dance", C)
    place(
        t,
        (0, "replace", 3),
        (1, "steal", 1),
        (2, "steal", 2),
        (0, "dance", 1),
        (1, "dance", 2),
        (2, "dance", 3),
        (0, "collect", 1),
        (1, "collect", 2),
        (2, "collect", 3),
    )
    to_effect(t, 0)
    return t


def test_replace_one_or_two_ingredients_of_another_piece_with_new_ones_from_the_bag():
    t = _replace_table()
    bag = len(t.state["bag"])
    events = t.act(0, {"type": "replace", "piece": "dance", "curves": [1, 3]})
    data = events[0].data
    assert data["removed"] == ["green leaf 1", "orange root 3"] and len(data["drawn"]) == 2
    curves = t.state["curves"][pos(t, "dance")]
    assert [curves[0], curves[2]] == data["drawn"]
    assert curves[1] == "yellow berry 2" and curves[3] == "purple stem 2"
    assert len(t.state["bag"]) == bag


def test_replace_only_on_another_piece_and_at_most_two():
    t = _replace_table()
    assert all(o["piece"] != "replace" for o in GAME.legal(t.state, 0) if o["type"] == "replace")
    assert "other face-up piece" in rejected(t, 0, {"type": "replace", "piece": "replace", "curves": [1]})
    assert "other face-up piece" in rejected(t, 0, {"type": "replace", "piece": "dance", "curves": [1, 2, 3]})
    assert {"type": "replace", "piece": "dance", "curves": [4]} in GAME.legal(t.state, 0)


# --- Dance --------------------------------------------------------------------------------------


def _dance_table():
    """Three players; the first face-up piece is the dance piece (seat 0 on its third space); seat 1 has
    two apprentices on the swap piece; seats 1, 2, 0 stand on the draw piece."""
    t = table(3, signpost=0)  # face up: steal, swap, draw, replace
    c = t.state["circle"]
    i, j = c.index(CIRCLE[0]), c.index(CIRCLE[4])
    c[i], c[j] = c[j], c[i]  # the dance piece takes the steal piece's place
    t.state["known"] = list(t.state["up"])
    place(
        t,
        (0, "dance", 3),
        (1, "draw", 1),
        (2, "draw", 2),
        (0, "draw", 3),
        (1, "swap", 1),
        (2, "replace", 1),
        (0, "replace", 2),
        (1, "swap", 3),
        (2, "replace", 3),
    )
    t.act(0, {"type": "take", "curves": [1]})
    assert t.state["step"] == "effect"
    return t


def test_dance_swaps_two_apprentices_of_different_colours_on_another_piece():
    t = _dance_table()
    t.act(0, {"type": "dance", "piece": "draw", "spaces": [1, 2]})
    assert t.state["spaces"][pos(t, "draw")] == [2, 1, 0]
    # the dance changes who collects what: on the draw piece seat 2 now collects first
    while t.state["queue"][t.state["qi"]][0] != pos(t, "draw"):
        seat = GAME.waiting_for(t.state)[0]
        t.act(seat, GAME.legal(t.state, seat)[0] if t.state["step"] == "take" else {"type": "skip"})
    assert GAME.waiting_for(t.state) == [2]


def test_dance_needs_two_colours_on_one_other_piece():
    t = _dance_table()
    assert "different colours" in rejected(t, 0, {"type": "dance", "piece": "swap", "spaces": [1, 3]})
    options = [o for o in GAME.legal(t.state, 0) if o["type"] == "dance"]
    assert {"type": "dance", "piece": "swap", "spaces": [1, 3]} not in options
    assert all(o["piece"] != "dance" for o in options)  # not on its own piece
    assert {"type": "dance", "piece": "replace", "spaces": [1, 2]} in options


# --- Collect (the basket tile) ------------------------------------------------------------------


def test_collect_takes_the_basket_tile_and_uses_it_in_stage_c_for_one_leftover():
    t = table(5, signpost=0)
    moves = [(0, "collect", 3)]
    free = [(p, s) for p in ("steal", "swap", "draw", "replace", "dance") for s in (1, 2, 3)]
    seat = 1
    for p, s in free[:14]:
        moves.append((seat, p, s))
        seat = (seat + 1) % 5
    place(t, *moves)
    while t.state["phase"] == "collect":
        who = GAME.waiting_for(t.state)[0]
        if t.state["step"] == "effect" and who == 0 and effect_at(t) == "collect":
            assert types(t.act(0, {"type": "basket"})) == ["BasketTaken"]
            continue
        t.act(who, GAME.legal(t.state, who)[0] if t.state["step"] != "effect" else {"type": "skip"})
    assert t.state["basket"] == 0
    leftover = [(p, c) for p in range(6) for c in range(4) if t.state["curves"][p][c] is not None]
    assert leftover, "someone left something in the forest"
    p, c = leftover[0]
    tok = t.state["curves"][p][c]
    effect = effect_of(t.state, p)
    assert any(o["type"] == "pick" for o in GAME.legal(t.state, 0))
    assert "Only the player holding" in rejected(t, 1, {"type": "pick", "piece": effect, "curve": c + 1})
    t.act(0, {"type": "pick", "piece": effect, "curve": c + 1})
    assert tok in t.state["drafts"][0]["front"]
    assert "already used" in rejected(t, 0, {"type": "pick", "piece": effect, "curve": c + 1})
    # everyone finishes: the leftover is gone from the forest and the tile is back in the centre
    for seat in range(5):
        for tok2 in list(t.state["drafts"][seat]["front"]):
            t.act(seat, {"type": "put", "ing": tok2, "to": "poison"})
        t.act(seat, {"type": "done"})
    assert t.state["basket"] is None
    assert tok in t.state["poison"][0]


def effect_at(t):
    p, sp = t.state["queue"][t.state["qi"]]
    return effect_of(t.state, p)


def test_an_unused_basket_tile_stays_and_may_be_taken_from_its_holder():
    t = table(5, signpost=0)
    t.state["basket"] = 3  # seat 3 took it earlier and has not used it
    moves = [(0, "collect", 3)]
    free = [(p, s) for p in ("steal", "swap", "draw", "replace", "dance") for s in (1, 2, 3)]
    seat = 1
    for p, s in free[:14]:
        moves.append((seat, p, s))
        seat = (seat + 1) % 5
    place(t, *moves)
    while not (t.state["step"] == "effect" and effect_at(t) == "collect"):
        who = GAME.waiting_for(t.state)[0]
        t.act(who, GAME.legal(t.state, who)[0] if t.state["step"] != "effect" else {"type": "skip"})
    events = t.act(0, {"type": "basket"})
    assert events[0].data == {"seat": 0, "from": 3}
    assert t.state["basket"] == 0


def test_a_seat_already_holding_the_basket_tile_cannot_take_it_again():
    t = table(5, signpost=0)
    t.state["basket"] = 0
    moves = [(0, "collect", 3)]
    free = [(p, s) for p in ("steal", "swap", "draw", "replace", "dance") for s in (1, 2, 3)]
    seat = 1
    for p, s in free[:14]:
        moves.append((seat, p, s))
        seat = (seat + 1) % 5
    place(t, *moves)
    while t.state["phase"] == "collect" and not (t.state["step"] == "effect" and effect_at(t) == "collect"):
        who = GAME.waiting_for(t.state)[0]
        t.act(who, GAME.legal(t.state, who)[0] if t.state["step"] != "effect" else {"type": "skip"})
    # the collect effect had nothing to offer: the apprentice went home without asking
    assert not (t.state["phase"] == "collect" and t.state["step"] == "effect" and effect_at(t) == "collect")


def test_a_crystal_may_be_stolen():
    t = table(2, signpost=0)
    set_curves(t, "steal", ["crystal", "blue leaf 2", "green seed 3", "yellow stem 1"])
    place(t, (0, "steal", 2), (1, "steal", 3), (0, "swap", 1), (1, "swap", 2), (0, "draw", 1), (1, "draw", 2))
    t.act(0, {"type": "take", "curves": [1, 2]})
    t.act(1, {"type": "take", "curves": [3]})
    t.act(1, {"type": "steal", "ing": "crystal", "from": 0})
    assert "crystal" in t.state["front"][1]
