"""The rulebook's worked examples, with its figures."""

from games.zauberschwert.rules import ADV

from .helpers import BLUE, GREEN, RED, YELLOW, find, place_all, table_at, types


def test_illustration_2_start_players_card_is_resolved_first_then_the_other():
    # Red (start) and Yellow on the right card, Blue and Green on the left card: right first.
    table = table_at(display=("B04", "A04"), start=RED, mp=[5, 5, 5, 5])  # left holy site, right energy orb (3)
    events = place_all(table, {RED: 1, BLUE: 0, GREEN: 0, YELLOW: 1})
    order = [e.type for e in events if e.type in ("OrbResolved", "HolySiteResolved")]
    assert order == ["OrbResolved", "HolySiteResolved"]
    assert find(events, "OrbResolved").data["seats"] == [RED, YELLOW]
    assert find(events, "HolySiteResolved").data["seats"] == [BLUE, GREEN]
    # the wizards went back after each resolution
    assert table.state["wizard"] == [None, None, None, None]
    assert table.state["mp"] == [5 + 3, 5, 5, 5 + 3]


def test_example_spiders_blue_alone_with_wand_and_spell_book():
    # Spiders: strength 4, one symbol (sun), alone: 3 artifact cards. Blue has laid out a two-part magic wand
    # (sun, 2 power stones), a spell book (sun and star, 1 magic point) and a Star Sapphire (star).
    spiders = ADV["A06"]
    assert (spiders["strength"], spiders["symbol"], spiders["reward_one_wizard"]) == (
        4,
        "sun",
        {"power_stones": 0, "artifacts": 3},
    )
    laid = [[], ["ART01", "ART02", "ART13", "ART19"], [], []]
    table = table_at(display=("A08", "A06"), start=RED, mp=[10, 7, 10, 10], laid=laid)
    deck = list(table.state["art_deck"])
    events = place_all(table, {BLUE: 1})
    assert table.state["step"] == "lone" and table.spec.waiting_for(table.state) == [BLUE]
    events = table.act(BLUE, {"type": "fight"})
    won = find(events, "CreatureDefeated").data
    assert won["winners"] == [
        {
            "seat": BLUE,
            "paid": 4,
            "power": 0,
            "bonus_power": 2,
            "bonus_magic": 1,
            "artifacts": 3,
            "bonus_artifacts": ["magic_wand", "spell_book"],
        }
    ]
    assert won["choices"] == []  # the Star Sapphire (star) yields nothing against sun spiders
    drawn = find(events, "ArtifactsDrawn")
    assert drawn.data == {"seat": BLUE, "cards": deck[:3]} and drawn.visible_to == (BLUE,)
    assert table.state["mp"][BLUE] == 7 - 4 + 1
    assert table.state["ps"][BLUE] == 2
    assert table.state["hand"][BLUE] == deck[:3]
    assert "A06" in table.state["gone"]


def test_example_goblins_shared_by_red_and_yellow():
    # Goblins: strength 5, one symbol; together each pays 3 (5/2 rounded up), notes 1 stone, draws 1 card.
    goblins = ADV["A08"]
    assert goblins["strength"] == 5 and goblins["reward_two_wizards_each"] == {"power_stones": 1, "artifacts": 1}
    table = table_at(display=("A08", "A04"), start=RED, mp=[6, 6, 6, 5])
    deck = list(table.state["art_deck"])
    place_all(table, {RED: 0, YELLOW: 0})
    assert table.state["step"] == "declare"
    table.act(RED, {"type": "together"})
    events = table.act(YELLOW, {"type": "together"})
    won = find(events, "CreatureDefeated").data
    assert [(w["seat"], w["paid"], w["power"], w["artifacts"]) for w in won["winners"]] == [
        (RED, 3, 1, 1),
        (YELLOW, 3, 1, 1),
    ]
    assert table.state["mp"][RED] == 3 and table.state["mp"][YELLOW] == 2
    assert table.state["ps"][RED] == 1 and table.state["ps"][YELLOW] == 1
    # dealt in seating order from the start player
    assert [e.data["seat"] for e in find(events, "ArtifactsDrawn")] == [RED, YELLOW]
    assert table.state["hand"][RED] == [deck[0]] and table.state["hand"][YELLOW] == [deck[1]]


def test_example_goblins_auction_won_by_red_at_8():
    # Red (start) insists on facing the goblins alone: Red 5, Yellow 7, Red 8, Yellow passes.
    table = table_at(display=("A08", "A04"), start=RED, mp=[10, 5, 5, 9])
    place_all(table, {RED: 0, YELLOW: 0})
    events = table.act(RED, {"type": "alone"})
    opened = find(events, "AuctionOpened").data
    assert opened["seats"] == [RED, YELLOW] and opened["min"] == 5
    assert table.spec.waiting_for(table.state) == [RED]
    table.act(RED, {"type": "bid", "amount": 5})
    table.act(YELLOW, {"type": "bid", "amount": 7})
    table.act(RED, {"type": "bid", "amount": 8})
    events = table.act(YELLOW, {"type": "pass"})
    won = find(events, "CreatureDefeated").data
    assert won["mode"] == "auction"
    assert [(w["seat"], w["paid"], w["power"], w["artifacts"]) for w in won["winners"]] == [(RED, 8, 3, 2)]
    assert table.state["mp"][RED] == 2 and table.state["ps"][RED] == 3 and len(table.state["hand"][RED]) == 2
    # Yellow goes away empty-handed and pays nothing
    assert table.state["mp"][YELLOW] == 9 and table.state["ps"][YELLOW] == 0 and table.state["hand"][YELLOW] == []
    assert "ArtifactsDrawn" in types(events)
