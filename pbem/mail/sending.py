"""Sending the outbox: each notice claimed once with a conditional update, then sent.

A notice goes pending -> sending (claimed: attempts + 1, a lease in next_attempt_at) -> sent.
Two workers cannot both claim it; a worker that dies mid-send leaves a lease that expires, and
the sweep hands the notice out again with the same Message-ID (the only window in which a
player could see it twice, and their mail client folds the copies by Message-ID).
A temporary failure (SMTP down, 4xx) goes back to pending with a growing delay (the periodic
sweep sends it when due: no task waits, and nothing depends on the broker); a permanent
one (5xx, no such user) or too many attempts marks it undeliverable: recorded in the game's
log, the Master of Seals told, and the seat's deadline held (services.suspend_deadline).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import smtplib
from datetime import datetime, timedelta
from typing import Any, cast

from django.core import mail
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.core.mail.backends.smtp import EmailBackend as SMTPBackend
from django.db import connection as db
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext

from pbem.log import eventlog
from pbem.mail import channels, outbound, pipelining
from pbem.models import (
    TURN_NOTICE_KINDS,
    Game,
    GameStatus,
    Notice,
    NoticePreference,
    NoticeStatus,
    PlayerSettings,
    Seat,
)
from pbem.play import desk, languages, outbox, services

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
LEASE = timedelta(minutes=10)
BATCH = 200


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min, … capped at an hour."""
    return timedelta(seconds=min(3600, 30 * 2 ** max(0, attempts - 1)))


def due(game_id: int | None = None):
    now = timezone.now()
    rows = Notice.objects.filter(status=NoticeStatus.PENDING).filter(
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
    )
    fold = outbox.fold_seconds()
    if fold > 0:  # news waits out its fold time: a notice that follows may tell it (superseded_news)
        rows = rows.exclude(kind="news", created_at__gt=now - timedelta(seconds=fold))
    if game_id is not None:
        rows = rows.filter(game_id=game_id)
    return rows.order_by("id")


def send_pending(game_id: int | None = None) -> dict:
    """Sends the due notices (of one game, or all) in batches of BATCH: each batch claimed in
    one statement, its rows read in one query, what its notices read of the log read in three
    (outbound.prefetch), its mail sent over one SMTP connection, and its sends recorded in one
    transaction (record_sent): a constant number of statements a batch. Returns counts by result."""
    counts: dict[str, int] = {}
    while True:
        ids = claim_batch(game_id)
        if not ids:
            break
        for result in send_claimed(ids):
            counts[result] = counts.get(result, 0) + 1
        if len(ids) < BATCH:
            break
    return counts


def claim_batch(game_id: int | None = None, size: int | None = None) -> list[int]:
    """Claims up to `size` due notices at once (oldest first) and returns their ids. Rows another
    sender is claiming are skipped, not waited for (SKIP LOCKED); where the database cannot
    lock rows (SQLite), each is claimed with its own conditional update."""
    size = size or BATCH
    if db.vendor != "postgresql":
        return [i for i in list(due(game_id).values_list("id", flat=True)[:size]) if claim(i)]
    now = timezone.now()
    with transaction.atomic():
        ids = list(due(game_id).select_for_update(skip_locked=True).values_list("id", flat=True)[:size])
        if ids:
            Notice.objects.filter(id__in=ids).update(
                status=NoticeStatus.SENDING, attempts=F("attempts") + 1, next_attempt_at=now + LEASE
            )
    return ids


