"""manage.py timers: the beat schedule run in this process (the embedded run has no beat)."""

from __future__ import annotations

import signal
import threading

from django.core.management.base import BaseCommand

from pbem.ops import timers


class Command(BaseCommand):
    help = (
        "Runs the timers (deadlines, reminders, digests, the outbox and inbound sweeps, IMAP polling) "
        "in-process, on the intervals of CELERY_BEAT_SCHEDULE. For a run without Celery beat."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="run every timer once, then exit")

    def handle(self, *args, once=False, **options):
        if once:
            for timer in timers.run_due(timers.schedule(), now=float("inf")):
                self.stdout.write(f"{timer.name}: {timer.last_result}")
            return
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        self.stdout.write(
            "Timers running in-process: " + ", ".join(f"{t.name} every {t.every:g} s" for t in timers.schedule()),
            ending="\n",
        )
        self.stdout.flush()
        timers.run_forever(stop)
