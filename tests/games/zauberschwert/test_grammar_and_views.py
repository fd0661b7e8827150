"""The mail grammar, help, hidden information in views and events, and the renders."""

import pytest

from games.base import ParseError
from games.testing import Table, deep_contains, play_random
from games.zauberschwert import GAME
from games.zauberschwert.rules import SPELL_ID

from .helpers import BLUE, GREEN, RED, place_all, table_at

PLATFORM_WORDS = {"help", "board", "history", "say", "undo", "away", "back", "notices"}


def parse(table, text, seat=RED):
    return GAME.parse(text, table.state, seat)


def test_grammar_place_pass_by_number_side_or_card_name():
    table = table_at(display=("A08", "B03"))
    assert parse(table, "place 1") == {"type": "place", "slot": 0}
    assert parse(table, "Place RIGHT") == {"type": "place", "slot": 1}
    assert parse(table, "place goblins") == {"type": "place", "slot": 0}
    assert parse(table, "place on energy orb") == {"type": "place", "slot": 1}
    assert parse(table, "pass") == {"type": "pass"}


def test_grammar_two_creatures_of_the_same_name_are_told_apart():
    table = table_at(display=("A06", "A07"))  # spiders 4 (sun) and spiders 4 (moon)
    with pytest.raises(ParseError, match="could be several"):
        parse(table, "place spiders")
    assert parse(table, "place spiders 4 moon") == {"type": "place", "slot": 1}
    assert parse(table, "place Spiders 4 sun") == {"type": "place", "slot": 0}


def test_grammar_did_you_mean_on_a_near_miss():
    table = table_at(display=("A08", "B03"))
    with pytest.raises(ParseError, match="Did you mean"):
        parse(table, "plase 1")
    with pytest.raises(ParseError, match="Goblins"):
        parse(table, "place gobblins")
    with pytest.raises(ParseError, match="Magic wand 1"):
        parse(table, "offer magic wand to blue for potion")


def test_grammar_cards_forgiving_of_case_accents_and_apostrophes():
    table = table_at(display=("A08", "B03"))
    cmd = parse(table, "Offer Phoenix' Feather to BLUE for magic-wand 2")
    assert cmd == {"type": "offer", "give": "ART27", "to": BLUE, "want": "ART02"}
    assert parse(table, "offer Phönixfeder to blue for Zauberstab 2") == cmd  # German names too
    assert parse(table, "lay Königskrone") == {"type": "lay", "artifact": "royal_crown"}
    assert parse(table, "lay out star sapphire") == {"type": "lay", "artifact": "star_sapphire"}
    assert parse(table, "cast retransformus crystal ball 1") == {
        "type": "cast",
        "spell": "Retransformus",
        "card": "ART07",
    }
    assert parse(table, "cast harpagarus green") == {"type": "cast", "spell": "Harpagarus", "target": GREEN}
    assert parse(table, "take power") == {"type": "bonus", "take": "stones"}
    assert parse(table, "bid 12") == {"type": "bid", "amount": 12}
    assert parse(table, "fulmentus down") == {"type": "fulmentus", "delta": -2}


def test_grammar_accept_without_a_colour_when_there_is_one_offer():
    table = table_at(players=2, display=("A04", "B03"), hand=[["ART16"], ["ART17"]])
    place_all(table, {})
    table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART17"})
    assert GAME.parse("accept", table.state, BLUE) == {"type": "accept", "from": RED}


def test_grammar_every_legal_command_describes_to_text_that_parses_back():
    table = play_random(GAME, 3, seed=5)  # play_random checks describe -> parse for every command it gives
    assert table.state["step"] == "over"
    # and in an offer-rich moment: every offer, answer and lay-out
    table = table_at(players=3, display=("A04", "B03"), hand=[["ART01", "ART16"], ["ART02"], ["ART05"]])
    place_all(table, {})
    for cmd in GAME.legal(table.state, RED):
        text = GAME.describe(cmd)
        assert GAME.parse(text, table.state, RED) == cmd, text
        assert text.split()[0] not in PLATFORM_WORDS and not text.startswith(("-", ">"))


def test_help_lists_the_commands_of_the_current_phase_with_examples():
    table = table_at(display=("A08", "B03"))
    text = GAME.help(table.state, RED)
    assert "place 1" in text and "pass" in text
    table = table_at(players=2, display=("A08", "A04"), mp=[9, 9])
    place_all(table, {RED: 0, BLUE: 0})
    assert "together" in GAME.help(table.state, RED) and "alone" in GAME.help(table.state, RED)


