"""The MTA pipe's fast way in (pbem/doors/handoff.py): the message handed to the running SMTP
listener by a process that loads no Django; its exit status is the listener's answer, and the
pipe's own slow way takes over when the listener is away."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from pbem.doors.handoff import smtp_data
from pbem.management.commands.smtpd import make_controller
from pbem.models import InboundMessage
from tests.conftest import requires_postgres
from tests.mail.conftest import free_port
from tests.processes import service_env

ROOT = Path(__file__).resolve().parents[2]
HANDOFF = ROOT / "pbem" / "doors" / "handoff.py"
MAIL = (
    b"From: alice@example.org\r\nTo: play@pbem.localhost\r\nMessage-ID: <handoff-1@example.org>\r\n"
    b"Subject: board\r\n\r\nboard\r\n"
)

# A reply as Postfix's pipe hands it over: LF line ends, well over 1 kB (it quotes its notice),
# lines that begin with a dot, and no newline after its last line.
QUOTED = "".join(f"> Round {n}: Alice played a 4, Bob a 2; the pot is {n * 3} gold.\n" for n in range(1, 60))
LF_MAIL = (
    "From: alice@example.org\nTo: play@pbem.localhost\nMessage-ID: <handoff-lf@example.org>\n"
    "Subject: Re: your turn\n\nplay 4\n.\n..two dots\n.hidden\n\nOn Monday the service wrote:\n" + QUOTED + "-- \nAlice"
).encode()

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]


def pipe(raw: bytes, port: int | None, *args: str, **env) -> subprocess.CompletedProcess:
    extra = {"PBEM_PIPE_HANDOFF": f"127.0.0.1:{port}" if port else "", **env}
    return subprocess.run(
        [sys.executable, "-I", "-S", str(HANDOFF), "--recipient", "play@pbem.localhost", *args],
        input=raw,
        capture_output=True,
        env=service_env(**extra),
        cwd=ROOT,
        timeout=120,
    )


@pytest.fixture
def listener():
    port = free_port()
    controller = make_controller("127.0.0.1", port)
    controller.start()
    yield port
    controller.stop()


class Answering:
    """A listener stand-in that answers DATA with a fixed reply."""

    def __init__(self, reply: str):
        self.reply = reply
        self.seen = 0

    async def handle_DATA(self, server, session, envelope):
        self.seen += 1
        return self.reply


def answering(reply: str):
    handler = Answering(reply)
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    return handler, controller


def test_the_pipe_hands_the_message_to_the_listener_and_exits_0(listener):
    done = pipe(MAIL, listener)
    assert done.returncode == 0, done.stderr.decode()
    stored = InboundMessage.objects.get(message_id="<handoff-1@example.org>")
    assert stored.channel == "smtp" and stored.envelope_to == ["play@pbem.localhost"]
    assert b"Subject: board" in bytes(stored.raw)


@pytest.mark.parametrize(
    ("raw", "wire"),
    [
        (b"A: 1\n\nbody\n", b"A: 1\r\n\r\nbody\r\n.\r\n"),
        (b"A: 1\r\n\r\nbody\r\n", b"A: 1\r\n\r\nbody\r\n.\r\n"),
        (b"A: 1\r\rbody", b"A: 1\r\n\r\nbody\r\n.\r\n"),
        (b"A: 1\n\n.\n..x\n.y", b"A: 1\r\n\r\n..\r\n...x\r\n..y\r\n.\r\n"),
        (b".first\r\nnot.a.dot.line\n", b"..first\r\nnot.a.dot.line\r\n.\r\n"),
    ],
    ids=["LF", "CRLF", "bare CR, no final newline", "dot lines, no final newline", "dot at the start"],
)
def test_the_data_sent_has_crlf_line_ends_doubled_dots_and_an_ended_last_line(raw, wire):
    assert smtp_data(raw) == wire


def test_a_reply_with_lf_line_ends_as_postfix_pipes_it_is_taken_by_the_listener(listener):
    assert len(LF_MAIL) > 3000 and b"\r" not in LF_MAIL
    done = pipe(LF_MAIL, listener)
    assert done.returncode == 0, done.stderr.decode()
    assert b"Line too long" not in done.stderr
    stored = InboundMessage.objects.get(message_id="<handoff-lf@example.org>")
    assert stored.channel == "smtp"  # the listener's, not the slow way's "pipe"
    # The same message, line for line (the listener undoes the dot-stuffing): CRLF, last line ended.
    assert bytes(stored.raw) == LF_MAIL.replace(b"\n", b"\r\n") + b"\r\n"


def test_a_message_handed_over_twice_is_stored_once(listener):
    assert pipe(MAIL, listener).returncode == 0
    assert pipe(MAIL, listener).returncode == 0
    assert InboundMessage.objects.filter(message_id="<handoff-1@example.org>").count() == 1


def test_the_handoff_loads_no_django_nor_anything_slow_to_import():
    """Its start is the door's cost: smtplib (with email and ssl) took 0.16-0.2 s of it under load.
    Run as the pipe runs it (here with no message: it answers 65), listing what it imports."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(HANDOFF), "--recipient", "play@pbem.localhost"],
        input=b"",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 65
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.decode().splitlines() if "|" in line}
    assert "_socket" in imported  # the listing works
    slow = ("django", "pbem", "celery", "psycopg", "smtplib", "ssl", "email", "re", "subprocess", "socket", "enum")
    assert sorted(name for name in imported if name.split(".")[0] in slow) == []


