"""The fourth door: poll an IMAP folder (imap-tools), store each new message, then mark it seen.

Store first, flag after: a crash in between only makes the next poll store the message again,
which the unique Message-ID turns into a no-op. Messages are fetched as bytes and not parsed
here (imap_tools parses each one as it fetches it, and a message nested a thousand deep would
raise there at every poll, never to be flagged): pbem reads what it stored, as for every door.
"""

from __future__ import annotations

from django.conf import settings
from imap_tools import AND, MailBox, MailBoxUnencrypted
from imap_tools.message import MailMessage

from .. import inbox

BATCH = 100


class RawMessage(MailMessage):
    """A fetched message kept as its bytes (and uid); nothing parsed."""

    def __init__(self, fetch_data: list) -> None:
        self.raw, self._raw_uid_data, self._raw_flag_data = self._get_message_data_parts(fetch_data)


def connect():
    host, port = settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_PORT
    timeout = getattr(settings, "PBEM_IMAP_TIMEOUT", 30)
    box = MailBox(host, port, timeout=timeout) if getattr(settings, "PBEM_IMAP_SSL", port == 993) else \
        MailBoxUnencrypted(host, port, timeout=timeout)
    box.email_message_class = RawMessage
    return box


def poll(box=None) -> int:
    """Stores the unseen messages of the folder; returns how many were new to us."""
    box = box or connect()
    stored = 0
    with box.login(settings.PBEM_IMAP_USER, settings.PBEM_IMAP_PASSWORD, initial_folder=settings.PBEM_IMAP_FOLDER):
        for message in box.fetch(AND(seen=False), mark_seen=False, limit=BATCH, bulk=True):
            raw = getattr(message, "raw", None) or inbox.raw_of(message.obj)
            _row, created = inbox.store_raw(raw, "imap")
            stored += created
            box.flag(message.uid, "\\Seen", True)
    return stored