def test_hidden_hands_views_show_counts_only():
    table = table_at(players=3, display=("A04", "B03"), hand=[["ART01"], ["ART16", "ART17"], []])
    mine = GAME.view(table.state, BLUE)
    assert mine["hand"] == ["ART16", "ART17"]
    for viewer in (RED, GREEN, None):
        v = GAME.view(table.state, viewer)
        assert not deep_contains(v, "ART16") and not deep_contains(v, "ART17")
        assert v["players_info"][BLUE]["hand_count"] == 2
    for viewer in (RED, BLUE, GREEN, None):
        v = GAME.view(table.state, viewer)
        assert not any(deep_contains(v, c) for c in table.state["art_deck"])  # the artifact deck is face down
        assert not any(deep_contains(v, c) for c in table.state["adv_deck"])


def test_hidden_the_next_adventure_cards_back_letter_is_public_but_not_the_card():
    table = Table(GAME, 2, seed=b"letters")
    v = GAME.view(table.state, None)
    assert v["next_letter"] == "A" and v["adventure_deck"] == 23
    assert not deep_contains(v, table.state["adv_deck"][0])


def test_hidden_drawn_cards_and_trade_offers_are_seen_only_by_those_involved():
    table = table_at(players=3, display=("C03", "A04"), hand=[["ART16"], ["ART17"], []])
    events = place_all(table, {RED: 0, BLUE: 0, GREEN: 1})
    for e in events:
        if e.type == "ArtifactsDrawn":
            assert e.visible_to == (e.data["seat"],) and e.public == {"seat": e.data["seat"], "count": 1}
            assert "cards" not in e.as_seen_by(GREEN if e.data["seat"] != GREEN else RED).data
    table.act(RED, {"type": "offer", "give": "ART16", "to": BLUE, "want": "ART17"})
    assert GAME.view(table.state, BLUE)["offers"][0]["give"] == "ART16"
    assert GAME.view(table.state, GREEN)["offers"] == [{"from": RED, "to": BLUE}]
    names = ["Red", "Blue", "Green"]
    offer = table.events[-1]
    assert "Potion" in GAME.narrate(offer, names)
    assert GAME.narrate(offer.as_seen_by(GREEN), names) == "Red makes Blue an offer."


def test_narrate_every_event_in_both_forms_and_renders_fit_80_columns():
    names = ["Ann", "Bob", "Cy", "Di"]
    table = play_random(GAME, 4, seed=7)
    for e in table.events:
        assert GAME.narrate(e, names)
        assert GAME.narrate(e.as_seen_by(None), names)
    table = table_at(
        players=4,
        display=("A08", "B03"),
        hand=[["ART16"], [], [], []],
        laid=[[], ["ART01", "ART02"], [], []],
        spells=[[SPELL_ID["Transformus"]], [], [], []],
    )
    for viewer in (None, RED, BLUE):
        v = GAME.view(table.state, viewer)
        text = GAME.render_text(v)
        assert max(len(line) for line in text.splitlines()) <= 80
        html = GAME.render_html(v)
        assert html.startswith("<div") and "<svg" in html and "<script" not in html
    assert "Potion" in GAME.render_text(GAME.view(table.state, RED))
    assert "Potion" not in GAME.render_text(GAME.view(table.state, BLUE))


def test_summary_and_score_sheet_add_up():
    table = play_random(GAME, 3, seed=11)
    totals = [0, 0, 0]
    for line in GAME.score_sheet(table.state):
        totals[line.seat] += line.points
    assert totals == GAME.summary(table.state)["scores"] == GAME.result(table.state).scores


def test_hidden_no_public_form_of_a_restricted_event_names_a_secret_card():
    # Drawn cards, traded and stolen cards and the deck order are secret; a Retransformus discard is public.
    for players, seed in ((2, 3), (4, 8)):
        table = play_random(GAME, players, seed=seed)
        for e in table.events:
            if e.visible_to is None:
                continue
            public = dict(e.public or {})
            public.pop("discard", None)
            text = repr(public)
            assert "ART" not in text and not any(c in text for c in ("'A0", "'B0", "'C0")), (e.type, public)
            if e.type in ("ArtifactsDrawn", "RetransformusCast", "HarpagarusCast", "OfferMade", "OfferAccepted"):
                assert e.reveals, e.type


def test_bids_are_public_and_seen_by_everyone():
    table = table_at(players=3, display=("A08", "A04"), mp=[9, 9, 9])
    place_all(table, {RED: 0, BLUE: 0})
    table.act(RED, {"type": "alone"})
    events = table.act(RED, {"type": "bid", "amount": 6})
    assert all(e.visible_to is None for e in events)
    for viewer in (None, GREEN):
        auction = GAME.view(table.state, viewer)["auction"]
        assert auction["high"] == 6 and auction["bidder"] == RED
    assert "high bid 6 by Red" in GAME.render_text(GAME.view(table.state, None))