def send_claimed(ids: list[int]) -> list[str]:
    """Sends notices this process has claimed, over one connection; one result per notice.

    What the batch's notices read is read for all of them at once (outbound.prefetch), and the
    sends are recorded together when the batch is through (record_sent: a few statements in one
    transaction for the whole batch). The price, decided here: a sender that dies between its
    first send and that record leaves up to a batch of notices sent but still claimed, and the
    lease sweep sends them again, with their same Message-IDs (the player's mail client folds the
    copies), where recording each send on its own would resend at most one."""
    results: list[str] = []
    # With the notices, in the same statement: whether their players asked for one mail for all
    # their games ('notices combined').
    combines = Exists(PlayerSettings.objects.filter(email=Lower(OuterRef("to_email")), combined_notices=True))
    notices: dict[int, Notice] = {
        n.pk: n for n in Notice.objects.select_related("game", "seat").annotate(combines=combines).filter(id__in=ids)
    }
    sent: list[tuple[Notice, EmailMessage]] = []
    superseded = superseded_news(list(notices.values()))
    # The superseded news the batch skips, recorded together (one statement where each was one).
    skipped = _skip_superseded({i: later for i, later in superseded.items() if not _unwanted(notices[i])})
    waiting = waiting_answers(list(notices.values()))
    combining = {n.to_email.lower() for n in notices.values() if getattr(n, "combines", False) and n.kind == "turn"}
    with _collector_paused(), mail_connection() as conn, eventlog.shared_loads():
        outbound.prefetch([notices[i] for i in ids if i in notices and i not in superseded])
        # Over SMTP, each message goes out as soon as it is composed, and the answer to its end of
        # data is read once the next one is composed (_Outgoing): the server takes in a message
        # while the next is composed, in this one thread (a thread to send cost a tenth of the
        # sender's CPU in switching between the two). Elsewhere (a backend of another kind)
        # every message of the batch is composed before the first is sent, then they go out back
        # to back: a mail server kept waiting between messages answers each one slower.
        pipe = _Outgoing(conn) if isinstance(conn.connection, SMTPBackend) else None
        ready: list[tuple[int, Notice, EmailMessage, bytes | None]] = []
        try:
            # Composed in the language most of the batch's seats read (outbound.render switches
            # only for a notice in another); what is recorded after the loop, as before it.
            with languages.reading(_usual(notices)):
                for notice_id in ids:
                    notice = notices.get(notice_id)
                    if notice is None:
                        results.append("not_claimed")
                        continue
                    if notice_id in skipped:
                        results.append("skipped")
                        continue
                    result, message = _compose(notice, conn.connection, superseded.get(notice_id), waiting, combining)
                    results.append(result)
                    if message is not None:
                        item = (len(results) - 1, notice, message, _wire(message))
                        if pipe is not None:
                            pipe.put(item)
                        else:
                            ready.append(item)
        finally:
            outcomes = pipe.close() if pipe is not None else []
            try:
                for index, notice, message, data in ready:
                    results[index], went = _transmit(notice, message, conn, data)
                    if went is not None:
                        sent.append((notice, went))
                for index, notice, message, error in outcomes:
                    if error is None:
                        results[index] = "sent"
                        sent.append((notice, message))
                    else:
                        results[index] = _failed(notice, _describe(error), permanent=_permanent(error))
            finally:
                record_sent(sent)  # whatever broke the loop, what went out is recorded
    return results


def _skip_superseded(later: dict[int, int]) -> set[int]:
    """Marks skipped the claimed news notices `later` names ({news id: the notice that tells it and
    more}), as _compose would one by one (_finish), in one statement on PostgreSQL; their ids."""
    if not later:
        return set()
    reasons = {i: f"superseded by notice {by}, which tells it and more" for i, by in later.items()}
    if db.vendor != "postgresql":
        for notice_id, reason in reasons.items():
            Notice.objects.filter(pk=notice_id, status=NoticeStatus.SENDING).update(
                status=NoticeStatus.SKIPPED, next_attempt_at=None, last_error=reason
            )
        return set(reasons)
    with db.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Notice._meta.db_table} AS n SET status = %s, next_attempt_at = NULL, last_error = v.reason "
            "FROM unnest(%s::bigint[], %s::text[]) AS v(id, reason) WHERE n.id = v.id AND n.status = %s",
            [NoticeStatus.SKIPPED, list(reasons), list(reasons.values()), NoticeStatus.SENDING],
        )
    return set(reasons)


def _usual(notices: dict[int, Notice]) -> str:
    """The language most of the batch's seats read: the batch is composed in it (outbound.render
    switches to a notice's own language only where it is another)."""
    counts: dict[str, int] = {}
    for notice in notices.values():
        if notice.seat_id:
            language = languages.of_seat(outbound.seat_of(notice))
            counts[language] = counts.get(language, 0) + 1
    return max(counts, key=counts.__getitem__) if counts else languages.DEFAULT


