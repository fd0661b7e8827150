"""Telling players on their other channels, and delivery they can see.

The outbox's sender (pbem.mail.sending) calls in here, so the notices stay the one write path:
- `echo(notices)`: notices that went out by mail (a turn, a reminder, a welcome, the end) are
  told on the seat's player's channels (a short text and the seat's link), and a turn or the end
  on the table's shared channel (the public fact only: whose move, no link, no name of a secret);
- `undeliverable(notice)`: a notice that bounced or failed marks the seat's mail as failing
  (`Seat.mail_failing_since`, shown on the seat page) and is told on the player's channels;
- `sweep()` (the outbox sweep, every 30 s): the table's channel hears "Carol's mail bounces since
  Tuesday" (the name, never the address), once, and that it gets through again once a later
  notice went out and stayed unbounced for QUIET.

Each message is a `ChannelMessage` row, claimed once and sent by Celery
(`pbem.tasks.send_channel_messages`, queued on commit; the sweep takes what was not queued), a
failure retried after 30 s, 1 min, 2 min, 4 min (MAX_ATTEMPTS): then the message has failed, the
channel counts it, the player is told by mail at its first failure, and at PAUSE_AFTER failed
messages in a row the channel is paused (and they are told again). Nothing here touches a notice.
"""

from __future__ import annotations

import io
import logging
import re
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from urllib.parse import urlsplit

import apprise
import requests
import urllib3.util.connection
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import dateformat, timezone
from django.utils.translation import gettext as _

from pbem.models import (
    Channel,
    ChannelMessage,
    ChannelStatus,
    Game,
    GameStatus,
    Notice,
    NoticeStatus,
    Seat,
)
from pbem.play import addressing, channels, languages, outbox

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
PAUSE_AFTER = 3
BATCH = 100
LEASE = timedelta(minutes=5)
# A seat's mail counts as getting through again once a notice sent after its last bounce has
# not bounced for this long (a bounce report comes minutes after the send, never at once).
QUIET = timedelta(hours=6)
TASK = "pbem.tasks.send_channel_messages"
ECHOED_KINDS = ("turn", "reminder", "welcome", "final")
SCRUBBED_LOGGERS = ("apprise", "urllib3.connectionpool", "requests")


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min, 4 min … (PBEM_CHANNEL_RETRY_SECONDS the first wait)."""
    first = float(getattr(settings, "PBEM_CHANNEL_RETRY_SECONDS", 30))
    return timedelta(seconds=min(3600, first * 2 ** max(0, attempts - 1)))


# ---------------------------------------------------------------------------------------------
# Making messages
# ---------------------------------------------------------------------------------------------


def echo(notices: list[Notice]) -> int:
    """The channel messages for notices that went out by mail: one statement to find the
    channels, one to write the messages. Returns how many were written."""
    told = [n for n in notices if n.kind in ECHOED_KINDS and n.seat_id and n.game_id]
    if not told:
        return 0
    emails = {n.seat.email.lower() for n in told if n.seat is not None and n.seat.email}
    game_ids = {n.game_id for n in told}
    found = list(
        Channel.objects.filter(status=ChannelStatus.ACTIVE).filter(
            Q(table=False, email__in=emails, game__isnull=True)
            | Q(table=False, email__in=emails, game_id__in=game_ids)
            | Q(table=True, game_id__in=game_ids)
        )
    )
    rows = []
    tables: dict[int, str] = {}  # each table's language, read once
    for notice in told:
        seat = notice.seat
        assert seat is not None and notice.game is not None
        for channel in found:
            if channel.table and channel.game_id == notice.game_id and notice.kind in ("turn", "final"):
                if notice.game.pk not in tables:
                    tables[notice.game.pk] = languages.of_table(notice.game.pk)
                with languages.reading(tables[notice.game.pk]):
                    rows.append(_table_message(channel, notice, seat))
            elif (
                not channel.table and channel.email == seat.email.lower() and channel.game_id in (None, notice.game_id)
            ):
                rows.append(_seat_message(channel, notice, seat))
    return _write(rows)


def _title(game: Game) -> str:
    return f"{game.title or game.kind} #{game.pk}"


def _seat_message(channel: Channel, notice: Notice, seat: Seat) -> ChannelMessage:
    """What a player's own channel says: the kind of notice, the game, the deadline and the
    seat's link (the player's own channel: the link is theirs to hold). Never the board, a
    hand, the codes or the reply address: the mail has those. In the player's language."""
    game = notice.game
    assert game is not None
    with languages.reading(languages.of_seat(seat)):
        title, body = _seat_text(notice, seat, game)
    return ChannelMessage(
        channel=channel,
        notice=notice,
        seat=seat,
        kind=notice.kind,
        title=title,
        body=body,
        dedupe_key=f"c{channel.pk}:n{notice.pk}",
    )


