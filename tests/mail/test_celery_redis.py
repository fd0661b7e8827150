"""A real Celery worker on the real Redis: notices sent and replies processed by the worker,
and an outage of the broker during which nothing is lost and after which each notice goes out once.

Skipped (saying why) when no Redis answers; CI sets PBEM_TEST_REDIS_URL.
"""

from __future__ import annotations

import email
import email.policy
import os
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.db import connection, transaction
from kombu import pools as kombu_pools

from config.celery import app as celery_app
from pbem import tasks
from pbem.doors import inbox
from pbem.mail import outbound
from pbem.models import InboundMessage, Notice
from pbem.play import services
from tests.conftest import CAST
from tests.processes import REDIS_URL, celery_worker_command, drop_queue, new_queue
from tests.waiting import wait_until

from .conftest import free_port, hand
from .replies import reply
from .test_round_trip import notice_to

ROOT = Path(__file__).resolve().parents[2]


def _redis_up() -> bool:
    url = urlparse(REDIS_URL)
    try:
        socket.create_connection((url.hostname or "127.0.0.1", url.port or 6379), 1).close()
        return True
    except OSError:
        return False


pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not _redis_up(), reason=f"no Redis at {REDIS_URL}"),
]


def use_broker(url: str) -> None:
    """Points this process's producer at `url`, dropping pooled connections to the old one."""
    celery_app.conf.broker_url = url
    kombu_pools.reset()  # kombu keeps pools per broker URL, process-wide
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def worker(settings, smtp_sink, tmp_path):
    """`celery worker` in its own process, on a queue of its own, on the test database."""
    queue = new_queue("mail")
    db = connection.settings_dict
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="tests.settings",
        CELERY_BROKER_URL=REDIS_URL,
        CELERY_TASK_ALWAYS_EAGER="0",
        CELERY_TASK_DEFAULT_QUEUE=queue,
        PBEM_NOTICE_DISPATCH="on_commit",
        DATABASE_URL=f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_sink.port),
        EMAIL_USE_TLS="0",
    )
    log = tmp_path / "worker.log"
    saved = {key: celery_app.conf[key] for key in ("task_always_eager", "task_default_queue", "broker_url")}
    process = subprocess.Popen(
        celery_worker_command(queue, log),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        celery_app.conf.update(task_always_eager=False, task_default_queue=queue)
        use_broker(REDIS_URL)
        settings.PBEM_NOTICE_DISPATCH = "on_commit"
        wait_until(lambda: log.exists() and "ready." in log.read_text(), 30, "the worker to start")
        yield process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        celery_app.conf.update(
            task_always_eager=saved["task_always_eager"], task_default_queue=saved["task_default_queue"]
        )
        use_broker(saved["broker_url"])
        drop_queue(queue)


def sent_message_ids(sink) -> list[str]:
    return [str(m["Message-ID"]) for m in sink.parsed()]


def test_the_worker_sends_notices_and_processes_replies(worker, smtp_sink):
    game = services.create_game("diceduel", CAST[:2], {})
    wait_until(lambda: len(smtp_sink.messages) == 2, what="two turn notices")
    card = hand(game, 0)[0]
    message, _created = inbox.store_raw(
        reply("gmail", notice_to(smtp_sink, "alice@example.org"), f"play {card}"), "pipe"
    )
    wait_until(lambda: InboundMessage.objects.get(pk=message.pk).status != "received", what="the reply")
    assert InboundMessage.objects.get(pk=message.pk).status == "applied"
    # Bob, still choosing, hears that Alice played (news); Alice gets her confirmation.
    wait_until(lambda: len(smtp_sink.messages) == 4, what="Bob's news and the confirmation")
    assert notice_to(smtp_sink, "alice@example.org", "answer")["In-Reply-To"] == message.message_id
    # A web-form submission takes the same way: stored, then processed by the worker.
    bob = game.seats.get(number=1)
    with transaction.atomic():
        web = inbox.store_submission(bob, f"play {hand(game, 1)[0]}", None)
    wait_until(lambda: InboundMessage.objects.get(pk=web.pk).status != "received", what="the web submission")
    assert InboundMessage.objects.get(pk=web.pk).status == "applied"
    wait_until(lambda: not Notice.objects.exclude(status="sent").exists(), what="every notice sent")
    ids = sent_message_ids(smtp_sink)
    assert len(ids) == len(set(ids)) == Notice.objects.count()


def test_broker_outage_loses_nothing_and_each_notice_goes_out_once(worker, smtp_sink):
    use_broker(f"redis://127.0.0.1:{free_port()}/0")  # the broker is unreachable from here on
    started = time.monotonic()
    game = services.create_game("diceduel", CAST[:3], {})
    services.submit(game.pk, 1, f"play {hand(game, 1)[0]}")
    services.submit(game.pk, 2, "say the broker is down, yet we play on")
    assert time.monotonic() - started < 20  # commands do not hang on the broker
    turn = next(n for n in Notice.objects.filter(game=game, seat__number=0, kind="turn"))
    assert turn.status == "pending"
    # Alice's mail to her reply address arrives through a door meanwhile (not threaded: written
    # fresh, so no stale guard applies): stored, but its task could not be queued.
    raw = outbound.make_message(turn).message().as_bytes()
    parsed_turn = email.message_from_bytes(raw, policy=email.policy.default)
    reply_raw = reply("apple", parsed_turn, f"play {hand(game, 0)[0]}", keep_threading=False)
    message, _created = inbox.store_raw(reply_raw, "pipe")
    time.sleep(1)
    assert smtp_sink.messages == []
    assert InboundMessage.objects.get(pk=message.pk).status == "received"
    pending = Notice.objects.filter(status="pending").count()
    assert pending == Notice.objects.count() >= 4  # three turn notices, news of Carol's words for Bob

    use_broker(REDIS_URL)  # the broker is back: beat's sweeps run
    tasks.sweep_inbound.delay(0)
    tasks.sweep_outbox.delay()
    wait_until(lambda: InboundMessage.objects.get(pk=message.pk).status != "received", what="the reply")
    assert InboundMessage.objects.get(pk=message.pk).status == "applied"
    out = ("pending", "sending")
    wait_until(lambda: not Notice.objects.filter(status__in=out).exists(), what="every notice out")
    tasks.sweep_outbox.delay()  # a second sweep finds nothing left to send
    time.sleep(1)
    ids = sent_message_ids(smtp_sink)
    sent, skipped = Notice.objects.filter(status="sent"), Notice.objects.filter(status="skipped")
    # News that a later notice to the same seat tells as well is not sent on its own.
    assert all(notice.last_error.startswith("superseded by notice") for notice in skipped)
    assert len(ids) == len(set(ids)) == sent.count()
    assert sent.count() + skipped.count() == Notice.objects.count() > pending