@contextlib.contextmanager
def _collector_paused():
    """Python's cycle collector paused while a batch is composed and sent: a batch allocates
    enough to set it off a dozen times a notice, and each pass walks the young objects (every
    few passes the whole heap of the worker: Django, the kept menus and pictures) to free almost
    nothing, the batch's garbage being freed by reference counts as it goes. Measured on the
    bench's Elven Castle notices: a tenth of the sender's CPU a notice. On again after the batch
    (unless it was off before: another batch in another thread of the process may have paused
    it, and the last one through turns it on)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


class _Outgoing:
    """Sends the batch's messages over its SMTP connection as they are composed
    (pipelining.Session: each one's final answer read when the next one goes, the envelope
    pipelined where the server allows it); close() returns each message's outcome, for the
    caller to record. A message found unsent with the connection lost before it (the answer to
    the one before it closed it) is sent again once over a new connection."""

    def __init__(self, conn: mail_connection) -> None:
        self.conn = conn
        self.session: pipelining.Session | None = None
        self.outcomes: list[tuple[int, Notice, EmailMessage, Exception | None]] = []

    def put(self, item: tuple[int, Notice, EmailMessage, bytes | None]) -> None:
        index, notice, message, data = item
        if self.conn.down is not None:  # the server is down: each records it, sent later
            self.outcomes.append((index, notice, message, self.conn.down))
            return
        quick = _quick(message, data)
        if quick is None:  # Django's own way, after the answer still owed
            self._settle(self._finish())
            try:
                _send(message, data)
            except Exception as exc:  # noqa: BLE001 - recorded by the caller, as _transmit does
                self._settle([(item, exc)])
                return
            self._record(item, None)
            return
        for attempt in range(2):
            session = self._session()
            if session is None:  # the connection could not be opened again
                self._record(item, self.conn.down or smtplib.SMTPServerDisconnected("no connection"))
                return
            done = session.send(item, *quick)
            again = attempt == 0 and any(t is item and isinstance(o, pipelining.Unsent) for t, o in done)
            self._settle([(t, o) for t, o in done if not (again and t is item)], renew=again)
            if not again:
                return

    def close(self) -> list[tuple[int, Notice, EmailMessage, Exception | None]]:
        self._settle(self._finish())
        return self.outcomes

    def _session(self) -> pipelining.Session | None:
        client = getattr(self.conn.connection, "connection", None)
        if client is None:
            return None
        if self.session is None or self.session.client is not client:
            try:
                self.session = pipelining.Session(client)
            except (smtplib.SMTPException, OSError) as exc:
                self.conn.down = exc
                return None
        return self.session

    def _finish(self) -> list:
        return self.session.finish() if self.session is not None else []

    def _settle(self, done: list, renew: bool = False) -> None:
        """Records outcomes; a connection left in an unknown state (anything but an SMTP answer
        refusing a message) or closed is opened anew (`renew`: in any case), once the answer
        still owed on it is read."""
        for token, outcome in done:
            self._record(token, outcome if isinstance(outcome, Exception) else None)
            renew = renew or (
                isinstance(outcome, Exception)
                and not isinstance(outcome, smtplib.SMTPRecipientsRefused | smtplib.SMTPResponseException)
            )
        client = getattr(self.conn.connection, "connection", None)
        if renew or (done and (client is None or client.sock is None)):
            for token, outcome in self._finish():
                self._record(token, outcome if isinstance(outcome, Exception) else None)
            self.session = None
            self.conn.broken()

    def _record(self, item: tuple, error: Exception | None) -> None:
        index, notice, message, _data = item
        self.outcomes.append((index, notice, message, error))


class mail_connection:
    """One connection to the mail server for a batch: opened at the start (a server that is
    down is tried again by each message, which then records its own failure), opened again
    after a message broke it, closed at the end."""

    def __init__(self) -> None:
        self.connection = mail.get_connection()
        self.down: Exception | None = None  # why the server refused the connection, if it did

    def __enter__(self):
        self.reopen()
        return self

    def __exit__(self, *exc):
        try:
            self.connection.close()
        except Exception:  # noqa: BLE001 - a connection that is gone is closed enough
            log.debug("closing the mail connection failed", exc_info=True)

    def reopen(self) -> None:
        try:
            self.connection.open()
            self.down = None
        except Exception as exc:  # noqa: BLE001 - each message of the batch records it, retried later
            log.info("the mail server did not take a connection", exc_info=True)
            self.down = exc

    def broken(self) -> None:
        self.__exit__()
        self.reopen()


def claim(notice_id: int) -> bool:
    now = timezone.now()
    return (
        Notice.objects.filter(pk=notice_id, status=NoticeStatus.PENDING)
        .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
        .update(status=NoticeStatus.SENDING, attempts=F("attempts") + 1, next_attempt_at=now + LEASE)
        == 1
    )


def release_expired_leases() -> int:
    """Notices whose sender died mid-send go back to pending."""
    return Notice.objects.filter(status=NoticeStatus.SENDING, next_attempt_at__lte=timezone.now()).update(
        status=NoticeStatus.PENDING, next_attempt_at=None
    )


def send_notice(notice_id: int, connection=None) -> str:
    """Sends one notice if it can claim it. Returns sent, skipped, retry, undeliverable or not_claimed."""
    if not claim(notice_id):
        return "not_claimed"
    notice = Notice.objects.select_related("game", "seat").get(pk=notice_id)
    return _send_claimed(notice, connection)


def _send_claimed(notice: Notice, connection=None) -> str:
    """Sends a notice this process has claimed: over `connection` (a mail_connection, or a
    Django backend, or None for a connection of its own), and records it at once."""
    result, message = _deliver(notice, connection)
    if message is None:
        return result

    # The writes after a send in one transaction: one commit (one flush to disk) instead of one
    # per write.
    def record() -> None:
        _finish_sent(notice, message)
        _echo([notice])
        _after_delivery(notice)

    try:
        with transaction.atomic():
            record()
    except Exception:  # noqa: BLE001 - all rolled back: done again write by write, as before
        log.debug("recording notice %s as sent in one transaction failed", notice.pk, exc_info=True)
        record()  # the notice is marked sent first, whatever fails after it
    return result


def _deliver(notice: Notice, connection=None) -> tuple[str, EmailMessage | None]:
    """Renders and sends a claimed notice. Returns its result and, when it went out, the message
    (its send is still to be recorded: _finish_sent and _after_delivery, or record_sent);
    a notice that did not go out is recorded here."""
    shared = connection if isinstance(connection, mail_connection) else None
    later = superseded_news([notice]).get(notice.pk)
    result, message = _compose(notice, shared.connection if shared is not None else connection, later)
    if message is None:
        return result, None
    return _transmit(notice, message, shared)


def _compose(
    notice: Notice,
    connection=None,
    superseded_by: int | None = None,
    waiting: dict | None = None,
    combining: set[str] | None = None,
) -> tuple[str, EmailMessage | None]:
    """The notice's message ("", message), or why it will not go out, recorded (result, None)."""
    if _unwanted(notice):
        _finish(notice, NoticeStatus.SKIPPED, error="the player asked for no news")
        return "skipped", None
    if superseded_by is not None:
        _finish(notice, NoticeStatus.SKIPPED, error=f"superseded by notice {superseded_by}, which tells it and more")
        return "skipped", None
    if combining is None:
        combining = combining_players([notice])
    combines = notice.kind == "turn" and notice.game_id is not None and notice.to_email.lower() in combining
    if combines and Notice.objects.filter(pk=notice.pk, status=NoticeStatus.SKIPPED).exists():
        return "skipped", None  # folded into a mail for several games composed just before it
    try:
        fold_answers(notice, waiting)
        message = outbound.make_message(notice, connection=connection)
        return "", combined(notice, message) if combines else message
    except outbound.NoRecipient as exc:
        # Not silent: a report for the desk that reaches nobody is the operator's to fix.
        log.warning("notice %s (%s) not sent: %s", notice.pk, notice.kind, exc)
        _finish(notice, NoticeStatus.SKIPPED, error=str(exc))
        return "skipped", None
    except Exception as exc:  # a rendering bug: keep the notice, retry later, and say so in the log
        log.exception("could not render notice %s", notice.pk)
        return _failed(notice, f"rendering failed: {exc!r}", permanent=False), None


