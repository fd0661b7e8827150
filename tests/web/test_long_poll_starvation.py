"""Long polls cannot starve the site: one wait per seat at a time (a second replaces the first),
at most PBEM_LIVE_WAITS_PER_PROCESS waits in one web process (more answer at once), so one seat
token opening 50 long polls holds at most one thread. bench/long_polls.py measures the lobby
under that attack through gunicorn with the shipped config."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from pbem.web import live

from .test_live import Clock, wait_url


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(live, "time", fake)
    monkeypatch.setattr(live, "_nap", fake.nap)
    return fake


@pytest.mark.django_db
def test_long_poll_starvation_no_free_wait_in_the_process_answers_at_once(client, duel, settings, clock):
    game, seats, tokens = duel
    settings.PBEM_LIVE_WAITS_PER_PROCESS = 1
    assert live._take_slot()  # another seat's wait holds the only one
    try:
        busy = client.get(wait_url(tokens[1], game.version, timeout=25))
    finally:
        live._free_slot()
    assert clock.sleeps == [] and busy.status_code == 429 and busy.json()["code"] == "busy" and busy["Retry-After"]
    assert client.get(wait_url(tokens[1], game.version, timeout=2)).json()["changed"] is False  # free again
    assert sum(clock.sleeps) == 2


@pytest.mark.django_db
def test_long_poll_starvation_waits_off_answers_every_long_poll_at_once(client, duel, settings, clock):
    game, seats, tokens = duel
    settings.PBEM_LIVE_WAITS_PER_PROCESS = 0
    response = client.get(
        f"/api/games/{game.pk}/seat", {"wait_version": game.version, "timeout": 25}, headers={"X-Seat-Token": tokens[1]}
    )
    assert response.status_code == 429 and response.json()["code"] == "busy" and clock.sleeps == []
    plain = client.get(f"/api/games/{game.pk}/seat", headers={"X-Seat-Token": tokens[1]})
    assert plain.status_code == 200  # a request that does not ask to wait is served as ever


@pytest.mark.django_db(transaction=True)
def test_long_poll_starvation_a_second_wait_of_a_seat_replaces_the_first(duel, settings):
    game, seats, tokens = duel
    settings.PBEM_LIVE_MAX_WAIT = 25

    async def both() -> list[str]:
        done: list[str] = []

        async def wait(name):
            try:
                await live.wait_for_version(game.pk, game.version, 25, seat_id=seats[1].pk)
                done.append(name)
            except live.Replaced:
                done.append(f"{name} replaced")

        first = asyncio.create_task(wait("first"))
        while not live._looker().waits:  # the first is waiting
            await asyncio.sleep(0.01)
        second = asyncio.create_task(wait("second"))
        await asyncio.wait_for(first, 20)
        assert done == ["first replaced"] and not second.done()  # the first left; the second still waits
        await sync_to_async(live.ledger().take)("someone else", live.seat_key(seats[1].pk), 1e12)
        await asyncio.wait_for(second, 20)
        await sync_to_async(live.ledger().release)("someone else", live.seat_key(seats[1].pk))
        return done

    assert async_to_sync(both)() == ["first replaced", "second replaced"]
    assert live.ledger().owners([live.seat_key(seats[1].pk)]) == [None]  # no mark left behind


def test_long_poll_starvation_with_redis_away_the_process_counts_its_own_waits(settings):
    """The site-wide count lives in Redis; with Redis not answering, each process counts its own
    waits (the cap still holds in it) and no wait is taken for replaced."""
    from tests.mail.conftest import free_port

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
            "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5},
        }
    }
    settings.PBEM_LIVE_WAITS = 1
    ledger = live.ledger()
    assert isinstance(ledger, live.RedisLedger)
    assert ledger.take("first", "pbem-live:seat:1", 4e9)
    assert not ledger.take("second", "pbem-live:seat:2", 4e9)  # the cap, counted here
    assert ledger.owners(["pbem-live:seat:1", "pbem-live:seat:2"]) == ["first", None]
    ledger.release("first", "pbem-live:seat:1")
    assert ledger.owners(["pbem-live:seat:1"]) == [None] and ledger.take("third", "", 4e9)
    ledger.release("third", "")
