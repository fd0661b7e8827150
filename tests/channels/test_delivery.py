"""Delivery you can see: a notice that bounced or failed is shown on the seat page, told on the
player's other channels at once, and in the table's news (its shared channel and every seat's
page) within one sweep: "Alice's mail bounces since …", the name and never the address."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from pbem import tasks
from pbem.mail import channels as news
from pbem.mail import sending
from pbem.models import Channel, ChannelMessage, Notice, Seat
from pbem.play import addressing, services
from pbem.play import channels as settings_of
from tests.mail.conftest import mail_goes_to

from .fake import FakeService


class AliceRefused:
    """An SMTP server that refuses alice@ for good (550) and takes the others' mail."""

    def __init__(self):
        self.messages = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("alice@"):
            return "550 5.1.1 <alice@example.org>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


@pytest.fixture
def refusing(settings):
    sink = AliceRefused()
    controller = mail_goes_to(sink, settings)
    yield sink
    controller.stop()


@pytest.fixture
def fake():
    service = FakeService()
    yield service
    service.stop()


def page_of(client, game, number: int) -> str:
    seat = Seat.objects.get(game=game, number=number)
    return client.get(f"/play/{addressing.token_for(seat)}/").content.decode()


def test_a_bounced_notice_is_seen_on_the_seat_pages_her_channel_and_the_tables_within_one_sweep(
    make_game, refusing, fake, client, quiet_limits
):
    get_user_model().objects.create_superuser("seals", "master@example.org", "x")
    game = make_game(2)
    mine = settings_of.add("alice@example.org", f"json://127.0.0.1:{fake.port}/alice", None)
    services.submit(game.pk, 0, f"channel table json://127.0.0.1:{fake.port}/table")
    assert sending.send_pending(game.pk) == {"sent": 1, "undeliverable": 1}
    alice = Seat.objects.get(game=game, number=0)
    assert alice.mail_failing_since is not None and not alice.mail_trouble_told
    # At once: her own page, Bob's page, and a message on her own channel with her seat's link.
    assert "Our mail to you bounces since today" in page_of(client, game, 0)
    bobs = page_of(client, game, 1)
    assert "Alice&#x27;s mail bounces since today." in bobs and "alice@example.org" not in bobs
    told = ChannelMessage.objects.get(channel=mine, kind="bounced")
    assert addressing.seat_url(alice) in told.body and "alice@example.org" not in told.body
    # One sweep: the table's channel hears it (the name, never the address), once.
    counts = tasks.sweep_outbox()
    assert counts["mail_told"] == 1
    said = [r.json() for r in fake.wait_for(3)]
    table = [r["message"] for r in said if "mail bounces" in r["message"]]
    assert table == [f"{game.title} #{game.pk}: Alice's mail bounces since today."]
    assert not any("alice@example.org" in r["message"] for r in said)
    assert any(addressing.seat_url(alice) in r["message"] for r in said)  # her own channel's
    assert "mail_told" not in tasks.sweep_outbox()  # told once
    # The mail is as it was: the bounce recorded as ever, and the Master of Seals told.
    assert Notice.objects.get(game=game, seat=alice, kind="turn").status == "bounced"
    assert Notice.objects.get(game=game, kind="bounced").status == "sent"


def test_since_tuesday_and_through_again(make_game, fake, client, quiet_limits, monkeypatch):
    game = make_game(2)
    services.submit(game.pk, 0, f"channel table json://127.0.0.1:{fake.port}/table")
    now = timezone.now()
    three_days_ago = now - timedelta(days=3)
    Seat.objects.filter(game=game, number=2 - 1).update(
        mail_failing_since=three_days_ago, mail_last_failed_at=three_days_ago, mail_trouble_told=True
    )
    weekday = three_days_ago.strftime("%A")
    assert f"Bob&#x27;s mail bounces since {weekday}." in page_of(client, game, 0)
    # A notice sent after the last failure that stays unbounced for QUIET: it gets through again.
    bob = Seat.objects.get(game=game, number=1)
    Notice.objects.create(game=game, seat=bob, kind="turn", status="sent", sent_at=three_days_ago + timedelta(days=1))
    assert news.sweep() == {"told": 0, "cleared": 1}
    bob.refresh_from_db()
    assert bob.mail_failing_since is None
    assert news.send_pending() == {"sent": 1}
    assert fake.wait_for(1)[0].json()["message"] == f"{game.title} #{game.pk}: Bob's mail gets through again."
    assert "mail bounces" not in page_of(client, game, 0)


def test_a_bounce_report_that_comes_back_later_marks_the_seat_too(make_game, mailoutbox):
    game = make_game(2)
    sending.send_pending(game.pk)
    notice = Notice.objects.get(game=game, seat__number=1, kind="turn")
    assert sending.record_bounce(notice.pk, "550 no such user")
    bob = Seat.objects.get(game=game, number=1)
    assert bob.mail_failing_since is not None and bob.mail_last_failed_at is not None
    assert Channel.objects.count() == 0  # no channel of his: nothing else to tell, nothing fails
