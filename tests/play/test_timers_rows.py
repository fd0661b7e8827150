"""The timers' work list: one row per awaited seat, kept in step with the game row by the
database, indexed by when something is due; a sweep reads only what is due, claims it under a
lease, and queues each reminder and digest once by the row's own state."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from pbem.log import eventlog
from pbem.log.readmodels import rebuild
from pbem.models import DeadlineTimer, Game, Notice, Seat
from pbem.play import deadlines, desk, services
from pbem.play.runner import Actor
from pbem.registry import all_games
from tests.conftest import deliver, hands

ADMIN = Actor("admin")


def rows_of(game) -> dict[int, str]:
    return dict(DeadlineTimer.objects.filter(game=game).values_list("seat", "deadline"))


def deadline_of(game, seat: int) -> datetime:
    return datetime.fromisoformat(Game.objects.get(pk=game.pk).deadlines[str(seat)])


def test_each_awaited_seat_of_a_running_game_has_a_row_with_its_deadline(make_game):
    game = make_game()
    game.refresh_from_db()
    assert rows_of(game) == {int(seat): iso for seat, iso in game.deadlines.items()}
    assert sorted(rows_of(game)) == sorted(game.awaited)


def test_a_fresh_row_is_due_at_the_beginning_of_its_period(make_game):
    game = make_game()
    row = DeadlineTimer.objects.get(game=game, seat=0)
    start = deadline_of(game, 0) - timedelta(seconds=Game.objects.get(pk=game.pk).deadline_seconds)
    assert abs(row.due_at - start) < timedelta(milliseconds=1)  # SQLite's trigger keeps milliseconds
    assert row.reminded_at is None and not row.reported


def test_a_seat_no_longer_awaited_loses_its_row_and_a_new_turn_brings_a_new_one(make_game):
    game = make_game()
    deliver(game)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    game.refresh_from_db()
    assert 0 not in game.awaited
    assert rows_of(game) == {int(seat): iso for seat, iso in game.deadlines.items()}


def test_a_paused_game_has_no_rows_and_its_resume_brings_them_back(make_game):
    game = make_game()
    desk.pause_game(game.pk, ADMIN, "a holiday")
    assert rows_of(game) == {}
    desk.resume_game(game.pk, ADMIN, "back")
    game.refresh_from_db()
    assert rows_of(game) == {int(seat): iso for seat, iso in game.deadlines.items()} != {}


def test_a_row_written_outside_the_append_is_kept_in_step_too(make_game):
    game = make_game()
    Game.objects.filter(pk=game.pk).update(deadlines={}, awaited=[])
    assert rows_of(game) == {}
    rebuild(game)
    game.refresh_from_db()
    assert rows_of(game) == {int(seat): iso for seat, iso in game.deadlines.items()} != {}


def test_an_extended_deadline_replaces_the_row_and_its_reminders_start_again(make_game):
    game = make_game()
    deliver(game)
    due = deadline_of(game, 0)
    assert deadlines.run_deadlines(due - timedelta(hours=23))["reminded"] == 2
    desk.extend_deadline(game.pk, 0, due + timedelta(days=1), ADMIN, "a long weekend")
    row = DeadlineTimer.objects.get(game=game, seat=0)
    assert row.deadline == Game.objects.get(pk=game.pk).deadlines["0"] and row.reminded_at is None


def test_a_sweep_with_nothing_due_reads_no_game_row(make_game):
    for _ in range(3):
        make_game()
    now = timezone.now()
    deadlines.run_deadlines(now)  # the fresh rows' first look: on to their first reminder mark
    with CaptureQueriesContext(connection) as queries:
        counts = deadlines.run_deadlines(now)
    assert counts == {"timed_out": 0, "reported": 0, "reminded": 0, "released": 0, "vacation": 0}
    assert len(queries) <= 4  # the newest row's id, the claim (a transaction around one indexed select)
    assert not any("pbem_game" in q["sql"] for q in queries)


def test_a_sweep_reads_the_same_whatever_the_number_of_games(make_game):
    make_game()
    now = timezone.now()
    deadlines.run_deadlines(now)
    with CaptureQueriesContext(connection) as few:
        deadlines.run_deadlines(now)
    for _ in range(4):
        make_game()
    now = timezone.now()
    deadlines.run_deadlines(now)
    with CaptureQueriesContext(connection) as many:
        deadlines.run_deadlines(now)
    assert len(few) == len(many)


def test_a_reminder_is_queued_once_and_no_insert_fails_for_it(make_game):
    game = make_game()
    deliver(game)
    due = deadline_of(game, 0)
    when = due - timedelta(hours=23)
    assert deadlines.run_deadlines(when)["reminded"] == 2
    with CaptureQueriesContext(connection) as queries:
        assert deadlines.run_deadlines(when)["reminded"] == 0
    assert not any("INSERT" in q["sql"] for q in queries)  # nothing was even tried
    assert Notice.objects.filter(game=game, kind="reminder").count() == 2
    row = DeadlineTimer.objects.get(game=game, seat=0)
    assert row.reminded_at == due - timedelta(hours=24) and row.due_at == due - timedelta(hours=6)


def test_rows_claimed_by_one_sweep_are_not_taken_by_another(make_game):
    game = make_game()
    deliver(game)
    when = deadline_of(game, 0) - timedelta(hours=23)
    claimed = deadlines.claim_due(when, "other-sweep")
    assert {row.seat for row in claimed} == {0, 1}
    assert deadlines.run_deadlines(when)["reminded"] == 0
    assert not Notice.objects.filter(game=game, kind="reminder").exists()


def test_rows_of_a_sweep_that_died_come_due_again_when_its_lease_runs_out(make_game):
    game = make_game()
    deliver(game)
    when = deadline_of(game, 0) - timedelta(hours=23)
    deadlines.claim_due(when, "a-sweep-that-died")
    later = when + deadlines.LEASE + timedelta(seconds=1)
    assert deadlines.run_deadlines(later)["reminded"] == 2


def test_a_reported_deadline_is_done_and_not_read_again(make_game, monkeypatch):
    game = make_game()
    deliver(game)
    Game.objects.filter(pk=game.pk).update(absence_policy="minimal")
    spec = all_games()["diceduel"]
    monkeypatch.setitem(all_games(), "diceduel", dataclasses.replace(spec, timeout=lambda state, seat: None))
    eventlog.cache_clear()  # cached states hold the spec they were loaded with
    when = deadline_of(game, 0) + timedelta(seconds=1)
    assert deadlines.run_deadlines(when)["reported"] == 2
    assert DeadlineTimer.objects.filter(game=game, reported=True, due_at=None).count() == 2
    assert deadlines.claim_due(when + timedelta(days=1), "next") == []


def test_a_seat_whose_turn_notice_has_not_gone_out_is_looked_at_again_next_run(make_game):
    game = make_game()  # the notices stay in the outbox: the seats have not been told
    when = deadline_of(game, 0) + timedelta(seconds=1)
    assert deadlines.run_deadlines(when)["timed_out"] == 0
    deliver(game)
    assert deadlines.run_deadlines(when)["timed_out"] == 2


def test_a_digest_is_recorded_on_the_seat_and_queued_once_a_day(make_game):
    game = make_game()
    services.submit(game.pk, 1, "notices digest")
    services.submit(game.pk, 0, "say morning all")
    morning = timezone.now().replace(hour=8, minute=0)
    assert deadlines.send_digests(morning) == 1
    assert Seat.objects.get(game=game, number=1).last_digest_on == morning.date()
    with CaptureQueriesContext(connection) as queries:
        assert deadlines.send_digests(morning + timedelta(hours=1)) == 0
    assert not any("INSERT" in q["sql"] for q in queries)
    services.submit(game.pk, 0, "say and good night")
    assert deadlines.send_digests(morning + timedelta(days=1)) == 1
    assert Notice.objects.filter(game=game, kind="digest").count() == 2


def test_misses_in_a_row_are_counted_across_pages_of_the_log(make_game, monkeypatch):
    monkeypatch.setattr(deadlines, "MISSES_PAGE", 1)
    game = make_game()
    Game.objects.filter(pk=game.pk).update(absence_policy="minimal")  # no stand-in: a pass at every deadline
    eventlog.cache_clear()  # the cached game holds the policy it was loaded with
    while Notice.objects.filter(game=game, kind="timedout", context__seat=0).count() < 3:
        deliver(game)
        seat = Game.objects.get(pk=game.pk).awaited[0]
        assert deadlines.timeout_seat(game.pk, seat, now=deadline_of(game, seat) + timedelta(seconds=1)) == "passed"
    told = Notice.objects.filter(game=game, kind="timedout", context__seat=0).order_by("id")
    assert [n.context["misses"] for n in told] == [1, 2, 3]


def test_a_run_claims_in_chunks_and_takes_every_due_row(make_game, monkeypatch):
    monkeypatch.setattr(deadlines, "CHUNK", 1)
    game = make_game()
    deliver(game)
    assert deadlines.run_deadlines(deadline_of(game, 0) - timedelta(hours=23))["reminded"] == 2


def test_a_deadline_a_run_sets_waits_for_the_next_run(make_game):
    game = make_game()
    deliver(game)
    far = deadline_of(game, 0) + timedelta(days=30)  # past every deadline the timeouts set, too
    assert deadlines.run_deadlines(far)["timed_out"] == 2
    assert Notice.objects.filter(game=game, kind="timedout").count() == 2


def test_a_mass_timeout_queues_helper_sweeps_for_the_other_workers(make_game, monkeypatch):
    from celery import current_app

    queued = []
    monkeypatch.setattr(deadlines, "CHUNK", 1)
    monkeypatch.setitem(current_app.conf, "task_always_eager", False)
    monkeypatch.setattr(deadlines.outbox, "queue_task", lambda name, *args: queued.append(name))
    game = make_game()
    deliver(game)
    deadlines.run_deadlines(deadline_of(game, 0) - timedelta(hours=23), helpers=3)
    assert queued == ["pbem.tasks.help_with_deadlines"] * 3
