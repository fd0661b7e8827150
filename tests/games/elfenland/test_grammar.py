"""What a player types in an email, the help, the narration and the renders."""

from __future__ import annotations

import pytest

from games.base import ParseError
from games.elfenland import GAME
from games.testing import play_random

from .common import given, table

PLATFORM_WORDS = ("help", "board", "history", "say", "undo", "away", "back", "notices")


def parse(t, text, seat=None):
    return GAME.parse(text, t.state, t.state["turn"] if seat is None else seat)


def test_take_and_draw():
    t = table(3)
    c = t.state["pool"][0]
    word = GAME.describe({"type": "take", "counter": c})
    assert parse(t, word.upper()) == {"type": "take", "counter": c}
    assert parse(t, "draw") == {"type": "draw"}
    assert parse(t, "take blind") == {"type": "draw"}
    assert parse(t, "Take Giant Pig") == {"type": "take", "counter": "giant_pig"}
    assert parse(t, "take troll wagon") == {"type": "take", "counter": "troll_wagon"}
    with pytest.raises(ParseError):
        parse(t, "take")


def test_place_names_forgive_case_accents_apostrophes_and_spaces():
    t = given(3, phase="place", turn=0, up={0: ["giant_pig", "dragon"]}, down={0: []})
    want = {"type": "place", "counter": "dragon", "route": "dag_amura-jxara:forest", "hidden": False}
    for text in (
        "place dragon on Dag'Amura-Jxara",
        "PLACE DRAGON ON DAG' AMURA - JXARA",
        "place dragon jxara dag amura",
        "place dragons on Dâg Amura to Jxara",
        "put dragon dag_amura-jxara:forest",
    ):
        assert parse(t, text) == want, text
    assert parse(t, "place pig on mah' davika - grangor")["route"] == "grangor-mah_davikia:mountain"
    with pytest.raises(ParseError, match="land routes only"):
        parse(t, "place pig on jxara-virst:river")


def test_place_hidden_counter():
    t = given(3, phase="place", turn=0, up={0: ["giant_pig"]}, down={0: ["dragon"]})
    assert parse(t, "place dragon on Feodor-Al'Baran")["hidden"] is True
    assert parse(t, "place hidden pig on Lapphalya-Elvenhold")["hidden"] is True
    assert parse(t, "place pig on Lapphalya-Elvenhold")["hidden"] is False


def test_did_you_mean_on_a_near_miss():
    t = given(3, phase="place", turn=0, up={0: ["giant_pig"]})
    with pytest.raises(ParseError) as err:
        parse(t, "place pig on Lapphalia-Virts")
    assert "Did you mean" in str(err.value) and "Virst" in str(err.value)
    with pytest.raises(ParseError) as err:
        parse(t, "plase pig on Lapphalya-Virst")
    assert "place" in err.value.suggestions


def test_move_route_unambiguous_where_land_route_and_river_join_two_towns():
    t = given(
        3,
        phase="move",
        turn=0,
        elf={0: "jxara"},
        hands={0: ["raft", "raft", "giant_pig"]},
        board={"jxara-virst:road": "giant_pig"},
    )
    # three cards can only be a caravan, and caravans only go by land
    assert parse(t, "move to virst with raft raft pig")["route"] == "jxara-virst:road"
    assert parse(t, "move to Virst by river") == {
        "type": "move",
        "route": "jxara-virst:river",
        "to": "virst",
        "cards": ["raft", "raft"],
    }
    assert parse(t, "move to Virst by road") == {
        "type": "move",
        "route": "jxara-virst:road",
        "to": "virst",
        "cards": ["giant_pig"],
    }
    assert parse(t, "move Jxara-Virst:river")["route"] == "jxara-virst:river"
    assert parse(t, "move to virst with 2 rafts")["route"] == "jxara-virst:river"
    assert parse(t, "move to virst with two rafts")["cards"] == ["raft", "raft"]
    assert parse(t, "move to virst with a pig")["route"] == "jxara-virst:road"
    # both a pig and two rafts would do: the player has to say which route
    with pytest.raises(ParseError, match="by road.*by river|by river.*by road"):
        parse(t, "move to virst")


def test_move_cards_optional_when_the_counter_says():
    t = given(
        3,
        phase="move",
        turn=0,
        hands={0: ["troll_wagon", "troll_wagon"]},
        board={"elvenhold-erg_eren:forest": "troll_wagon"},
    )
    assert parse(t, "go erg eren") == {
        "type": "move",
        "route": "elvenhold-erg_eren:forest",
        "to": "erg_eren",
        "cards": ["troll_wagon", "troll_wagon"],
    }
    assert parse(t, "move to ergeren with troll, troll")["cards"] == ["troll_wagon", "troll_wagon"]


def test_move_to_a_town_with_no_route_is_explained():
    t = given(3, phase="move", turn=0, hands={0: ["raft"]})
    with pytest.raises(ParseError, match="No route joins Elvenhold and Kihromah"):
        parse(t, "move to kihromah")


