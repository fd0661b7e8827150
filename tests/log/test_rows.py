"""pbem.log.rows: the reply path's ready statements read and write rows exactly as the ORM does."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from pbem.log import rows
from pbem.models import InboundMessage, Notice, Seat
from tests.conftest import requires_postgres


def fields_of(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_a_seat_with_its_game_reads_as_select_related_gives_it(make_game):
    game = make_game(2)
    seat = Seat.objects.filter(game=game, number=1).get()
    read = rows.seat_with_game(seat.pk)
    orm = Seat.objects.select_related("game").get(pk=seat.pk)
    assert fields_of(read) == fields_of(orm)
    assert fields_of(read.game) == fields_of(orm.game)  # JSON columns decoded, dates aware
    assert isinstance(read.game.awaited, list) and isinstance(read.game.deadlines, dict)
    assert rows.seat_with_game(seat.pk + 1000) is None


def test_an_inserted_message_gets_the_defaults_save_gives(db):
    message = rows.insert(InboundMessage(message_id="<rows-1@example.org>", channel="pipe", raw=b"x"))
    stored = InboundMessage.objects.get(pk=message.pk)
    assert fields_of(stored) == {**fields_of(message), "raw": stored.raw}
    assert bytes(stored.raw) == b"x" and stored.received_at is not None and stored.envelope_to == []
    assert stored.status == "received" and not message._state.adding


def test_a_second_insert_of_one_message_id_is_refused_and_changes_nothing(db):
    rows.insert(InboundMessage(message_id="<rows-2@example.org>", channel="pipe", raw=b"x"))
    try:
        with transaction.atomic():
            rows.insert(InboundMessage(message_id="<rows-2@example.org>", channel="pipe", raw=b"y"))
    except IntegrityError:
        pass
    else:
        raise AssertionError("a duplicate Message-ID was stored")
    assert InboundMessage.objects.filter(message_id="<rows-2@example.org>").count() == 1


def test_an_inserted_notice_keeps_its_json_context(make_game):
    game = make_game(2)
    notice = rows.insert(Notice(game=game, kind="answer", to_email="a@example.org", context={"text": "é", "n": [1]}))
    stored = Notice.objects.get(pk=notice.pk)
    assert stored.context == {"text": "é", "n": [1]} and stored.status == "pending" and stored.created_at


def test_the_locked_message_and_its_update_round_trip(db):
    message = rows.insert(
        InboundMessage(message_id="<rows-3@example.org>", channel="pipe", raw=b"x", envelope_to=["a@b"])
    )
    with transaction.atomic():
        locked = rows.lock_inbound(message.pk)
        assert fields_of(locked) == fields_of(InboundMessage.objects.get(pk=message.pk))
        locked.status, locked.outcome, locked.result_version = "applied", "Applied: x", 7
        rows.update(locked, ["status", "outcome", "result_version"])
    stored = InboundMessage.objects.get(pk=message.pk)
    assert (stored.status, stored.outcome, stored.result_version, stored.envelope_to) == (
        "applied",
        "Applied: x",
        7,
        ["a@b"],
    )
    assert rows.lock_inbound(message.pk + 1000) is None


def _prepared_names(prefix: str) -> set[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements WHERE name LIKE %s", [prefix + "%"])
        return {name for (name,) in cursor.fetchall()}


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_lock_taken_first_in_a_transaction_holds_until_the_transaction_ends(db):
    """The prepared statement is the transaction's first: it must begin the transaction Django
    opened, or the lock would last only for that statement."""
    import psycopg
    from django.db import connection

    message = rows.insert(InboundMessage(message_id="<rows-lock@example.org>", channel="pipe", raw=b"x"))
    params = connection.get_connection_params()
    other = psycopg.connect(
        host=params["host"],
        port=params.get("port") or 5432,
        user=params["user"],
        dbname=params["dbname"],
        autocommit=True,
    )
    try:
        with transaction.atomic():
            assert rows.lock_inbound(message.pk) is not None
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute("SELECT id FROM pbem_inboundmessage WHERE id = %s FOR UPDATE NOWAIT", [message.pk])
        assert other.execute(
            "SELECT id FROM pbem_inboundmessage WHERE id = %s FOR UPDATE NOWAIT", [message.pk]
        ).fetchone() == (message.pk,)
    finally:
        other.close()


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_writes_of_a_failed_transaction_are_rolled_back_with_it(db):
    try:
        with transaction.atomic():
            rows.insert(InboundMessage(message_id="<rows-tx-1@example.org>", channel="pipe", raw=b"x"))
            rows.insert(InboundMessage(message_id="<rows-tx-1@example.org>", channel="pipe", raw=b"y"))
    except IntegrityError:
        pass
    assert not InboundMessage.objects.filter(message_id="<rows-tx-1@example.org>").exists()


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_the_statements_stay_prepared_across_a_rollback_and_psycopg_prepares_none_of_its_own(db):
    """psycopg, once it has prepared a statement, deallocates all of a session's at a rollback."""
    message = rows.insert(InboundMessage(message_id="<rows-prep@example.org>", channel="pipe", raw=b"x"))
    with transaction.atomic():
        rows.lock_inbound(message.pk)
    before = _prepared_names("pbem_rows_")
    assert before
    try:
        with transaction.atomic():
            rows.lock_inbound(message.pk)
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    assert _prepared_names("pbem_rows_") == before
    assert not _prepared_names("_pg3_")
    with transaction.atomic():
        assert rows.lock_inbound(message.pk).pk == message.pk


def test_an_end_state_and_its_answer_are_written_together(make_game):
    """The reply's answer goes in with its message's end state (one statement on PostgreSQL)."""
    game = make_game(2)
    message = rows.insert(InboundMessage(message_id="<rows-and@example.org>", channel="pipe", raw=b"x"))
    answer = Notice(game=game, kind="answer", to_email="a@example.org", context={"text": "Applied", "inbound": 1})
    with transaction.atomic():
        locked = rows.lock_inbound(message.pk)
        locked.status, locked.outcome = "applied", "Applied: x"
        rows.update(locked, ["status", "outcome"], and_insert=answer)
    assert answer.pk and not answer._state.adding
    stored = Notice.objects.get(pk=answer.pk)
    assert (stored.kind, stored.to_email, stored.context, stored.status) == (
        "answer",
        "a@example.org",
        {"text": "Applied", "inbound": 1},
        "pending",
    )
    assert InboundMessage.objects.values_list("status", "outcome").get(pk=message.pk) == ("applied", "Applied: x")


def test_a_seat_exists_only_when_there_is_one(make_game):
    seat = Seat.objects.filter(game=make_game(2)).first()
    assert rows.seat_exists(seat.pk) and not rows.seat_exists(seat.pk + 1000)


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_value_the_database_refuses_is_djangos_data_error_and_changes_nothing(db):
    """What processing catches to end a message that will not go in (a NUL PostgreSQL text takes
    nowhere): the prepared path raises Django's DataError, as the ORM would, and writes nothing."""
    from django.db import DataError

    message = rows.insert(InboundMessage(message_id="<rows-nul@example.org>", channel="pipe", raw=b"x"))
    with pytest.raises(DataError), transaction.atomic():
        locked = rows.lock_inbound(message.pk)
        locked.status, locked.outcome = "applied", "nul \x00 here"
        rows.update(locked, ["status", "outcome"])
    assert InboundMessage.objects.values_list("status", "outcome").get(pk=message.pk) == ("received", "")
    assert rows.lock_inbound(message.pk).pk == message.pk  # the connection is still good
