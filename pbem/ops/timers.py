"""The timers without a beat process: the embedded run (`scripts/serve.sh`, no broker) runs the
very tasks of the beat schedule (`CELERY_BEAT_SCHEDULE`: deadlines, reminders, digests, the
outbox and inbound sweeps, IMAP polling) in-process, each on its own interval.

With a broker, Celery beat runs the same schedule and this module is not used.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from celery import current_app
from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)


@dataclass
class Timer:
    name: str  # the schedule entry's name
    task: str  # the task's dotted name
    every: float  # seconds
    due_at: float = 0.0  # monotonic clock; 0: at once
    runs: int = 0
    last_result: object = field(default=None)


def schedule() -> list[Timer]:
    entries: dict[str, dict] = settings.CELERY_BEAT_SCHEDULE
    return [Timer(name, entry["task"], float(entry["schedule"])) for name, entry in entries.items()]


def run_due(timers: list[Timer], now: float) -> list[Timer]:
    """Runs every timer that is due at `now` (monotonic seconds), in the schedule's order;
    returns those that ran. A failing task is logged and tried again at its next turn."""
    ran = []
    for timer in timers:
        if now < timer.due_at:
            continue
        timer.due_at = now + timer.every
        task = current_app.tasks.get(timer.task)
        if task is None:
            current_app.loader.import_default_modules()
            task = current_app.tasks[timer.task]
        try:
            timer.last_result = task.apply().get(propagate=True)
        except Exception:  # noqa: BLE001 - one failing timer must not stop the others
            log.exception("timer %s failed", timer.name)
        finally:
            close_old_connections()
        timer.runs += 1
        ran.append(timer)
        log.info("timer %s: %s", timer.name, timer.last_result)
    return ran


def run_forever(stop: threading.Event | None = None, tick: float = 0.5) -> None:
    """Runs the schedule until `stop` is set (or forever)."""
    timers = schedule()
    log.info("timers running in-process: %s", ", ".join(f"{t.name} every {t.every:g}s" for t in timers))
    while stop is None or not stop.is_set():
        run_due(timers, time.monotonic())
        next_due = min(t.due_at for t in timers) - time.monotonic()
        wait = max(0.05, min(tick, next_due))
        if stop is not None:
            stop.wait(wait)
        else:
            time.sleep(wait)
