"""Database connections of the long-running processes: kept from one unit of work to the next
(a new connection cost 3-5 ms and every prepared statement prepared again), dropped when old or
broken, and closed when the process stops."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

import pytest
from django.db import connection

from pbem.management.commands.smtpd import DB_THREADS, Handler, make_controller
from pbem.models import Game, InboundMessage
from tests.conftest import requires_postgres
from tests.mail.conftest import free_port
from tests.waiting import wait_until

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]


def sessions_opened() -> int:
    """Sessions ever opened on this database (PostgreSQL counts them: pg_stat_database)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def other_sessions() -> int:
    return len(other_session_pids())


def other_session_pids() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return {pid for (pid,) in cursor.fetchall()}


def test_a_worker_keeps_its_database_connection_from_one_task_to_the_next_and_drops_a_broken_one():
    """Celery's Django fixup closes the connection around every task unless told to reuse it
    (CELERY_DB_REUSE_MAX); around each task, as around a request, only an old or broken one is
    closed (config/celery.py)."""
    from celery.fixups.django import DjangoWorkerFixup

    from config.celery import app, close_old_connections
    from pbem import tasks

    fixup, task = DjangoWorkerFixup(app), tasks.process_inbound
    connection.close()  # a fresh one: not whatever an earlier test in this process left behind
    connection.ensure_connection()
    first = connection.connection
    for _ in range(3):
        fixup.on_task_prerun(sender=task)
        close_old_connections(sender=task)
        Game.objects.exists()
        fixup.on_task_postrun(sender=task)
        close_old_connections(sender=task)
    assert connection.connection is first
    first.close()  # the server went away, say: the task's query failed
    connection.errors_occurred = True
    close_old_connections(sender=task)
    assert connection.connection is None
    assert not Game.objects.exists()  # the next task gets a fresh connection


def test_the_smtp_listener_keeps_its_connections_between_messages_and_closes_them_when_it_stops():
    port = free_port()
    listener = make_controller("127.0.0.1", port)
    listener.start()
    opened = sessions_opened()
    try:
        with smtplib.SMTP("127.0.0.1", port) as client:
            for n in range(8):
                mail = EmailMessage()
                mail["From"], mail["To"], mail["Subject"] = "alice@example.org", "pbem@pbem.localhost", f"hello {n}"
                mail["Message-ID"] = f"<listener-{n}@example.org>"
                mail.set_content("help")
                client.sendmail("alice@example.org", ["pbem@pbem.localhost"], mail.as_bytes())
        assert InboundMessage.objects.filter(message_id__startswith="<listener-").count() == 8
        assert sessions_opened() - opened <= DB_THREADS  # it was two a message
    finally:
        listener.stop()
    # A closed connection's server process leaves pg_stat_activity when it has exited, a moment
    # later (longer on a loaded machine): wait for that, not a fixed time.
    wait_until(lambda: other_sessions() == 0, 30, "the listener's sessions to end")


def test_the_smtp_listener_connects_every_thread_before_it_says_it_listens():
    """`manage.py smtpd` warms up before its "Listening" line: the first mails after a start
    open no connection (they cost 0.9 s instead of 0.1 s through the pipe's handoff)."""
    handler = Handler()
    # Sessions are told apart by their server pid: a session of an earlier test that ends while
    # this one runs must not change the count (under load one did, and the count never matched).
    before = other_session_pids()
    try:
        handler.warm_up()

        def new_sessions() -> set[int] | None:
            new = other_session_pids() - before
            return new if len(new) == DB_THREADS else None

        opened = wait_until(new_sessions, 30, "a connection for each thread")
    finally:
        handler.close()
    wait_until(lambda: not (other_session_pids() & opened), 30, "the listener's sessions to end")


def test_a_kept_connection_the_server_dropped_is_replaced_before_the_next_task_uses_it():
    """A database restart between two tasks: the kept connection is checked first
    (DB_CONN_HEALTH_CHECKS), so the next task reconnects instead of failing."""
    import psycopg

    from config.celery import close_old_connections
    from pbem import tasks

    task = tasks.process_inbound
    close_old_connections(sender=task)
    Game.objects.exists()
    close_old_connections(sender=task)
    params = connection.get_connection_params()
    with psycopg.connect(
        host=params["host"],
        port=params.get("port") or 5432,
        user=params["user"],
        dbname=params["dbname"],
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [connection.connection.info.backend_pid])
    close_old_connections(sender=task)  # the next task begins
    assert not Game.objects.exists()


def _mail(n: int, prefix: str) -> bytes:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "alice@example.org", "pbem@pbem.localhost", f"hello {n}"
    mail["Message-ID"] = f"<{prefix}-{n}@example.org>"
    mail.set_content("help")
    return mail.as_bytes()


