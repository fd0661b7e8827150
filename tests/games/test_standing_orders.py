"""Standing orders, one kind per game at least (issue 32), each named after the rule that makes a
player say the same thing again and again. Each is played through a whole game here: seat 0
follows its order wherever the order says something, the stand-in plays the rest; every move the
order makes is legal (Table.act), the order speaks only in its own phase, and it speaks often."""

from __future__ import annotations

import importlib

import pytest

from games.base import ParseError
from games.testing import Table


def spec_of(name):
    return importlib.import_module(f"games.{name}").GAME


def play_with_order(name, text, players=3, seed=b"orders"):
    """A whole game where seat 0 follows the order `text`; returns (table, [(legal, move)] made
    by the order)."""
    spec = spec_of(name)
    table = Table(spec, players, seed=seed)
    order = spec.parse_order(text, table.state, 0)
    assert spec.parse_order(spec.describe_order(order), table.state, 0) == order  # words round-trip
    followed = []
    for _ in range(20000):
        awaited = spec.waiting_for(table.state)
        if not awaited:
            break
        seat = awaited[0]
        legal = spec.legal(table.state, seat)
        move = spec.follow_order(order, spec.view(table.state, seat), legal) if seat == 0 else None
        if move is not None:
            assert move in legal
            followed.append((legal, move))
        else:
            move = spec.standin(spec.view(table.state, seat), legal)
        table.act(seat, move)
    assert spec.result(table.state) is not None
    return table, followed


def test_elfenland_drawing_counters_one_at_a_time_until_four_in_hand_is_answered_by_draw_blind():
    _, followed = play_with_order("elfenland", "draw blind")
    assert len(followed) >= 8  # at least two draws a round over four rounds
    assert all(move == {"type": "draw"} and {"type": "draw"} in legal for legal, move in followed)


def test_elfenland_take_a_named_face_up_counter_else_draw_blind():
    _, followed = play_with_order("elfenland", "take troll or cloud")
    assert followed
    for legal, move in followed:
        wanted = [
            {"type": "take", "counter": c}
            for c in ("troll_wagon", "magic_cloud")
            if {"type": "take", "counter": c} in legal
        ]
        assert move == (wanted[0] if wanted else {"type": "draw"})
    with pytest.raises(ParseError):
        spec_of("elfenland").parse_order("take teleporter", Table(spec_of("elfenland"), 3).state, 0)


def test_zauberschwert_trading_in_every_phase_e_is_answered_by_no_offers():
    _, followed = play_with_order("zauberschwert", "no offers")
    assert len(followed) >= 3  # one phase E a round
    for legal, move in followed:
        assert move == {"type": "done"} and not any(c["type"] == "decline" for c in legal)


def test_zauberschwert_decline_offers_answers_each_offer_made_in_phase_e():
    spec = spec_of("zauberschwert")
    order = spec.parse_order("decline offers", None, 0)
    legal = [{"type": "accept", "from": 1}, {"type": "decline", "from": 1}, {"type": "done"}]
    assert spec.follow_order(order, {}, legal) == {"type": "decline", "from": 1}
    assert spec.follow_order(spec.parse_order("no offers", None, 0), {}, legal) is None  # their answer
    assert spec.follow_order(order, {}, [{"type": "bid", "amount": 1}, {"type": "pass"}]) is None


def test_elfenwizards_two_recoveries_of_minor_spells_every_turn_are_answered_by_recover_all():
    _, followed = play_with_order("elfenwizards", "recover all")
    assert followed
    for legal, move in followed:
        assert all(c["type"] == "recover" for c in legal)
        assert len(move["dice"]) == max(len(c["dice"]) for c in legal)


def test_elfenwizards_recover_none():
    _, followed = play_with_order("elfenwizards", "recover none")
    assert followed and all(move == {"type": "recover", "dice": []} for _, move in followed)


def test_elixirus_collecting_offers_the_same_effects_every_round_answered_by_never_and_always():
    _, followed = play_with_order("elixirus", "never steal", seed=b"orders-2")
    for legal, move in followed:
        assert move == {"type": "skip"} and {c["type"] for c in legal} == {"steal", "skip"}
    _, drawn = play_with_order("elixirus", "always draw", seed=b"orders-2")
    for legal, move in drawn:
        assert move == {"type": "draw"} and {c["type"] for c in legal} == {"draw", "skip"}
    assert followed or drawn
    with pytest.raises(ParseError, match="needs a choice"):
        spec_of("elixirus").parse_order("always steal", None, 0)


def test_elven_castle_every_turn_one_piece_scoring_the_height_beneath_is_answered_by_highest():
    _, followed = play_with_order("elven_castle", "highest", players=2)
    assert len(followed) >= 10
    for legal, move in followed:
        assert move["z"] == max(c["z"] for c in legal)
    _, bridges = play_with_order("elven_castle", "highest bridge", players=2)
    assert bridges and all(move["piece"] == "bridge" for _, move in bridges)
    with pytest.raises(ParseError):
        spec_of("elven_castle").parse_order("highest tower", None, 0)
