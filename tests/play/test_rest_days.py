"""Rest days in each player's own time zone (issue 31): a deadline that would fall on one of a
seat's rest days moves to the rest's end; set by mail ('rest sat sun') or on the seat page, in
the log (`pbem.RestDays`) so the offline verifier re-derives every deadline."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from pbem.audit import export, verify
from pbem.log import clocks, eventlog
from pbem.models import AbsencePolicy, Event, Game, Seat
from pbem.ops import testclock
from pbem.play import addressing, selectors, services
from pbem.registry import get_game
from tests.conftest import CAST, deliver

DAY = 86400
CLOCK = {"kind": "fixed", "period": 2 * DAY}


def _game():
    return services.create_game("diceduel", CAST[:2], {"rounds": 3}, clock=CLOCK, absence=AbsencePolicy.MINIMAL)


def _meta(days, zone="Europe/Berlin") -> dict:
    return {"clock": CLOCK, "clocks": {}, "rest": {"0": {"days": days, "zone": zone}}}


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text + "+00:00")


def test_a_deadline_on_a_rest_day_moves_to_the_rests_end_in_the_seats_own_zone():
    meta = _meta(["sat", "sun"])
    # Sat 9 Mar 2030, 10:00 UTC: the weekend in Berlin ends Monday 00:00 there, Sunday 23:00 UTC.
    assert clocks.out_of_rest(meta, 0, _utc("2030-03-09T10:00:00")) == _utc("2030-03-10T23:00:00")
    # Fri 23:30 UTC is already Saturday in Berlin: moved too.
    assert clocks.out_of_rest(meta, 0, _utc("2030-03-08T23:30:00")) == _utc("2030-03-10T23:00:00")
    # Fri 22:30 UTC is still Friday there: it stays.
    assert clocks.out_of_rest(meta, 0, _utc("2030-03-08T22:30:00")) == _utc("2030-03-08T22:30:00")
    # The same Saturday for a seat resting in New York: Monday 00:00 there is 05:00 UTC (EDT from 10 March).
    assert clocks.out_of_rest(_meta(["sat", "sun"], "America/New_York"), 0, _utc("2030-03-09T10:00:00")) == _utc(
        "2030-03-11T04:00:00"
    )
    # Another seat's rest days move nothing of this one.
    assert clocks.out_of_rest(meta, 1, _utc("2030-03-09T10:00:00")) == _utc("2030-03-09T10:00:00")


@pytest.mark.parametrize(
    "words, says",
    [("funday", "not a day of the week"), ("mon tue wed thu", "At most 3"), ("", "")],
)
def test_rest_days_a_seat_cannot_have_are_refused_with_why_and_change_nothing(db, settings, words, says):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    version = Game.objects.get(pk=game.pk).version
    if not words:  # 'rest' alone only answers
        assert "Your rest days: none" in services.submit(game.pk, 0, "rest").answers[0]
    else:
        with pytest.raises(services.CommandRejected, match=says):
            services.submit(game.pk, 0, f"rest {words}")
    assert Game.objects.get(pk=game.pk).version == version


def test_rest_days_set_by_mail_move_the_next_deadline_and_the_verifier_rederives_it(db, settings, moved_clock):
    settings.PBEM_NOTICE_DISPATCH = "none"
    tokyo_zone = ZoneInfo("Asia/Tokyo")
    # Noon in Tokyo tomorrow: the turns below begin seconds apart, on the same day there.
    now = testclock.now()
    noon = (now.astimezone(tokyo_zone) + timedelta(days=1)).replace(hour=12, minute=0, second=0, microsecond=0)
    testclock.set_offset(int((noon - now).total_seconds()))
    game = _game()
    deliver(game)
    services.submit(game.pk, 0, "zone Asia/Tokyo")
    # Alice rests on the day, in Tokyo, on which her next deadline would fall.
    due = testclock.now() + timedelta(seconds=CLOCK["period"])
    tokyo = clocks.WEEKDAYS[due.astimezone(ZoneInfo("Asia/Tokyo")).weekday()]
    outcome = services.submit(game.pk, 0, f"rest {tokyo}")
    assert f"rest {selectors.weekdays_text([tokyo])} (Asia/Tokyo)" in outcome.applied[0]
    event = Event.objects.get(game=game, type="pbem.RestDays")
    assert event.payload == {"seat": 0, "days": [tokyo], "zone": "Asia/Tokyo"} and event.visible_to is None
    hands = eventlog.load(game).state["game"]["hands"]
    services.submit(game.pk, 0, f"play {hands[0][0]}")
    services.submit(game.pk, 1, f"play {hands[1][0]}")
    game.refresh_from_db()
    if game.phase == "claim":  # a round's winner takes its points: the next round awaits both
        services.submit(game.pk, game.awaited[0], "take")
        game.refresh_from_db()
    state = eventlog.load(game).state
    started = [
        e.payload for e in Event.objects.filter(game=game, type="pbem.Clocks").order_by("seq") if e.payload["started"]
    ][-1]
    # The new round's turns: Bob's deadline is two days on; Alice's is midnight after her rest day, in Tokyo.
    for seat, entry in started["started"].items():
        plain = datetime.fromisoformat(entry["from"]) + timedelta(seconds=CLOCK["period"])
        deadline = datetime.fromisoformat(entry["deadline"])
        if seat == "0":
            local = deadline.astimezone(ZoneInfo("Asia/Tokyo"))
            assert deadline > plain and (local.hour, local.minute) == (0, 0)
            assert clocks.WEEKDAYS[(local.weekday() - 1) % 7] == tokyo
        else:
            assert deadline == plain
        assert state["meta"]["clocks"][seat]["deadline"] == entry["deadline"]
    found = verify.verify_bytes(json.dumps(export.document(game)).encode(), spec=get_game("diceduel"))
    assert found.ok, found.problems


def test_a_deadline_forged_out_of_a_rest_day_fails_the_verifier():
    meta = _meta(["sat", "sun"])
    meta["clocks"]["0"] = {"bank": 0, "start": None, "deadline": None}
    at = _utc("2030-03-07T10:00:00")  # Thursday: two days on is Saturday
    events = [
        (1, "pbem.GameCreated", {"clock": CLOCK, "players": [{"name": "A"}, {"name": "B"}]}, at),
        (2, "pbem.RestDays", {"seat": 0, "days": ["sat", "sun"], "zone": "Europe/Berlin"}, at),
        (
            3,
            "pbem.Clocks",
            {
                "at": at.isoformat(),
                "stopped": {},
                "started": {"0": {"from": at.isoformat(), "bank": 0, "deadline": "2030-03-09T10:00:00+00:00"}},
            },
            at,
        ),
    ]
    problems, checked = clocks.check(events)
    assert checked and any("its clock says 2030-03-10T23:00:00+00:00" in p for p in problems), problems


def test_a_new_time_zone_carries_the_rest_days_along(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    services.submit(game.pk, 0, "rest sat sun")
    services.submit(game.pk, 0, "zone America/New_York")
    rest = eventlog.load(Game.objects.get(pk=game.pk)).state["meta"]["rest"]["0"]
    assert rest == {"days": ["sat", "sun"], "zone": "America/New_York"}


def test_the_seat_page_sets_rest_days(db, settings, client, quiet_limits, django_capture_on_commit_callbacks):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _game()
    page = f"/play/{addressing.token_for(Seat.objects.get(game=game, number=0))}/"
    assert b'id="rest"' in client.get(page).content
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"{page}rest", {"day": ["sun", "sat"]}).status_code == 302
    assert Event.objects.get(game=game, type="pbem.RestDays").payload["days"] == ["sat", "sun"]
    assert b'value="sat" checked' in client.get(page).content
