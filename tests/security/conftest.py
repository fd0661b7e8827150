"""Fixtures for the attack tests: Dice Duel between Alice and Bob, their links, the mail helpers."""

from __future__ import annotations

import pytest

from pbem.models import Seat
from pbem.play import addressing

from ..mail.conftest import smtp_sink  # noqa: F401 - the players' mail provider, for tests that need it


@pytest.fixture
def duel(make_game):
    game = make_game(2)
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    return game, seats, [addressing.token_for(s) for s in seats]
