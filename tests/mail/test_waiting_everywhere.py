"""Who the table waits for, and until when, in the reader's own zone (issue 31): in every kind of
notice a running game sends, on the seat page and on the spectator page."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from pbem.mail import outbound
from pbem.models import Notice, Seat
from pbem.play import addressing, services
from tests.conftest import CAST

SEAT_KINDS = [
    "turn",
    "news",
    "reminder",
    "answer",
    "timedout",
    "standin",
    "holdended",
    "welcome",
    "replaced",
    "bounced",
    "correction",
    "digest",
]


@pytest.fixture
def table(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("diceduel", CAST[:2], {"rounds": 2}, clock={"kind": "fixed", "period": 2 * 86400})
    Seat.objects.filter(game=game, number=0).update(time_zone="Asia/Tokyo")
    game.refresh_from_db()
    return game


def _in(zone: str, iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone(ZoneInfo(zone)).strftime("%a %d %b %H:%M %Z")


@pytest.mark.parametrize("kind", SEAT_KINDS)
def test_every_seat_notice_says_who_the_table_waits_for_in_the_readers_zone(table, kind):
    seat = Seat.objects.get(game=table, number=0)
    notice = Notice.objects.create(
        game=table,
        seat=seat,
        kind=kind,
        version=table.version,
        to_email=seat.email,
        context={"text": "ok", "code": "applied", "mark": "half", "seat": 1},
    )
    rendered = outbound.render(notice)
    for seat_number in (0, 1):
        when = _in("Asia/Tokyo", table.deadlines[str(seat_number)])
        line = f"{CAST[seat_number].name}: until {when}"
        assert line in rendered.text, rendered.text
        assert line in rendered.html
    assert "times in Asia/Tokyo" in rendered.text and "times in Asia/Tokyo" in rendered.html


def test_the_master_of_seals_notice_says_who_the_table_waits_for_in_utc(table, settings):
    settings.PBEM_MASTER_EMAIL = "master@example.org"
    notice = Notice.objects.create(game=table, kind="overdue", version=table.version, context={"seat": 1})
    rendered = outbound.render(notice)
    assert f"Bob: until {_in('UTC', table.deadlines['1'])}" in rendered.text and "times in UTC" in rendered.text


def test_the_seat_page_says_who_the_table_waits_for_in_the_seats_zone(table, client, quiet_limits):
    seat = Seat.objects.get(game=table, number=0)
    page = client.get(addressing.seat_url(seat).removeprefix("http://testserver")).content.decode()
    assert "times in Asia/Tokyo" in page
    assert _in("Asia/Tokyo", table.deadlines["1"]).split(" ")[-1] in page  # JST


def test_the_spectator_page_shows_times_in_the_zone_the_reader_gives_and_keeps_it(table, client, quiet_limits):
    page = client.get(f"/games/{table.pk}/?zone=america/new_york")
    assert "times in America/New_York" in page.content.decode()
    assert page.cookies["pbem_zone"].value == "America/New_York"
    again = client.get(f"/games/{table.pk}/").content.decode()
    assert "times in America/New_York" in again
    nonsense = client.get(f"/games/{table.pk}/?zone=<script>").content.decode()
    assert "times in UTC" in nonsense and "<script>" not in nonsense.split("times in UTC")[1][:200]


def test_the_history_pages_say_who_the_table_waits_for_now_in_the_readers_zone(table, client, quiet_limits):
    seat = Seat.objects.get(game=table, number=0)
    mine = client.get(addressing.seat_url(seat).removeprefix("http://testserver") + "history/?at=1").content.decode()
    assert "Now the table waits for (times in Asia/Tokyo)" in mine
    assert "JST" in mine.split("Now the table waits for")[1][:400]
    client.cookies["pbem_zone"] = "Europe/Berlin"
    public = client.get(f"/games/{table.pk}/history/").content.decode()
    assert "Now the table waits for (times in Europe/Berlin)" in public