def combining_players(notices: list[Notice]) -> set[str]:
    """The addresses, among these turn notices', of players who asked for one mail for all their
    games ('notices combined'): one query for a batch, none without a turn notice."""
    emails = {n.to_email.lower() for n in notices if n.kind == "turn" and n.to_email}
    if not emails:
        return set()
    return set(PlayerSettings.objects.filter(email__in=emails, combined_notices=True).values_list("email", flat=True))


def combined(notice: Notice, message: EmailMessage) -> EmailMessage:
    """One mail for all the games awaiting a player who asked for it ('notices combined',
    PlayerSettings.combined_notices): a turn notice carries the player's other games where they
    are awaited now too, each under its number, to be answered in one reply with lines
    prefixed by the game ('#12: 3', '#14: pass', pbem.mail.replies.answer_many). A turn notice
    of another of those games still waiting in the outbox goes in this mail instead of its own
    (claimed first, so a sender that holds it already sends it alone). Text only."""
    game = notice.game
    if game is None:
        return message
    others = [
        seat
        for seat in Seat.objects.select_related("game")
        .filter(email__iexact=notice.to_email, game__status=GameStatus.RUNNING)
        .exclude(game_id=game.pk)
        .order_by("game_id")
        if seat.number in (seat.game.awaited or [])
    ]
    parts = []
    for seat in others:
        unsent = (
            Notice.objects.filter(seat=seat, kind="turn", status__in=(NoticeStatus.PENDING, NoticeStatus.SENDING))
            .order_by("-version")
            .first()
        )
        if unsent is not None and unsent.status == NoticeStatus.PENDING and not claim(unsent.pk):
            unsent = None
        latest = unsent or Notice.objects.filter(seat=seat, kind="turn").order_by("-version").first()
        if latest is None:
            continue
        parts.append((seat.game_id, seat.game.title, outbound.render(latest).text))
        if unsent is not None:
            # Claimed now, or by this batch (the batch then skips it, _compose): it goes in here.
            _finish(unsent, NoticeStatus.SKIPPED, error=f"folded into notice {notice.pk}: one mail for several games")
    if not parts:
        return message
    parts.insert(0, (game.pk, game.title, str(message.body)))
    numbers = ", ".join(f"#{game_id}" for game_id, _t, _x in parts)
    with languages.reading(outbound.language_of(notice)):
        head = outbound.wrap(
            gettext(
                "Your move in %(count)s games (%(numbers)s). Answer them all in one reply: write each line "
                "after its game's number, e.g. '#%(first)s: 3' or '#%(last)s: pass'. Each game's lines "
                "are applied together (all or none for that game); the answer tells each game's outcome."
            )
            % {"count": len(parts), "numbers": numbers, "first": parts[0][0], "last": parts[-1][0]}
        )
        subject = gettext("Your move in %(count)s games:") % {"count": len(parts)}
    sections = [f"{'=' * 20} #{game_id} {title} {'=' * 20}\n\n{text}" for game_id, title, text in parts]
    message.body = head + "\n\n" + "\n\n".join(sections)
    message.subject = subject + " " + ", ".join(f"#{g} {t}" for g, t, _x in parts)
    if isinstance(message, EmailMultiAlternatives):
        message.alternatives = []
    if isinstance(message, outbound.RelatedMessage):
        message.pictures = []
    return message


