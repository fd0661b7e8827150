"""The last two players accept at the same moment: the game starts once, not twice or never."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from pbem.models import Event, Game, Seat
from pbem.play import services
from pbem.play.services import accept_invitation

from ..conftest import CAST, requires_postgres


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_simultaneous_acceptances_start_the_game_exactly_once(settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    for _ in range(3):
        game = services.create_game("diceduel", CAST[:3], {}, start=False, invited=True)
        seats = list(Seat.objects.filter(game=game).order_by("number"))
        accept_invitation(seats[0])
        barrier, started, errors = threading.Barrier(2), [], []

        def accept(seat, barrier=barrier, started=started, errors=errors):
            try:
                barrier.wait()
                started.append(accept_invitation(seat))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=accept, args=(s,)) for s in seats[1:]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert sorted(started) == [False, True]
        assert Game.objects.get(pk=game.pk).status == "running"
        assert Event.objects.filter(game=game, type="pbem.GameStarted").count() == 1
