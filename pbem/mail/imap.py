"""The fourth door: poll an IMAP folder (imap-tools), store each new message, then mark it seen.

Store first, flag after: a crash in between only makes the next poll store the message again,
which the unique Message-ID turns into a no-op.
"""

from __future__ import annotations

from django.conf import settings
from imap_tools import AND, MailBox, MailBoxUnencrypted

from .. import inbox

BATCH = 100


def connect():
    host, port = settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_PORT
    if getattr(settings, "PBEM_IMAP_SSL", port == 993):
        return MailBox(host, port)
    return MailBoxUnencrypted(host, port)


def poll(box=None) -> int:
    """Stores the unseen messages of the folder; returns how many were new to us."""
    box = box or connect()
    stored = 0
    with box.login(settings.PBEM_IMAP_USER, settings.PBEM_IMAP_PASSWORD, initial_folder=settings.PBEM_IMAP_FOLDER):
        for message in box.fetch(AND(seen=False), mark_seen=False, limit=BATCH, bulk=True):
            _row, created = inbox.store_raw(inbox.raw_of(message.obj), "imap")
            stored += created
            box.flag(message.uid, "\\Seen", True)
    return stored
