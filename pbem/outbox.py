"""Hands notices written in a transaction to Celery once that transaction commits.

If the broker is down the rows stay `pending` in the outbox; the periodic sweep
(`pbem.tasks.sweep_outbox`) sends them once it is back, each exactly once.
"""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)


def dispatch_on_commit(game_id: int | None) -> None:
    if getattr(settings, "PBEM_NOTICE_DISPATCH", "on_commit") != "on_commit":
        return
    transaction.on_commit(lambda: _dispatch(game_id))


def _dispatch(game_id: int | None) -> None:
    try:
        queue_task("pbem.tasks.send_pending_notices", game_id)
    except Exception:  # broker down: the outbox keeps the rows; the sweep sends them later
        log.warning("could not queue notices for game %s; the outbox sweep will send them", game_id, exc_info=True)


def queue_task(name: str, *args) -> None:
    """Queues the Celery task `name` (run at once in-process without a broker).

    By name, through the app's registry, not by importing `pbem.tasks`: the tasks are the top of
    the platform (they call everything), and the write path below them must not import them."""
    task = current_app.tasks.get(name)
    if task is None:  # a process that is no worker: the app's autodiscovery has not run yet
        current_app.loader.import_default_modules()
        task = current_app.tasks[name]
    task.delay(*args)
