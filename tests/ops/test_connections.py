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
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


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
    before = other_sessions()
    try:
        handler.warm_up()
        wait_until(lambda: other_sessions() == before + DB_THREADS, 30, "a connection for each thread")
    finally:
        handler.close()
    wait_until(lambda: other_sessions() == before, 30, "the listener's sessions to end")


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
