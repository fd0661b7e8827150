"""Hands notices written in a transaction to Celery once that transaction commits.

If the broker is down the rows stay `pending` in the outbox; the periodic sweep
(`pbem.tasks.sweep_outbox`) sends them once it is back, each exactly once.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)


def dispatch_on_commit(game_id: int | None) -> None:
    if getattr(settings, "PBEM_NOTICE_DISPATCH", "on_commit") != "on_commit":
        return
    transaction.on_commit(lambda: _dispatch(game_id))


def _dispatch(game_id: int | None) -> None:
    from . import tasks

    try:
        tasks.send_pending_notices.delay(game_id)
    except Exception:  # broker down: the outbox keeps the rows; the sweep sends them later
        log.warning("could not queue notices for game %s; the outbox sweep will send them", game_id, exc_info=True)