def _transmit(
    notice: Notice, message: EmailMessage, shared: mail_connection | None, data: bytes | None = None
) -> tuple[str, EmailMessage | None]:
    """Sends a composed message (`data`: its bytes, if written already); a failure is recorded."""
    if shared is not None and shared.down is not None:
        return _failed(notice, _describe(shared.down), permanent=False), None  # the server is down: later
    try:
        _send(message, data)
    except Exception as exc:
        if shared is not None and not isinstance(exc, smtplib.SMTPRecipientsRefused):
            shared.broken()  # the connection may be in any state: the next message gets a fresh one
        return _failed(notice, _describe(exc), permanent=_permanent(exc)), None
    return "sent", message


def _wire(message: EmailMessage) -> bytes | None:
    """The message's bytes by outbound.wire_bytes where _send would use them, else None."""
    if isinstance(message, outbound.RelatedMessage) and isinstance(message.connection, SMTPBackend):
        return outbound.wire_bytes(message)
    return None


def _quick(message: EmailMessage, data: bytes | None = None) -> tuple[str, list[str], bytes] | None:
    """(envelope sender, recipients, the message's bytes by outbound.wire_bytes: `data` when
    written already) where _send takes the quick way over Django's SMTP backend with its
    connection open; None where the message goes through Django's own send."""
    backend = message.connection
    if (
        isinstance(backend, SMTPBackend)
        and backend.connection is not None
        and isinstance(message, outbound.RelatedMessage)
        and message.recipients()
        and all(outbound.SIMPLE_ADDRESS.match(a) for a in [message.from_email, *message.recipients()])
    ):
        data = data if data is not None else outbound.wire_bytes(message)
        if data is not None:
            return message.from_email, message.recipients(), data
    return None


def _send(message: EmailMessage, data: bytes | None = None) -> None:
    """message.send(), or, over Django's SMTP backend with its connection open, what its send
    does (the envelope from the sender and the recipients, the message's bytes) with the bytes
    written by outbound.wire_bytes (`data`, when written already): the same bytes at a third of
    the cost, and the envelope pipelined where the server allows it (pbem.mail.pipelining)."""
    quick = _quick(message, data)
    if quick is not None:
        pipelining.sendmail(message.connection.connection, *quick)  # type: ignore[union-attr]
        return
    message.send(fail_silently=False)


def _sent_fields(message: EmailMessage) -> dict:
    # render() gave the message a str subject (the stubs allow a lazy one too).
    return {
        "message_id": message.extra_headers["Message-ID"],
        "subject": cast(str, message.subject),
        "chain_head": message.extra_headers.get(outbound.HEAD_HEADER, ""),
    }


