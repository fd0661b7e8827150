"""Every inbound channel ends here: store the raw submission first, then process it in a task.

Storing is cheap and idempotent (Message-ID is unique, so a message delivered twice is stored
once); processing goes through `services.submit` with the Message-ID as causation id, so even a
message processed twice (a task retried after a crash) is applied once. The result is written
back onto the InboundMessage row (status, outcome, result_version) where the web page reads it,
and, for mail, an answer goes into the outbox in the same transaction.
"""

from __future__ import annotations

import json
import logging
import uuid

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from . import services
from .models import InboundMessage, InboundStatus, Seat

log = logging.getLogger(__name__)

WEB_CHANNELS = ("web", "api")


# ---------------------------------------------------------------------------------------------
# Storing
# ---------------------------------------------------------------------------------------------


def store_submission(seat: Seat, text: str, expected_version: int | None, channel: str = "web") -> InboundMessage:
    """Stores a web-form (or API) submission for `seat`; a Celery task applies it after commit.

    The page shows the result from the returned row once processed: `status` (applied, refused,
    answered), `outcome` (what was applied, or why not, in words) and `result_version`.
    """
    body = {
        "seat_id": seat.pk,
        "game_id": seat.game_id,
        "generation": seat.token_generation,
        "text": text or "",
        "expected_version": expected_version,
        "channel": channel,
    }
    message_id = f"<{channel}-{uuid.uuid4().hex}@{settings.PBEM_MAIL_DOMAIN}>"
    message = InboundMessage.objects.create(
        message_id=message_id, channel=channel, raw=json.dumps(body).encode(), game_id=seat.game_id, seat=seat,
        sender=seat.email,
    )
    queue_on_commit(message.pk)
    return message


def store_raw(raw: bytes, channel: str, envelope_to: list[str] | None = None) -> tuple[InboundMessage, bool]:
    """Stores one RFC 822 message as it came; returns (row, created). A repeat is not stored again.

    A message over PBEM_INBOUND_MAX_BYTES is kept as its headers only (marked X-Pbem-Truncated):
    enough to answer its sender that it was too large, without filling the database."""
    from .mail import inbound

    message_id = inbound.message_id_of(raw)
    if len(raw) > settings.PBEM_INBOUND_MAX_BYTES:
        raw = inbound.truncated(raw)
    try:
        with transaction.atomic():
            message = InboundMessage.objects.create(
                message_id=message_id, channel=channel, raw=raw, sender=inbound.sender_of(raw)[:250],
                envelope_to=[a.lower() for a in (envelope_to or []) if a],
            )
    except IntegrityError:
        # Delivered twice (an MTA retry, the same mail through two doors): applied once.
        return InboundMessage.objects.get(message_id=message_id), False
    queue_on_commit(message.pk)
    return message, True


def queue_on_commit(inbound_id: int) -> None:
    transaction.on_commit(lambda: queue(inbound_id))


def queue(inbound_id: int) -> None:
    from . import tasks

    try:
        tasks.process_inbound.delay(inbound_id)
    except Exception:  # broker down: the row stays "received" and the inbound sweep takes it
        log.warning("could not queue inbound message %s; the sweep will process it", inbound_id, exc_info=True)


# ---------------------------------------------------------------------------------------------
# Processing
# ---------------------------------------------------------------------------------------------


class TryLater(Exception):
    """Processing should be retried later (the game was busy): the row stays "received"."""


def process(inbound_id: int) -> InboundMessage | None:
    """Processes one stored submission once: the row is locked, and left alone once handled.

    A database error (or a busy game) leaves the row "received" for the sweep to retry; any other
    failure is a bug that retrying will not cure: the row is marked refused ("error") and logged.
    """
    try:
        with transaction.atomic():
            message = InboundMessage.objects.select_for_update().filter(pk=inbound_id).first()
            if message is None or message.status != InboundStatus.RECEIVED:
                return message
            if message.channel in WEB_CHANNELS:
                _process_submission(message)
            else:
                from .mail import replies

                replies.process_mail(message)
            message.processed_at = timezone.now()
            message.save()
        return message
    except (DatabaseError, TryLater):
        log.warning("inbound message %s left for a retry", inbound_id, exc_info=True)
        return InboundMessage.objects.filter(pk=inbound_id).first()
    except Exception:
        log.exception("inbound message %s could not be processed", inbound_id)
        InboundMessage.objects.filter(pk=inbound_id, status=InboundStatus.RECEIVED).update(
            status=InboundStatus.REFUSED, error_code="error", processed_at=timezone.now(),
            outcome="Something went wrong on our side while reading this; nothing was applied. "
                    "The Master of Seals can see it on the desk.")
        return InboundMessage.objects.filter(pk=inbound_id).first()


def _process_submission(message: InboundMessage) -> None:
    body = json.loads(bytes(message.raw).decode())
    seat = Seat.objects.filter(pk=body["seat_id"]).first()
    if seat is None or seat.token_generation != body.get("generation", seat.token_generation):
        finish(message, InboundStatus.REFUSED, "revoked",
               "This seat has a new player since the page was opened: nothing was applied.")
        return
    apply(message, seat, body.get("text", ""), body.get("expected_version"))


def apply(message: InboundMessage, seat: Seat, text: str, expected_version: int | None):
    """Runs the lines through `services.submit`; records the result on `message`.

    Returns the Outcome, or the ServiceError that refused it."""
    message.game_id, message.seat = seat.game_id, seat
    try:
        outcome = services.submit(seat.game_id, seat.number, text, expected_version=expected_version,
                                  causation_id=message.message_id[:200])
    except services.ServiceError as exc:
        if exc.code == "busy":
            raise TryLater(str(exc)) from exc
        finish(message, InboundStatus.REFUSED, exc.code, describe_refusal(exc))
        return exc
    if outcome.duplicate:
        finish(message, InboundStatus.APPLIED, "duplicate", "This submission had already been applied.",
               outcome.version)
    elif outcome.events:
        finish(message, InboundStatus.APPLIED, "applied", describe_outcome(outcome), outcome.version)
    else:
        finish(message, InboundStatus.ANSWERED, "answered", describe_outcome(outcome), outcome.version)
    return outcome


def finish(message: InboundMessage, status: str, code: str, text: str, version: int | None = None) -> None:
    message.status = status
    message.error_code = code[:20]
    message.outcome = text
    message.result_version = version


def describe_outcome(outcome: services.Outcome) -> str:
    parts = []
    if outcome.applied:
        parts.append("Applied:\n" + "\n".join(f"  {line}" for line in outcome.applied))
    parts.extend(outcome.answers)
    return "\n\n".join(parts) or "Nothing to apply."


def describe_refusal(exc: services.ServiceError, with_legal: bool = True) -> str:
    if isinstance(exc, services.CommandRejected):
        text = ""
        if exc.line:
            text = f"Line {exc.line_number}: {exc.line}\n" if exc.line_number else f"{exc.line}\n"
        text += f"Refused: {exc}\nNothing in your message was applied."
        if exc.legal and with_legal:
            text += "\n\nWhat you may do now:\n" + "\n".join(f"  {c}" for c in exc.legal)
        return text
    return f"{exc}\nNothing was applied."
