"""Every decision is made on the database's current version, whatever another process did:
process A (a worker that has seen the game and keeps it in its cache) and process B (this test,
as a web worker or the desk) share one PostgreSQL database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.play import desk, services
from tests.conftest import deliver, hands, requires_postgres
from tests.processes import Peer

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker():
    peer = Peer()
    yield peer
    peer.close()


@pytest.fixture
def duel(settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    return services.create_game(
        "diceduel",
        [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")],
        {"rounds": 3},
    )


def _look(worker, game) -> int:
    """The worker answers a 'board' for Alice: it now holds the game in its cache."""
    return worker.run(f"result = services.submit({game.pk}, 0, 'board').version")


def test_a_deadline_sweep_in_another_process_times_out_the_seats_awaited_now(worker, duel):
    """The worker saw the game while only the round's winner was awaited; the winner then claimed
    here, so both seats now bid. A sweep far past every deadline must time out both."""
    game = duel
    while max(hands(game)[1]) < min(hands(game)[0]):  # seat 1 must be able to win the round
        game = services.create_game(
            "diceduel",
            [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")],
            {"rounds": 3},
        )
    services.submit(game.pk, 0, f"play {min(hands(game)[0])}")
    services.submit(game.pk, 1, f"play {max(hands(game)[1])}")
    game.refresh_from_db()
    # Only Bob is awaited; the worker sweeps seat 0 first and must not judge it on that view.
    assert game.phase == "claim" and game.awaited == [1]
    _look(worker, game)
    services.submit(game.pk, game.awaited[0], "take")
    deliver(game)
    swept = worker.run("result = deadlines.run_deadlines(datetime.now(UTC) + timedelta(days=30))")
    assert swept["timed_out"] == 2


def test_a_shortened_deadline_expires_in_the_worker_that_saw_the_old_one(worker, duel):
    game = duel
    _look(worker, game)
    deliver(game)
    desk.extend_deadline(game.pk, 1, datetime.now(UTC) - timedelta(seconds=1), services.SYSTEM, "shortened")
    swept = worker.run("result = deadlines.run_deadlines()")
    assert swept["timed_out"] == 1
    game.refresh_from_db()
    assert 1 not in game.awaited


def test_a_board_reply_answered_by_another_process_shows_the_current_version(worker, duel):
    game = duel
    seen = _look(worker, game)
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")
    services.submit(game.pk, 0, "say hello")
    game.refresh_from_db()
    assert game.version > seen
    assert _look(worker, game) == game.version


def test_a_refusal_in_another_process_is_judged_on_the_current_state(worker, duel):
    game = duel
    _look(worker, game)
    card = hands(game)[1][0]
    services.submit(game.pk, 1, f"play {card}")
    refused = worker.run(f"""
try:
    services.submit({game.pk}, 1, 'play {card}')
    result = 'applied'
except services.ServiceError as exc:
    result = str(exc)
""")
    assert "It is not your turn" in refused or "not your turn" in refused.lower()
