"""Deadlines: reminders before, the timeout policy at, absences, digests; all run by beat tasks."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from pbem import tasks
from pbem.log import eventlog
from pbem.models import Event, Game, Notice
from pbem.play import deadlines, services
from pbem.registry import all_games

from .conftest import deliver, hand, send_all
from .replies import reply
from .test_replies import received, text_of


def deadline_of(game, seat: int) -> datetime:
    return datetime.fromisoformat(Game.objects.get(pk=game.pk).deadlines[str(seat)])


def test_reminders_at_half_time_and_six_hours_before_each_once(table, mailoutbox):
    send_all()
    due = deadline_of(table, 0)  # 48 h from now
    assert deadlines.run_deadlines(due - timedelta(hours=30))["reminded"] == 0
    assert deadlines.run_deadlines(due - timedelta(hours=23))["reminded"] == 2  # Alice and Bob, half-time
    assert deadlines.run_deadlines(due - timedelta(hours=22))["reminded"] == 0  # not twice
    assert deadlines.run_deadlines(due - timedelta(hours=5))["reminded"] == 2  # 6 h before
    marks = sorted(Notice.objects.filter(kind="reminder", seat__number=0).values_list("context__mark", flat=True))
    assert marks == ["6h", "half"]
    send_all()
    reminder = received(mailoutbox, "alice@example.org", "reminder")
    assert reminder["Subject"].startswith("Reminder, your move: Dice Duel")
    assert "Deadline:" in text_of(reminder) and "play " in text_of(reminder)


def test_at_the_deadline_the_seat_passes_as_the_rules_allow(table):
    lowest = min(hand(table, 0))
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")
    send_all()
    counts = deadlines.run_deadlines(deadline_of(table, 0) + timedelta(seconds=1))
    assert counts["timed_out"] == 1
    timed_out = Event.objects.get(game=table, type="pbem.TimedOut")
    assert timed_out.payload["seat"] == 0 and timed_out.actor_kind == "system"
    assert Event.objects.get(game=table, type="CardPlayed", payload__seat=0).payload["card"] == lowest


def test_where_no_pass_is_allowed_the_master_of_seals_is_told(table, mailoutbox, monkeypatch):
    get_user_model().objects.create_superuser("seals", "master@example.org", "x")
    Game.objects.filter(pk=table.pk).update(absence_policy="minimal")  # a table that chose no stand-in
    spec = all_games()["diceduel"]
    monkeypatch.setitem(all_games(), "diceduel", dataclasses.replace(spec, timeout=lambda state, seat: None))
    eventlog.cache_clear()  # cached states hold the spec they were loaded with
    when = deadline_of(table, 0) + timedelta(minutes=1)
    send_all()
    assert deadlines.run_deadlines(when)["reported"] == 2
    assert deadlines.run_deadlines(when + timedelta(minutes=1))["reported"] == 0  # told once
    assert Event.objects.filter(game=table, type="pbem.DeadlineMissed").count() == 2
    send_all()
    told = received(mailoutbox, "master@example.org")
    assert "missed the deadline" in text_of(told) and "[Master of Seals]" in told["Subject"]


def test_away_moves_the_deadline_past_the_absence_and_the_table_hears(table, mailoutbox):
    send_all()
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")  # Bob waits now: he hears news
    back = (timezone.now() + timedelta(days=5)).date()
    message = deliver(reply("gmail", received(mailoutbox, "alice@example.org"), f"away until {back.isoformat()}"))
    assert message.status == "applied", message.outcome
    assert deadline_of(table, 0) > datetime.combine(back, datetime.min.time(), tzinfo=timezone.get_current_timezone())
    send_all()
    assert "Alice is away until" in text_of(received(mailoutbox, "bob@example.org", "news"))
    too_long = deliver(
        reply(
            "gmail",
            received(mailoutbox, "alice@example.org"),
            f"away until {(timezone.now() + timedelta(days=400)).date().isoformat()}",
        )
    )
    assert (too_long.status, too_long.error_code) == ("refused", "illegal")
    assert "days of absence left" in too_long.outcome


def test_daily_digest_once_a_day_for_those_who_asked(table, mailoutbox):
    services.submit(table.pk, 1, "notices digest")
    services.submit(table.pk, 0, "say morning all")
    morning = timezone.now().replace(hour=8, minute=0)
    assert deadlines.send_digests(morning.replace(hour=3)) == 0  # before the digest hour
    assert deadlines.send_digests(morning) == 1
    assert deadlines.send_digests(morning + timedelta(hours=2)) == 0
    send_all()
    digest = received(mailoutbox, "bob@example.org", "digest")
    assert "Alice says: morning all" in text_of(digest)
    assert digest["Subject"].startswith("Today's news: Dice Duel")


@pytest.mark.parametrize(
    "task", ["run_deadlines", "send_digests", "sweep_outbox", "sweep_inbound", "poll_imap", "prune"]
)
def test_beat_schedule_names_real_tasks(task, settings):
    names = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert f"pbem.tasks.{task}" in names
    assert getattr(tasks, task).name == f"pbem.tasks.{task}"


def test_beat_installs_the_schedule_in_the_database(transactional_db):
    from django_celery_beat.models import PeriodicTask
    from django_celery_beat.schedulers import DatabaseScheduler

    from config.celery import app

    DatabaseScheduler(app=app, lazy=True).setup_schedule()
    installed = dict(PeriodicTask.objects.values_list("name", "task"))
    assert installed["pbem-deadlines"] == "pbem.tasks.run_deadlines"
    assert installed["pbem-sweep-outbox"] == "pbem.tasks.sweep_outbox"
    assert PeriodicTask.objects.get(name="pbem-sweep-outbox").interval.every == 30
