"""Stage C: concocting potions, simultaneously and in secret; corks."""

from games.elixirus import GAME
from games.elixirus.rules import _advance

from .helpers import give_front, rejected, table, take, types

# Seat 0 has table T1, seat 1 has table T2:
# T1 vitality: orange, seed, purple, leaf | love: blossom, red, berry, green | recovery: yellow, seed, green,
#    leaf, blue | fertility: root, yellow, stem, orange, blossom | healing: red, berry, blue, root, purple, stem
#    recipe book: red root, blue blossom; enchanted yellow, cursed seed
# T2 vitality: green, berry, purple, leaf | recovery: orange, blossom, red, root, green; book: orange leaf, purple berry
VITALITY_T1 = ["orange root 1", "blue seed 1", "purple root 1", "red leaf 1"]
RECOVERY_T1 = ["yellow root 2", "green seed 2", "green root 2", "blue leaf 2", "blue root 1"]
RECOVERY_T2 = ["orange stem 2", "red blossom 2", "red stem 2", "yellow root 3", "green stem 2"]


def brewing(fronts=None, bowls=None, players=2, tables=("T1", "T2")):
    """A table at the start of stage C with these ingredients in front of the players."""
    t = table(players, tables=list(tables) + ["T3", "T4", "T5"][: max(0, players - len(tables))])
    for seat, toks in (fronts or {}).items():
        give_front(t, seat, toks)
    for seat, tok in (bowls or {}).items():
        take(t.state, tok)
        t.state["bowl"][seat] = tok
    s = t.state
    s["left"] = [0] * s["n"]
    s["phase"], s["queue"], s["qi"], s["step"] = "collect", [], 0, "take"
    _advance(s)
    assert s["phase"] == "brew"
    return t


def fill(t, seat, flask, toks, cork=None):
    for tok in toks:
        take(t.state, tok)
    t.state["flasks"][seat][flask] = list(toks)
    if cork:
        t.state["corks"][seat][flask] = cork


def put(t, seat, tok, dest):
    return t.act(seat, {"type": "put", "ing": tok, "to": dest})


def everyone_done(t):
    events = []
    for seat in range(t.state["n"]):
        if not t.state["done"][seat]:
            events += t.act(seat, {"type": "done"})
    return events


def test_flasks_are_filled_from_the_bottom_without_skipping_a_space():
    t = brewing({0: ["blue seed 1", "orange root 1"]})
    assert "needs colour orange" in rejected(t, 0, {"type": "put", "ing": "blue seed 1", "to": "vitality"})
    put(t, 0, "orange root 1", "vitality")
    put(t, 0, "blue seed 1", "vitality")  # the second space wants the seed variety
    assert GAME.view(t.state, 0)["mine"]["flasks"]["vitality"] == ["orange root 1", "blue seed 1"]


def test_an_ingredient_must_match_the_colour_or_the_variety_of_the_space():
    t = brewing({0: ["orange leaf 3", "red blossom 2", "yellow stem 1"]})
    put(t, 0, "orange leaf 3", "vitality")  # colour orange
    put(t, 0, "red blossom 2", "love")  # variety blossom
    # fertility starts with the root variety: a yellow stem matches neither
    assert "needs variety root" in rejected(t, 0, {"type": "put", "ing": "yellow stem 1", "to": "fertility"})


def test_a_crystal_can_be_used_as_any_ingredient():
    t = brewing({0: ["crystal", "crystal"]})
    put(t, 0, "crystal", "healing")
    put(t, 0, "crystal", "healing")
    assert GAME.view(t.state, 0)["mine"]["flasks"]["healing"] == ["crystal", "crystal"]


def test_special_ingredients_may_go_into_the_recipe_book():
    t = brewing({0: ["red root 2", "blue blossom 3", "yellow leaf 1", "blue seed 3"]})
    put(t, 0, "red root 2", "book")
    put(t, 0, "blue blossom 3", "book")
    assert GAME.view(t.state, 0)["mine"]["book"] == ["red root 2", "blue blossom 3"]
    # enchanted (yellow) and cursed (seed) ingredients are not special ingredients
    assert "Only your special ingredients" in rejected(t, 0, {"type": "put", "ing": "yellow leaf 1", "to": "book"})
    assert "Only your special ingredients" in rejected(t, 0, {"type": "put", "ing": "blue seed 3", "to": "book"})


