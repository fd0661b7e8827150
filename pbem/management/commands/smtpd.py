"""The second door: an SMTP listener (aiosmtpd) for mail to our domain.

Recipients outside PBEM_MAIL_DOMAIN are refused at RCPT (we relay nothing); the message is
stored by one plain function, `store_message`, which the tests call too; a Celery task then
processes it. If storing fails the client gets a 451 and retries later.
"""

from __future__ import annotations

import logging
import signal
import threading

from aiosmtpd.controller import Controller
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections, connection

from pbem import health, inbox

log = logging.getLogger(__name__)


def ours(address: str) -> bool:
    return address.rpartition("@")[2].lower() == settings.PBEM_MAIL_DOMAIN.lower()


def store_message(data: bytes, recipients: list[str]) -> bool:
    close_old_connections()
    try:
        _message, created = inbox.store_raw(data, "smtp", recipients)
    finally:
        # Runs in a pool thread: leave no connection behind in it (mail comes rarely).
        connection.close()
    return created


class Handler:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if not ours(address):
            return "550 5.7.1 Relaying denied: not a mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        data = envelope.original_content or envelope.content
        try:
            await sync_to_async(store_message, thread_sensitive=False)(data, list(envelope.rcpt_tos))
        except Exception:
            log.exception("could not store a message from %s", envelope.mail_from)
            return "451 4.3.0 Could not store the message; try again later"
        return "250 2.0.0 Message accepted"


def make_controller(host: str, port: int) -> Controller:
    return Controller(Handler(), hostname=host, port=port, data_size_limit=settings.PBEM_INBOUND_HARD_LIMIT,
                      server_hostname=settings.PBEM_MAIL_DOMAIN)


class Command(BaseCommand):
    help = "Listen for mail over SMTP and store every message for processing."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8025)

    def handle(self, *args, host="127.0.0.1", port=8025, **options):
        controller = make_controller(host, port)
        controller.start()
        # Flushed: stdout is a pipe or a file under a supervisor, and whoever waits for this line
        # (a test, an operator's tail -f) must see it now, not when the buffer fills.
        self.stdout.write(f"Listening for mail to @{settings.PBEM_MAIL_DOMAIN} on {host}:{port}")
        self.stdout.flush()
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        try:
            while not stop.is_set():
                self._heartbeat(f"{host}:{port}")
                stop.wait(health.SMTP_HEARTBEAT_EVERY)
        finally:
            controller.stop()

    def _heartbeat(self, address: str) -> None:
        """For /health/: the listener is up (one small write a minute, then the connection closed)."""
        health.record(health.SMTP_HEARTBEAT, detail=address)
        connection.close()
