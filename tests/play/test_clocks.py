"""Clocks a table chooses at creation (fixed, time bank, grace then bank), driven by the timers
through many simulated days on a clock the tests move (pbem/ops/testclock.py), in this process
and in another; every deadline re-derived from the exported log by the offline verifier."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from pbem.audit import export, verify
from pbem.log import clocks, eventlog
from pbem.models import AbsencePolicy, Event, Game
from pbem.ops import testclock
from pbem.play import deadlines, services
from pbem.registry import get_game
from tests.conftest import CAST, deliver, requires_postgres
from tests.processes import Peer

HOUR, DAY = 3600, 86400
BANK = {"kind": "bank", "initial": 3 * DAY, "increment": DAY, "cap": 7 * DAY}
GRACE = {"kind": "grace", "grace": DAY, "initial": 2 * DAY, "increment": 0, "cap": 2 * DAY}
FIXED = {"kind": "fixed", "period": 2 * DAY}


def _game(clock, **kw):
    return services.create_game("diceduel", CAST[:2], {"rounds": 3}, clock=clock, absence=AbsencePolicy.MINIMAL, **kw)


def _drive(game, sweep, hours: int) -> list[tuple[int, int]]:
    """Moves the clock an hour at a time, sweeping after each step; returns (hour, seat) of each
    timeout as it happened."""
    deliver(game)
    seen: list[tuple[int, int]] = []
    for hour in range(1, hours + 1):
        testclock.advance(HOUR)
        sweep()
        deliver(game)
        for seat in (
            Event.objects.filter(game=game, type="pbem.TimedOut")
            .order_by("seq")
            .values_list("payload__seat", flat=True)[len(seen) :]
        ):
            seen.append((hour, seat))
        game.refresh_from_db()
        if game.status == "finished":
            break
    return seen


def _verified(game) -> verify.Findings:
    game.refresh_from_db()
    found = verify.verify_bytes(json.dumps(export.document(game)).encode(), spec=get_game("diceduel"))
    assert found.ok, found.problems
    return found


# Nobody moves: both bids time out, then the round's winner's claim; three rounds.
EXPECTED = {
    # a whole period each time: 2 days
    "fixed": [48, 48, 96, 144, 144, 192, 240, 240, 288],
    # 3 days in the bank; each timeout leaves 0 + 1 day
    "bank": [72, 72, 96, 120, 120, 144, 168, 168, 192],
    # 1 day free, then 2 days in the bank; a timeout leaves nothing but the next grace
    "grace": [72, 72, 96, 120, 120, 144, 168, 168, 192],
}


@pytest.mark.parametrize("clock", [FIXED, BANK, GRACE], ids=["fixed", "bank", "grace"])
def test_a_game_under_each_clock_times_out_exactly_when_its_clock_says(db, settings, moved_clock, clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game(clock)
    assert game.clock == clock
    created = Event.objects.get(game=game, seq=1)
    assert created.payload["clock"] == clock  # written in the log
    seen = _drive(game, lambda: deadlines.run_deadlines(), 300)
    assert [hour for hour, _seat in seen] == EXPECTED[clock["kind"]]
    game.refresh_from_db()
    assert game.status == "finished"
    found = _verified(game)
    assert any("re-derived" in fact for fact in found.facts)


def test_a_bank_grows_by_its_increment_up_to_its_cap_and_a_move_within_the_grace_costs_nothing(
    db, settings, moved_clock
):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game(BANK)
    deliver(game)
    testclock.advance(HOUR)
    state = eventlog.load(game).state
    hand = state["game"]["hands"][0]
    services.submit(game.pk, 0, f"play {hand[0]}")
    state = eventlog.load(Game.objects.get(pk=game.pk)).state
    # 3 days - 1 hour (and the seconds the test itself took) + 1 day
    assert 4 * DAY - HOUR - 60 <= state["meta"]["clocks"]["0"]["bank"] <= 4 * DAY - HOUR

    graced = _game(GRACE)
    deliver(graced)
    testclock.advance(20 * HOUR)  # within the day of grace
    state = eventlog.load(graced).state
    services.submit(graced.pk, 1, f"play {state['game']['hands'][1][0]}")
    state = eventlog.load(Game.objects.get(pk=graced.pk)).state
    assert state["meta"]["clocks"]["1"]["bank"] == 2 * DAY


def test_a_bank_never_holds_more_than_its_cap():
    state = {"bank": 7 * DAY, "start": "2030-01-01T00:00:00+00:00"}
    assert clocks.bank_after(BANK, state, datetime.fromisoformat("2030-01-01T01:00:00+00:00")) == 7 * DAY


@pytest.mark.parametrize(
    "clock, says",
    [
        ({"kind": "sandglass"}, "must be one of"),
        ({"kind": "bank", "initial": DAY, "increment": DAY}, "needs its cap"),
        ({"kind": "bank", "initial": 3 * DAY, "increment": DAY, "cap": DAY}, "at least its initial"),
        ({"kind": "bank", "initial": DAY, "increment": 0, "cap": DAY}, "needs an increment"),
        ({"kind": "fixed", "period": 5}, "between"),
        ({"kind": "fixed", "period": "two days"}, "number of seconds"),
        ({"kind": "fixed", "period": DAY, "bonus": 1}, "has no bonus"),
    ],
)
def test_a_clock_a_table_cannot_have_is_refused_with_why_and_makes_no_game(db, clock, says):
    before = Game.objects.count()
    with pytest.raises(services.ServiceError, match=says):
        _game(clock)
    assert Game.objects.count() == before


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_bank_game_driven_by_timers_in_another_process_times_out_when_its_clock_says(settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game(BANK)
    peer = Peer(PBEM_TEST_CLOCK_FILE=settings.PBEM_TEST_CLOCK_FILE)
    try:
        # The other process reads the same moved clock: its sweeps run at this test's time.
        seen = _drive(game, lambda: peer.run("result = deadlines.run_deadlines()"), 300)
    finally:
        peer.close()
    assert [hour for hour, _seat in seen] == EXPECTED["bank"]
    _verified(game)


def test_a_deadline_changed_in_the_log_fails_the_verifier(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game(BANK)
    _drive(game, lambda: deadlines.run_deadlines(), 300)
    game.refresh_from_db()
    doc = export.document(game)
    for ev in doc["events"]:
        if ev["type"] == "pbem.Clocks" and ev["payload"]["started"]:
            entry = next(iter(ev["payload"]["started"].values()))
            entry["deadline"] = entry["deadline"].replace("+00:00", "") + "+01:00"  # an hour earlier
            break
    problems, _ = clocks.check(
        [(e["seq"], e["type"], e["payload"], datetime.fromisoformat(e["created_at"])) for e in doc["events"]]
    )
    assert any("its clock says" in p for p in problems)
    found = verify.verify_bytes(json.dumps(doc).encode(), spec=get_game("diceduel"))
    assert not found.ok  # the payload no longer matches its commitment, and the clock check says why


def test_the_api_the_seat_page_and_the_turn_notice_show_each_seats_time_left(db, settings, client, moved_clock):
    from django.core import mail

    from pbem.models import Seat
    from pbem.play import addressing

    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game(BANK)
    Seat.objects.filter(game=game, number=0).update(time_zone="Europe/Berlin")
    deliver(game)
    body = client.get(f"/api/games/{game.pk}").json()
    assert body["clock"] == BANK
    assert 3 * DAY - 60 <= body["seconds_left"]["0"] <= 3 * DAY
    assert body["banks"] == {"0": 3 * DAY, "1": 3 * DAY}
    seat = Seat.objects.get(game=game, number=0)
    page = client.get(addressing.seat_url(seat)).content.decode()
    assert "2 days 23 hours left" in page and "in your bank: 3 days" in page
    assert "CET" in page  # the deadline in the reader's own zone
    turn = next(m for m in mail.outbox if seat.email in m.to)
    assert "Europe/Berlin (in 71 hours)" in turn.body or "Europe/Berlin (in 72 hours)" in turn.body


def test_an_api_client_chooses_a_clock_and_a_bad_one_is_refused_with_why(db, settings, client, quiet_limits):
    settings.PBEM_NOTICE_DISPATCH = "none"
    players = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]
    made = client.post(
        "/api/games",
        {"kind": "diceduel", "players": players, "clock": GRACE},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    assert Game.objects.get(pk=made.json()["id"]).clock == GRACE
    refused = client.post(
        "/api/games",
        {"kind": "diceduel", "players": players, "clock": {"kind": "bank", "initial": DAY}},
        content_type="application/json",
    )
    assert (
        refused.status_code == 400 and "needs its increment" in refused.json()["message"] and Game.objects.count() == 1
    )