def test_a_handoff_to_the_listener_imports_no_socket_module_nor_the_idna_codec(listener):
    """`socket` (enum, selectors) and a str host's idna codec (stringprep, unicodedata) were 7 ms
    of each delivery's 30 ms: the handoff talks to the listener through _socket alone."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(HANDOFF), "--recipient", "play@pbem.localhost"],
        input=MAIL.replace(b"handoff-1@", b"handoff-imports@"),
        capture_output=True,
        env=service_env(PBEM_PIPE_HANDOFF=f"127.0.0.1:{listener}"),
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.decode().splitlines() if "|" in line}
    assert "_socket" in imported
    assert sorted(imported & {"socket", "selectors", "enum", "encodings.idna", "stringprep"}) == []
    assert InboundMessage.objects.filter(message_id="<handoff-imports@example.org>").exists()


def test_a_listener_that_cannot_store_now_makes_the_pipe_exit_75():
    handler, controller = answering("451 4.3.0 Could not store the message; try again later")
    try:
        done = pipe(MAIL, controller.port)
    finally:
        controller.stop()
    assert done.returncode == 75 and handler.seen == 1
    assert b"451" in done.stderr


def test_a_message_the_listener_finds_too_large_makes_the_pipe_exit_65():
    handler, controller = answering("552 5.3.4 Message too big")
    try:
        done = pipe(MAIL, controller.port)
    finally:
        controller.stop()
    assert done.returncode == 65


def test_no_message_or_one_over_the_hard_limit_exits_65_without_asking_anyone():
    assert pipe(b"", free_port()).returncode == 65
    assert pipe(MAIL, free_port(), PBEM_INBOUND_HARD_LIMIT="20").returncode == 65


def test_with_the_listener_away_the_pipe_stores_the_message_itself():
    done = pipe(MAIL, free_port())  # nothing listens there
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert InboundMessage.objects.get(message_id="<handoff-1@example.org>").channel == "pipe"


def test_a_recipient_the_listener_refuses_is_stored_the_pipes_own_way(listener):
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(HANDOFF), "--recipient", "someone@elsewhere.example"],
        input=MAIL,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        env=service_env(PBEM_PIPE_HANDOFF=f"127.0.0.1:{listener}"),
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    stored = InboundMessage.objects.get(message_id="<handoff-1@example.org>")
    assert stored.channel == "pipe" and stored.envelope_to == ["someone@elsewhere.example"]


def test_a_recipient_with_a_line_break_is_not_written_into_an_smtp_command(listener):
    done = pipe(MAIL, listener, "--recipient", "play@pbem.localhost>\r\nRSET\r\nRCPT TO:<x@pbem.localhost")
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert InboundMessage.objects.get(message_id="<handoff-1@example.org>").channel == "pipe"  # the slow way


class Chatty:
    """A listener stand-in whose EHLO answer runs to many lines, as real servers' do."""

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        return [*responses[:-1], *(f"250-X-EXTENSION-{n}" for n in range(200)), responses[-1]]

    async def handle_DATA(self, server, session, envelope):
        self.content = envelope.content
        return "250 2.0.0 Message accepted\r\n"[:-2]


def test_the_handoff_reads_replies_of_many_lines():
    handler = Chatty()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        done = pipe(LF_MAIL, controller.port)
    finally:
        controller.stop()
    assert done.returncode == 0, done.stderr.decode()
    assert handler.content == LF_MAIL.replace(b"\n", b"\r\n") + b"\r\n"


def test_anything_unexpected_in_the_handoff_answers_75_so_the_mta_retries_and_never_bounces():
    """scripts/pbem-pipe execs the handoff (no `timeout` around it): its status goes to Postfix as
    it is, and a traceback's 1 would bounce the player's reply."""
    done = pipe(MAIL, free_port(), PBEM_INBOUND_HARD_LIMIT="lots")
    assert done.returncode == 75, done.stderr.decode()
    assert b"the handoff failed (ValueError" in done.stderr
