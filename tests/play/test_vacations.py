"""Vacations that accrue (issue 31): each seat earns days per month of play up to a maximum, takes
them with 'away until DATE' (or the seat page's button) within the table's limits, and the
vacation switches on by itself at a deadline the seat would miss; each absence is a `pbem.Absent`
event the table hears of, and the offline verifier re-derives it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from pbem.audit import export, verify
from pbem.log import clocks, eventlog
from pbem.models import AbsencePolicy, Event, Game, Seat
from pbem.ops import testclock
from pbem.play import addressing, deadlines, services
from pbem.registry import get_game
from tests.conftest import CAST, deliver

HOUR, DAY = 3600, 86400
VACATION = {"per_month": 3, "max": 6, "absences": 2, "longest": 4}
CLOCK = {"kind": "fixed", "period": 2 * DAY, "vacation": VACATION}
T0 = datetime.fromisoformat("2030-01-01T00:00:00+00:00")


def _game(vacation=VACATION):
    return services.create_game(
        "diceduel", CAST[:2], {"rounds": 3}, clock=CLOCK | {"vacation": vacation}, absence=AbsencePolicy.MINIMAL
    )


def _meta(**seat_state) -> dict:
    meta = {"clock": CLOCK, "clocks": {}, "vacation": {}, "vacation_since": T0.isoformat()}
    if seat_state:
        meta["vacation"]["0"] = seat_state
    return meta


def _day_after(days: int) -> str:
    return (testclock.now() + timedelta(days=days)).date().isoformat()


def _verified(game) -> verify.Findings:
    game.refresh_from_db()
    found = verify.verify_bytes(json.dumps(export.document(game)).encode(), spec=get_game("diceduel"))
    assert found.ok, found.problems
    return found


def test_a_seat_starts_with_a_months_days_and_earns_per_month_days_per_30_days_of_play_up_to_its_max():
    meta = _meta()
    assert clocks.vacation_at(meta, 0, T0)["left"] == 3 * DAY
    assert clocks.vacation_at(meta, 0, T0 + timedelta(days=10))["left"] == 4 * DAY
    assert clocks.vacation_at(meta, 0, T0 + timedelta(days=30))["left"] == 6 * DAY
    assert clocks.vacation_at(meta, 0, T0 + timedelta(days=300))["left"] == 6 * DAY  # never above max


def test_days_taken_are_gone_and_accrual_goes_on_from_the_absence():
    taken = clocks.absence(_meta(), 0, T0, T0 + timedelta(days=2))
    assert taken["seconds"] == 2 * DAY and taken["left"] == DAY and taken["taken"] == 1
    meta = _meta()
    clocks.apply(meta, "Absent", taken)
    # Nothing earned while away (days 0-2), a tenth of a day a day after.
    assert clocks.vacation_at(meta, 0, T0 + timedelta(days=2))["left"] == DAY
    assert clocks.vacation_at(meta, 0, T0 + timedelta(days=12))["left"] == 2 * DAY


def test_a_table_chooses_its_vacation_and_a_bad_one_is_refused_with_why(db):
    for vacation, says in [
        ({"per_month": 3}, "needs its max"),
        (VACATION | {"max": 1}, "at least its per_month"),
        (VACATION | {"absences": -1}, "between 0"),
        (VACATION | {"per_month": "lots"}, "whole number"),
        (VACATION | {"sabbatical": 1}, "has no sabbatical"),
    ]:
        with pytest.raises(services.ServiceError, match=says):
            _game(vacation)
    assert Game.objects.count() == 0


def test_away_until_takes_days_of_vacation_and_the_table_hears_of_it_with_its_end(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    deliver(game)
    before = datetime.fromisoformat(Game.objects.get(pk=game.pk).deadlines["0"])
    services.submit(game.pk, 0, f"away until {_day_after(1)}")
    absent = Event.objects.get(game=game, type="pbem.Absent")
    assert absent.visible_to is None  # the whole table sees it: never a secret desk action
    until = datetime.fromisoformat(absent.payload["until"])
    assert absent.payload["seconds"] == int((until - absent.created_at).total_seconds())
    assert absent.payload["left"] == 3 * DAY - absent.payload["seconds"] and not absent.payload["auto"]
    game.refresh_from_db()
    # Alice's running turn waits for her: its deadline moves by the absence.
    assert datetime.fromisoformat(game.deadlines["0"]) - before == timedelta(seconds=absent.payload["seconds"])
    assert Seat.objects.get(game=game, number=0).away_until == until
    bob = services.submit(game.pk, 1, "history 3").answers[0]
    assert "Alice is away until" in bob and "vacation left" in bob
    _verified(game)


def test_an_absence_longer_than_the_vacation_left_is_refused_and_changes_nothing(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game(VACATION | {"longest": 10})
    version = Game.objects.get(pk=game.pk).version
    with pytest.raises(services.CommandRejected, match="3 days of vacation left"):
        services.submit(game.pk, 0, f"away until {_day_after(5)}")
    assert Game.objects.get(pk=game.pk).version == version


def test_a_table_limits_how_many_absences_a_player_takes_in_a_game(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game(VACATION | {"absences": 1})
    services.submit(game.pk, 0, f"away until {_day_after(0)}")
    services.submit(game.pk, 0, "back")
    with pytest.raises(services.CommandRejected, match="allows 1 absences"):
        services.submit(game.pk, 0, f"away until {_day_after(0)}")


def test_a_table_limits_how_long_one_absence_lasts(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game(VACATION | {"longest": 1, "per_month": 6})
    with pytest.raises(services.CommandRejected, match="at most 1 days at once"):
        services.submit(game.pk, 0, f"away until {_day_after(3)}")


def test_back_early_gives_the_unused_vacation_back(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    deliver(game)
    services.submit(game.pk, 0, f"away until {_day_after(1)}")
    testclock.advance(HOUR)
    outcome = services.submit(game.pk, 0, "back")
    assert "given back" in outcome.applied[0]
    back = Event.objects.get(game=game, type="pbem.Back").payload
    state = eventlog.load(Game.objects.get(pk=game.pk)).state
    assert state["meta"]["vacation"]["0"]["until"] is None
    assert back["left"] >= 3 * DAY - HOUR - 60  # only the hour away was spent
    assert Seat.objects.get(game=game, number=0).away_until is None
    _verified(game)


def test_vacation_switches_on_by_itself_at_a_deadline_while_days_remain(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    deliver(game)
    timeouts: list[int] = []
    for hour in range(1, 24 * 9):
        testclock.advance(HOUR)
        deadlines.run_deadlines()
        deliver(game)
        if not timeouts and Event.objects.filter(game=game, type="pbem.TimedOut").exists():
            timeouts.append(hour)
            break
    autos = [e.payload for e in Event.objects.filter(game=game, type="pbem.Absent").order_by("seq")]
    assert autos and all(p["auto"] for p in autos)
    # Both seats: 2 days of the clock, then 3 days of vacation and what the 2 days of play earned
    # (0.2 days: time away earns nothing), a day at a time, before the first timeout.
    assert timeouts == [48 + 72 + 5]
    assert {p["seat"] for p in autos} == {0, 1}
    assert all(p["seconds"] <= DAY for p in autos)
    # When it timed out, the seat had no vacation left worth a minute.
    timed = Event.objects.filter(game=game, type="pbem.TimedOut").first()
    meta = eventlog.load(Game.objects.get(pk=game.pk), at=timed.seq - 1).state["meta"]
    assert clocks.vacation_at(meta, timed.payload["seat"], timed.created_at)["left"] < clocks.AUTO_MIN
    _verified(game)


def test_a_forged_absence_fails_the_verifier(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    deliver(game)
    services.submit(game.pk, 0, f"away until {_day_after(1)}")
    game.refresh_from_db()
    doc = export.document(game)
    for ev in doc["events"]:
        if ev["type"] == "pbem.Absent":
            ev["payload"]["left"] += 5 * DAY  # more vacation than the table gives
    problems, _ = clocks.check(
        [(e["seq"], e["type"], e["payload"], datetime.fromisoformat(e["created_at"])) for e in doc["events"]]
    )
    assert any("its vacation says" in p for p in problems)


def test_the_seat_page_button_takes_a_vacation(
    db, settings, client, quiet_limits, moved_clock, django_capture_on_commit_callbacks
):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    seat = Seat.objects.get(game=game, number=0)
    page = f"/play/{addressing.token_for(seat)}/"
    assert b'id="vacation"' in client.get(page).content
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{page}away", {"last_day": _day_after(1)})
    assert response.status_code == 302
    assert Event.objects.filter(game=game, type="pbem.Absent").exists()


@pytest.mark.parametrize(
    "field, value",
    [("seconds", "lots"), ("left", -DAY), ("auto", "yes"), ("until", "next week"), ("holiday", True)],
)
def test_an_absence_the_log_format_does_not_allow_is_refused_before_any_check(db, settings, moved_clock, field, value):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    deliver(game)
    services.submit(game.pk, 0, f"away until {_day_after(1)}")
    _verified(game)  # as written, it holds
    doc = export.document(game)
    for ev in doc["events"]:
        if ev["type"] == "pbem.Absent":
            ev["payload"][field] = value
    found = verify.verify_bytes(json.dumps(doc).encode(), spec=get_game("diceduel"))
    assert not found.ok
    assert any("breaks the format" in p and field in p for p in found.problems), found.problems


def test_a_table_made_on_the_web_form_chooses_its_vacations(
    client, db, quiet_limits, django_capture_on_commit_callbacks
):
    form = {
        "kind": "diceduel",
        "title": "Slow duel",
        "invitees": "Alice <alice@example.org>\nbob@example.org",
        "deadline_hours": 48,
        "notices": "turn",
        "opt_rounds": 2,
        "vacation_per_month": 2,
        "vacation_max": 10,
        "vacation_absences": 3,
        "vacation_longest": 5,
    }
    assert 'name="vacation_per_month"' in client.get("/games/new/", {"kind": "diceduel"}).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post("/games/new/?kind=diceduel", form).status_code == 302
    game = Game.objects.get(title="Slow duel")
    assert game.clock == {
        "kind": "fixed",
        "period": 48 * HOUR,
        "vacation": {"per_month": 2, "max": 10, "absences": 3, "longest": 5},
    }
    assert Event.objects.get(game=game, seq=1).payload["clock"] == game.clock  # in the log
