"""Fixtures for the web pages: a started Dice Duel between Alice and Bob, and their seat links."""

from __future__ import annotations

import pytest

from pbem.doors import processing
from pbem.models import InboundMessage, Seat
from pbem.play import addressing


@pytest.fixture(autouse=True)
def _quiet_limits(quiet_limits):
    pass  # generous limits by default; the rate-limit tests set their own


@pytest.fixture
def duel(make_game):
    game = make_game(2)
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    return game, seats, [addressing.token_for(s) for s in seats]


def process_last(seat) -> InboundMessage:
    """Plays the Celery worker: processes the web submission just stored for `seat`."""
    message = InboundMessage.objects.filter(seat=seat, channel="web").order_by("-id").first()
    processing.process(message.pk)
    message.refresh_from_db()
    return message
