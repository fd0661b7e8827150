"""The fourth door: poll an IMAP folder (imap-tools), store each new message, then mark it.

Store first, mark after: a crash in between only makes the next poll store the message again,
which the unique Message-ID turns into a no-op.

Which messages are new: where the server keeps keywords of our own (PERMANENTFLAGS has `\\*`,
as Dovecot, Cyrus and most others do), every message without the keyword `PbemStored`, read or
not: a person who opened the shared mailbox in a mail client does not hide a reply from us.
A server that keeps no keywords leaves us the \\Seen flag: we fetch the unread messages, and each
poll says how many read ones it passed over that were never stored (looked up by Message-ID among
the newest CHECK_READ read ones; a warning in the log, and in `manage.py poll_imap`).
Messages are fetched as bytes and not parsed here (imap_tools parses each one as it fetches it,
and a message nested a thousand deep would raise there at every poll, never to be flagged): pbem
reads what it stored, as for every door.
"""

from __future__ import annotations

import hashlib
import logging
import socket
import ssl
import threading
from dataclasses import dataclass

from django.conf import settings
from imap_tools import AND, BaseMailBox, MailBox, MailBoxStartTls, MailBoxUnencrypted
from imap_tools.message import MailMessage

from pbem.doors import inbox
from pbem.mail.inbound import message_id_of
from pbem.models import InboundMessage

log = logging.getLogger(__name__)

BATCH = 100
CHECK_READ = 500
STORED_KEYWORD = "PbemStored"
TIMEOUT_SECONDS = 30  # a server that stops answering fails this poll; the next one tries again


@dataclass
class PollReport:
    stored: int = 0  # new to us
    repeated: int = 0  # stored before (a crash between storing and marking, or another door)
    passed_over: int = 0  # read messages skipped because the server keeps no keywords of ours
    unreadable: int = 0  # empty messages (or NIL bodies): recorded as such, marked, passed
    marking: str = "keyword"  # "keyword" (PbemStored) or "seen" (the server keeps no keywords)

    def __str__(self) -> str:
        text = f"{self.stored} stored, {self.repeated} already stored (marked with {self.marking})"
        if self.unreadable:
            text += f"; {self.unreadable} empty or unreadable message(s) recorded and passed"
        if self.passed_over:
            text += f"; {self.passed_over} read message(s) passed over: this server keeps no keywords"
        return text


class RawMessage(MailMessage):
    """A fetched message kept as its bytes (and uid); nothing parsed."""

    def __init__(self, fetch_data: list) -> None:
        self.raw, self._raw_uid_data, self._raw_flag_data = self._get_message_data_parts(fetch_data)


def connect() -> BaseMailBox:
    host, port, security = settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_PORT, settings.PBEM_IMAP_SECURITY
    box: BaseMailBox
    if security == "ssl":
        box = MailBox(host, port, timeout=TIMEOUT_SECONDS, ssl_context=ssl.create_default_context())
    elif security == "starttls":
        box = MailBoxStartTls(host, port, timeout=TIMEOUT_SECONDS, ssl_context=ssl.create_default_context())
    else:
        box = MailBoxUnencrypted(host, port, timeout=TIMEOUT_SECONDS)
    box.email_message_class = RawMessage
    return box


def keeps_keywords(box: BaseMailBox) -> bool:
    """Whether the selected folder lets us set keywords of our own (RFC 3501 PERMANENTFLAGS \\*)."""
    flags = getattr(box.client, "untagged_responses", {}).get("PERMANENTFLAGS") or []
    return any(b"\\*" in (item if isinstance(item, bytes) else str(item).encode()) for item in flags)


class PollTooLong(Exception):
    """The server held the poll past PBEM_IMAP_POLL_SECONDS (one that trickles its answer a byte
    at a time passes every socket timeout): the connection was cut; the next poll tries again."""


def poll(box: BaseMailBox | None = None) -> PollReport:
    """Stores the folder's messages that are new to us (at most BATCH a call), within
    PBEM_IMAP_POLL_SECONDS: past it the connection is cut (what was stored stays stored)."""
    box = box or connect()
    cut = threading.Event()
    watchdog = threading.Timer(settings.PBEM_IMAP_POLL_SECONDS, _cut, [box, cut])
    watchdog.daemon = True
    watchdog.start()
    try:
        return _poll(box)
    except Exception as exc:
        if cut.is_set():
            log.warning(
                "IMAP %s: the poll took over %ss and was cut", settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_POLL_SECONDS
            )
            raise PollTooLong(f"the IMAP server held the poll past {settings.PBEM_IMAP_POLL_SECONDS}s") from exc
        raise
    finally:
        watchdog.cancel()


def _cut(box: BaseMailBox, cut: threading.Event) -> None:
    sock = getattr(getattr(box, "client", None), "sock", None)
    if sock is not None:
        cut.set()
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _poll(box: BaseMailBox) -> PollReport:
    report = PollReport()
    with box.login(settings.PBEM_IMAP_USER, settings.PBEM_IMAP_PASSWORD, initial_folder=settings.PBEM_IMAP_FOLDER):
        by_keyword = keeps_keywords(box)
        report.marking = "keyword" if by_keyword else "seen"
        criteria = AND(no_keyword=STORED_KEYWORD) if by_keyword else AND(seen=False)
        # One FETCH a message: a reply the server garbles (a body NIL instead of a literal) cannot
        # shift the messages behind it, as it would in one bulk answer read two items at a time.
        for message in box.fetch(criteria, mark_seen=False, limit=BATCH, bulk=False):
            raw = _bytes_of(message)
            if not raw.strip():
                raw = _unreadable(message.uid or "?")
                report.unreadable += 1
            _row, created = inbox.store_raw(raw, "imap")
            report.stored += created
            report.repeated += not created
            if message.uid:  # a fetched message always has one; imap-tools types it optional
                box.flag(message.uid, [STORED_KEYWORD, "\\Seen"] if by_keyword else "\\Seen", True)
        if not by_keyword:
            report.passed_over = _read_but_never_stored(box)
    if report.passed_over or report.unreadable:
        log.warning("IMAP %s/%s: %s", settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_FOLDER, report)
    return report


def _read_but_never_stored(box: BaseMailBox) -> int:
    read = box.uids(AND(seen=True))[-CHECK_READ:]
    if not read:
        return 0
    ids = {
        message_id_of(_bytes_of(message))
        for message in box.fetch(AND(uid=read), headers_only=True, mark_seen=False, bulk=True)
    }
    return len(ids - set(InboundMessage.objects.filter(message_id__in=ids).values_list("message_id", flat=True)))


def _bytes_of(message) -> bytes:
    if isinstance(message, RawMessage) or hasattr(message, "raw"):
        return message.raw or b""
    return inbox.raw_of(message.obj)


def _unreadable(uid: str) -> bytes:
    """What is stored for a message the server gave empty: a record of it (the desk shows it,
    refused as unreadable), with a Message-ID of its own so a second poll does not store it twice."""
    where = f"{settings.PBEM_IMAP_USER}@{settings.PBEM_IMAP_HOST}/{settings.PBEM_IMAP_FOLDER}/{uid}"
    digest = hashlib.sha256(where.encode()).hexdigest()[:24]
    return (
        f"Message-ID: <imap-unreadable-{digest}@{settings.PBEM_MAIL_DOMAIN}>\r\n"
        f"X-Pbem-Unreadable: the IMAP server gave message uid {uid[:20]} empty\r\n\r\n"
    ).encode()