def _seat_text(notice: Notice, seat: Seat, game: Game) -> tuple[str, str]:
    title = {
        "turn": _("Your move: %(game)s"),
        "reminder": _("Reminder, your move: %(game)s"),
        "welcome": _("Your seat: %(game)s"),
        "final": _("Game over: %(game)s"),
    }[notice.kind] % {"game": _title(game)}
    lines = [_("The mail to you has the board and your choices.")]
    deadline = (game.deadlines or {}).get(str(seat.number))
    if deadline and notice.kind != "final":
        lines.append(_("Your deadline: %(when)s.") % {"when": _when(deadline, seat.time_zone)})
    lines.append(_("Your seat: %(url)s") % {"url": addressing.seat_url(seat)})
    return title, "\n".join(lines)


def _table_message(channel: Channel, notice: Notice, seat: Seat) -> ChannelMessage:
    """What the table's shared channel says: public facts only (whose move, the end), no link.
    In the table's language (languages.of_table: the one most of its seats read)."""
    game = notice.game
    assert game is not None
    if notice.kind == "final":
        text, key = _("%(game)s: the game is over.") % {"game": _title(game)}, f"t{channel.pk}:g{game.pk}:end"
    else:
        text = _("%(game)s: %(name)s's move.") % {"game": _title(game), "name": seat.name}
        key = f"t{channel.pk}:g{game.pk}:v{notice.version}:s{seat.number}"
    return ChannelMessage(channel=channel, kind="table", title=_title(game), body=text, dedupe_key=key)


def _write(rows: list[ChannelMessage]) -> int:
    """Writes the messages (a key already written is skipped) and queues their sending once
    the transaction commits."""
    if not rows:
        return 0
    made = ChannelMessage.objects.bulk_create(rows, ignore_conflicts=True)
    transaction.on_commit(_queue)
    return len(made)


def _queue() -> None:
    try:
        outbox.queue_task(TASK)
    except Exception:  # noqa: BLE001 - broker down: the outbox sweep sends them
        log.warning("could not queue the channel messages; the outbox sweep will send them", exc_info=True)


def _when(iso: str, zone_name: str | None) -> str:
    from zoneinfo import ZoneInfo

    try:
        zone = ZoneInfo(zone_name or "UTC")
    except Exception:  # noqa: BLE001 - an unknown zone: UTC, named
        zone = ZoneInfo("UTC")
    moment = datetime.fromisoformat(iso).astimezone(zone)
    return f"{dateformat.format(moment, 'D d M H:i')} {zone.key}"  # day and month in the reader's words


