"""Long polls cannot starve the site: one wait per seat at a time (a second replaces the first),
at most PBEM_LIVE_WAITS_PER_PROCESS waits in one web process (more answer at once), so one seat
token opening 50 long polls holds at most one thread. bench/long_polls.py measures the lobby
under that attack through gunicorn with the shipped config."""

from __future__ import annotations

import threading

import pytest

from pbem.web import live

from .test_live import Clock, wait_url


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(live, "time", fake)
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
    done: list[str] = []

    def wait(name):
        try:
            live.wait_for_version(game.pk, game.version, 25, seat_id=seats[1].pk)
            done.append(name)
        except live.Replaced:
            done.append(f"{name} replaced")

    first = threading.Thread(target=wait, args=("first",))
    first.start()
    while live._waiting < 1:  # the first is waiting
        threading.Event().wait(0.01)
    second = threading.Thread(target=wait, args=("second",))
    second.start()
    first.join(20)
    assert done == ["first replaced"] and second.is_alive()  # the first left; the second still waits
    from django.core.cache import cache

    cache.set(live._seat_key(seats[1].pk), "someone else")
    second.join(20)
    assert done == ["first replaced", "second replaced"] and live._waiting == 0
