"""Shared fixtures: a fixed cast (alice, bob, carol) at a table of the toy game Dice Duel."""

from __future__ import annotations

import logging
import os
import re
import tempfile

import pytest
from django.db import connection
from django.utils import timezone

from pbem.log import eventlog
from pbem.ops import testclock
from pbem.play import addressing, services, versioned


@pytest.fixture(scope="session", autouse=True)
def _no_seat_token_in_the_log():
    """The whole run's log is kept, and every seat token the run issued is looked for in it at
    the end: a token that reached the log fails the run (tokens are full credentials)."""
    issued: set[str] = set()
    issue = addressing.token_for

    def recording(seat):
        token = issue(seat)
        issued.add(token)
        return token

    kept = tempfile.NamedTemporaryFile("w+", prefix="pbem-test-log-", suffix=".log", delete=False)
    handler = logging.StreamHandler(kept)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    logging.getLogger().addHandler(handler)
    addressing.token_for = recording
    yield
    addressing.token_for = issue
    logging.getLogger().removeHandler(handler)
    kept.flush()
    kept.seek(0)
    found = set(re.findall(r"\d+-\d+-[a-z2-7]{16}", kept.read().lower()))
    kept.close()
    leaked = sorted(found & issued)
    if not leaked:
        os.unlink(kept.name)
    assert not leaked, f"seat tokens reached the log ({kept.name}): {leaked[:5]}"


@pytest.fixture(scope="session", autouse=True)
def _no_queue_left_in_the_broker():
    """The suite's Redis database (PBEM_TEST_REDIS_URL) is left as found: every queue a test made
    (tests/processes.new_queue) is gone at the end, with kombu's binding tables for it (they have
    no TTL), and beat's queued `run_deadlines` ticks. What a test left is deleted here, and fails
    the run: each test drops its own queue."""
    from tests.processes import QUEUES, binding_deadlines, drop_queue, queue_keys

    bindings = binding_deadlines()
    yield
    left = {name: queue_keys(name) for name in sorted(QUEUES)}
    left = {name: keys for name, keys in left.items() if keys}
    for name in left:
        drop_queue(name)
    # kombu's table of when each binding expires (a sorted set with no TTL of its own): what the
    # suite's workers added (a pidbox, a queue's binding) is taken out again.
    added = binding_deadlines(drop_except=bindings)
    assert not left and not added, f"queues left in the test broker: {left}; binding deadlines: {added}"


@pytest.fixture(autouse=True)
def _fresh_caches():
    # Neither the state cache nor Django's cache (rate-limit counters) may carry over between
    # tests: each test has its own database, and a limit hit by one test must not refuse the next.
    from django.core.cache import cache

    eventlog.cache_clear()
    versioned.clear()
    cache.clear()
    yield
    eventlog.cache_clear()
    versioned.clear()
    cache.clear()


@pytest.fixture
def quiet_limits(settings):
    """Generous rate limits, for tests of pages and the API that are not about the limits."""
    from django.core.cache import cache

    settings.PBEM_RATE_SUBMIT = (1000, 60)
    settings.PBEM_RATE_TOKEN_FAILURES = (1000, 600)
    settings.PBEM_RATE_CREATE = (1000, 3600)
    settings.PBEM_BASE_URL = "http://testserver"
    cache.clear()


CAST = [
    services.PlayerSpec("Alice", "alice@example.org"),
    services.PlayerSpec("Bob", "bob@example.org"),
    services.PlayerSpec("Carol", "carol@example.org"),
]


@pytest.fixture
def cast():
    return list(CAST)


@pytest.fixture
def make_game(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"

    def make(players: int = 2, kind: str = "diceduel", options=None, **kw):
        return services.create_game(kind, CAST[:players], options or {}, **kw)

    return make


def deliver(game=None) -> dict:
    """Sends every notice due (to the test's mailbox): a seat's deadline does not run out while
    its turn notice has not gone out, and `make_game` leaves the notices in the outbox."""
    from pbem.mail import sending

    return sending.send_pending(game.pk if game is not None else None)


def alter_behind_the_databases_back(game, seq: int, payload_json: str) -> None:
    """An event's payload rewritten as a tamperer with a superuser session would: the append-only
    trigger switched off for the one UPDATE (PostgreSQL only)."""
    from django.db import transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE pbem_event DISABLE TRIGGER pbem_event_no_update")
        cursor.execute(
            "UPDATE pbem_event SET payload = %s WHERE game_id = %s AND seq = %s", [payload_json, game.pk, seq]
        )
        cursor.execute("ALTER TABLE pbem_event ENABLE TRIGGER pbem_event_no_update")


def hands(game):
    return eventlog.load(game).state["game"]["hands"]


requires_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (set DATABASE_URL, as .ci/run does)"
)


@pytest.fixture
def moved_clock(tmp_path, settings, monkeypatch):
    """The test clock on, at real time; `timezone.now` is it in this process."""
    settings.PBEM_TEST_CLOCK_FILE = str(tmp_path / "clock")
    testclock.set_offset(0)
    monkeypatch.setattr(timezone, "now", testclock.now)
    return testclock