def test_a_crystal_does_not_go_into_the_recipe_book():
    t = brewing({0: ["crystal"]})
    assert "Only your special ingredients" in rejected(t, 0, {"type": "put", "ing": "crystal", "to": "book"})
    assert {"type": "put", "ing": "crystal", "to": "book"} not in GAME.legal(t.state, 0)


def test_each_recipe_book_space_takes_one_special_ingredient():
    t = brewing({0: ["red root 2", "red root 3"]})
    put(t, 0, "red root 2", "book")
    assert "already filled" in rejected(t, 0, {"type": "put", "ing": "red root 3", "to": "book"})


def test_a_special_ingredient_may_also_go_on_a_flask():
    t = brewing({0: ["red root 2"]})
    put(t, 0, "red root 2", "healing")  # healing starts with red


def test_the_bowl_holds_at_most_one_ingredient():
    t = brewing({0: ["green stem 1", "green stem 2"]})
    put(t, 0, "green stem 1", "bowl")
    assert "at most 1" in rejected(t, 0, {"type": "put", "ing": "green stem 2", "to": "bowl"})


def test_the_bowl_ingredient_may_be_placed_on_a_flask_and_another_saved_in_its_place():
    t = brewing({0: ["blue seed 1", "orange root 1"]}, bowls={0: "green stem 3"})
    put(t, 0, "green stem 3", "poison")  # out of the bowl
    put(t, 0, "orange root 1", "bowl")
    put(t, 0, "blue seed 1", "poison")
    t.act(0, {"type": "done"})
    t.act(1, {"type": "done"})
    assert t.state["bowl"][0] == "orange root 1"
    assert t.state["poison"][0] == ["green stem 3", "blue seed 1"]


def test_the_bowl_ingredient_is_kept_for_the_next_round():
    t = brewing({0: ["orange root 1"]})
    put(t, 0, "orange root 1", "bowl")
    everyone_done(t)
    assert t.state["phase"] == "place" and t.state["bowl"][0] == "orange root 1"


def test_ingredients_that_fit_nowhere_go_to_the_poison_flask_and_poison_is_always_allowed():
    t = brewing({0: ["green stem 1", "orange root 1"]}, bowls={0: "green stem 3"})
    legal = GAME.legal(t.state, 0)
    assert {"type": "put", "ing": "green stem 1", "to": "poison"} in legal
    assert [c["to"] for c in legal if c.get("ing") == "green stem 1"] == ["poison"]  # bowl full, nothing fits
    put(t, 0, "orange root 1", "poison")  # voluntarily, though it fits the vitality flask
    put(t, 0, "green stem 1", "poison")


def test_you_are_done_only_when_every_collected_ingredient_is_placed():
    t = brewing({0: ["green stem 1"]})
    assert "Place all the ingredients" in rejected(t, 0, {"type": "done"})
    assert {"type": "done"} not in GAME.legal(t.state, 0)


def test_placed_ingredients_are_never_moved_again():
    t = brewing({0: ["orange root 1"]})
    fill(t, 0, "love", ["red blossom 1"])
    assert "You have no red blossom 1" in rejected(t, 0, {"type": "put", "ing": "red blossom 1", "to": "poison"})
    put(t, 0, "orange root 1", "vitality")
    assert "You have no orange root 1" in rejected(t, 0, {"type": "put", "ing": "orange root 1", "to": "poison"})


def test_concocting_is_simultaneous_and_secret_until_everyone_is_done():
    t = brewing({0: ["orange root 1"], 1: ["green root 1"]})
    assert GAME.waiting_for(t.state) == [0, 1]
    placed = put(t, 0, "orange root 1", "vitality")[0]
    assert placed.visible_to == (0,) and placed.public == {"seat": 0}
    other = GAME.view(t.state, 1)
    assert other["tables"][0]["flasks"]["vitality"] == [] and other["tables"][0]["front"] == ["orange root 1"]
    assert GAME.view(t.state, None)["mine"] is None
    assert GAME.narrate(placed.as_seen_by(1), ["Ann", "Bob"]) == "Ann is concocting."
    t.act(0, {"type": "done"})
    assert GAME.waiting_for(t.state) == [1]
    put(t, 1, "green root 1", "vitality")
    events = t.act(1, {"type": "done"})
    assert types(events)[:2] == ["BrewDone", "PotionsRevealed"]
    assert events[1].reveals and events[1].visible_to is None
    assert events[1].data["moves"] == [[["orange root 1", "vitality"]], [["green root 1", "vitality"]]]
    assert t.state["flasks"][0]["vitality"] == ["orange root 1"]


