"""Stage B: collecting ingredients, the first curve's bag draw, and the worked example."""

from games.elixirus import GAME

from .helpers import place, pos, rejected, set_curves, table, types

STEAL = ["red root 1", "blue leaf 2", "green seed 3", "yellow stem 1"]


def _two_player_round(t):
    """Patricia (seat 0) and Marco (seat 1) place their apprentices on the steal, swap and draw pieces."""
    place(t, (0, "steal", 2), (1, "steal", 3), (0, "swap", 1), (1, "swap", 2), (0, "draw", 1), (1, "draw", 2))


def test_collecting_starts_at_the_signpost_and_goes_clockwise_space_by_space():
    t = table(2, signpost=0)
    place(t, (0, "draw", 1), (1, "steal", 3), (0, "steal", 1), (1, "swap", 2), (0, "swap", 3), (1, "draw", 3))
    seen = []
    while t.state["phase"] == "collect":
        seat = GAME.waiting_for(t.state)[0]
        p, space = t.state["queue"][t.state["qi"]]
        if t.state["step"] == "take":
            seen.append((t.state["circle"][p], space + 1, seat))
            t.act(seat, GAME.legal(t.state, seat)[0])
        elif t.state["step"] == "effect":
            t.act(seat, {"type": "skip"})
    effects = {t.state["circle"][pos(t, e)]: e for e in ("steal", "swap", "draw")}
    assert [(effects[p], sp, s) for p, sp, s in seen] == [
        ("steal", 1, 0),
        ("steal", 3, 1),
        ("swap", 2, 1),
        ("swap", 3, 0),
        ("draw", 1, 0),
        ("draw", 3, 1),
    ]


def test_the_worked_example_patricia_and_marco_collect_and_marco_steals():
    t = table(2, signpost=0)
    set_curves(t, "steal", STEAL)
    _two_player_round(t)
    # Patricia's apprentice is furthest left (space 2: two baskets): second and fourth curve.
    assert GAME.waiting_for(t.state) == [0]
    assert "exactly 2" in rejected(t, 0, {"type": "take", "curves": [2]})
    t.act(0, {"type": "take", "curves": [2, 4]})
    assert t.state["front"][0] == ["blue leaf 2", "yellow stem 1"]
    # Marco: first curve, so he must also draw 1 from the bag.
    bag_before = len(t.state["bag"])
    events = t.act(1, {"type": "take", "curves": [1]})
    assert types(events) == ["IngredientsCollected"]
    drawn = events[0].data["drawn"]
    assert len(drawn) == 1 and len(t.state["bag"]) == bag_before - 1
    assert t.state["front"][1] == ["red root 1"] + drawn
    # Third space: he steals one of Patricia's collected ingredients.
    assert {"type": "steal", "ing": "blue leaf 2", "from": 0} in GAME.legal(t.state, 1)
    t.act(1, {"type": "steal", "ing": "blue leaf 2", "from": 0})
    assert len(t.state["front"][1]) == 3
    assert t.state["front"][0] == ["yellow stem 1"]
    # Both apprentices went back to their tables.
    assert t.state["spaces"][pos(t, "steal")] == [None, None, None]


def test_you_must_collect_exactly_the_number_of_baskets():
    t = table(2)
    _two_player_round(t)
    assert "exactly 2" in rejected(t, 0, {"type": "take", "curves": [1, 2, 3]})
    assert "exactly 2" in rejected(t, 0, {"type": "take", "curves": [1]})
    assert all(len(c["curves"]) == 2 for c in GAME.legal(t.state, 0))


def test_you_collect_only_ingredients_that_are_there():
    t = table(2)
    set_curves(t, "steal", [None, "blue leaf 2", "green seed 3", "yellow stem 1"])
    _two_player_round(t)
    assert "no ingredient in curve 1" in rejected(t, 0, {"type": "take", "curves": [1, 2]})


def test_collecting_curves_other_than_the_first_draws_nothing_from_the_bag():
    t = table(2)
    _two_player_round(t)
    bag = len(t.state["bag"])
    events = t.act(0, {"type": "take", "curves": [2, 3]})
    assert events[0].data["drawn"] == [] and len(t.state["bag"]) == bag


def test_the_bag_draw_is_public_once_taken():
    t = table(2)
    set_curves(t, "steal", STEAL)
    _two_player_round(t)
    t.act(0, {"type": "take", "curves": [1, 2]})
    drawn = t.events[-1].data["drawn"]
    assert t.events[-1].visible_to is None
    assert GAME.view(t.state, 1)["tables"][0]["front"] == ["red root 1", "blue leaf 2"] + drawn


def test_only_the_third_space_has_an_effect_and_it_is_optional():
    t = table(2)
    set_curves(t, "steal", STEAL)
    _two_player_round(t)
    t.act(0, {"type": "take", "curves": [2, 3]})
    t.act(1, {"type": "take", "curves": [4]})
    assert t.state["step"] == "effect"
    assert {"type": "skip"} in GAME.legal(t.state, 1)
    assert types(t.act(1, {"type": "skip"})) == ["EffectSkipped"]
    # next: Patricia on the first space of the swap piece, who has no effect after collecting
    t.act(0, GAME.legal(t.state, 0)[0])
    assert t.state["step"] == "take" and GAME.waiting_for(t.state) == [1]


def test_an_effect_that_cannot_be_used_is_passed_over():
    t = table(2)
    set_curves(t, "steal", STEAL)
    place(t, (0, "steal", 3), (1, "swap", 1), (0, "swap", 2), (1, "draw", 1), (0, "draw", 2), (1, "draw", 3))
    # Patricia steals first on the steal piece: nobody has collected anything yet.
    t.act(0, {"type": "take", "curves": [2]})
    assert t.state["step"] == "take" and GAME.waiting_for(t.state) == [1]
    assert t.state["spaces"][pos(t, "steal")] == [None, None, None]


def test_when_all_apprentices_are_home_everyone_concocts_at_once():
    t = table(2)
    _two_player_round(t)
    while t.state["phase"] == "collect":
        seat = GAME.waiting_for(t.state)[0]
        t.act(seat, GAME.legal(t.state, seat)[-1])
    assert t.state["phase"] == "brew"
    assert GAME.waiting_for(t.state) == [0, 1]


def test_with_fewer_ingredients_than_baskets_you_collect_what_is_there():
    t = table(2)
    set_curves(t, "steal", [None, None, None, "yellow stem 1"])
    _two_player_round(t)
    assert GAME.legal(t.state, 0) == [{"type": "take", "curves": [4]}]
    t.act(0, {"type": "take", "curves": [4]})
    # the piece is empty now: Marco's apprentice on space 3 goes straight to its effect (steal)
    assert t.state["step"] == "effect" and GAME.waiting_for(t.state) == [1]


def test_a_draw_from_an_empty_bag_pours_the_box_back_first():
    t = table(2)
    set_curves(t, "steal", STEAL)
    _two_player_round(t)
    s = t.state
    s["box"], s["bag"] = s["bag"], []
    t.act(0, {"type": "take", "curves": [2, 4]})
    events = t.act(1, {"type": "take", "curves": [1]})
    assert events[0].data["poured"] == 0 and len(events[0].data["drawn"]) == 1
    assert s["box"] == [] and events[0].data["drawn"][0] not in s["bag"]


def test_the_starting_marker_goes_to_a_player_drawn_at_random():
    from games.testing import Table

    starts = {Table(GAME, 4, seed=f"start{i}".encode()).state["start"] for i in range(20)}
    assert len(starts) > 1
