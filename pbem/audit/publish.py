"""The public heads feed, the service's side: the timers append each game's new head to it, and
anyone reads it at /heads.json or GET /api/heads, a page at a time, to mirror it.

Why: a head in a player's own mail catches a rewritten log, but only for that player and only if
they kept the mail; the outbox's copies are in the database the rewriter holds. The feed puts
every game's heads where anyone can copy them, chained entry to entry (the format is
pbem/audit/heads_feed.py), so a mirror that kept one entry's hash sees any later rewrite of what
came before it, and `python -m pbem.verify --heads-feed` holds an exported log to every head the
feed published for its game. The service only appends (the database refuses UPDATE and DELETE,
migration 0014) and reveals nothing a game's own feed does not: a scheme-1 game's heads appear
only once it is over (each would confirm a guess at a hidden payload before, pbem/CHAIN.md).
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import connection, transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.utils import timezone

from pbem.audit import heads_feed
from pbem.models import Game, GameStatus, HeadEntry

PAGE = 1000  # entries per page at most
PER_RUN = 5000  # games published by one run at most; the next run takes the rest
LOCK = 0x70626D68  # pg_advisory_xact_lock key: one publisher at a time ("pbmh")


def publish(now: datetime | None = None) -> int:
    """Appends one entry for each game whose head moved since its last entry; returns how many."""
    now = now or timezone.now()
    at = now.isoformat()
    with transaction.atomic():
        _one_publisher_at_a_time()
        last = HeadEntry.objects.order_by("-n").values_list("n", "entry").first()
        n, prev = last or (0, heads_feed.GENESIS)
        entries = []
        for game_id, version, head in _moved_heads():
            n += 1
            entry = heads_feed.entry_hash(n, game_id, version, head, at, prev)
            entries.append(
                HeadEntry(
                    n=n, game_id=game_id, version=version, head_hash=head, published_at=now, prev=prev, entry=entry
                )
            )
            prev = entry
        HeadEntry.objects.bulk_create(entries)
    return len(entries)


def _one_publisher_at_a_time() -> None:
    """Two runs at once would both number from the same last entry (the primary key would refuse
    the second); the lock makes the second wait instead."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK])


def _moved_heads():
    """(game, version, head) of each game whose hashes are public and whose head is newer than
    its last entry, oldest game first."""
    published = HeadEntry.objects.filter(game_id=OuterRef("pk")).order_by("-version").values("version")[:1]
    shown = Q(chain_scheme__gte=2) | Q(status__in=(GameStatus.FINISHED, GameStatus.ABANDONED))
    return (
        Game.objects.filter(shown, version__gt=0)
        .annotate(published=Subquery(published))
        .filter(Q(published__isnull=True) | Q(version__gt=F("published")))
        .order_by("pk")
        .values_list("pk", "version", "head_hash")[:PER_RUN]
    )


def page(after: int = 0, limit: int = PAGE) -> dict:
    """The entries numbered after `after`, at most `limit` (capped at PAGE), in the feed's format;
    `next_after`: where the next page starts, None at the end."""
    limit = max(1, min(limit, PAGE))
    rows = list(HeadEntry.objects.filter(n__gt=after).order_by("n")[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return {
        "format": heads_feed.FORMAT,
        "format_version": heads_feed.FORMAT_VERSION,
        "entries": [_entry(row) for row in rows],
        "next_after": rows[-1].n if more else None,
    }


def _entry(row: HeadEntry) -> dict:
    return {
        "n": row.n,
        "game": row.game_id,
        "version": row.version,
        "hash": row.head_hash,
        "at": row.published_at.astimezone(UTC).isoformat(),
        "prev": row.prev,
        "entry": row.entry,
    }


def published_heads(game_id: int) -> list[tuple[int, str]]:
    """Every head the feed published for one game (verify_games holds the log to them)."""
    return list(HeadEntry.objects.filter(game_id=game_id).order_by("n").values_list("version", "head_hash"))
