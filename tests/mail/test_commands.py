"""receive_email's answers to the MTA: stored, or "try again later" (75), or a bad message."""

from __future__ import annotations

import io
import sys

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError

from pbem.doors import inbox
from pbem.models import InboundMessage

RAW = b"From: alice@example.org\r\nTo: play+1-1-aaaaaaaaaaaaaaaa@pbem.localhost\r\nMessage-ID: <a@b>\r\n\r\nhelp\r\n"


def stdin(monkeypatch, raw: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="latin-1"))


def test_pipe_stores_with_the_envelope_recipient(db, monkeypatch):
    stdin(monkeypatch, RAW)
    monkeypatch.setenv("ORIGINAL_RECIPIENT", "play+1-1-aaaaaaaaaaaaaaaa@pbem.localhost")
    call_command("receive_email")
    message = InboundMessage.objects.get()
    assert message.channel == "pipe" and message.envelope_to == ["play+1-1-aaaaaaaaaaaaaaaa@pbem.localhost"]
    assert bytes(message.raw) == RAW


def test_database_down_asks_the_mta_to_retry(db, monkeypatch):
    stdin(monkeypatch, RAW)

    def down(*args, **kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(inbox, "store_raw", down)
    with pytest.raises(CommandError) as error:
        call_command("receive_email")
    assert error.value.returncode == 75


def test_empty_input_is_an_error_the_mta_bounces(db, monkeypatch):
    stdin(monkeypatch, b"")
    with pytest.raises(CommandError) as error:
        call_command("receive_email")
    assert error.value.returncode == 65  # EX_DATAERR: bounced, not retried
    assert InboundMessage.objects.count() == 0


def test_receive_email_says_what_it_stored_without_the_seat_token(db, monkeypatch, capsys):
    """It printed nothing on success: an operator trying the door could not tell it worked."""
    stdin(monkeypatch, RAW)
    call_command("receive_email", "--recipient", "play+1-1-aaaaaaaaaaaaaaaa@pbem.localhost")
    message = InboundMessage.objects.get()
    out = capsys.readouterr().out
    assert out.startswith(f"Stored inbound message #{message.pk} from alice@example.org ({len(RAW)} bytes, <a@b>); ")
    assert "aaaaaaaaaaaaaaaa" not in out
    stdin(monkeypatch, RAW)
    call_command("receive_email")
    assert (
        capsys.readouterr().out.strip()
        == f"Already stored as inbound message #{message.pk} (<a@b>): a repeat, nothing done."
    )


@pytest.mark.parametrize(
    ("args", "seconds", "error"),
    [
        (["--deadline-minutes", "5"], 300, ""),
        (["--deadline-hours", "2"], 7200, ""),
        (["--deadline-hours", "0"], None, "--deadline-hours must be at least 1, not 0"),
        (["--deadline-minutes", "-3"], None, "--deadline-minutes must be at least 1, not -3"),
        (["--deadline-minutes", "soon"], None, "invalid int value: 'soon'"),
        (["--deadline-minutes", "5", "--deadline-hours", "1"], None, "not allowed with argument"),
    ],
)
def test_create_game_takes_a_deadline_in_minutes_and_refuses_zero_and_nonsense(db, settings, args, seconds, error):
    """`--deadline-hours 0` silently became 48 hours, and nothing under an hour could be set."""
    from pbem.models import Game

    settings.PBEM_NOTICE_DISPATCH = "none"
    players = ["--player", "Alice:alice@example.org", "--player", "Bob:bob@example.org"]
    if seconds:
        call_command("create_game", "diceduel", *players, *args)
        assert Game.objects.get().deadline_seconds == seconds
    else:
        with pytest.raises(CommandError, match=error):
            call_command("create_game", "diceduel", *players, *args)
        assert Game.objects.count() == 0
