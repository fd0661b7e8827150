"""Each player's calendar feed (issue 31): a private, signed, revocable ICS URL with every running
deadline of the player across their games, read back with a real calendar library (icalendar)."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.core import mail
from django.test import Client
from icalendar import Calendar

from pbem.models import Event, PlayerSettings
from pbem.play import addressing, calendar, services, signing
from tests.conftest import CAST, deliver, hands

ALICE = CAST[0].email


@pytest.fixture
def tables(db, settings, quiet_limits):
    """Alice at two tables (with Bob, with Carol), Bob and Carol at one each; the game not
    started (its deadlines not running) holds Alice too."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    first = services.create_game("diceduel", [CAST[0], CAST[1]], {"rounds": 2}, title="First")
    second = services.create_game("diceduel", [CAST[2], CAST[0]], {"rounds": 2}, title="Second")
    waiting = services.create_game("diceduel", [CAST[0], CAST[1]], {"rounds": 2}, title="Not begun", start=False)
    return first, second, waiting


def _feed(client, email: str) -> tuple[Calendar, str]:
    url = calendar.url_of(email)
    response = client.get(url.removeprefix("http://testserver"))
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/calendar")
    return Calendar.from_ical(response.content), url


def _events(cal: Calendar) -> dict[str, dict]:
    return {
        str(ev["UID"]): {"start": ev.decoded("DTSTART"), "url": str(ev["URL"]), "summary": str(ev["SUMMARY"])}
        for ev in cal.walk("VEVENT")
    }


def _deadline(game, seat: int) -> datetime:
    game.refresh_from_db()
    return datetime.fromisoformat(game.deadlines[str(seat)])


def test_the_feed_parses_and_holds_one_event_per_running_deadline_of_the_player(client, tables):
    first, second, waiting = tables
    cal, _url = _feed(client, ALICE)
    assert str(cal["VERSION"]) == "2.0" and cal["PRODID"]
    events = _events(cal)
    # Alice is awaited in both running games (both play at once); the game not begun has no deadline.
    assert len(events) == 2, events
    seats = {(first.pk, 0): first.seats.get(number=0), (second.pk, 1): second.seats.get(number=1)}
    for (game_id, number), seat in seats.items():
        event = events[f"pbem-game-{game_id}-seat-{number}@{_domain()}"]
        # Whole seconds in iCalendar: the deadline shown never later than it is.
        assert event["start"] == _deadline(seat.game, number).replace(microsecond=0)
        assert event["url"] == addressing.seat_url(seat)  # the seat link in each event
    # Bob's feed holds only his own deadline, not Alice's.
    bob = _events(_feed(client, CAST[1].email)[0])
    assert list(bob) == [f"pbem-game-{first.pk}-seat-1@{_domain()}"]


def _domain() -> str:
    from django.conf import settings

    return settings.PBEM_MAIL_DOMAIN


def test_the_feed_changes_when_a_move_is_made(client, tables, moved_clock):
    first, _second, _waiting = tables
    uid = f"pbem-game-{first.pk}-seat-0@{_domain()}"
    assert uid in _events(_feed(client, ALICE)[0])
    services.submit(first.pk, 0, f"play {hands(first)[0][0]}")
    # Alice has played: the table waits for Bob, not her; her deadline there is gone.
    assert uid not in _events(_feed(client, ALICE)[0])
    moved_clock.advance(3 * 3600)
    services.submit(first.pk, 1, f"play {hands(first)[1][0]}")
    # The bids are in: the winner claims, with a deadline of its own; each feed says just that.
    first.refresh_from_db()
    assert first.awaited and first.phase == "claim"
    for number, player in enumerate(CAST[:2]):
        event = _events(_feed(client, player.email)[0]).get(f"pbem-game-{first.pk}-seat-{number}@{_domain()}")
        if number in first.awaited:
            assert event is not None and event["start"] == _deadline(first, number).replace(microsecond=0)
        else:
            assert event is None


def _path(url: str) -> str:
    return url[len("http://testserver") :]


def _get(client, url: str):
    return client.get(_path(url))


def _same_as_any_404(client, response, url: str) -> None:
    """The answer to a bad feed URL is the answer to a page that never existed, path aside."""
    path = _path(url)
    nowhere = "/calendar/nothing-here.ics"
    unknown = client.get(nowhere)
    assert response.status_code == unknown.status_code == 404
    assert response.content.replace(path.encode(), b"PATH") == unknown.content.replace(nowhere.encode(), b"PATH")
    assert b"BEGIN:VCALENDAR" not in response.content and b"Alice" not in response.content