def undeliverable(notice: Notice) -> None:
    """A seat's notice bounced or failed for good: the seat's mail is failing since now (or
    since it first failed), and the player is told on their other channels."""
    if not notice.seat_id or not notice.game_id:
        return
    now = timezone.now()
    Seat.objects.filter(pk=notice.seat_id, mail_failing_since__isnull=True).update(
        mail_failing_since=now, mail_trouble_told=False
    )
    Seat.objects.filter(pk=notice.seat_id).update(mail_last_failed_at=now)
    seat = Seat.objects.select_related("game").get(pk=notice.seat_id)
    game = seat.game
    with languages.reading(languages.of_seat(seat)):
        title = _("Your mail did not arrive: %(game)s") % {"game": _title(game)}
        body = _(
            "A notice of %(game)s could not be delivered to your mail address. Your seat, with the "
            "board and your choices: %(url)s"
        ) % {"game": _title(game), "url": addressing.seat_url(seat)}
    rows = [
        ChannelMessage(
            channel=channel,
            notice=notice,
            seat=seat,
            kind="bounced",
            title=title,
            body=body,
            dedupe_key=f"c{channel.pk}:b{notice.pk}",
        )
        for channel in channels.player_channels(seat.email, game.pk).filter(status=ChannelStatus.ACTIVE)
    ]
    _write(rows)


# ---------------------------------------------------------------------------------------------
# Delivery you can see: the sweep
# ---------------------------------------------------------------------------------------------


def sweep() -> dict:
    """The table hears of a seat whose mail fails (once), and of it getting through again."""
    counts = {"told": 0, "cleared": 0}
    for seat in Seat.objects.select_related("game").filter(
        mail_failing_since__isnull=False, mail_trouble_told=False, game__status__in=_PLAYING
    ):
        _tell_table(seat, partial(trouble_text, seat), ok=False)
        Seat.objects.filter(pk=seat.pk, mail_failing_since=seat.mail_failing_since).update(mail_trouble_told=True)
        counts["told"] += 1
    for seat in _through_again():
        if seat.mail_trouble_told:
            _tell_table(seat, partial(_through_text, seat), ok=True)
        Seat.objects.filter(pk=seat.pk, mail_last_failed_at=seat.mail_last_failed_at).update(
            mail_failing_since=None, mail_last_failed_at=None, mail_trouble_told=False
        )
        counts["cleared"] += 1
    return counts


_PLAYING = (GameStatus.OPEN, GameStatus.RUNNING, GameStatus.PAUSED)


def _through_text(seat: Seat) -> str:
    return _("%(game)s: %(name)s's mail gets through again.") % _names(seat)


def _names(seat: Seat) -> dict:
    return {"game": _title(seat.game), "name": seat.name}


def trouble_text(seat: Seat, with_game: bool = True) -> str:
    """ "Carol's mail bounces since Tuesday": the name and the day, never the address."""
    since = seat.mail_failing_since
    assert since is not None
    text = _("%(name)s's mail bounces since %(day)s.") % {"name": seat.name, "day": day_named(since)}
    return f"{_title(seat.game)}: {text}" if with_game else text


def day_named(moment: datetime) -> str:
    """ "today", "yesterday", a weekday within the week, else the date (UTC)."""
    days = (timezone.now().date() - moment.date()).days
    if days <= 0:
        return _("today")
    if days == 1:
        return _("yesterday")
    if days < 7:
        return [_("Monday"), _("Tuesday"), _("Wednesday"), _("Thursday"), _("Friday"), _("Saturday"), _("Sunday")][
            moment.weekday()
        ]
    return moment.date().isoformat()


def _tell_table(seat: Seat, say: Callable[[], str], ok: bool) -> None:
    """The table's channel hears `say()`, in the table's language."""
    channel = channels.table_channel(seat.game_id)
    if channel is None or channel.status != ChannelStatus.ACTIVE:
        return
    with languages.reading(languages.of_table(seat.game_id)):
        text = say()
    stamp = int((seat.mail_failing_since or timezone.now()).timestamp())
    key = f"t{channel.pk}:mail:s{seat.pk}:{stamp}:{'ok' if ok else 'bad'}"
    _write([ChannelMessage(channel=channel, kind="table", title=_title(seat.game), body=text, dedupe_key=key)])


