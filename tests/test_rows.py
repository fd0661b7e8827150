"""pbem.rows: the reply path's ready statements read and write rows exactly as the ORM does."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from pbem import rows
from pbem.models import InboundMessage, Notice, Seat


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
