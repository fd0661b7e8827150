"""Long polls through the ASGI process production runs (`gunicorn config.asgi -k
uvicorn_worker.UvicornWorker`, its own free port, Redis as the shared cache): answered when the
game moves, one wait per seat (a second replaces the first), a site-wide cap counted in Redis
that refuses with 429 "busy", waits that hold no thread of the server, and no seat token in its
log. bench/long_polls.py measures the lobby while such waits are held."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from pbem.models import Game, Seat
from pbem.play import addressing, services

from ..conftest import CAST, hands, requires_postgres
from ..mail.conftest import free_port
from ..processes import REDIS_URL, ROOT, service_env
from ..waiting import wait_until

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]
WAITS = "pbem-live:waits"  # pbem.web.live.RedisLedger.WAITS


def redis_client():
    import redis

    return redis.Redis.from_url(REDIS_URL)


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory):
    with django_db_blocker.unblock():
        env = service_env(CACHE_URL=REDIS_URL, PBEM_LIVE_WAITS="25")
    port, log = free_port(), tmp_path_factory.mktemp("live") / "live.log"
    command = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), "config.asgi"]
    command += ["-k", "uvicorn_worker.UvicornWorker", "--workers", "1", "--bind", f"127.0.0.1:{port}"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"

    def answers():
        try:
            return get(base + "/api/games/0/seat")[0] == 404
        except OSError:
            assert process.poll() is None, log.read_text()
            return False

    try:
        wait_until(answers, 90, "the ASGI server to answer")
        yield base, process, log
    finally:
        process.terminate()
        process.wait(60)
        keys = list(redis_client().scan_iter(match="pbem-live:*"))
        if keys:
            redis_client().delete(*keys)


def get(url: str, headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, {**json.loads(response.read() or b"{}"), **dict(response.headers)}
    except urllib.error.HTTPError as error:
        return error.code, {**json.loads(error.read() or b"{}"), **dict(error.headers)}


def open_wait(url: str, headers: dict | None = None) -> tuple[threading.Thread, dict]:
    answer: dict = {}
    thread = threading.Thread(target=lambda: answer.update(zip(("status", "body"), get(url, headers))), daemon=True)
    thread.start()
    return thread, answer


def waiting_now() -> int:
    return redis_client().zcard(WAITS)


@pytest.fixture
def table(settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("diceduel", CAST[:2], {})
    tokens = [addressing.token_for(Seat.objects.get(game=game, number=n)) for n in (0, 1)]
    return game, tokens


def seat_wait(base: str, game: Game, token: str) -> tuple[threading.Thread, dict]:
    url = f"{base}/api/games/{game.pk}/seat?wait_version={game.version}&timeout=20"
    return open_wait(url, {"X-Seat-Token": token})


def test_long_poll_starvation_asgi_a_wait_is_answered_when_the_game_moves(server, table):
    base, _, _ = server
    game, tokens = table
    thread, answer = seat_wait(base, game, tokens[1])
    wait_until(lambda: waiting_now() == 1, what="the wait to be counted in Redis")
    assert thread.is_alive()
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    thread.join(30)
    assert answer["status"] == 200 and answer["body"]["version"] == Game.objects.get(pk=game.pk).version > game.version
    wait_until(lambda: waiting_now() == 0, what="the wait's place to be given back")


def test_long_poll_starvation_asgi_a_second_wait_of_the_same_seat_replaces_the_first(server, table):
    base, _, _ = server
    game, tokens = table
    first, first_answer = seat_wait(base, game, tokens[1])
    wait_until(lambda: waiting_now() == 1, what="the first wait")
    second, second_answer = seat_wait(base, game, tokens[1])
    first.join(30)
    assert first_answer["status"] == 409 and first_answer["body"]["code"] == "replaced"
    assert second.is_alive() and waiting_now() == 1  # the second still waits, alone
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    second.join(30)
    assert second_answer["status"] == 200


def test_long_poll_starvation_asgi_the_site_wide_cap_refuses_with_busy_and_retry_after(server, table):
    base, _, _ = server
    game, tokens = table
    # 25 waits of other processes (or machines) fill the site's places (PBEM_LIVE_WAITS=25 here).
    redis_client().zadd(WAITS, {f"elsewhere-{n}": 4e9 for n in range(25)})
    try:
        status, body = get(
            f"{base}/api/games/{game.pk}/seat?wait_version={game.version}&timeout=20", {"X-Seat-Token": tokens[1]}
        )
    finally:
        redis_client().delete(WAITS)
    assert status == 429 and body["code"] == "busy" and int(body["Retry-After"]) >= 1
    status, body = get(
        f"{base}/api/games/{game.pk}/seat?wait_version={game.version}&timeout=0", {"X-Seat-Token": tokens[1]}
    )
    assert status == 200 and body["version"] == game.version  # a question that does not wait is answered


def threads_of(master: subprocess.Popen) -> int:
    worker = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()[0]
    return len(list(Path(f"/proc/{worker}/task").iterdir()))


def test_long_poll_starvation_asgi_twenty_waits_hold_no_thread_and_no_token_reaches_the_log(server, settings):
    base, process, log = server
    settings.PBEM_NOTICE_DISPATCH = "none"
    games = [services.create_game("diceduel", CAST[:2], {}) for _ in range(10)]
    seats = [(game, addressing.token_for(Seat.objects.get(game=game, number=n))) for game in games for n in (0, 1)]
    get(f"{base}/play/{seats[0][1]}/wait?version={games[0].version}&timeout=0")  # every first use paid
    before = threads_of(process)
    waits = [open_wait(f"{base}/play/{token}/wait?version={game.version}&timeout=20") for game, token in seats]
    wait_until(lambda: waiting_now() == 20, what="twenty waits")
    during = threads_of(process)
    for game in games:
        services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    for thread, _ in waits:
        thread.join(30)
    assert [answer["status"] for _, answer in waits] == [200] * 20
    assert all(answer["body"]["changed"] for _, answer in waits)
    assert during <= before + 1, f"{during} threads while 20 waited, {before} before"
    text = log.read_text()
    # uvicorn's access line for each (the process's record factory masks the token in it)
    assert text.count("-<masked>/wait?version=") >= 21, text[-2000:]
    assert not any(token in text for _, token in seats), "a seat token reached the server's log"
