"""Forged bounces: a delivery report is believed only when it proves itself (our signed VERP
address, or a notice Message-ID with its MAC); a held deadline keeps the time that remained, the
hold counts against the seat's absence allowance, and the Master of Seals is told."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from pbem.log import eventlog
from pbem.mail import outbound
from pbem.models import Event, Game, Notice, Seat
from pbem.play import deadlines, desk, services

from ..mail.conftest import deliver, send_all
from ..mail.replies import corpus, reply
from ..mail.test_replies import received

pytestmark = pytest.mark.django_db


@pytest.fixture
def master(db):
    return get_user_model().objects.create_superuser("seals", "master@example.org", "x")


@pytest.fixture
def table(make_game, mailoutbox, master):
    game = make_game(2)
    send_all()
    return game


def deadline_of(game, seat: int = 0) -> datetime | None:
    iso = Game.objects.get(pk=game.pk).deadlines.get(str(seat))
    return datetime.fromisoformat(iso) if iso else None


def held_for(game, notice_mail) -> None:
    """A real bounce of Alice's notice, at its signed VERP address: her deadline is held."""
    notice = Notice.objects.get(pk=int(notice_mail["X-Pbem-Notice"]))
    message = deliver(corpus("bounce", notice_mail, to=outbound.bounce_address(notice)))
    assert message.error_code == "bounce"


def test_a_strangers_report_naming_a_guessed_notice_changes_nothing(table, mailoutbox):
    notice = received(mailoutbox, "alice@example.org")
    guessed = copy.copy(notice)
    row = Notice.objects.get(pk=int(notice["X-Pbem-Notice"]))
    # What a stranger can guess: our Message-ID's shape with sequential numbers, without its MAC.
    del guessed["Message-ID"]
    guessed["Message-ID"] = f"<pbem.n{row.pk}.v{row.version}.g{table.pk}@pbem.localhost>"
    before = Game.objects.get(pk=table.pk)
    message = deliver(corpus("bounce", guessed, to="seals@pbem.localhost", sender="mailer-daemon@evil.example"))
    assert (message.status, message.error_code) == ("ignored", "bounce_unproven")
    assert not Event.objects.filter(game=table, type="pbem.NoticeBounced").exists()
    after = Game.objects.get(pk=table.pk)
    assert (after.version, after.deadlines) == (before.version, before.deadlines)
    assert Notice.objects.get(pk=row.pk).status == "sent"


def test_a_report_with_a_forged_verp_address_changes_nothing(table, mailoutbox):
    notice = received(mailoutbox, "alice@example.org")
    row = Notice.objects.get(pk=int(notice["X-Pbem-Notice"]))
    unsigned = copy.copy(notice)
    del unsigned["Message-ID"]
    unsigned["Message-ID"] = f"<pbem.n{row.pk}.v{row.version}.g{table.pk}@pbem.localhost>"
    forged = f"bounces+n{row.pk}-aaaaaaaa@pbem.localhost"
    message = deliver(corpus("bounce", unsigned, to=forged, message_id="<x1@evil.example>"))
    assert message.error_code != "bounce"
    assert not Event.objects.filter(game=table, type="pbem.NoticeBounced").exists()


def test_a_held_deadline_resumes_with_the_time_that_remained(table, mailoutbox):
    desk.extend_deadline(table.pk, 0, timezone.now() + timedelta(hours=1), services.SYSTEM, "one hour left")
    held_for(table, received(mailoutbox, "alice@example.org"))
    assert deadline_of(table) is None
    hold = Event.objects.filter(game=table, type="pbem.NoticeBounced").get()
    assert 3500 <= hold.payload["remaining"] <= 3600
    # Alice's own next mail gets an answer through: her clock runs again, from the hour she had,
    # not from a fresh 48 hours (which a stalling player could otherwise reset at will).
    deliver(reply("gmail", received(mailoutbox, "alice@example.org"), "board"))
    send_all()
    left = deadline_of(table) - timezone.now()
    assert timedelta(minutes=55) < left <= timedelta(hours=1)


def test_a_hold_counts_against_the_absence_allowance(table, mailoutbox):
    held_for(table, received(mailoutbox, "alice@example.org"))
    desk.rearm_deadline(table.pk, 0)
    alice = Seat.objects.get(game=table, number=0)
    assert alice.away_days_used == 1  # a part of a day counts as a day
    resumed = Event.objects.filter(game=table, type="pbem.DeadlineExtended").latest("seq")
    assert resumed.payload["days_charged"] == 1


def test_a_hold_ends_when_the_allowance_is_used_up_and_the_master_is_told(table, mailoutbox):
    Game.objects.filter(pk=table.pk).update(away_allowance_days=2)
    eventlog.cache_clear()  # changed behind the service's back: no process may hold the old row
    held_for(table, received(mailoutbox, "alice@example.org"))
    send_all()
    told = received(mailoutbox, "master@example.org")
    assert "held with" in told.get_body(preferencelist=("plain",)).get_content()
    assert deadlines.run_deadlines(timezone.now() + timedelta(days=1))["released"] == 0
    assert deadline_of(table) is None
    assert deadlines.run_deadlines(timezone.now() + timedelta(days=2, minutes=1))["released"] == 1
    assert deadline_of(table) is not None
    assert Seat.objects.get(game=table, number=0).away_days_used == 2
    send_all()
    assert any("Alice's deadline runs again" in m.subject for m in mailoutbox if m.to == ["master@example.org"])


def test_a_seat_with_no_allowance_left_is_not_held(table, mailoutbox):
    Seat.objects.filter(game=table, number=0).update(away_days_used=21)
    eventlog.cache_clear()
    before = deadline_of(table)
    held_for(table, received(mailoutbox, "alice@example.org"))
    assert deadline_of(table) == before
