"""Thin Celery adapters: fetch, call the platform, report. All logic lives in the modules they call."""

from __future__ import annotations

import functools
import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from pbem.doors import open_doors, processing
from pbem.mail import channels, sending
from pbem.models import InboundMessage, InboundStatus
from pbem.ops import health, outages, pruning
from pbem.play import deadlines, outbox, standins

log = logging.getLogger(__name__)


def timer(fn):
    """A beat task whose runs /health/ reports: each run, ended well or not, is recorded."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        name = health.timer_name(f"{fn.__module__}.{fn.__name__}")
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            health.record(name, ok=False, detail=f"failed: {type(exc).__name__}: {exc}")
            raise
        health.record(name, detail=str(result))
        return result

    return run


@shared_task(ignore_result=True)
def send_pending_notices(game_id: int | None = None) -> dict:
    """Sends the due notices of one game (all games with None); each claimed before it is sent."""
    return sending.send_pending(game_id)


@shared_task(ignore_result=True)
@timer
def sweep_outbox() -> dict:
    """Beat: what no on-commit dispatch sent (broker or SMTP was down), and expired claims."""
    released = sending.release_expired_leases() + channels.release_expired_leases()
    counts = sending.send_pending(None)
    if released:
        counts["released"] = released
    # The other channels: whose mail fails, told to the table; then what is due on them.
    trouble = channels.sweep()
    counts.update({f"mail_{k}": v for k, v in trouble.items() if v})
    counts.update({f"channel_{k}": v for k, v in channels.send_pending().items()})
    return counts


@shared_task(ignore_result=True)
def send_channel_messages() -> dict:
    """Sends the due messages of the players' other channels (pbem.mail.channels): each claimed
    first, a failure retried later (a task queued with the backoff as its countdown, and the
    outbox sweep)."""
    return channels.send_pending()


@shared_task(ignore_result=True)
def process_inbound(inbound_id: int) -> str:
    """One stored message processed; the notices it causes go out by one sending task (the move's
    and the answer's were two tasks for the same game, the second finding nothing to send)."""
    with outbox.dispatch_together():
        message = processing.process(inbound_id)
    return message.status if message else "missing"


@shared_task(ignore_result=True)
def process_inbound_batch(inbound_ids: list[int]) -> dict:
    """Messages the SMTP listener stored together, one task for all (a publication to the broker
    was a third of the listener's work a message), each processed as process_inbound does, in a
    transaction of its own; one that fails is left "received" for the inbound sweep and the
    others go on. The notices they cause go out by one sending task once the batch is through
    (outbox.dispatch_together: a task a message cost the sender a claim, a read of the batch's
    rows, an SMTP connection and a record of the sends each, 37 ms of CPU a real game's reply),
    a message's notices only if its transaction committed."""
    counts: dict[str, int] = {}
    with outbox.dispatch_together():
        for inbound_id in inbound_ids:
            try:
                message = processing.process(inbound_id)
            except Exception:  # noqa: BLE001 - one message's failure must not hold up the batch's others
                log.exception("processing inbound message %s failed; the sweep will retry it", inbound_id)
                status = "failed"
            else:
                status = message.status if message else "missing"
            counts[status] = counts.get(status, 0) + 1
    return counts


@shared_task(ignore_result=True)
@timer
def sweep_inbound(older_than_seconds: int = 60) -> int:
    """Beat: stored submissions whose task never ran (the broker was down when they came), or
    that a busy game or a database hiccup left for a retry. After PBEM_INBOUND_RETRY_HOURS a
    message still not processed ends, ignored with its reason: every message reaches an end."""
    now = timezone.now()
    retry_until = now - timedelta(hours=getattr(settings, "PBEM_INBOUND_RETRY_HOURS", 48))
    for inbound_id in InboundMessage.objects.filter(
        status=InboundStatus.RECEIVED, received_at__lt=retry_until
    ).values_list("id", flat=True)[:500]:
        processing.give_up(
            inbound_id,
            "gave_up",
            "Not processed: retried for "
            f"{getattr(settings, 'PBEM_INBOUND_RETRY_HOURS', 48)} hours without success. Nothing "
            "was applied.",
            status=InboundStatus.IGNORED,
        )
    ids = list(
        InboundMessage.objects.filter(
            status=InboundStatus.RECEIVED, received_at__lte=now - timedelta(seconds=older_than_seconds)
        )
        .order_by("id")
        .values_list("id", flat=True)[:500]
    )
    for inbound_id in ids:
        processing.process(inbound_id)
    return len(ids)


@shared_task(ignore_result=True)
def play_standins(game_id: int) -> int:
    """After a commit that awaits a seat played by its stand-in: its moves."""
    return standins.play(game_id)


@shared_task(ignore_result=True)
def play_standins_many(game_ids: list[int]) -> int:
    """After a group's commit (a mass timeout) that awaits seats played by their stand-ins, in
    many games: their moves, a round of them in one transaction (standins.play_many)."""
    return standins.play_many(game_ids)


@shared_task(ignore_result=True)
@timer
def run_deadlines() -> dict:
    # First the service's own outage, if the timers were late: its time is given back before
    # any deadline that ran through it is judged.
    forgiven = outages.forgive()
    counts = deadlines.run_deadlines()  # with deadlines.HELPERS helper sweeps when many are due
    if forgiven["games"]:
        counts["forgiven"] = forgiven["games"]
    return counts


@shared_task(ignore_result=True)
def help_with_deadlines() -> dict:
    """Another sweep beside the deadline timer's, while many timers are due."""
    return deadlines.run_deadlines(helpers=0)


@shared_task(ignore_result=True)
@timer
def send_digests() -> int:
    return deadlines.send_digests()


@shared_task(ignore_result=True)
@timer
def prune() -> dict:
    """Beat: done notices and processed inbound mail past their keeping time (never events)."""
    return pruning.prune()


@shared_task(ignore_result=True)
@timer
def publish_heads() -> int:
    """Beat: every game's new chain head appended to the public heads feed (/heads.json)."""
    from pbem.audit import publish

    return publish.publish()


@shared_task(ignore_result=True)
@timer
def poll_imap() -> int:
    """Beat: stores every new message of the IMAP folder (when IMAP settings are given)."""
    if not settings.PBEM_IMAP_HOST:
        return 0
    door = open_doors.imap()
    if not door.on:  # a host without a user or password: meant on, and off
        open_doors.refused(door)
        return 0
    from pbem.doors import imap

    return imap.poll().stored
