"""The four doors (and the Maildir variant of the first), each delivering raw bytes as in production."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import mailbox
import smtplib
import sys
import time
from email import message_from_bytes, policy
from email.utils import getaddresses
from types import SimpleNamespace

from django.core.management import call_command
from django.test import Client

from pbem.doors import imap
from pbem.management.commands.smtpd import make_controller

from .conftest import free_port

DOORS = ["pipe", "maildir", "smtp", "webhook", "imap"]


def recipients_of(raw: bytes) -> list[str]:
    msg = message_from_bytes(raw, policy=policy.default)
    return [a for _n, a in getaddresses([str(v) for v in msg.get_all("To", [])])]


def pipe(raw: bytes, monkeypatch, **_):
    stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="latin-1")
    monkeypatch.setattr(sys, "stdin", stdin)
    call_command("receive_email", recipient=recipients_of(raw)[:1])


def maildir(raw: bytes, tmp_path, **_):
    tmp_path.mkdir(parents=True, exist_ok=True)
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    box.add(raw)
    call_command("receive_email", maildir=str(tmp_path / "Maildir"))
    assert len(box) == 0  # stored, then removed from the Maildir


class SmtpDoor:
    """Our `smtpd` listener, started for the test; mail handed to it as an MTA would."""

    def __init__(self):
        self.port = free_port()
        self.controller = make_controller("127.0.0.1", self.port)
        self.controller.start()

    def send(self, raw: bytes, rcpt: list[str], sender: str = "alice@example.org"):
        with smtplib.SMTP("127.0.0.1", self.port) as client:
            client.sendmail(sender, rcpt, raw)

    def stop(self):
        self.controller.stop()


def smtp(raw: bytes, smtp_door: SmtpDoor, **_):
    smtp_door.send(raw, recipients_of(raw))


def mailgun_signature(key: str) -> dict:
    timestamp, token = str(int(time.time())), hashlib.sha256(str(time.time_ns()).encode()).hexdigest()[:50]
    signature = hmac.new(key.encode(), f"{timestamp}{token}".encode(), hashlib.sha256).hexdigest()
    return {"timestamp": timestamp, "token": token, "signature": signature}


def webhook(raw: bytes, settings, **_):
    """Mailgun's route forward() to a URL ending in "mime": multipart form with body-mime."""
    msg = message_from_bytes(raw, policy=policy.default)
    fields = {
        "recipient": recipients_of(raw)[0],
        "sender": "alice@example.org",
        "from": str(msg["From"]),
        "subject": str(msg["Subject"]),
        "body-mime": raw.decode("utf-8", "replace"),
        **mailgun_signature(settings.ANYMAIL["MAILGUN_WEBHOOK_SIGNING_KEY"]),
    }
    auth = base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    response = Client().post("/mail/anymail/mailgun/inbound_mime/", fields, HTTP_AUTHORIZATION=f"Basic {auth}")
    assert response.status_code == 200, response.content


def webhook_parsed(raw: bytes, settings, **_):
    """Mailgun's "fully parsed" inbound payload (message-headers, body-plain, body-html)."""
    msg = message_from_bytes(raw, policy=policy.default)
    plain = msg.get_body(preferencelist=("plain",))
    rich = msg.get_body(preferencelist=("html",))
    fields = {
        "recipient": recipients_of(raw)[0],
        "sender": "alice@example.org",
        "from": str(msg["From"]),
        "subject": str(msg["Subject"]),
        "message-headers": json.dumps([[k, str(v)] for k, v in msg.items() if k.lower() != "content-type"]),
        "body-plain": plain.get_content() if plain else "",
        "body-html": rich.get_content() if rich else "",
        **mailgun_signature(settings.ANYMAIL["MAILGUN_WEBHOOK_SIGNING_KEY"]),
    }
    auth = base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    response = Client().post("/mail/anymail/mailgun/inbound/", fields, HTTP_AUTHORIZATION=f"Basic {auth}")
    assert response.status_code == 200, response.content


class FakeImapMessage:
    """What `imap.RawMessage` gives: the uid and the bytes as fetched (BODY[])."""

    def __init__(self, uid: str, raw: bytes):
        self.uid = uid
        self.raw = raw


class FakeMailBox:
    """Stands in for imap_tools.MailBox (no IMAP server here): the same calls poll() makes."""

    def __init__(self, raws: list[bytes]):
        self.messages = [FakeImapMessage(str(i), raw) for i, raw in enumerate(raws, start=1)]
        self.seen: set[str] = set()
        self.logins = []
        self.client = SimpleNamespace(untagged_responses={})  # no PERMANENTFLAGS \\*: only \\Seen

    def login(self, user, password, initial_folder="INBOX"):
        self.logins.append((user, initial_folder))
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def fetch(self, criteria, mark_seen=True, limit=None, bulk=False, headers_only=False):
        assert mark_seen is False
        if str(criteria) == "(UNSEEN)":
            return [m for m in self.messages if m.uid not in self.seen][:limit]
        assert str(criteria).startswith("(UID ")  # the read ones, to count those never stored
        return [m for m in self.messages if m.uid in str(criteria)[5:-1].split(",")][:limit]

    def uids(self, criteria):
        assert str(criteria) == "(SEEN)"
        return sorted(self.seen)

    def flag(self, uid, flag, value):
        assert flag == "\\Seen" and value is True  # a server without keywords of our own
        self.seen.add(uid)


def imap_door(raw: bytes, settings, **_):
    settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_USER = "imap.example.org", "pbem"
    box = FakeMailBox([raw])
    imap.poll(box)
    assert box.seen == {"1"} and box.logins == [("pbem", "INBOX")]
    assert imap.poll(box).stored == 0  # seen: not fetched again


DELIVER = {"pipe": pipe, "maildir": maildir, "smtp": smtp, "webhook": webhook, "imap": imap_door}