def _finish_sent(notice: Notice, message: EmailMessage) -> None:
    _finish(notice, NoticeStatus.SENT, **_sent_fields(message))


def record_sent(sent: list[tuple[Notice, EmailMessage]]) -> None:
    """Records the sends of a batch in one transaction: every notice's status, Message-ID and
    head in one statement, the seats' last notices in one, the games' deadlines read in one
    (and the rare deadline to re-arm or restart done on its own). If that transaction fails, the
    same is done notice by notice, each marked sent before anything else is tried for it."""
    if not sent:
        return
    try:
        with transaction.atomic():
            _record_sent_at_once(sent)
            # No savepoint of its own (two statements a batch): if it fails, the whole recording
            # is done again below, notice by notice, and the echo on its own after it.
            channels.echo([notice for notice, _message in sent])
        return
    except Exception:  # noqa: BLE001 - all rolled back: done again notice by notice
        log.info("recording a batch of %s sends in one transaction failed", len(sent), exc_info=True)
    for notice, message in sent:
        _finish_sent(notice, message)
    _echo([notice for notice, _message in sent])
    failed = None
    for notice, _message in sent:
        try:
            _after_delivery(notice)
        except Exception as exc:  # noqa: BLE001 - the others still get theirs; raised below
            log.exception("the bookkeeping after sending notice %s failed", notice.pk)
            failed = failed or exc
    if failed is not None:
        raise failed


def _record_sent_at_once(sent: list[tuple[Notice, EmailMessage]]) -> None:
    now = timezone.now()
    rows = []
    for notice, message in sent:
        fields = _sent_fields(message)
        notice.status, notice.next_attempt_at, notice.sent_at = NoticeStatus.SENT, None, now
        notice.message_id, notice.subject = fields["message_id"], fields["subject"][:300]
        notice.chain_head = fields["chain_head"]
        rows.append(notice)
    seen: list[Notice] = [notice for notice, _message in sent if notice.seat_id]
    newest: dict[int, int] = {}
    for notice in seen:
        if notice.kind in outbound.SEAT_KINDS_MOVING_LAST_NOTICE:
            assert notice.seat_id is not None
            newest[notice.seat_id] = max(newest.get(notice.seat_id, 0), notice.version)
    if db.vendor == "postgresql":
        # Plain statements over a VALUES list: the ORM's CASE per row costs more to build (and to
        # run) than the whole send of a notice.
        with db.cursor() as cursor:
            # The rows as arrays: one text of each statement whatever the batch's size (the driver
            # parses it once, where a VALUES list of as many placeholders was parsed every batch).
            cursor.execute(
                f"UPDATE {Notice._meta.db_table} AS n SET status = %s, next_attempt_at = NULL, sent_at = %s, "
                "message_id = v.message_id, subject = v.subject, chain_head = v.chain_head "
                "FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[]) "
                "AS v(id, message_id, subject, chain_head) WHERE n.id = v.id AND n.status = %s",
                [
                    NoticeStatus.SENT,
                    now,
                    [n.pk for n in rows],
                    [n.message_id for n in rows],
                    [n.subject for n in rows],
                    [n.chain_head for n in rows],
                    NoticeStatus.SENDING,
                ],
            )
            if newest:
                cursor.execute(
                    f"UPDATE {Seat._meta.db_table} AS s SET last_notice_version = v.version "
                    "FROM unnest(%s::bigint[], %s::int[]) AS v(id, version) "
                    "WHERE s.id = v.id AND s.last_notice_version < v.version",
                    [list(newest), list(newest.values())],
                )
    else:
        # Only rows still claimed (status sending), as _finish does one by one.
        Notice.objects.filter(status=NoticeStatus.SENDING).bulk_update(
            rows, ["status", "next_attempt_at", "sent_at", "message_id", "subject", "chain_head"]
        )
        for seat_id, version in newest.items():
            Seat.objects.filter(pk=seat_id, last_notice_version__lt=version).update(last_notice_version=version)
    game_ids = {notice.game_id for notice in seen if notice.game_id is not None}
    games = {
        row["pk"]: row
        for row in Game.objects.filter(pk__in=game_ids).values(
            "pk", "status", "awaited", "deadlines", "deadline_seconds"
        )
    }
    for notice in seen:
        _deadline_after_delivery(notice, games.get(notice.game_id) if notice.game_id is not None else None)


