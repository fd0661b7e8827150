"""Thin Celery adapters: fetch, call the platform, report. All logic lives in the modules they call."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from . import inbox
from .models import InboundMessage, InboundStatus

log = logging.getLogger(__name__)


@shared_task(bind=True, max_retries=5, default_retry_delay=10)
def process_inbound(self, inbound_id: int) -> str:
    message = inbox.process(inbound_id)
    return message.status if message else "missing"


@shared_task
def sweep_inbound(older_than_seconds: int = 60) -> int:
    """Processes stored submissions whose task never ran (the broker was down when they came)."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    ids = list(InboundMessage.objects.filter(status=InboundStatus.RECEIVED, received_at__lte=cutoff)
               .order_by("id").values_list("id", flat=True)[:500])
    for inbound_id in ids:
        inbox.process(inbound_id)
    return len(ids)
