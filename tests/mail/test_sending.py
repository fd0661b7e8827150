"""The outbox: each notice claimed once, retried with backoff, undeliverable ones recorded."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone

from pbem.mail import outbound, sending
from pbem.models import Event, Game, Notice
from pbem.play import desk, services
from tests.conftest import CAST

from .conftest import Sink, at_once, free_port, hand, mail_goes_to, send_all


def test_two_senders_at_once_send_each_notice_once(transactional_db, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.PBEM_NOTICE_DISPATCH = "none"
    mail.outbox = []
    game = services.create_game("diceduel", CAST[:3], {})
    ids = list(Notice.objects.filter(game=game).values_list("id", flat=True))
    assert len(ids) == 3
    results: list[str] = []
    at_once(4, lambda: results.extend(sending.send_notice(i) for i in ids))
    assert sorted(results).count("sent") == 3 and results.count("not_claimed") == 9
    assert sorted(m.to[0] for m in mail.outbox) == sorted(p.email for p in CAST[:3])
    assert len({m.extra_headers["Message-ID"] for m in mail.outbox}) == 3


def test_smtp_down_then_back_each_notice_goes_out_once(table, settings, smtp_sink, monkeypatch):
    dead_port = free_port()
    settings.EMAIL_PORT = dead_port  # nothing listens there: the SMTP server is down
    assert send_all() == {"retry": 2}
    rows = list(Notice.objects.filter(game=table))
    assert {(n.status, n.attempts) for n in rows} == {("pending", 1)}
    assert all(n.next_attempt_at > timezone.now() + timedelta(seconds=20) for n in rows)
    assert "ConnectionRefusedError" in rows[0].last_error
    assert send_all() == {}  # not due yet: backoff
    later = timezone.now() + timedelta(seconds=31)
    monkeypatch.setattr(sending.timezone, "now", lambda: later)
    assert send_all() == {"retry": 2}  # still down: the second wait is longer
    assert all(n.next_attempt_at >= later + timedelta(seconds=59) for n in Notice.objects.filter(game=table))
    settings.EMAIL_PORT = smtp_sink.port  # back up
    monkeypatch.setattr(sending.timezone, "now", lambda: later + timedelta(minutes=2))
    assert send_all() == {"sent": 2}
    assert send_all() == {}
    assert sorted(to[0] for _f, to, _raw in smtp_sink.messages) == ["alice@example.org", "bob@example.org"]


def test_after_too_many_attempts_the_notice_is_undeliverable(table, settings, monkeypatch):
    get_user_model().objects.create_superuser("seals", "master@example.org", "x")
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()
    alice = Notice.objects.get(game=table, seat__number=0)
    Notice.objects.filter(pk=alice.pk).update(attempts=sending.MAX_ATTEMPTS - 1)
    assert sending.send_notice(alice.pk) == "undeliverable"
    alice.refresh_from_db()
    assert alice.status == "failed"
    assert Event.objects.filter(game=table, type="pbem.NoticeBounced", payload__seat=0).exists()
    assert Notice.objects.filter(game=table, kind="bounced", seat=None).exists()


class RefusingSink(Sink):
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("alice@"):
            return "550 5.1.1 <alice@example.org>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"


@pytest.fixture
def refusing_sink(settings):
    sink = RefusingSink()
    controller = mail_goes_to(sink, settings)
    yield sink
    controller.stop()


def test_a_refused_address_is_logged_told_and_holds_the_deadline_until_mail_gets_through(
    table, refusing_sink, mailoutbox
):
    get_user_model().objects.create_superuser("seals", "master@example.org", "x")
    assert send_all() == {"sent": 1, "undeliverable": 1}
    alice = Notice.objects.get(game=table, seat__number=0, kind="turn")
    assert alice.status == "bounced" and "User unknown" in alice.last_error
    bounced = Event.objects.get(game=table, type="pbem.NoticeBounced")
    assert bounced.payload["seat"] == 0 and "User unknown" in bounced.payload["reason"]
    # The deadline is held, also across other players' moves.
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")
    assert "0" not in Game.objects.get(pk=table.pk).deadlines
    assert send_all().get("sent") == 1  # the Master of Seals is told
    told = [m for _f, to, m in refusing_sink.messages if to == ["master@example.org"]]
    assert len(told) == 1 and b"could not be delivered" in told[0]
    # The Master fixes the address; the next notice gets through and the deadline runs again.
    desk.replace_player(table.pk, 0, "Alice", "alice2@example.org", services.SYSTEM, "new address")
    desk.remind_now(table.pk, services.SYSTEM)
    send_all()
    assert "0" in Game.objects.get(pk=table.pk).deadlines
    assert Event.objects.filter(game=table, type="pbem.DeadlineExtended", payload__seat=0).exists()


def test_an_expired_claim_is_released_and_sent_with_the_same_message_id(table, mailoutbox):
    notice = Notice.objects.filter(game=table).first()
    assert sending.claim(notice.pk)  # a worker claimed it, then died
    assert sending.send_notice(notice.pk) == "not_claimed"
    Notice.objects.filter(pk=notice.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    assert sending.release_expired_leases() == 1
    assert sending.send_notice(notice.pk) == "sent"
    notice.refresh_from_db()
    assert notice.attempts == 2 and notice.message_id == outbound.notice_message_id(notice)
    assert notice.message_id.startswith(f"<pbem.n{notice.pk}.v{notice.version}.g{table.pk}.")


def test_news_is_skipped_for_a_player_who_asked_for_nothing_since(table, mailoutbox):
    send_all()
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")
    services.submit(table.pk, 0, "say is anyone there?")  # news for Bob, who waits
    news = Notice.objects.filter(game=table, kind="news", seat__number=1, status="pending")
    assert news.count() == 1
    services.submit(table.pk, 1, "notices none")  # before the news went out
    assert send_all().get("skipped") == 1
    assert news.model.objects.filter(game=table, kind="news", seat__number=1).get().status == "skipped"
    assert not [m for m in mailoutbox if m.to == ["bob@example.org"] and "news" in m.subject]


def test_a_report_for_the_desk_goes_to_pbem_master_email_when_no_master_has_an_address(db, settings, mailoutbox):
    from pbem.mail import outbound
    from pbem.models import Notice

    notice = Notice.objects.create(kind="bounced")  # about no game: a stray bounce
    settings.PBEM_MASTER_EMAIL = ""
    with pytest.raises(outbound.NoRecipient):
        outbound.recipients(notice)
    settings.PBEM_MASTER_EMAIL = "seals-desk@example.org"
    assert outbound.recipients(notice) == ["seals-desk@example.org"]


def test_a_mail_that_went_out_is_recorded_as_sent_even_when_what_follows_the_send_fails(table, mailoutbox, monkeypatch):
    notice = Notice.objects.filter(game=table, status="pending").order_by("id").first()

    def deadline_bookkeeping_fails(notice):
        raise RuntimeError("the deadline bookkeeping failed")

    monkeypatch.setattr(sending, "_after_delivery", deadline_bookkeeping_fails)
    with pytest.raises(RuntimeError, match="bookkeeping"):
        sending.send_notice(notice.pk)
    notice.refresh_from_db()
    assert notice.status == "sent" and notice.message_id == outbound.notice_message_id(notice)
    assert len(mailoutbox) == 1


def test_the_writes_after_a_send_are_done_again_one_by_one_when_their_transaction_fails(table, mailoutbox, monkeypatch):
    notice = Notice.objects.filter(game=table, status="pending").order_by("id").first()
    real, calls = sending._after_delivery, []

    def fails_the_first_time(notice):
        calls.append(notice.pk)
        real(notice)
        if len(calls) == 1:
            raise RuntimeError("a conflict in the first try")

    monkeypatch.setattr(sending, "_after_delivery", fails_the_first_time)
    assert sending.send_notice(notice.pk) == "sent"
    notice.refresh_from_db()
    assert notice.status == "sent" and calls == [notice.pk, notice.pk]
    assert notice.seat.last_notice_version == notice.version
    assert len(mailoutbox) == 1