def test_a_player_who_is_done_may_revise_until_the_last_player_is_done():
    t = brewing({0: ["orange root 1"], 1: ["green root 1"]})
    put(t, 0, "orange root 1", "poison")
    t.act(0, {"type": "done"})
    assert GAME.can_act(t.state, 0) and GAME.legal(t.state, 0) == []
    assert "reset" in rejected(t, 0, {"type": "put", "ing": "orange root 1", "to": "vitality"})
    assert types(t.act(0, {"type": "reset"})) == ["BrewReset"]
    assert GAME.waiting_for(t.state) == [0, 1]
    assert t.state["drafts"][0]["front"] == ["orange root 1"]
    put(t, 0, "orange root 1", "vitality")
    t.act(0, {"type": "done"})
    put(t, 1, "green root 1", "poison")
    t.act(1, {"type": "done"})
    assert t.state["flasks"][0]["vitality"] == ["orange root 1"]
    assert not GAME.can_act(t.state, 0)


def test_the_first_to_seal_a_flask_type_takes_a_five_point_cork():
    t = brewing({0: ["red leaf 1"]})
    fill(t, 0, "vitality", VITALITY_T1[:3])
    put(t, 0, "red leaf 1", "vitality")
    events = everyone_done(t)
    revealed = [e for e in events if e.type == "PotionsRevealed"][0]
    assert revealed.data["corks"] == [[0, "vitality", 5]]
    assert t.state["corks"][0] == {"vitality": 5}


def test_all_who_seal_the_same_flask_type_first_in_the_same_round_take_five():
    t = brewing({0: ["blue root 1"], 1: ["green stem 2"]})
    fill(t, 0, "recovery", RECOVERY_T1[:4])
    fill(t, 1, "recovery", RECOVERY_T2[:4])
    put(t, 0, "blue root 1", "recovery")
    put(t, 1, "green stem 2", "recovery")
    everyone_done(t)
    assert t.state["corks"] == [{"recovery": 5}, {"recovery": 5}]


def test_marco_seals_recovery_after_patricia_and_takes_a_two_point_cork():
    # Patricia (seat 0) finished her recovery flask in an earlier round.
    t = brewing({1: ["green stem 2"]})
    fill(t, 0, "recovery", RECOVERY_T1, cork=5)
    fill(t, 1, "recovery", RECOVERY_T2[:4])
    put(t, 1, "green stem 2", "recovery")
    everyone_done(t)
    assert t.state["corks"][1] == {"recovery": 2}
    assert t.state["corks"][0] == {"recovery": 5}


def test_a_cork_is_taken_only_when_the_last_space_is_filled():
    t = brewing({0: ["purple root 1"]})
    fill(t, 0, "vitality", VITALITY_T1[:2])
    put(t, 0, "purple root 1", "vitality")
    everyone_done(t)
    assert t.state["corks"][0] == {}


def test_a_full_flask_takes_no_more_ingredients():
    t = brewing({0: ["orange leaf 2"]})
    fill(t, 0, "vitality", VITALITY_T1, cork=5)
    assert "already full" in rejected(t, 0, {"type": "put", "ing": "orange leaf 2", "to": "vitality"})


def test_reset_is_accepted_but_never_listed_so_every_listed_move_goes_forward():
    """RULINGS #34: 'reset' takes back this round's concocting (before or after 'done'); it is
    in help and parses, but legal() and the chooser never offer it, so that every listed move
    places an ingredient or finishes and a stand-in or bot cannot undo its own progress."""
    t = brewing({0: ["orange root 1", "blue seed 1"], 1: ["green root 1"]})
    put(t, 0, "orange root 1", "vitality")
    listed = GAME.legal(t.state, 0)
    assert {"type": "reset"} not in listed and all(c["type"] in ("put", "pick", "done") for c in listed)
    assert all(ch.command["type"] != "reset" for ch in GAME.choices(t.state, 0))
    assert "reset" in GAME.help(t.state, 0) and GAME.parse("reset", t.state, 0) == {"type": "reset"}
    assert types(t.act(0, {"type": "reset"})) == ["BrewReset"]
    assert GAME.view(t.state, 0)["mine"]["front"] == ["orange root 1", "blue seed 1"]
    assert "not placed anything" in rejected(t, 0, {"type": "reset"})
