"""The small defects found as an attacker: a finished game still took table talk, notice and time
zone changes (events after its end); `zone localtime` and `zone Factory` were accepted; `away
until 9999-12-31` was a 500 on the API and got no answer by mail; a lone surrogate in `say` was a
500. Each is now a clear refusal that appends nothing."""

from __future__ import annotations

import json

import pytest

from pbem.models import Event, Seat
from tests.mail.conftest import deliver, send_all
from tests.mail.replies import reply
from tests.mail.test_replies import received
from tests.web.api.test_endpoints import error, play_out


def events(game) -> int:
    return Event.objects.filter(game=game).count()


@pytest.mark.parametrize("text", ["say good game", "notices every", "notices no pictures", "zone Europe/Berlin"])
def test_a_finished_game_refuses_say_notices_and_zone_and_appends_nothing(api, duel, text):
    game, seats, tokens = duel
    play_out(game)
    before = events(game)
    body = error(api.post(f"/games/{game.pk}/commands", {"text": text}, tokens[0]), 409, "not_running")
    assert "is over" in body["message"]
    assert events(game) == before
    assert Seat.objects.get(pk=seats[0].pk).time_zone in ("", "UTC", None)


def test_a_finished_game_still_answers_what_the_notices_and_zone_are(api, duel):
    game, seats, tokens = duel
    play_out(game)
    before = events(game)
    assert api.post(f"/games/{game.pk}/commands", {"text": "zone"}, tokens[0]).status_code == 200
    assert events(game) == before


@pytest.mark.parametrize("zone", ["localtime", "Factory", "posixrules", "right/UTC", "posix/Europe/Berlin"])
def test_a_time_zone_that_is_no_place_is_refused(api, duel, zone):
    game, seats, tokens = duel
    before = events(game)
    body = error(api.post(f"/games/{game.pk}/commands", {"text": f"zone {zone}"}, tokens[0]), 422, "illegal")
    assert "not a time zone name" in body["message"]
    assert events(game) == before
    assert api.post(f"/games/{game.pk}/commands", {"text": "zone Europe/Berlin"}, tokens[0]).status_code == 200


def test_away_until_9999_12_31_is_refused_clearly_on_the_api(api, duel):
    game, seats, tokens = duel
    before = events(game)
    body = error(api.post(f"/games/{game.pk}/commands", {"text": "away until 9999-12-31"}, tokens[0]), 422, "illegal")
    assert "days of absence left" in body["message"]
    assert events(game) == before


def test_away_until_9999_12_31_by_mail_is_answered_with_a_refusal(duel, mailoutbox):
    game, seats, tokens = duel
    send_all()
    message = deliver(reply("gmail", received(mailoutbox, "alice@example.org"), "away until 9999-12-31"))
    assert message.status == "refused" and message.error_code == "illegal", message.outcome
    send_all()
    answer = received(mailoutbox, "alice@example.org", "answer")
    assert "days of absence left" in answer.get_body(("plain",)).get_content()


def test_a_lone_surrogate_in_say_is_refused_clearly(api, duel):
    game, seats, tokens = duel
    before = events(game)
    raw = json.dumps({"text": "say hi \ud800 there"})  # as a client would send it: "\\ud800"
    response = api.client.post(
        f"/api/games/{game.pk}/commands", raw, content_type="application/json", headers={"X-Seat-Token": tokens[0]}
    )
    assert response.status_code == 422, response.content
    assert "surrogate" in response.json()["message"]
    assert events(game) == before


@pytest.mark.parametrize(
    "query",
    [
        "at=&at=v&at=0.0",  # the shape schemathesis sent: the last value alone used to be read, a 200
        "at=1&at=2",
    ],
)
def test_a_query_parameter_given_twice_is_refused_not_read_as_its_last_value(client, duel, query):
    game, _seats, _tokens = duel
    response = client.get(f"/api/games/{game.pk}/state?{query}")
    body = error(response, 422, "invalid")
    assert "'at'" in body["message"] and "more than once" in body["message"]
    assert body["detail"] == {"repeated": ["at"]}


def test_a_list_query_of_games_given_twice_is_refused_and_once_is_answered(client, duel):
    error(client.get("/api/games?limit=5&limit=500"), 422, "invalid")
    assert client.get("/api/games?limit=5").status_code == 200
