"""Hung dependencies: a Redis or a PostgreSQL that accepts connections and never answers must
not hold a command, an API answer or the MTA pipe for more than a few seconds.

The bounds below are liveness bounds (about ten times the configured timeouts, far below what
was seen before: 45 s for a command, a pipe that waited until the MTA killed it), not speed
targets."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from pbem.models import Notice
from pbem.play import services

from ..conftest import requires_postgres
from ..processes import ROOT, Peer, service_env
from .fakes import SilentServer

GAME = [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")]


def within(peer: Peer, code: str, seconds: float = 60):
    """`peer.run(code)`, or a failure (and the peer stopped) if it has not answered in `seconds`."""
    answer: list = []
    runner = threading.Thread(target=lambda: answer.append(peer.run(code)), daemon=True)
    runner.start()
    runner.join(seconds)
    if runner.is_alive():
        peer.process.kill()
        pytest.fail(f"still waiting after {seconds:.0f} s on a dependency that never answers")
    return answer[0]


@pytest.fixture
def silent():
    with SilentServer() as server:
        yield server


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_redis_that_never_answers_holds_neither_a_command_nor_the_api(silent, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("diceduel", GAME, {"rounds": 3})
    broker = f"redis://127.0.0.1:{silent.port}/0"
    web = Peer(
        CELERY_BROKER_URL=broker,
        CELERY_TASK_ALWAYS_EAGER="0",
        PBEM_NOTICE_DISPATCH="on_commit",
        CACHE_URL=f"redis://127.0.0.1:{silent.port}/1",
    )
    try:
        # A running web process has its modules loaded and the game in hand ('board' queues nothing).
        web.run(f"import pbem.tasks, pbem.web.api\nservices.submit({game.pk}, 0, 'board')")
        took = within(
            web,
            f"import time\nstarted = time.monotonic()\nservices.submit({game.pk}, 0, 'say hello')\n"
            "result = time.monotonic() - started",
        )
        api = within(
            web,
            "import time, json\nfrom django.test import Client\nfrom pbem.play import addressing\n"
            f"seat = Game.objects.get(pk={game.pk}).seats.get(number=1)\nstarted = time.monotonic()\n"
            f"answer = Client().post('/api/games/{game.pk}/commands', json.dumps({{'text': 'say hi'}}), "
            "content_type='application/json', HTTP_X_SEAT_TOKEN=addressing.token_for(seat))\n"
            "result = [answer.status_code, time.monotonic() - started]",
        )
    finally:
        if web.process.poll() is None:
            web.close()
    assert took < 10, f"a command waited {took:.1f} s on a broker that never answers"
    assert api[0] == 200 and api[1] < 10, api
    # What could not be queued waits in the outbox: the sweep sends it once the broker is back.
    assert Notice.objects.filter(game=game, status="pending").count() >= 2


@requires_postgres
def test_a_database_that_never_answers_makes_the_pipe_door_exit_75_promptly(silent):
    env = service_env(
        DATABASE_URL=f"postgres://pbem@127.0.0.1:{silent.port}/pbem",
        PBEM_DB_CONNECT_TIMEOUT="2",
        PBEM_PIPE_TIMEOUT="20",
    )
    mail = b"From: alice@example.org\r\nTo: play+1-1-aaaaaaaaaaaaaaaa@pbem.localhost\r\nSubject: hi\r\n\r\nboard\r\n"
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "manage.py", "receive_email"],
            cwd=ROOT,
            env=env,
            input=mail,
            capture_output=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("receive_email still waited for the database after 60 s (the MTA would kill it and bounce)")
    took = time.monotonic() - started
    assert done.returncode == 75, done.stderr.decode()[-2000:]
    assert took < 30, f"the pipe door took {took:.1f} s to give up"
