"""The doors' side of the inbox: every inbound channel stores its raw submission here first,
then a task processes it (`processing.process`).

Storing is cheap and idempotent (Message-ID is unique, so a message delivered twice is stored
once); processing goes through `services.submit` with the Message-ID as causation id, so even a
message processed twice (a task retried after a crash) is applied once.
"""

from __future__ import annotations

import json
import logging
import uuid

from django.conf import settings
from django.db import IntegrityError, transaction

from pbem.log import rows
from pbem.models import InboundMessage, Seat

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------------
# Storing
# ---------------------------------------------------------------------------------------------


def store_submission(
    seat: Seat, text: str, expected_version: int | None, channel: str = "web", key: str = "", by_link: bool = False
) -> InboundMessage:
    """Stores a web-form (or API) submission for `seat`; a Celery task applies it after commit.

    `key`: the form's submission key. The same form sent twice (a double click) has the same key,
    hence the same Message-ID, and gets the row stored the first time: applied once.
    The page shows the result from the returned row once processed: `status` (applied, refused,
    answered), `outcome` (what was applied, or why not, in words) and `result_version`.
    `by_link`: a move confirmed from a notice's one-tap link (submissions.read_web).
    """
    body = {
        "seat_id": seat.pk,
        "game_id": seat.game_id,
        "generation": seat.token_generation,
        "text": text or "",
        "expected_version": expected_version,
        "channel": channel,
    }
    if by_link:
        body["by_link"] = True
    unique = f"{seat.pk}-{key}" if key else uuid.uuid4().hex
    message_id = f"<{channel}-{unique}@{settings.PBEM_MAIL_DOMAIN}>"
    try:
        message = _create_once(
            message_id=message_id,
            channel=channel,
            raw=json.dumps(body).encode(),
            game_id=seat.game_id,
            seat=seat,
            sender=seat.email,
        )
    except IntegrityError:
        return InboundMessage.objects.get(message_id=message_id)
    queue_on_commit(message.pk)
    return message


def store_raw(
    raw: bytes, channel: str, envelope_to: list[str] | None = None, publish: bool = True
) -> tuple[InboundMessage, bool]:
    """Stores one RFC 822 message as it came; returns (row, created). A repeat is not stored again.
    With `publish` false its task is the caller's to queue (the SMTP listener queues one task for
    every message stored while its last task was being published: `queue_many`).

    A message over PBEM_INBOUND_MAX_BYTES is kept as its headers only (marked X-Pbem-Truncated):
    enough to answer its sender that it was too large, without filling the database."""
    from pbem.mail import inbound, trace

    message_id = inbound.message_id_of(raw)
    if len(raw) > settings.PBEM_INBOUND_MAX_BYTES:
        raw = trace.truncated(raw)
    try:
        message = _create_once(
            message_id=message_id,
            channel=channel,
            raw=raw,
            sender=inbound.sender_of(raw)[:250],
            envelope_to=[inbound.clean(a.lower())[:320] for a in (envelope_to or []) if a][:50],
        )
    except IntegrityError:
        # Delivered twice (an MTA retry, the same mail through two doors): applied once.
        return InboundMessage.objects.get(message_id=message_id), False
    if publish:
        queue_on_commit(message.pk)
    return message, True


def _create_once(**fields) -> InboundMessage:
    """The row, or IntegrityError when its Message-ID is stored already (and nothing changed).
    Inside a transaction the insert gets a savepoint, so a repeat leaves the transaction usable;
    outside one it is a single INSERT (autocommit is atomic by itself, and a door storing a
    message is not in a transaction): no BEGIN and COMMIT round trips around it."""
    if transaction.get_connection().in_atomic_block:
        with transaction.atomic():
            return rows.insert(InboundMessage(**fields))
    return rows.insert(InboundMessage(**fields))


def raw_of(message) -> bytes:
    """The bytes of a message a library has already parsed (an ESP's payload, an IMAP fetch).
    One that will not serialise (nested a thousand deep: Python's generator recurses) is kept
    as its headers, marked, so it is stored and answered like any message we cannot read."""
    try:
        return message.as_bytes()
    except Exception:  # noqa: BLE001 - RecursionError, a header that will not encode, …
        head = "".join(f"{name}: {_flat(value)}\r\n" for name, value in list(message.items())[:200])
        return (head + "X-Pbem-Unreadable: the message could not be serialised\r\n\r\n").encode("utf-8", "replace")


def _flat(value) -> str:
    return " ".join(str(value).split())[:2000]


def queue_on_commit(inbound_id: int) -> None:
    transaction.on_commit(lambda: queue(inbound_id))


def queue_many(inbound_ids: list[int]) -> None:
    """One task for stored messages that arrived together (each processed on its own by it)."""
    if len(inbound_ids) == 1:
        queue(inbound_ids[0])
        return
    from pbem.play import outbox

    try:
        outbox.queue_task("pbem.tasks.process_inbound_batch", list(inbound_ids))
    except Exception:  # broker down: the rows stay "received" and the inbound sweep takes them
        log.warning("could not queue inbound messages %s; the sweep will process them", inbound_ids, exc_info=True)


def queue(inbound_id: int) -> None:
    # Imported here: a process that only stores (the pipe door, pbem.doors.pipe) loads no Celery.
    from pbem.play import outbox

    try:
        outbox.queue_task("pbem.tasks.process_inbound", inbound_id)
    except Exception:  # broker down: the row stays "received" and the inbound sweep takes it
        log.warning("could not queue inbound message %s; the sweep will process it", inbound_id, exc_info=True)
