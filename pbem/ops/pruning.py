"""Pruning the outbox and the inbox: no table a hot path reads grows for ever.

Run by the timers (`pbem.tasks.prune`, in CELERY_BEAT_SCHEDULE). Never touches the log: events
are the record and are never deleted (the database refuses anyway).

- Notices that are done (sent, skipped, failed, bounced) and older than PBEM_NOTICE_KEEP_DAYS
  are deleted, except the newest sent notice of each game that quoted a chain head: the log is a
  hash chain, so the newest head that went out covers every event before it, and
  `verify_games` keeps an anchor outside the log for every game. (A reply to a pruned notice
  is still read: its address carries the seat's token, and it is judged on the current state.)
- Inbound messages that reached an end (anything but `received`) and older than
  PBEM_INBOUND_KEEP_DAYS are deleted, their raw mail with them. A copy of such a message
  arriving again is judged afresh: a move already made is stale by then.
- The players' channel messages (pbem/mail/channels.py) that are done, after as long.
- Kept board pictures (BoardPicture, issue 34) older than PBEM_NOTICE_KEEP_DAYS: a notice is
  sent or given up long before, and one composed later draws its picture anew.

Each run deletes at most PER_RUN rows of each table, oldest first; the rest wait for the next.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from pbem.models import BoardPicture, ChannelMessage, InboundMessage, InboundStatus, Notice, NoticeStatus

PER_RUN = 5000
DONE = (NoticeStatus.SENT, NoticeStatus.SKIPPED, NoticeStatus.FAILED, NoticeStatus.BOUNCED)


def prune(now: datetime | None = None) -> dict:
    now = now or timezone.now()
    return {
        "notices": prune_notices(now),
        "inbound": prune_inbound(now),
        "pictures": prune_pictures(now),
        "channel_messages": prune_channel_messages(now),
    }


def prune_notices(now: datetime, limit: int = PER_RUN) -> int:
    before = now - timedelta(days=settings.PBEM_NOTICE_KEEP_DAYS)
    old = (
        Notice.objects.filter(status__in=DONE, created_at__lt=before)
        .order_by("id")
        .values_list("id", "game_id")[:limit]
    )
    rows = list(old)
    if not rows:
        return 0
    games = {game_id for _id, game_id in rows if game_id is not None}
    anchors = set(
        Notice.objects.filter(game_id__in=games, status=NoticeStatus.SENT)
        .exclude(chain_head="")
        .values("game_id")
        .annotate(newest=Max("id"))
        .values_list("newest", flat=True)
    )
    doomed = [notice_id for notice_id, _game in rows if notice_id not in anchors]
    Notice.objects.filter(id__in=doomed).delete()
    return len(doomed)


def prune_inbound(now: datetime, limit: int = PER_RUN) -> int:
    before = now - timedelta(days=settings.PBEM_INBOUND_KEEP_DAYS)
    ids = list(
        InboundMessage.objects.exclude(status=InboundStatus.RECEIVED)
        .filter(received_at__lt=before)
        .order_by("id")
        .values_list("id", flat=True)[:limit]
    )
    InboundMessage.objects.filter(id__in=ids).delete()
    return len(ids)


def prune_pictures(now: datetime, limit: int = PER_RUN) -> int:
    before = now - timedelta(days=settings.PBEM_NOTICE_KEEP_DAYS)
    ids = list(BoardPicture.objects.filter(created_at__lt=before).order_by("id").values_list("id", flat=True)[:limit])
    BoardPicture.objects.filter(id__in=ids).delete()
    return len(ids)


def prune_channel_messages(now: datetime, limit: int = PER_RUN) -> int:
    """The players' channel messages that are done, after PBEM_NOTICE_KEEP_DAYS like notices."""
    before = now - timedelta(days=settings.PBEM_NOTICE_KEEP_DAYS)
    ids = list(
        ChannelMessage.objects.filter(status__in=DONE, created_at__lt=before)
        .order_by("id")
        .values_list("id", flat=True)[:limit]
    )
    ChannelMessage.objects.filter(id__in=ids).delete()
    return len(ids)