def _unwanted(notice: Notice) -> bool:
    """News to a seat that has asked, since it was written, for a digest or for nothing."""
    return (
        notice.kind == "news"
        and notice.seat_id is not None
        and outbound.seat_of(notice).notice_preference in (NoticePreference.DIGEST, NoticePreference.NONE)
    )


# The notices whose "since your last notice" tells everything a news notice before them told.
TELLING_KINDS = ("turn", "news", "final", "reminder", "digest")


def superseded_news(notices: list[Notice]) -> dict[int, int]:
    """{news notice id: the id of a later notice to the same seat that tells it and more} for
    the news among `notices`, in one query: the later one lists everything since the seat's
    last notice, this news included, so the news need not go out (a practice game's stand-ins
    move at once, and their news would come seconds before the player's own turn notice)."""
    news = [n for n in notices if n.kind == "news" and n.seat_id is not None]
    if not news:
        return {}
    later = (
        Notice.objects.filter(
            seat_id__in={n.seat_id for n in news}, kind__in=TELLING_KINDS, id__gt=min(n.pk for n in news)
        )
        .exclude(status__in=(NoticeStatus.SKIPPED, NoticeStatus.FAILED, NoticeStatus.BOUNCED))
        .values_list("seat_id", "id")
    )
    newest: dict[int | None, int] = {}
    for seat_id, notice_id in later:
        newest[seat_id] = max(newest.get(seat_id, 0), notice_id)
    return {n.pk: newest[n.seat_id] for n in news if newest.get(n.seat_id, 0) > n.pk}


# The answers that may go into a following notice: they confirm, and ask nothing.
FOLDED_CODES = ("applied", "duplicate")


def waiting_answers(notices: list[Notice]) -> dict[int, list[tuple[int, int, dict]]]:
    """{seat id: [(id, version, context)]} of the confirmations to the seats of `notices` that
    wait out their fold time, in one query (none when no notice of them tells anything)."""
    seats = {n.seat_id for n in notices if n.seat_id is not None and n.kind in TELLING_KINDS}
    if not seats:
        return {}
    found: dict[int, list[tuple[int, int, dict]]] = {}
    for seat_id, answer_id, version, context in Notice.objects.filter(
        seat_id__in=seats,
        kind="answer",
        status=NoticeStatus.PENDING,
        next_attempt_at__gt=timezone.now(),
        context__code__in=FOLDED_CODES,
    ).values_list("seat_id", "id", "version", "context"):
        found.setdefault(seat_id, []).append((answer_id, version, context or {}))
    return found


def fold_answers(notice: Notice, waiting: dict[int, list[tuple[int, int, dict]]] | None = None) -> None:
    """Takes into `notice` the confirmations of the seat's replies that wait out their fold time
    (replies.answer holds them back when a notice may follow within seconds; `waiting`, as
    waiting_answers read them for a batch): each is marked skipped, and its text kept in the
    notice's context, so the notice (and a retry of it) shows it. One that another sender has
    claimed meanwhile goes out on its own."""
    if notice.seat_id is None or notice.kind not in TELLING_KINDS:
        return
    if waiting is None:
        waiting = waiting_answers([notice])
    taken = []
    for answer_id, version, context in waiting.get(notice.seat_id, []):
        if version > notice.version:
            continue  # a confirmation of something after this notice: it is not this notice's to tell
        folded = Notice.objects.filter(pk=answer_id, status=NoticeStatus.PENDING).update(
            status=NoticeStatus.SKIPPED, last_error=f"folded into notice {notice.pk}"
        )
        if folded:
            taken.append(context.get("text", ""))
    if taken:
        notice.context = {**(notice.context or {}), "folded": [*(notice.context or {}).get("folded", []), *taken]}
        Notice.objects.filter(pk=notice.pk).update(context=notice.context)


def _finish(
    notice: Notice, status: str, error: str = "", message_id: str = "", subject: str = "", chain_head: str = ""
) -> None:
    updates: dict[str, object] = {"status": status, "next_attempt_at": None}
    if status == NoticeStatus.SENT:
        # The head the mail quoted, kept as an anchor outside the log (pbem/log/anchors.py).
        updates.update(sent_at=timezone.now(), message_id=message_id, subject=subject[:300], chain_head=chain_head)
    if error:
        updates["last_error"] = error
    Notice.objects.filter(pk=notice.pk, status=NoticeStatus.SENDING).update(**updates)


def _failed(notice: Notice, error: str, permanent: bool) -> str:
    if not permanent and notice.attempts < MAX_ATTEMPTS:
        Notice.objects.filter(pk=notice.pk, status=NoticeStatus.SENDING).update(
            status=NoticeStatus.PENDING, next_attempt_at=timezone.now() + backoff(notice.attempts), last_error=error
        )
        return "retry"
    _finish(notice, NoticeStatus.BOUNCED if permanent else NoticeStatus.FAILED, error=error)
    undeliverable(notice, error)
    return "undeliverable"