def test_a_forged_feed_url_answers_404_and_leaks_nothing(client, tables):
    player = calendar.player_of(ALICE)
    forged = f"http://testserver/calendar/{player.pk}-{player.calendar_generation}-{'a' * calendar.MAC_LENGTH}.ics"
    _same_as_any_404(client, _get(client, forged), forged)


def test_a_tampered_feed_url_answers_404_and_leaks_nothing(client, tables):
    url = calendar.url_of(ALICE)
    alice = calendar.player_of(ALICE)
    bob = calendar.player_of(CAST[1].email)
    # Another player's id under Alice's mac; Alice's mac with one letter changed; a newer generation.
    token = url.rsplit("/", 1)[1].removesuffix(".ics")
    _id, generation, mac = token.split("-")
    attempts = [
        url.replace(f"/{alice.pk}-", f"/{bob.pk}-"),
        url.replace(mac, ("b" if mac[0] != "b" else "c") + mac[1:]),
        url.replace(f"-{generation}-", f"-{int(generation) + 1}-"),
        url + "x",
        url.upper(),
    ]
    for attempt in attempts:
        assert attempt != url
        _same_as_any_404(client, _get(client, attempt), attempt)


def test_a_signed_url_of_no_player_answers_404_and_leaks_nothing(client, tables):
    ghost = 10**9
    url = f"http://testserver/calendar/{ghost}-1-{signing.mac(f'pbem-calendar:{ghost}:1', calendar.MAC_LENGTH)}.ics"
    _same_as_any_404(client, _get(client, url), url)


def test_a_feed_revoked_by_mail_command_answers_404_and_the_new_one_works(client, tables):
    first, _second, _waiting = tables
    old = calendar.url_of(ALICE)
    outcome = services.submit(first.pk, 0, "calendar new")
    assert any("calendar new" in line for line in outcome.applied)
    _same_as_any_404(client, _get(client, old), old)
    cal, new = _feed(client, ALICE)
    assert new != old and len(_events(cal)) == 2  # the new link: every game of Alice's, not only this one
    # In the log as a setting changed, without the link.
    renewed = Event.objects.get(game=first, type="pbem.CalendarRenewed")
    assert renewed.payload == {"seat": 0} and new.rsplit("/", 1)[1] not in str(renewed.payload)


def test_the_calendar_command_answers_without_the_link_and_refuses_other_words(tables):
    first, _second, _waiting = tables
    outcome = services.submit(first.pk, 0, "calendar")
    assert "foot of this mail" in outcome.answers[0] and "/calendar/" not in outcome.answers[0]
    with pytest.raises(services.CommandRejected, match="calendar new"):
        services.submit(first.pk, 0, "calendar delete everything")
    assert not PlayerSettings.objects.filter(email=ALICE, calendar_generation__gt=1).exists()


def test_a_feed_revoked_on_the_seat_page_answers_404(client, tables):
    first, _second, _waiting = tables
    seat = first.seats.get(number=0)
    page = f"/play/{addressing.token_for(seat)}/"
    old = calendar.url_of(ALICE)
    shown = client.get(page)
    assert old.encode() in shown.content  # the seat page links the feed
    response = client.post(f"{page}calendar/new")
    assert response.status_code == 302 and response["Location"].endswith("#calendar")
    stranger = Client()
    _same_as_any_404(stranger, _get(stranger, old), old)
    new = calendar.url_of(ALICE)
    assert new != old and new.encode() in client.get(page).content
    assert _get(client, new).status_code == 200


def test_the_seat_page_button_needs_a_valid_seat_link(client, tables):
    before = PlayerSettings.objects.get_or_create(email=ALICE)[0].calendar_generation
    response = client.post("/play/1-1-aaaaaaaaaaaaaaaa/calendar/new")
    assert response.status_code == 403
    assert PlayerSettings.objects.get(email=ALICE).calendar_generation == before


def test_every_turn_notice_links_the_players_feed(tables):
    first, _second, _waiting = tables
    mail.outbox = []
    deliver(first)
    to_alice = [m for m in mail.outbox if m.to == [ALICE]]
    assert to_alice
    url = calendar.url_of(ALICE)
    for message in to_alice:
        assert url in message.body
        assert url in message.alternatives[0][0]


def test_a_feed_url_is_masked_in_the_service_log(client, tables, caplog):
    from pbem.ops import logmask

    url = calendar.url_of(ALICE)
    token = url.rsplit("/", 1)[1].removesuffix(".ics")
    revoked = calendar.renew(ALICE) and url  # the old link now answers 404, which Django logs
    with caplog.at_level("WARNING"):
        assert _get(client, revoked).status_code == 404
    assert token not in caplog.text and "<masked>" in caplog.text
    assert token not in logmask.mask(f"GET /calendar/{token}.ics 200")
