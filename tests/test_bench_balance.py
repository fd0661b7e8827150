"""The seat tables' arithmetic (bench/balance.py, issue 29): a share by place in turn order is
printed with its 95 % interval, as the seats' own shares are."""

from __future__ import annotations

from bench.balance import Outcome, extra_lines, seat_lines


def outcomes(won_by_first_in_turn_order):
    key = "wins of the 1. in turn order, × fair share"
    return [
        Outcome(shares=[0.5, 0.5], scores=[1, 1], ending="x", extra={key: 2.0 * w}) for w in won_by_first_in_turn_order
    ]


def test_a_share_by_place_in_turn_order_is_printed_with_its_95_percent_interval():
    (line,) = extra_lines(outcomes([1, 0] * 50))  # won half of 100 games: 1.00 x fair share
    assert line == "    wins of the 1. in turn order, × fair share: 1.00 (95 % interval 0.80–1.20)"


def test_a_seat_beyond_the_bounds_by_more_than_noise_is_flagged():
    many = [
        Outcome(shares=[1.0, 0.0] if i % 10 < 7 else [0.0, 1.0], scores=[1, 0], ending="x", extra={})
        for i in range(1000)
    ]
    lines = seat_lines(many, 2)
    assert lines[1].endswith("favoured beyond noise") and lines[2].endswith("disfavoured beyond noise")
