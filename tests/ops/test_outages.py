"""Outages forgiven: when the deadline timers did not run, every deadline running through that
time moves by its length, once, by an event saying why; a player's own silence is no outage."""

from __future__ import annotations

import copy
from datetime import datetime

import pytest

from pbem import tasks
from pbem.models import AbsencePolicy, Event, Game, Outage
from pbem.ops import testclock
from pbem.play import services
from tests.conftest import CAST, deliver
from tests.play.test_clocks import BANK, HOUR, _verified

pytestmark = pytest.mark.django_db


@pytest.fixture
def hourly(settings):
    """The deadline timer runs once an hour (as the tests move the clock)."""
    schedule = copy.deepcopy(settings.CELERY_BEAT_SCHEDULE)
    schedule["pbem-deadlines"]["schedule"] = float(HOUR)
    settings.CELERY_BEAT_SCHEDULE = schedule
    settings.PBEM_NOTICE_DISPATCH = "none"


def _games():
    old = services.create_game("diceduel", CAST[:2], {"rounds": 3}, deadline_seconds=2 * HOUR)  # no clock
    banked = services.create_game("diceduel", CAST[:2], {"rounds": 3}, clock=BANK, absence=AbsencePolicy.MINIMAL)
    for game in (old, banked):
        deliver(game)
    return old, banked


def _deadlines(game) -> dict:
    game.refresh_from_db()
    return {seat: datetime.fromisoformat(iso) for seat, iso in game.deadlines.items()}


def test_a_three_hour_outage_of_the_timers_extends_every_running_deadline_by_three_hours_once(hourly, moved_clock):
    old, banked = _games()
    tasks.run_deadlines()  # a run: the heartbeat
    before = {game.pk: _deadlines(game) for game in (old, banked)}
    testclock.advance(3 * HOUR + HOUR)  # the timers missed three hours beyond their hour
    counts = tasks.run_deadlines()
    assert counts.get("forgiven") == 2
    outage = Outage.objects.get()
    assert outage.seconds == 3 * HOUR and outage.forgiven_at is not None
    for game in (old, banked):
        after = _deadlines(game)
        assert {seat: (after[seat] - at).total_seconds() for seat, at in before[game.pk].items()} == {
            "0": 3 * HOUR,
            "1": 3 * HOUR,
        }
        event = Event.objects.get(game=game, type="pbem.OutageForgiven")
        assert event.payload["seconds"] == 3 * HOUR and "timers did not run" in event.payload["reason"]
    # The old game's 2-hour deadlines fell in the outage: given back, nobody timed out.
    assert not Event.objects.filter(type="pbem.TimedOut").exists()
    # A second sweep adds nothing.
    tasks.run_deadlines()
    testclock.advance(10)
    tasks.run_deadlines()
    assert Event.objects.filter(type="pbem.OutageForgiven").count() == 2
    for game in (old, banked):
        assert all((_deadlines(game)[s] - before[game.pk][s]).total_seconds() == 3 * HOUR for s in ("0", "1"))


def test_an_outage_already_forgiven_in_a_game_is_not_forgiven_there_again(hourly, moved_clock):
    old, _ = _games()
    tasks.run_deadlines()
    testclock.advance(5 * HOUR)
    tasks.run_deadlines()
    outage = Outage.objects.get()
    Outage.objects.filter(pk=outage.pk).update(forgiven_at=None)  # as if the sweep died before marking it
    tasks.run_deadlines()
    assert Event.objects.filter(game=old, type="pbem.OutageForgiven").count() == 1


def test_a_players_own_silence_is_no_outage(hourly, moved_clock):
    _, banked = _games()
    for _hour in range(4 * 24):
        tasks.run_deadlines()
        deliver(banked)
        testclock.advance(HOUR)
    assert not Outage.objects.exists() and not Event.objects.filter(type="pbem.OutageForgiven").exists()
    assert Event.objects.filter(game=banked, type="pbem.TimedOut").count() >= 2  # its deadlines ran out


def test_the_verifier_rederives_a_bank_deadline_forgiven_after_an_outage(hourly, moved_clock):
    _, banked = _games()
    tasks.run_deadlines()
    testclock.advance(4 * HOUR)
    tasks.run_deadlines()
    for _hour in range(12 * 24):
        testclock.advance(HOUR)
        tasks.run_deadlines()
        deliver(banked)
        banked.refresh_from_db()
        if banked.status == "finished":
            break
    assert banked.status == "finished"
    found = _verified(Game.objects.get(pk=banked.pk))
    assert any("re-derived" in fact for fact in found.facts)
