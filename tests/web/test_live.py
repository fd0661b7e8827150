"""Live turns: an open seat page and an API client learn that the game moved on without
reloading or polling in a loop (pbem/web/live.py), across processes; without JavaScript, a
waiting page refreshes itself."""

from __future__ import annotations

import threading
import time

import pytest
from django.urls import reverse

from pbem.models import Game, Seat
from pbem.play import addressing, services

from ..conftest import CAST, hands, requires_postgres
from ..processes import Peer

pytestmark = pytest.mark.django_db


class Clock:
    """pbem.web.live's clock, made of the test's own time: each sleep advances it, nothing waits."""

    def __init__(self):
        self.now, self.sleeps = 1000.0, []

    def monotonic(self):
        return self.now

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    async def nap(self, woken, seconds):
        self.sleep(seconds)


@pytest.fixture
def clock(monkeypatch):
    from pbem.web import live

    fake = Clock()
    monkeypatch.setattr(live, "time", fake)
    monkeypatch.setattr(live, "_nap", fake.nap)
    return fake


@pytest.fixture
def short_waits(settings, clock):
    settings.PBEM_LIVE_MAX_WAIT = 3
    return clock


def wait_url(token, version, **extra):
    query = "&".join(f"{k}={v}" for k, v in {"version": version, **extra}.items())
    return f"{reverse('pbem-seat_wait', args=[token])}?{query}"


def test_a_waiting_seat_page_refreshes_itself_without_javascript(client, duel):
    game, seats, tokens = duel
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")  # Bob has played: he waits for Alice
    game.refresh_from_db()
    page = client.get(reverse("pbem-seat", args=[tokens[1]])).content.decode()
    assert "It is your turn." not in page
    assert '<noscript><meta http-equiv="refresh" content="60"></noscript>' in page
    assert 'src="/static/pbem/live.js"' in page
    assert f'data-live-url="{reverse("pbem-seat_wait", args=[tokens[1]])}" data-version="{game.version}"' in page


def test_the_seat_whose_turn_it_is_is_not_reloaded_under_its_fingers(client, duel):
    game, seats, tokens = duel
    page = client.get(reverse("pbem-seat", args=[tokens[0]])).content.decode()
    assert "It is your turn." in page and 'http-equiv="refresh"' not in page
    assert "live.js" in page  # it still learns of what others do, without a reload


def test_an_open_page_asks_without_waiting_so_it_never_holds_a_worker(client, duel, settings, clock):
    game, seats, tokens = duel
    settings.PBEM_LIVE_POLL_SECONDS = 7
    page = client.get(reverse("pbem-seat", args=[tokens[0]])).content.decode()
    assert 'data-poll-seconds="7"' in page
    answer = client.get(wait_url(tokens[0], game.version, timeout=0)).json()
    assert clock.sleeps == [] and answer["changed"] is False


def test_the_long_poll_answers_at_once_when_the_game_has_moved_on(client, duel, clock):
    game, seats, tokens = duel
    services.submit(game.pk, 0, "say your turn, Bob")
    answer = client.get(wait_url(tokens[1], game.version)).json()
    assert clock.sleeps == []
    assert answer["changed"] is True and answer["version"] > game.version and answer["status"] == "running"


def test_the_long_poll_gives_up_after_its_bounded_wait(client, duel, short_waits):
    game, seats, tokens = duel
    answer = client.get(wait_url(tokens[1], game.version, timeout=25)).json()
    assert answer == {"version": game.version, "changed": False, "status": "running", "my_turn": True}
    # PBEM_LIVE_MAX_WAIT (3 s here) bounds it, whatever the client asked; it looked every half second.
    assert sum(short_waits.sleeps) == 3 and max(short_waits.sleeps) <= 0.5


def test_the_long_poll_refuses_bad_tokens_and_versions(client, duel):
    game, seats, tokens = duel
    bad = client.get(wait_url("nonsense", 1))
    assert bad.status_code == 403 and bad.json()["code"] == "bad_token"
    wrong = client.get(f"{reverse('pbem-seat_wait', args=[tokens[0]])}?version=soon")
    assert wrong.status_code == 400 and "?version=N" in wrong.json()["message"]


# --- the API: ETag and wait_version -----------------------------------------------------------


def seat_get(client, game, token, **headers_and_params):
    headers = {"X-Seat-Token": token}
    if "etag" in headers_and_params:
        headers["If-None-Match"] = headers_and_params.pop("etag")
    return client.get(f"/api/games/{game.pk}/seat", headers_and_params, headers=headers)


def test_a_seats_view_is_not_sent_again_while_it_is_unchanged(client, duel):
    game, seats, tokens = duel
    first = seat_get(client, game, tokens[1])
    tag = first["ETag"]
    assert first.status_code == 200 and tag.startswith('"')
    again = seat_get(client, game, tokens[1], etag=tag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == tag
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    moved = seat_get(client, game, tokens[1], etag=tag)
    assert moved.status_code == 200 and moved["ETag"] != tag and moved.json()["version"] > game.version


def test_each_seat_has_its_own_tag(client, duel):
    game, seats, tokens = duel
    assert seat_get(client, game, tokens[0])["ETag"] != seat_get(client, game, tokens[1])["ETag"]
    assert seat_get(client, game, tokens[1], etag=seat_get(client, game, tokens[0])["ETag"]).status_code == 200


def test_wait_version_answers_once_the_version_passes_n(client, duel, short_waits):
    game, seats, tokens = duel
    timed_out = seat_get(client, game, tokens[1], wait_version=game.version)
    assert timed_out.status_code == 200 and timed_out.json()["version"] == game.version
    assert sum(short_waits.sleeps) == 3
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    short_waits.sleeps.clear()
    moved = seat_get(client, game, tokens[1], wait_version=game.version)
    assert short_waits.sleeps == [] and moved.json()["version"] > game.version


def test_wait_version_refuses_a_wait_longer_than_the_bound(client, duel):
    game, seats, tokens = duel
    answer = seat_get(client, game, tokens[1], wait_version=game.version, timeout=3600)
    assert answer.status_code == 422 and answer.json()["code"] == "invalid"


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_wait_in_another_process_learns_of_a_move_made_here(settings):
    """The state is the game's row, not a process's memory: a web worker waiting in one process
    answers when a move is applied in another."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("diceduel", CAST[:2], {})
    token = addressing.token_for(Seat.objects.get(game=game, number=1))
    peer = Peer()
    try:
        answer = {}
        code = (
            f"from django.test import Client\n"
            f"r = Client().get('/api/games/{game.pk}/seat', {{'wait_version': {game.version}, 'timeout': 20}},"
            f" headers={{'X-Seat-Token': '{token}'}})\n"
            f"result = [r.status_code, r.json()['version']]"
        )
        waiter = threading.Thread(target=lambda: answer.update(result=peer.run(code)))
        waiter.start()
        time.sleep(1.0)
        assert waiter.is_alive(), "the other process did not wait"
        services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
        waiter.join(40)
    finally:
        peer.close()
    # Had the wait run out instead, the other process would have answered the version it began with.
    assert answer["result"] == [200, Game.objects.get(pk=game.pk).version]
    assert answer["result"][1] > game.version
