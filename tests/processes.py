"""Helpers for tests that need the service running in more than one process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
# The Redis database the suite may use as a broker (CI sets it; each helper has its own).
REDIS_URL = os.environ.get("PBEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
# The broker queues this test process made (tests/conftest.py checks at the end that none is left).
QUEUES: set[str] = set()


def new_queue(kind: str) -> str:
    """A Celery queue of a test's own (a worker of the test consumes only it); the test drops it
    with drop_queue when done."""
    name = f"pbem-{kind}-test-{uuid.uuid4().hex[:8]}"
    QUEUES.add(name)
    return name


def queue_keys(name: str) -> list[bytes]:
    """The Redis keys of a queue: its messages (a list, one per priority), and kombu's binding
    tables for it, which have no TTL (`_kombu.binding.NAME`, `_kombu.binding_permanent.NAME`)."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    return list(client.scan_iter(match=f"*{name}*", count=1000))  # the name's uuid is the test's own


def binding_deadlines(drop_except: set[bytes] | None = None) -> set[bytes]:
    """The members of kombu's `_kombu.binding_deadlines` (every binding's expiry, no TTL of its
    own). With `drop_except`, the members not in it are removed and returned."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    members = set(client.zrange("_kombu.binding_deadlines", 0, -1))
    if drop_except is None:
        return members
    added = members - drop_except
    if added:
        client.zrem("_kombu.binding_deadlines", *added)
    return added


def drop_queue(name: str) -> None:
    """Deletes what is left of the queue (beat's `run_deadlines` ticks nobody ran) and its bindings."""
    import redis

    keys = queue_keys(name)
    if keys:
        redis.Redis.from_url(REDIS_URL).delete(*keys)


def database_url() -> str:
    """The URL of the database this test runs on (the test database), for another process."""
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        raise RuntimeError("another process can share only a PostgreSQL test database")
    return (
        f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )


def service_env(**extra) -> dict:
    base = {
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": "",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "PBEM_NOTICE_DISPATCH": "none",
    }
    return {**os.environ, **base, **extra}


class Peer:
    """A second process of the service (`tests/peer.py`): `peer.run(code)` runs Python there and
    returns what it set as `result`."""

    def __init__(self, **env):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.peer"],
            cwd=ROOT,
            env=service_env(**env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = json.loads(self.process.stdout.readline() or "{}")
        if "ready" not in ready:
            raise RuntimeError("the peer process did not start")

    def run(self, code: str):
        self.process.stdin.write(json.dumps({"code": code}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer:
            raise AssertionError("in the other process:\n" + answer["error"])
        return answer["result"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(10)


def celery_worker_command(queue: str, log: Path) -> list[str]:
    """A solo Celery worker of the service on a queue of its own (`queue`), logging to `log`:
    as the tests that need a real worker start one."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool",
        "solo",
        "-Q",
        queue,
        "-l",
        "info",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-n",
        f"{queue}@%h",
        "-f",
        str(log),
    ]
