"""Fixtures for play by email: a Dice Duel table of Alice and Bob, mail helpers, an SMTP sink."""

from __future__ import annotations

import email
import email.policy
import socket
import threading
import time
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from django.db import connection

from pbem.doors import inbox, processing
from pbem.log import eventlog
from pbem.mail import sending
from pbem.models import Game, InboundMessage, Notice

FIXTURES = Path(__file__).parent / "fixtures"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Sink:
    """An SMTP server that keeps what it receives (the players' mail provider)."""

    def __init__(self):
        self.messages: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(
            (envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content or envelope.content)
        )
        return "250 OK"

    def parsed(self):
        return [email.message_from_bytes(raw, policy=email.policy.default) for _f, _t, raw in self.messages]

    def wait_for(self, count: int, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.parsed()


def at_once(workers: int, work) -> None:
    """Runs `work` in `workers` threads let go together (several senders at once), each closing
    its own database connection when done."""
    start = threading.Barrier(workers)

    def run() -> None:
        start.wait()
        try:
            work()
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def mail_goes_to(handler, settings) -> Controller:
    """An SMTP server on a port of its own, answering with `handler` (an aiosmtpd handler), and
    Django's mail sent to it in plain SMTP; the caller stops the returned controller."""
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    return controller


@pytest.fixture
def smtp_sink(settings):
    sink = Sink()
    controller = mail_goes_to(sink, settings)
    sink.port = controller.port
    yield sink
    controller.stop()


@pytest.fixture
def table(make_game):
    """Alice and Bob at a fresh game of Dice Duel (3 rounds)."""
    game = make_game(2)
    return game


def hand(game: Game, seat: int) -> list[int]:
    return eventlog.load(Game.objects.get(pk=game.pk)).state["game"]["hands"][seat]


def deliver(raw: bytes, channel: str = "pipe", envelope=None) -> InboundMessage:
    """Stores and processes one message as a door and its task would."""
    message, _created = inbox.store_raw(raw, channel, envelope)
    processing.process(message.pk)
    message.refresh_from_db()
    return message


def send_all() -> dict:
    return sending.send_pending(None)


def notices(**filters):
    return list(Notice.objects.filter(**filters).order_by("id"))