def _through_again() -> list[Seat]:
    """Seats whose mail failed, to which a notice sent after the last failure has stayed
    unbounced for QUIET."""
    quiet_since = timezone.now() - QUIET
    failing = Seat.objects.select_related("game").filter(mail_last_failed_at__isnull=False)
    return [
        seat
        for seat in failing
        if seat.mail_last_failed_at is not None
        and Notice.objects.filter(
            seat_id=seat.pk, status=NoticeStatus.SENT, sent_at__gt=seat.mail_last_failed_at, sent_at__lte=quiet_since
        ).exists()
    ]


def failing_at_table(game_id: int) -> list[str]:
    """The table's lines for the seat page: whose mail bounces, since when."""
    return [
        trouble_text(seat, with_game=False)
        for seat in Seat.objects.select_related("game").filter(game_id=game_id, mail_failing_since__isnull=False)
    ]


# ---------------------------------------------------------------------------------------------
# Sending
# ---------------------------------------------------------------------------------------------


def send_pending() -> dict:
    counts: dict[str, int] = {}
    while True:
        ids = _claim_batch()
        for message_id in ids:
            result = send_one(message_id)
            counts[result] = counts.get(result, 0) + 1
        if len(ids) < BATCH:
            return counts


def _due():
    now = timezone.now()
    return ChannelMessage.objects.filter(status=NoticeStatus.PENDING).filter(
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
    )


def _claim_batch() -> list[int]:
    now = timezone.now()
    ids = list(_due().order_by("id").values_list("id", flat=True)[:BATCH])
    claimed = []
    for message_id in ids:
        if (
            _due()
            .filter(pk=message_id)
            .update(status=NoticeStatus.SENDING, attempts=F("attempts") + 1, next_attempt_at=now + LEASE)
        ):
            claimed.append(message_id)
    return claimed


def release_expired_leases() -> int:
    return ChannelMessage.objects.filter(status=NoticeStatus.SENDING, next_attempt_at__lte=timezone.now()).update(
        status=NoticeStatus.PENDING, next_attempt_at=None
    )


def send_one(message_id: int) -> str:
    """Sends a claimed message: sent, retry or failed."""
    message = ChannelMessage.objects.select_related("channel").get(pk=message_id)
    channel = message.channel
    if channel.status != ChannelStatus.ACTIVE:
        _finish(message, NoticeStatus.SKIPPED, _("the channel is paused"))
        return "skipped"
    error, permanent = deliver(channel, message.title, message.body)
    if error is None:
        _finish(message, NoticeStatus.SENT)
        Channel.objects.filter(pk=channel.pk).update(
            failures=0, failing_since=None, last_error="", last_sent_at=timezone.now()
        )
        return "sent"
    if not permanent and message.attempts < MAX_ATTEMPTS:
        ChannelMessage.objects.filter(pk=message.pk, status=NoticeStatus.SENDING).update(
            status=NoticeStatus.PENDING, next_attempt_at=timezone.now() + backoff(message.attempts), last_error=error
        )
        outbox.queue_task_later(TASK, backoff(message.attempts).total_seconds())
        return "retry"
    _finish(message, NoticeStatus.FAILED, error)
    channel_failed(channel, message, error)
    return "failed"


def _finish(message: ChannelMessage, status: str, error: str = "") -> None:
    updates: dict = {"status": status, "next_attempt_at": None}
    if status == NoticeStatus.SENT:
        updates["sent_at"] = timezone.now()
    if error:
        updates["last_error"] = error[:300]
    ChannelMessage.objects.filter(pk=message.pk, status=NoticeStatus.SENDING).update(**updates)


