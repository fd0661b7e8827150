"""Processing a stored inbound message once: lock its row, hand it to its channel's reader (the
web form's and the API's in `submissions`, mail's in `mail.replies`), record the end state.

Readers turn what was stored into a submission or a refusal; `services` applies it; an answer
goes into the outbox in the same transaction as the row's new status.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, DataError, IntegrityError, transaction
from django.utils import timezone

from pbem.log import rows
from pbem.mail import replies
from pbem.models import WEB_CHANNELS, InboundMessage, InboundStatus
from pbem.play import submissions

log = logging.getLogger(__name__)

PROCESSED_FIELDS = ["status", "outcome", "game", "seat", "sender", "processed_at", "result_version", "error_code"]


def process(inbound_id: int) -> InboundMessage | None:
    """Processes one stored submission once: the row is locked, and left alone once handled.

    A database error (or a busy game) leaves the row "received" for the sweep to retry; any other
    failure is a bug that retrying will not cure: the row is marked refused ("error") and logged.
    """
    try:
        with transaction.atomic():
            message = rows.lock_inbound(inbound_id)
            if message is None or message.status != InboundStatus.RECEIVED:
                return message
            if message.channel in WEB_CHANNELS:
                answer = submissions.read_web(message)
            else:
                answer = replies.process_mail(message)
            message.processed_at = timezone.now()
            # Only what processing writes (the raw message, up to a MiB, is not written again),
            # and the mail's answer with it.
            rows.update(message, PROCESSED_FIELDS, and_insert=answer)
        return message
    except (DataError, IntegrityError):
        # What the message holds will not go into the database (a character PostgreSQL takes
        # nowhere, a value too long): retrying cannot cure that, so it ends here, with a reason.
        log.exception("inbound message %s holds what the database refuses", inbound_id)
        return give_up(
            inbound_id,
            "error",
            "Something in this message could not be stored; nothing was applied. "
            "The Master of Seals can see it on the desk.",
        )
    except (DatabaseError, submissions.TryLater):
        log.warning("inbound message %s left for a retry", inbound_id, exc_info=True)
        return InboundMessage.objects.filter(pk=inbound_id).first()
    except Exception:
        log.exception("inbound message %s could not be processed", inbound_id)
        return give_up(
            inbound_id,
            "error",
            "Something went wrong on our side while reading this; nothing was "
            "applied. The Master of Seals can see it on the desk.",
        )


def give_up(inbound_id: int, code: str, reason: str, status: str = InboundStatus.REFUSED) -> InboundMessage | None:
    """Ends a message that cannot be processed: never applied, its reason recorded, left alone."""
    InboundMessage.objects.filter(pk=inbound_id, status=InboundStatus.RECEIVED).update(
        status=status, error_code=code, processed_at=timezone.now(), outcome=reason
    )
    return InboundMessage.objects.filter(pk=inbound_id).first()
