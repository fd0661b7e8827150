"""The IMAP door's rules without a server (tests/mail/test_real_mail_servers.py has the real
Dovecot): which messages are new, how they are marked, what a poll says, which TLS mode is used."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from imap_tools import MailBox, MailBoxStartTls, MailBoxUnencrypted

from pbem.doors import imap
from pbem.models import InboundMessage
from tests.mail.doors import FakeImapMessage, FakeMailBox

RAW = (
    b"From: alice@example.org\r\nTo: play+x@pbem.localhost\r\nSubject: Re: your move\r\n"
    b"Message-ID: <%d@mail.example.org>\r\n\r\nhelp\r\n"
)


class KeywordMailBox(FakeMailBox):
    """A server that keeps its clients' keywords (PERMANENTFLAGS has \\*), as Dovecot does."""

    def __init__(self, raws, seen=()):
        super().__init__(raws)
        self.client = SimpleNamespace(untagged_responses={"PERMANENTFLAGS": [b"(\\Seen \\Deleted \\*)"]})
        self.seen = set(seen)
        self.keywords: set[str] = set()

    def fetch(self, criteria, mark_seen=True, limit=None, bulk=False, headers_only=False):
        assert str(criteria) == f"(UNKEYWORD {imap.STORED_KEYWORD})" and mark_seen is False
        return [m for m in self.messages if m.uid not in self.keywords][:limit]

    def flag(self, uid, flags, value):
        assert flags == [imap.STORED_KEYWORD, "\\Seen"] and value is True
        self.keywords.add(uid)
        self.seen.add(uid)


@pytest.fixture
def imap_settings(settings):
    settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_USER, settings.PBEM_IMAP_PASSWORD = "imap.example.org", "pbem", "pw"
    return settings


def test_a_message_someone_already_read_is_stored_where_the_server_keeps_keywords(imap_settings, db):
    box = KeywordMailBox([RAW % 1, RAW % 2], seen={"1"})
    report = imap.poll(box)
    assert (report.stored, report.repeated, report.marking) == (2, 0, "keyword")
    assert box.keywords == {"1", "2"} and InboundMessage.objects.filter(channel="imap").count() == 2
    assert imap.poll(box).stored == 0  # marked: not fetched again


def test_a_server_without_keywords_says_how_many_read_messages_it_passed_over(imap_settings, db, caplog):
    box = FakeMailBox([RAW % 1, RAW % 2, RAW % 3])
    box.seen = {"1", "2"}  # read in a mail client before any poll
    report = imap.poll(box)
    assert (report.stored, report.marking, report.passed_over) == (1, "seen", 2)
    assert "2 read message(s) passed over" in caplog.text
    box.messages.append(FakeImapMessage("4", RAW % 4))
    assert imap.poll(box).passed_over == 2  # the one it stored itself and marked read is not counted


def test_poll_imap_says_what_it_stored_and_refuses_when_the_door_is_off(imap_settings, db, monkeypatch, capsys):
    box = KeywordMailBox([RAW % 1])
    monkeypatch.setattr(imap, "connect", lambda: box)
    call_command("poll_imap")
    assert (
        "pbem@imap.example.org:993 (ssl) INBOX: 1 stored, 0 already stored (marked with keyword)"
        in capsys.readouterr().out
    )
    imap_settings.PBEM_IMAP_HOST = ""
    with pytest.raises(CommandError, match="the IMAP door is off"):
        call_command("poll_imap")


def test_poll_imap_reports_a_server_it_cannot_reach(imap_settings, monkeypatch):
    def unreachable():
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(imap, "connect", unreachable)
    with pytest.raises(CommandError, match="IMAP pbem@imap.example.org:993 .*Connection refused"):
        call_command("poll_imap")


@pytest.mark.parametrize("mode, kind", [("ssl", MailBox), ("starttls", MailBoxStartTls), ("none", MailBoxUnencrypted)])
def test_the_tls_mode_is_the_one_configured(mode, kind, imap_settings, monkeypatch):
    made = {}

    def recorder(cls):
        def make(*args, **kwargs):
            made["kind"] = (cls, kwargs)
            return SimpleNamespace()  # a box: connect() sets its message class

        return make

    for cls in (MailBox, MailBoxStartTls, MailBoxUnencrypted):
        monkeypatch.setattr(imap, cls.__name__, recorder(cls))
    imap_settings.PBEM_IMAP_SECURITY = mode
    box = imap.connect()
    cls, kwargs = made["kind"]
    assert cls is kind and kwargs["timeout"] == imap.TIMEOUT_SECONDS
    assert box.email_message_class is imap.RawMessage  # fetched as bytes, parsed by the reader
    assert ("ssl_context" in kwargs) == (mode != "none")
