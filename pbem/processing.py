"""Processing a stored inbound message once: lock its row, hand it to its channel's reader (the
web form's and the API's in `submissions`, mail's in `mail.replies`), record the end state.

Readers turn what was stored into a submission or a refusal; `services` applies it; an answer
goes into the outbox in the same transaction as the row's new status.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, transaction
from django.utils import timezone

from . import submissions
from .mail import replies
from .models import InboundMessage, InboundStatus

log = logging.getLogger(__name__)

WEB_CHANNELS = ("web", "api")


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
                submissions.read_web(message)
            else:
                replies.process_mail(message)
            message.processed_at = timezone.now()
            message.save()
        return message
    except (DatabaseError, submissions.TryLater):
        log.warning("inbound message %s left for a retry", inbound_id, exc_info=True)
        return InboundMessage.objects.filter(pk=inbound_id).first()
    except Exception:
        log.exception("inbound message %s could not be processed", inbound_id)
        InboundMessage.objects.filter(pk=inbound_id, status=InboundStatus.RECEIVED).update(
            status=InboundStatus.REFUSED, error_code="error", processed_at=timezone.now(),
            outcome="Something went wrong on our side while reading this; nothing was applied. "
                    "The Master of Seals can see it on the desk.")
        return InboundMessage.objects.filter(pk=inbound_id).first()