def deliver(channel: Channel, title: str, body: str) -> tuple[str | None, bool]:
    """Sends through Apprise. (None, _) when the service took it, else (why, permanent): the
    reason masked (no URL, no token), permanent when the URL is no longer one we send to."""
    try:
        plugin = channels.plugin_for(channel.url)
        channels.check_reachable(plugin)
    except channels.BadChannel as exc:  # refused for good, but a name that does not resolve now
        return str(exc), not isinstance(exc, channels.NotFound)
    timeout = float(getattr(settings, "PBEM_CHANNEL_TIMEOUT", 10))
    plugin.socket_connect_timeout = plugin.socket_read_timeout = timeout
    plugin.request_rate_per_sec = 0  # no throttle: the retries space the attempts
    _guard_redirects()
    _guard_connections()
    _sending.on, _sending.refused = True, None
    scrubbing = _Scrub(channel)
    # What Apprise and urllib3 (at debug level) log of the requests names the URL's secrets.
    loggers = [logging.getLogger(name) for name in SCRUBBED_LOGGERS]
    for logger in loggers:
        logger.addFilter(scrubbing)
    try:
        with apprise.LogCapture(level=logging.WARNING) as said:
            try:
                ok = plugin.notify(body=body, title=title)
            except Exception as exc:  # noqa: BLE001 - a plugin's bug is the channel's failure, retried
                ok, said = False, io.StringIO(f"{type(exc).__name__}")
    finally:
        _sending.on = False
        for logger in loggers:
            logger.removeFilter(scrubbing)
    if ok:
        return None, False
    if _sending.refused:  # the connection found the host resolving inside now: refused for good
        return _sending.refused, True
    lines = said.getvalue().strip().splitlines()
    return scrub(lines[-1] if lines else "", channel), False


_sending = threading.local()


def _guard_redirects() -> None:
    """No redirect is followed while this thread sends a channel's message: Apprise calls
    `requests`, which follows them, and a public host answering "302 Location: http://127.0.0.1/…"
    would lead it past the SSRF check to the service's neighbours. Installed once; other threads
    and other uses of `requests` (while not sending a channel's message) are not affected."""
    original = requests.sessions.Session.get_redirect_target
    if getattr(original, "pbem_guarded", False):
        return

    def guarded(self, response):
        if getattr(_sending, "on", False):
            return None  # the 3xx is the answer: the service did not take the message
        return original(self, response)

    guarded.pbem_guarded = True  # type: ignore[attr-defined]
    requests.sessions.Session.get_redirect_target = guarded  # type: ignore[method-assign]


def _guard_connections() -> None:
    """While this thread sends a channel's message, every connection `requests` (urllib3) opens
    resolves its host once, here, checks each address (channels.checked_addresses) and connects
    to a checked address, never to the name: urllib3 would resolve the name again, and a name
    that answered with a public address at the check may answer 127.0.0.1 now (DNS rebinding).
    TLS still checks the certificate against the name (urllib3 takes it from the URL, not from
    the socket). Installed once; other threads and other uses of urllib3 are not affected."""
    current = urllib3.util.connection.create_connection
    if getattr(current, "pbem_guarded", False):
        return

    def guarded(address, *args, **kwargs):
        if not getattr(_sending, "on", False) or channels.private_allowed():
            return _connect(address, *args, **kwargs)
        host, port = address
        try:
            addresses = channels.checked_addresses(str(host), port)
        except channels.BadChannel as exc:
            if not isinstance(exc, channels.NotFound):
                _sending.refused = str(exc)
            raise OSError(str(exc)) from None  # urllib3 reports it as a failed connection
        failed: OSError | None = None
        for checked in addresses:
            try:
                return _connect((checked, port), *args, **kwargs)
            except OSError as exc:
                failed = exc
        raise failed or OSError("no address to connect to")

    guarded.pbem_guarded = True  # type: ignore[attr-defined]
    urllib3.util.connection.create_connection = guarded


# urllib3's own connector, as it was when this module was imported (the guard calls it with a
# checked address).
_connect = urllib3.util.connection.create_connection