def _permanent(exc: Exception) -> bool:
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _msg in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPResponseException):
        return exc.smtp_code >= 500
    return False


def _describe(exc: Exception) -> str:
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "; ".join(
            f"{addr}: {code} {msg.decode(errors='replace') if isinstance(msg, bytes) else msg}"
            for addr, (code, msg) in exc.recipients.items()
        )
    return f"{type(exc).__name__}: {exc}"


def _echo(notices: list[Notice]) -> None:
    """The notices that went out, told on the players' other channels too; a failure there
    never touches the mail (the notices are recorded sent already)."""
    try:
        with transaction.atomic():
            channels.echo(notices)
    except Exception:  # noqa: BLE001 - the mail is the authority: logged, and the mail goes on
        log.exception("could not write the channel messages of %s notices", len(notices))


def undeliverable(notice: Notice, reason: str) -> None:
    """A seat's notice could not be delivered: the game's log records it, the Master of Seals is
    told, and the seat's deadline is held. Notices to Masters or to strangers just stay failed.
    The seat's mail is marked failing (the seat page and the table see it) and the player is
    told on their other channels (pbem.mail.channels)."""
    if not notice.seat_id or not notice.game_id or notice.kind == "answer":
        return
    try:
        with transaction.atomic():
            channels.undeliverable(notice)
    except Exception:  # noqa: BLE001 - the bounce's own bookkeeping below goes on regardless
        log.exception("could not mark the mail of notice %s's seat as failing", notice.pk)
    game = Game.objects.filter(pk=notice.game_id).values("status").first()
    if not game or game["status"] not in (GameStatus.RUNNING, GameStatus.PAUSED):
        return
    try:
        desk.suspend_deadline(notice.game_id, outbound.seat_of(notice).number, reason)
    except services.ServiceError:
        log.warning("could not record the bounce of notice %s", notice.pk, exc_info=True)


def _after_delivery(notice: Notice) -> None:
    if not notice.seat_id:
        return
    if notice.kind in outbound.SEAT_KINDS_MOVING_LAST_NOTICE:
        Seat.objects.filter(pk=notice.seat_id, last_notice_version__lt=notice.version).update(
            last_notice_version=notice.version
        )
    # No game id finds no game row (as filter(pk=None) would): nothing to do for the deadline.
    game = (
        Game.objects.filter(pk=notice.game_id)
        .values("status", "awaited", "deadlines", "deadline_seconds", "clock")
        .first()
        if notice.game_id is not None
        else None
    )
    _deadline_after_delivery(notice, game)


def _deadline_after_delivery(notice: Notice, game: Any) -> None:
    """A seat's notice got through: a held deadline runs again, and a turn notice that reached
    the player late restarts it. `game`: its row's status, awaited, deadlines, deadline_seconds."""
    number = outbound.seat_of(notice).number
    if not game or game["status"] != GameStatus.RUNNING or number not in (game["awaited"] or []):
        return
    assert notice.game_id is not None, "its game was found by notice.game_id"
    deadline = (game["deadlines"] or {}).get(str(number))
    if deadline is None:
        # A notice got through to a seat whose deadline was held after a bounce: it runs again.
        desk.rearm_deadline(notice.game_id, number)
    elif notice.kind in TURN_NOTICE_KINDS and (game.get("clock") or _late(deadline, game["deadline_seconds"])):
        # A clocked game's turn: restart_deadline judges it by the turn's own length.
        desk.restart_deadline(notice.game_id, number, "the turn notice reached the player late")


def _late(deadline_iso: str, period: int) -> bool:
    """Less than half the period is left as the turn notice goes out (normally it goes out
    within seconds of the move that made it)."""
    left = (datetime.fromisoformat(deadline_iso) - timezone.now()).total_seconds()
    return left < period / 2


def record_bounce(notice_id: int, reason: str) -> bool:
    """A bounce came back for a notice we had sent. Returns False if it was already recorded."""
    updated = (
        Notice.objects.filter(pk=notice_id)
        .exclude(status=NoticeStatus.BOUNCED)
        .update(status=NoticeStatus.BOUNCED, last_error=reason[:2000])
    )
    if not updated:
        return False
    notice = Notice.objects.select_related("seat").get(pk=notice_id)
    undeliverable(notice, reason)
    return True
