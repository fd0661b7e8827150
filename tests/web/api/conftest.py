from __future__ import annotations

import pytest
from django.test import Client

from pbem.models import Seat
from pbem.play import addressing


@pytest.fixture(autouse=True)
def _quiet_limits(quiet_limits):
    pass


class Api:
    """A JSON client for /api/ that can carry a seat token."""

    def __init__(self, client: Client):
        self.client = client

    def get(self, path, token=None, **params):
        headers = {"X-Seat-Token": token} if token else {}
        return self.client.get(f"/api{path}", params, headers=headers)

    def post(self, path, body, token=None, key=None):
        headers = {"X-Seat-Token": token} if token else {}
        if key:
            headers["Idempotency-Key"] = key
        return self.client.post(f"/api{path}", body, content_type="application/json", headers=headers)


@pytest.fixture
def api(client):
    return Api(client)


@pytest.fixture
def duel(make_game):
    game = make_game(2)
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    return game, seats, [addressing.token_for(s) for s in seats]