class _Scrub(logging.Filter):
    """Takes the channel's secrets out of every record Apprise logs while it sends (a JSON
    webhook's path, a token in a URL it logs at debug level)."""

    def __init__(self, channel: Channel) -> None:
        super().__init__()
        self.channel = channel

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = scrub(record.getMessage(), self.channel, keep_urls=True), None
        return True


def scrub(text: str, channel: Channel, keep_urls: bool = False) -> str:
    """An error as it may be kept and shown: without the channel's URL or any part of it that
    may be a secret, and without any other URL."""
    text = str(text or _("the service did not take the message"))
    parts = urlsplit(channel.url)
    secrets = [channel.url, parts.netloc, parts.path, parts.query, *re.split(r"[/:@?&=]", channel.url)]
    for secret in sorted((s for s in secrets if s and len(s) >= 6), key=len, reverse=True):
        text = text.replace(secret, "…")
    if keep_urls:
        return text
    text = re.sub(r"\b\w+://\S+", "…", text)
    return text[:300]


def channel_failed(channel: Channel, message: ChannelMessage, error: str) -> None:
    """A message failed after its retries: the channel counts it; the player is told by mail at
    the first failure in a row, and when the channel is paused (at PAUSE_AFTER)."""
    now = timezone.now()
    Channel.objects.filter(pk=channel.pk).update(failures=F("failures") + 1, last_error=error[:300])
    Channel.objects.filter(pk=channel.pk, failing_since__isnull=True).update(failing_since=now)
    channel.refresh_from_db()
    paused = channel.failures >= PAUSE_AFTER and channel.status == ChannelStatus.ACTIVE
    if paused:
        Channel.objects.filter(pk=channel.pk).update(status=ChannelStatus.PAUSED)
    if channel.failures == 1 or paused:
        _mail_about(channel, message, error, paused)


def _failure_text(channel: Channel, error: str, paused: bool) -> str:
    """What the player (or the Master of Seals) is told of a failing channel, in the active language."""
    if paused:
        text = _(
            "Your channel %(shown)s failed %(count)d times in a row (last: %(error)s), so it is paused: "
            "nothing more is sent there. Your mail goes on as before. 'channel resume N' (see 'channels') "
            "or the seat page tries it again."
        )
    else:
        text = _(
            "A message to your channel %(shown)s could not be delivered (%(error)s) after %(attempts)d "
            "tries. Your mail goes on as before; after %(pause)d failures in a row the channel is paused."
        )
    values = {
        "shown": channel.shown,
        "count": channel.failures,
        "error": error,
        "attempts": MAX_ATTEMPTS,
        "pause": PAUSE_AFTER,
    }
    return text % values


def _mail_about(channel: Channel, message: ChannelMessage, error: str, paused: bool) -> None:
    """A notice (kind "channel") to the player, in their language, or to the Master of Seals
    for a table's channel."""
    seat = message.seat
    if channel.table:  # told to the Master of Seals, in the operator's language
        with languages.reading(languages.for_master()):
            text = _failure_text(channel, error, paused)
        Notice.objects.create(game_id=channel.game_id, kind="channel", context={"text": text})
        return
    if seat is None:
        seat = Seat.objects.filter(email__iexact=channel.email).order_by("-game_id").first()
    if seat is None:
        return
    with languages.reading(languages.of_seat(seat)):
        text = _failure_text(channel, error, paused)
    try:
        with transaction.atomic():
            Notice.objects.create(
                game_id=seat.game_id,
                seat=seat,
                to_email=seat.email,
                kind="channel",
                context={"text": text, "channel": channel.pk},
                dedupe_key=f"channel:{channel.pk}:{channel.failures}:{int(timezone.now().timestamp()) // 60}",
            )
    except IntegrityError:
        return
    transaction.on_commit(lambda: outbox.queue_task("pbem.tasks.send_pending_notices", seat.game_id))