def test_the_listener_checks_a_connection_that_just_worked_no_more_per_message(monkeypatch):
    """CONN_HEALTH_CHECKS' SELECT 1 was done before every recipient check and every store: a
    connection that worked a moment ago is used as it is (one check per thread's first use)."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    checks = []
    real = DatabaseWrapper.is_usable
    monkeypatch.setattr(DatabaseWrapper, "is_usable", lambda self: checks.append(1) or real(self))
    port = free_port()
    listener = make_controller("127.0.0.1", port)
    listener.start()
    try:
        with smtplib.SMTP("127.0.0.1", port) as client:
            for n in range(10):
                client.sendmail("alice@example.org", ["pbem@pbem.localhost"], _mail(n, "checked"))
        assert InboundMessage.objects.filter(message_id__startswith="<checked-").count() == 10
    finally:
        listener.stop()
    assert len(checks) <= DB_THREADS  # it was two a message


def test_the_listener_survives_a_database_restart_between_messages():
    """Its kept connections killed by the server: a message may be refused with a 451 (an MTA
    tries again), and the next try is stored on a fresh connection."""
    port = free_port()
    listener = make_controller("127.0.0.1", port)
    listener.start()
    try:
        with smtplib.SMTP("127.0.0.1", port) as client:
            client.sendmail("alice@example.org", ["pbem@pbem.localhost"], _mail(0, "restart"))
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        for n in range(1, 6):
            tries = 0
            while not InboundMessage.objects.filter(message_id=f"<restart-{n}@example.org>").exists():
                tries += 1
                assert tries <= DB_THREADS + 1, "the listener did not recover its connections"
                try:
                    with smtplib.SMTP("127.0.0.1", port) as client:
                        client.sendmail("alice@example.org", ["pbem@pbem.localhost"], _mail(n, "restart"))
                except smtplib.SMTPDataError as exc:
                    assert exc.smtp_code == 451
    finally:
        listener.stop()


def test_messages_stored_while_a_task_is_being_published_go_in_one_task(monkeypatch):
    """The listener's task publications: one at a time, each taking every message stored while the
    last was under way (from other client connections); every stored message queued exactly once,
    and each client answered once its message's task is out."""
    import threading
    import time

    from pbem.doors import inbox

    calls: list[list[int]] = []
    first_under_way, go_on = threading.Event(), threading.Event()

    def queue_many(ids):
        calls.append(list(ids))
        if len(calls) == 1:
            first_under_way.set()
            assert go_on.wait(20)

    def send(n: int) -> None:
        with smtplib.SMTP("127.0.0.1", port) as client:
            client.sendmail("alice@example.org", ["pbem@pbem.localhost"], _mail(n, "batched"))

    monkeypatch.setattr(inbox, "queue_many", queue_many)
    port = free_port()
    listener = make_controller("127.0.0.1", port)
    listener.start()
    clients = [threading.Thread(target=send, args=(n,)) for n in range(6)]
    try:
        clients[0].start()
        assert first_under_way.wait(10)
        for client in clients[1:]:
            client.start()
        stored = InboundMessage.objects.filter(message_id__startswith="<batched-")
        deadline = time.monotonic() + 20
        # The other five stored and waiting for their task to go out. Stored (committed) is not
        # enough: a message's commit comes a moment before the listener adds it to the next
        # publication, and under load that moment let the sixth miss the second task.
        while stored.count() < 6 or len(listener.handler.unpublished) < 5:
            assert time.monotonic() < deadline, "the listener did not store the messages"
            time.sleep(0.01)
        assert len(calls) == 1 and all(client.is_alive() for client in clients)  # no 250 before the task
        go_on.set()
        for client in clients:
            client.join(20)
        assert not any(client.is_alive() for client in clients)
    finally:
        go_on.set()
        listener.stop()
    assert sorted(i for call in calls for i in call) == sorted(stored.values_list("id", flat=True))
    assert len(calls) == 2 and len(calls[1]) == 5  # the five that came while the first was out


def test_one_message_failing_in_a_batch_task_leaves_it_for_the_sweep_and_the_others_go_on(monkeypatch):
    from pbem import tasks
    from pbem.doors import processing

    done = []

    def process(inbound_id):
        if inbound_id == 2:
            raise RuntimeError("the database went away for this one")
        done.append(inbound_id)

    monkeypatch.setattr(processing, "process", process)
    assert tasks.process_inbound_batch([1, 2, 3]) == {"missing": 2, "failed": 1}
    assert done == [1, 3]
