"""Anchors outside the database: the chain heads that went out with the notices.

A head is a version and the hash of the event at that version; every notice quotes one (and
carries it in its X-Pbem-Head header). The log is append-only, so a head once true stays true: an
event at that version with another hash means the log was rewritten after the head went out,
even if whoever did it recomputed the whole chain. A player can paste a head, or a whole notice,
into the audit page, the API or `verify_games --head`; the outbox remembers the head of every
notice it sent, so `verify_games` checks those too.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_noop

from pbem.log import chain
from pbem.log.said import Said
from pbem.models import Event, Game, Notice, NoticeStatus


@dataclass(frozen=True)
class HeadCheck:
    version: int
    hash: str
    contained: bool
    found: str | None  # the hash the log holds at that version (None: no such event)
    message: str


def check_head(game: Game, version: int, digest: str, found: str | None = None, looked_up: bool = False) -> HeadCheck:
    """Whether the log of `game` still holds `digest` as the hash of its event `version`."""
    digest = digest.lower()
    if not looked_up:
        found = Event.objects.filter(game_id=game.pk, seq=version).values_list("hash", flat=True).first()
    head = f"{version}:{digest}"
    if found == digest:
        return HeadCheck(
            version,
            digest,
            True,
            found,
            Said(
                gettext_noop(
                    "head %(head)s is in the log: event %(version)s still has that hash, and the log holds every "
                    "event before it unchanged since (each hash covers the one before)"
                ),
                head=f"{head[:24]}…",
                version=version,
            ),
        )
    if found is None:
        message = Said(
            gettext_noop(
                "head %(head)s is not in the log: game #%(game)s has %(events)s events, none numbered %(version)s"
            ),
            head=f"{head[:24]}…",
            game=game.pk,
            events=game.version,
            version=version,
        )
    else:
        message = Said(
            gettext_noop(
                "head %(head)s is not in the log: event %(version)s now has hash %(hash)s, so the log was changed "
                "after that head was given out"
            ),
            head=f"{head[:24]}…",
            version=version,
            hash=f"{found[:16]}…",
        )
    return HeadCheck(version, digest, False, found, message)


def check_heads(game: Game, heads: list[tuple[int, str]]) -> list[HeadCheck]:
    """Each head checked, with one query for all of them."""
    found = dict(Event.objects.filter(game_id=game.pk, seq__in=[v for v, _ in heads]).values_list("seq", "hash"))
    return [check_head(game, version, digest, found.get(version), looked_up=True) for version, digest in heads]


@dataclass(frozen=True)
class MailedHead:
    notice_id: int
    kind: str
    to: str  # the seat's name (never its address: the audit is public), or the Master of Seals
    sent_at: str
    check: HeadCheck

    def describe(self) -> str:
        return Said(
            gettext_noop("the %(kind)s notice #%(notice)s to %(to)s sent %(sent)s"),
            kind=self.kind,
            notice=self.notice_id,
            to=self.to,
            sent=self.sent_at[:16].replace("T", " "),
        )


def mailed_heads(game: Game, newest: int | None = None) -> list[MailedHead]:
    """Every head a sent notice of this game quoted (or the `newest` ones only, oldest first),
    checked against the log."""
    names = dict(game.seats.values_list("id", "name"))
    quoting = Notice.objects.filter(game_id=game.pk, status=NoticeStatus.SENT).exclude(chain_head="")
    values = ("id", "kind", "seat_id", "sent_at", "chain_head")
    if newest is None:
        found = list(quoting.order_by("id").values_list(*values))
    else:
        found = list(quoting.order_by("-id").values_list(*values)[:newest])[::-1]
    rows = [
        (
            notice_id,
            kind,
            names.get(seat_id) or ("a correspondent" if kind == "answer" else "the Master of Seals"),
            when,
            head,
        )
        for notice_id, kind, seat_id, when, head in found
    ]
    heads = []
    for _id, _kind, _to, _sent, text in rows:
        try:
            heads.append(chain.parse_head(text))
        except chain.BadHead:
            heads.append((-1, "0" * 64))  # a head the outbox wrote wrongly: reported as not contained
    checks = check_heads(game, heads)
    return [
        MailedHead(notice_id, kind, to, sent.isoformat() if sent else "", check)
        for (notice_id, kind, to, sent, _text), check in zip(rows, checks, strict=True)
    ]


class NoHead(ValueError):
    """Nothing that reads as a head, or a notice of another game."""


def heads_from_paste(game: Game, text: str) -> list[tuple[int, str]]:
    """The heads in what a player pasted: one VERSION:HASH, or a whole notice (headers and all).
    Raises NoHead with the reason when there is none, or when the notice is about another game."""
    text = (text or "").strip()
    if not text:
        raise NoHead(Said(gettext_noop("Paste a head (VERSION:HASH, as a notice quotes it) or a whole notice.")))
    if len(text) > 200_000:
        raise NoHead(Said(gettext_noop("That is too long to be one notice (at most 200,000 characters).")))
    try:
        return [chain.parse_head(text)]
    except chain.BadHead:
        pass
    heads = chain.heads_in_text(text)
    if not heads:
        raise NoHead(
            Said(
                gettext_noop(
                    'No head found: a notice quotes it as "at version N; the head of its hash chain: <64 '
                    'hexadecimal digits>" (and in its X-Pbem-Head header as N:HASH).'
                )
            )
        )
    others = chain.games_in_text(text) - {game.pk}
    if others and game.pk not in chain.games_in_text(text):
        raise NoHead(
            Said(
                gettext_noop(
                    "That notice is about game #%(other)s, not game #%(game)s: check it on that game's audit page."
                ),
                other=min(others),
                game=game.pk,
            )
        )
    return heads


# The audit page lists this many heads (and mailed heads) a page, so that its cost does not grow
# with the log; older pages are a link away, and /heads.json and the export hold them all.
HEADS_PAGE = 50


def heads_by_version(game: Game, before: int | None = None, limit: int = HEADS_PAGE) -> list[tuple[int, str]]:
    """The head at each version below `before` (default: every version), newest first, at most
    `limit` of them (what a page of the audit page lists)."""
    rows = Event.objects.filter(game_id=game.pk)
    if before is not None:
        rows = rows.filter(seq__lt=before)
    return list(rows.order_by("-seq").values_list("seq", "hash")[:limit])
