"""Mail that never finishes: every stored message reaches an end state (applied, refused with an
answer, or ignored with a recorded reason) at once, whatever bytes it holds."""

from __future__ import annotations

import io
import sys
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import DataError
from django.utils import timezone

from pbem import tasks
from pbem.doors import processing
from pbem.mail import replies
from pbem.models import InboundMessage, Notice
from pbem.play import addressing

from ..mail.conftest import deliver

pytestmark = pytest.mark.django_db

END_STATES = {"applied", "refused", "ignored", "answered"}


def a_mail(
    seat, *, sender="alice@example.org", message_id="<m1@example.org>", subject="hello", body="board", extra_headers=""
) -> bytes:
    return (
        f"From: {sender}\r\nTo: {addressing.reply_address(seat)}\r\nSubject: {subject}\r\n"
        f"Message-ID: {message_id}\r\n{extra_headers}\r\n{body}\r\n"
    ).encode()


def through_the_pipe(raw: bytes, monkeypatch) -> InboundMessage:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="latin-1"))
    call_command("receive_email")  # exit 75 (CommandError) would fail the test
    message = InboundMessage.objects.order_by("-id").first()
    processing.process(message.pk)
    message.refresh_from_db()
    return message


@pytest.mark.parametrize("where", ["From", "Message-ID"])
def test_a_nul_in_from_or_message_id_is_stored_and_ends(duel, monkeypatch, where):
    game, seats, tokens = duel
    raw = a_mail(
        seats[0],
        sender="ali\x00ce@example.org" if where == "From" else "alice@example.org",
        message_id="<m\x001@example.org>" if where == "Message-ID" else "<m1@example.org>",
    )
    message = through_the_pipe(raw, monkeypatch)
    assert message.status in END_STATES and "\x00" not in message.message_id + message.sender


def test_a_nul_in_the_subject_ends_at_once_and_is_answered(duel, monkeypatch):
    game, seats, tokens = duel
    message = through_the_pipe(a_mail(seats[0], subject="hel\x00lo"), monkeypatch)
    assert (message.status, message.error_code) == ("answered", "answered")
    assert Notice.objects.filter(kind="answer", context__subject="hello").exists()


def nested(seat, depth: int) -> bytes:
    head = a_mail(seat, body="").rstrip(b"\r\n") + b"\r\nMIME-Version: 1.0\r\n"
    opening = b"".join(b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (i, i) for i in range(depth))
    closing = b"".join(b"\r\n--b%d--\r\n" % i for i in reversed(range(depth)))
    return head.replace(b"\r\n\r\n", b"\r\n") + opening + b"Content-Type: text/plain\r\n\r\nboard" + closing


def test_multipart_nested_a_thousand_deep_is_refused_with_a_reason(duel, monkeypatch):
    game, seats, tokens = duel
    message = through_the_pipe(nested(seats[0], 1000), monkeypatch)
    assert (message.status, message.error_code) == ("refused", "unreadable")
    assert "nested parts" in message.outcome
    assert Notice.objects.filter(kind="answer", context__code="unreadable").exists()


def test_a_few_nested_parts_are_read_as_usual(duel, monkeypatch):
    game, seats, tokens = duel
    assert through_the_pipe(nested(seats[0], 5), monkeypatch).status == "answered"


def test_unknown_and_broken_charsets_are_read(duel):
    game, seats, tokens = duel
    raw = (
        f"From: alice@example.org\r\nTo: {addressing.reply_address(seats[0])}\r\n"
        "Subject: =?x-no-such-charset?q?caf=E9?=\r\nMessage-ID: <cs@example.org>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=x-no-such-charset\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
    ).encode() + b"board\r\n\xff\xfe caf\xe9\r\n"
    message = deliver(raw)
    assert message.status in END_STATES and message.error_code != "error"


def test_a_message_the_database_refuses_ends_at_once(duel, monkeypatch):
    game, seats, tokens = duel

    def refused_by_the_database(message):
        raise DataError("value too long for type character varying")

    monkeypatch.setattr(replies, "process_mail", refused_by_the_database)
    message = deliver(a_mail(seats[0]))
    assert (message.status, message.error_code) == ("refused", "error")


def test_a_message_retried_past_the_window_is_ended_with_its_reason(duel):
    game, seats, tokens = duel
    stuck = InboundMessage.objects.create(message_id="<stuck@x>", channel="pipe", raw=b"x")
    InboundMessage.objects.filter(pk=stuck.pk).update(received_at=timezone.now() - timedelta(days=3))
    tasks.sweep_inbound()
    stuck.refresh_from_db()
    assert (stuck.status, stuck.error_code) == ("ignored", "gave_up") and "retried" in stuck.outcome