def test_keep_discard_end_pass():
    t = given(3, phase="move", turn=0)
    assert parse(t, "end") == {"type": "end"} and parse(t, "done") == {"type": "end"}
    assert parse(t, "pass") == {"type": "pass"}
    assert parse(t, "discard unicorn") == {"type": "discard", "card": "unicorn"}
    assert parse(t, "keep none") == {"type": "keep", "counter": None, "hidden": False}


def test_describe_parses_back_for_every_legal_command_of_a_game():
    tb = play_random(GAME, 4, {"boatmen": True, "lakes": True}, seed=11)
    assert GAME.result(tb.state) is not None  # play_random checked describe -> parse each step


def test_no_command_uses_a_platform_word_or_a_quote_marker():
    tb = play_random(GAME, 3, seed=5, check_every=1)
    state = None
    for ev in tb.events:
        state = GAME.evolve(state, ev)
        for seat in GAME.waiting_for(state):
            for cmd in GAME.legal(state, seat):
                text = GAME.describe(cmd)
                assert text.split()[0] not in PLATFORM_WORDS
                assert not text.startswith(("-", ">", "From:", "To:", "Sent:", "Subject:"))


def test_help_lists_the_commands_of_the_phase_with_examples():
    t = table(3)
    assert "take pig" in GAME.help(t.state, 0) and "draw" in GAME.help(t.state, 0)
    t = given(3, phase="place", turn=0)
    assert "place pig on Jxara-Virst" in GAME.help(t.state, 0) and "pass" in GAME.help(t.state, 0)
    t = given(
        3, phase="move", turn=0, hands={0: ["giant_pig", "raft"]}, board={"elvenhold-lapphalya:road": "giant_pig"}
    )
    text = GAME.help(t.state, 0)
    assert "You can reach this turn: Lapphalya, Rivinia." in text
    assert "move to Lapphalya by road with pig" in text
    assert "not awaited" in GAME.help(t.state, 1)


def test_render_text_fits_80_columns_and_html_is_an_svg():
    tb = play_random(GAME, 6, {"home_cities": True}, seed=3)
    for seat in (None, 0, 5):
        v = GAME.view(tb.state, seat)
        text = GAME.render_text(v)
        assert max(len(line) for line in text.splitlines()) <= 80
        html = GAME.render_html(v)
        assert html.startswith('<div class="elfenland"><style>') and html.count("<svg") == 2
        assert "<script" not in html
    assert "Final result" in GAME.render_text(GAME.view(tb.state, None))


def test_narration_in_both_forms_hides_secrets():
    tb = play_random(GAME, 3, {"home_cities": True}, seed=4)
    names = ["Ann", "Bob", "Cy"]
    words = ("pig", "elfcycle", "cloud", "unicorn", "troll", "dragon", "raft")
    for ev in tb.events:
        full = GAME.narrate(ev, names)
        assert full and isinstance(full, str)
        if ev.visible_to is not None:
            redacted = GAME.narrate(ev.as_seen_by(None), names)
            assert not any(w in redacted for w in words), redacted
            assert "City Card" not in redacted or "secret" in redacted
    ranking = GAME.result(tb.state).ranking()
    winners = " and ".join(names[s] for s in ranking[0])
    assert GAME.narrate(tb.events[-1], names).endswith(f"Winner: {winners}.")


def test_garbage_text_and_malformed_commands_are_refused_politely():
    import json
    import random

    from games.base import Rejected, Rng

    words = [
        "move",
        "place",
        "take",
        "draw",
        "keep",
        "discard",
        "trouble",
        "pass",
        "end",
        "to",
        "by",
        "with",
        "hidden",
        "none",
        "virst",
        "jxara",
        "mah",
        "davika",
        "2",
        "x3",
        "pig",
        "raft",
        "river",
        "road",
        "-",
        ":",
        "jxara-virst:river",
        "al'baran",
        "zzz",
        "Erg'Eren",
        "troll",
        "wagon",
        ",",
        "blind",
        "3x",
    ]
    vals = [None, 1, "x", "raft", "jxara-virst:river", "virst", [], ["raft"], ["zz"], {}, True]
    rnd = random.Random(1)
    tb = play_random(GAME, 3, {"boatmen": True}, seed=2)
    states, state = [], None
    for i, ev in enumerate(tb.events):
        state = GAME.evolve(state, ev)
        if i % 9 == 0:
            states.append(json.loads(json.dumps(state)))
    for _ in range(600):
        st = rnd.choice(states)
        seat = rnd.choice([0, 1, 2, None])
        text = " ".join(rnd.choice(words) for _ in range(rnd.randint(0, 6)))
        try:
            GAME.parse(text, st, seat)
        except Rejected:
            pass
        waiting = GAME.waiting_for(st)
        if waiting:
            cmd = {"type": rnd.choice(["take", "place", "move", "keep", "discard", "trouble", 3])}
            for k in ("counter", "route", "to", "cards", "card", "hidden"):
                if rnd.random() < 0.6:
                    cmd[k] = rnd.choice(vals)
            try:
                GAME.decide(st, waiting[0], cmd, Rng(b"fuzz", 1))
            except Rejected:
                pass
