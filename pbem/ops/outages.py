"""Outages forgiven: when the service itself could not keep its clocks, the players do not pay.

The deadline timers record each run (a heartbeat, pbem/ops/health.py). At the start of a sweep,
a gap since the last run longer than /health/ allows (three intervals and a minute) is an outage
of the timers: from one interval after the last run to now. It is written once (an `Outage` row,
one per last heartbeat), and every game with a deadline running through it gets one
`pbem.OutageForgiven` event, naming the outage and saying why, that moves each such deadline by
the outage's length (a bank clock is not charged for it either: pbem/log/clocks.py). A second
sweep finds the outage forgiven and adds nothing; a game already holding the outage's event is
never extended again. A player's own silence is no outage: only the service's own heartbeat
counts. (A turn notice the outbox could not send is already forgiven seat by seat: its deadline
waits for the notice, and one that went out late restarts the turn.)
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from pbem.models import Game, GameStatus, Heartbeat, Outage
from pbem.ops import health
from pbem.play import desk

log = logging.getLogger(__name__)


def deadlines_every() -> float:
    schedule: dict[str, dict] = settings.CELERY_BEAT_SCHEDULE
    for entry in schedule.values():
        if entry["task"] == health.DEADLINES_TASK:
            return float(entry["schedule"])
    return 60.0


def detect(now: datetime | None = None) -> Outage | None:
    """The timers' outage that ends now, if their last run is older than /health/ allows;
    recorded once (a second sweep finds the same row)."""
    now = now or timezone.now()
    beat = Heartbeat.objects.filter(name=health.timer_name(health.DEADLINES_TASK)).first()
    if beat is None:
        return None  # never ran: a new service, nothing was running late
    every = timedelta(seconds=deadlines_every())
    if now - beat.at <= 3 * every + health.GRACE:
        return None
    started = beat.at + every
    try:
        with transaction.atomic():
            outage, _ = Outage.objects.get_or_create(
                started_at=started,
                defaults={
                    "ended_at": now,
                    "reason": f"the deadline timers did not run from {started:%Y-%m-%d %H:%M} to {now:%Y-%m-%d %H:%M} UTC",
                },
            )
    except IntegrityError:
        outage = Outage.objects.get(started_at=started)
    return outage


def forgive(now: datetime | None = None) -> dict:
    """Detects an outage of the timers and forgives every outage not yet forgiven: each running
    game's deadlines that ran through it move by its length. Returns counts."""
    detect(now)
    counts = {"outages": 0, "games": 0}
    for outage in Outage.objects.filter(forgiven_at__isnull=True).order_by("started_at"):
        games = Game.objects.filter(status=GameStatus.RUNNING).exclude(deadlines={}).values_list("pk", flat=True)
        failed = False
        for game_id in list(games.iterator()):
            try:
                if desk.forgive_outage(game_id, outage.pk, outage.started_at, outage.seconds, outage.reason):
                    counts["games"] += 1
            except Exception:  # noqa: BLE001 - the others go on; this outage is tried again next sweep
                log.warning("could not forgive outage %s in game %s", outage.pk, game_id, exc_info=True)
                failed = True
        if not failed:
            Outage.objects.filter(pk=outage.pk).update(forgiven_at=timezone.now())
            counts["outages"] += 1
    return counts
