"""The second door: an SMTP listener (aiosmtpd) for mail to our domain.

Recipients outside PBEM_MAIL_DOMAIN are refused at RCPT (we relay nothing), and so are reply
and bounce addresses of ours whose token is not one we issued (a forged or guessed one: refused
here, nobody gets an answer, no backscatter). The message is stored by one plain function,
`store_message`, which the tests call too; a Celery task then processes it. If storing fails or
takes longer than PBEM_SMTP_STORE_TIMEOUT (the database hangs), the client gets a 451 and
retries later.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from aiosmtpd.controller import Controller
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections, connection

from pbem.doors import inbox
from pbem.log import rows
from pbem.mail import outbound
from pbem.ops import health
from pbem.play import addressing, outbox

log = logging.getLogger(__name__)


def ours(address: str) -> bool:
    return address.rpartition("@")[2].lower() == settings.PBEM_MAIL_DOMAIN.lower()


def recipient_problem(address: str) -> str:
    """Why we refuse this recipient of our domain ("" when we take it). Tokens are checked by
    their MAC (no database needed); a token whose seat does not exist is refused too."""
    local = address.rpartition("@")[0].lower()
    if local.startswith("bounces+"):
        return "" if outbound.notice_from_bounce_address(address) else "no such bounce address here"
    token = addressing.token_from_address(address)
    if token is None:
        return ""  # the plain address: the subject's code may still name the seat
    try:
        seat_id, _generation = addressing.signed_parts(token)
    except addressing.TokenProblem as exc:
        return str(exc)
    with known_good_connection():
        known = rows.seat_exists(seat_id)
    return "" if known else "This seat token belongs to no seat here."


def store_message(data: bytes, recipients: list[str], publish: bool = True) -> tuple[int, bool]:
    """Stores the message; returns (its row's id, whether it was new). With `publish` false its
    task is the caller's to queue (the listener queues one for all that arrive together)."""
    with known_good_connection():
        message, created = inbox.store_raw(data, "smtp", recipients, publish=publish)
    return message.pk, created


# Runs in a pool thread, whose connection is kept for its next message as a web worker keeps its
# own: closed once older than CONN_MAX_AGE, or after an error. (Closing it after each message cost
# a new connection a recipient and a message: the listener took 37 mails a second.) The health
# check Django does before a kept connection's first use (a `SELECT 1`, CONN_HEALTH_CHECKS: 27 %
# of the listener's database time when done for every recipient and message) is done only for a
# connection that has not just worked: one that succeeded less than KNOWN_GOOD seconds ago is used
# as it is (a database restarted in between fails that one message with a 451, and the client
# retries; the failure marks the connection for the check).
KNOWN_GOOD = 5.0
_used = threading.local()


@contextmanager
def known_good_connection():
    if connection.errors_occurred or time.monotonic() - getattr(_used, "ok_at", float("-inf")) > KNOWN_GOOD:
        close_old_connections()
    yield
    _used.ok_at = time.monotonic()


# Threads that do the listener's database work. Each keeps its connection from one message to
# the next (see store_message); the listener closes them when it stops.
DB_THREADS = 4


class Handler:
    """Several messages in flight (one per client connection, stored by DB_THREADS threads), and
    their tasks queued together: a message stored while the last publication to the broker is
    under way waits for the next, which takes all that gathered in one task. The 250 is given once
    the message's task is out, as before (a task that could not be queued leaves its row to the
    inbound sweep: the message is stored all the same)."""

    def __init__(self) -> None:
        self.executor = ThreadPoolExecutor(max_workers=DB_THREADS, thread_name_prefix="pbem-smtpd-db")
        self.unpublished: list[int] = []
        self.next_round: asyncio.Future | None = None  # done when the unpublished ones are out
        self.publishing = False

    async def publish(self, inbound_id: int) -> None:
        """Returns once the message's task is queued (with those stored while the last went out)."""
        loop = asyncio.get_running_loop()
        self.unpublished.append(inbound_id)
        if self.next_round is None:
            self.next_round = loop.create_future()
        round_ = self.next_round
        if not self.publishing:
            self.publishing = True
            loop.create_task(self._publish_rounds())
        await asyncio.shield(round_)

    async def _publish_rounds(self) -> None:
        try:
            while self.unpublished:
                ids, self.unpublished = self.unpublished, []
                round_, self.next_round = self.next_round, None
                try:
                    await self.in_pool(inbox.queue_many)(ids)
                except Exception:  # queue_many logs a broker that is away; anything else, the sweep covers
                    log.exception("could not queue inbound messages %s", ids)
                finally:
                    if round_ is not None and not round_.done():
                        round_.set_result(None)
        finally:
            self.publishing = False

    def in_pool(self, fn):
        return sync_to_async(fn, thread_sensitive=False, executor=self.executor)

    def warm_up(self) -> None:
        """Before the listener says it listens: every pool thread opens its database connection
        (each waits for the others, so each thread takes one), and the task queueing loads and
        connects (outbox.warm_up). The first mails after a start are then as quick as the rest.
        A database that is away is logged: each message tries again (and answers 451 if it
        cannot store)."""
        barrier = threading.Barrier(DB_THREADS)

        def connect_mine() -> None:
            try:
                close_old_connections()
                connection.ensure_connection()
            except Exception:  # noqa: BLE001 - reported below, each message tries again
                log.warning("could not connect to the database at start", exc_info=True)
            try:
                barrier.wait(timeout=10)
            except threading.BrokenBarrierError:
                pass

        for future in [self.executor.submit(connect_mine) for _ in range(DB_THREADS)]:
            future.result()
        outbox.warm_up("pbem.tasks.process_inbound")

    def close(self) -> None:
        """Closes every pool thread's database connection, then the pool. One closing call per
        thread: each waits for the others, so no thread takes two (a thread stuck in a hung
        query is left to the pool's shutdown)."""
        barrier = threading.Barrier(DB_THREADS)

        def close_mine() -> None:
            connection.close()
            try:
                barrier.wait(timeout=5)
            except threading.BrokenBarrierError:
                pass

        for _ in range(DB_THREADS):
            self.executor.submit(close_mine)
        self.executor.shutdown(wait=True)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if not ours(address):
            return "550 5.7.1 Relaying denied: not a mailbox here"
        try:
            problem = await asyncio.wait_for(self.in_pool(recipient_problem)(address), settings.PBEM_SMTP_STORE_TIMEOUT)
        except Exception:  # the database is away: take the mail, processing decides (and stays silent)
            log.warning("could not check the recipient %s; taking the mail", address, exc_info=True)
            problem = ""
        if problem:
            return f"550 5.1.1 No such mailbox: {problem}"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        data = envelope.original_content or envelope.content
        try:
            inbound_id, created = await asyncio.wait_for(
                self.in_pool(store_message)(data, list(envelope.rcpt_tos), False),
                settings.PBEM_SMTP_STORE_TIMEOUT,
            )
        except Exception:
            log.exception("could not store a message from %s", envelope.mail_from)
            return "451 4.3.0 Could not store the message; try again later"
        if created:
            await self.publish(inbound_id)
        return "250 2.0.0 Message accepted"


class Listener(Controller):
    """aiosmtpd's controller, which also closes the handler's database connections on stop."""

    def stop(self, *args, **kwargs):
        try:
            super().stop(*args, **kwargs)
        finally:
            self.handler.close()


def make_controller(host: str, port: int) -> Controller:
    return Listener(
        Handler(),
        hostname=host,
        port=port,
        data_size_limit=settings.PBEM_INBOUND_HARD_LIMIT,
        server_hostname=settings.PBEM_MAIL_DOMAIN,
    )


class Command(BaseCommand):
    help = "Listen for mail over SMTP and store every message for processing."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8025)

    def handle(self, *args, host="127.0.0.1", port=8025, **options):
        controller = make_controller(host, port)
        controller.handler.warm_up()
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
