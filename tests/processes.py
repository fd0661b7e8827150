"""Helpers for tests that need the service running in more than one process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


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
