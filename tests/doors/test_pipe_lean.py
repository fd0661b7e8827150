"""The pipe door without the handoff stores a message importing only what storing needs (issue
34): `manage.py receive_email` as an MTA runs it (scripts/pbem-pipe passes config.settings) loads
no URL config, no ESP SDK, no admin, no API, no Celery in the process the MTA waits for, and
still stores the message and queues its processing. With a Redis broker on these settings that
is pbem/doors/pipe_store.py, with no Django at all (tests/doors/test_pipe_store.py); without a
broker, Django's way, which processes the message before the answer."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time

import pytest

from pbem.models import InboundMessage
from tests.conftest import requires_postgres
from tests.mail.conftest import free_port
from tests.processes import REDIS_URL, ROOT, drop_queue, new_queue, service_env

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]

RUN = """
import atexit, json, runpy, sys
heavy = ("anymail", "boto3", "svix", "ninja", "pydantic", "config.urls", "pbem.urls", "pbem.web.api",
         "pbem.desk.admin", "django.contrib.admin.sites", "pbem.tasks", "celery", "kombu", "redis",
         "config.celery", "django.core.management.commands")
atexit.register(lambda: print(json.dumps(sorted(m for m in heavy if m in sys.modules))))
sys.argv = ["manage.py", "receive_email", *sys.argv[1:]]
runpy.run_path("manage.py", run_name="__main__")
"""


def test_the_pipe_door_stores_a_message_without_the_url_config_esp_sdks_admin_or_task_modules():
    env = service_env(
        DJANGO_SETTINGS_MODULE="config.settings",  # what scripts/pbem-pipe passes
        CELERY_TASK_ALWAYS_EAGER="0",
        CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0",  # nobody there: the sweep would process it
    )
    mail = (
        b"From: alice@example.org\r\nTo: pbem@pbem.localhost\r\nSubject: help\r\n"
        b"Message-ID: <lean-pipe@example.org>\r\n\r\nhelp\r\n"
    )
    done = subprocess.run([sys.executable, "-c", RUN], cwd=ROOT, env=env, input=mail, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    loaded = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert loaded == []
    assert InboundMessage.objects.filter(message_id="<lean-pipe@example.org>", channel="pipe").exists()


def receive(mail: bytes, *args: str, **env) -> subprocess.CompletedProcess:
    """`manage.py receive_email` as an MTA runs it (scripts/pbem-pipe passes config.settings)."""
    return subprocess.run(
        [sys.executable, "manage.py", "receive_email", *args],
        cwd=ROOT,
        env=service_env(DJANGO_SETTINGS_MODULE="config.settings", **env),
        input=mail,
        capture_output=True,
        timeout=120,
    )


def test_the_pipe_door_queues_the_processing_to_the_broker_after_its_answer():
    import redis

    queue = new_queue("pipe")
    broker = redis.Redis.from_url(REDIS_URL)
    try:
        done = subprocess.run(
            [sys.executable, "-c", RUN, "--recipient", "pbem@pbem.localhost"],
            cwd=ROOT,
            env=service_env(
                DJANGO_SETTINGS_MODULE="config.settings",
                CELERY_TASK_ALWAYS_EAGER="0",
                CELERY_BROKER_URL=REDIS_URL,
                CELERY_TASK_DEFAULT_QUEUE=queue,
            ),
            input=b"From: alice@example.org\r\nMessage-ID: <lean-queued@example.org>\r\n\r\nhelp\r\n",
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        assert json.loads(done.stdout.decode().strip().splitlines()[-1]) == []  # no Celery where the MTA waits
        stored = InboundMessage.objects.get(message_id="<lean-queued@example.org>")
        assert (
            f"Stored inbound message #{stored.pk} " in done.stdout.decode()
            and "queued for processing" in done.stdout.decode()
        )
        deadline = time.monotonic() + 60
        while not broker.llen(queue) and time.monotonic() < deadline:
            time.sleep(0.05)  # the child queues it once the MTA has its answer
        task = json.loads(broker.lindex(queue, 0))
        assert task["headers"]["task"] == "pbem.tasks.process_inbound"
        assert json.loads(base64.b64decode(task["body"]))[0] == [stored.pk]
    finally:
        drop_queue(queue)


def test_the_pipe_door_without_a_broker_processes_the_message_before_it_answers():
    done = receive(
        b"From: alice@example.org\r\nTo: pbem@pbem.localhost\r\nMessage-ID: <lean-eager@example.org>\r\n\r\nhelp\r\n",
        "--recipient",
        "pbem@pbem.localhost",
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    stored = InboundMessage.objects.get(message_id="<lean-eager@example.org>")
    assert stored.status != "received" and f"; processed: {stored.status}." in done.stdout.decode()
    again = receive(b"From: alice@example.org\r\nMessage-ID: <lean-eager@example.org>\r\n\r\nhelp\r\n")
    assert again.returncode == 0 and b"a repeat, nothing done" in again.stdout


def test_the_pipe_door_asks_the_mta_to_retry_while_the_database_is_away_and_bounces_no_message():
    mail = b"From: alice@example.org\r\nMessage-ID: <lean-away@example.org>\r\n\r\nhelp\r\n"
    away = receive(mail, DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/nothing")
    assert away.returncode == 75 and b"could not store the message" in away.stderr, away.stderr.decode()[-2000:]
    assert not InboundMessage.objects.filter(message_id="<lean-away@example.org>").exists()
    empty = receive(b"\r\n")
    assert empty.returncode == 65 and b"no message on stdin" in empty.stderr
    large = receive(mail, PBEM_INBOUND_HARD_LIMIT="20")
    assert large.returncode == 65 and b"over PBEM_INBOUND_HARD_LIMIT" in large.stderr
    odd = receive(mail, "--maildir")
    assert odd.returncode not in (0, 65)  # the command's own usage error: pbem-pipe defers it (75)
