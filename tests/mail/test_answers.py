"""Answers that are right: each of the answer texts issue 19 lists, as a test."""

from __future__ import annotations

import email
import email.policy
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from django.utils import timezone

from pbem.log import eventlog
from pbem.models import Event, Game, Notice
from pbem.play import desk, services

from .conftest import deliver, hand, send_all
from .replies import reply
from .test_replies import received, text_of


def answer_to(mailoutbox, to: str = "alice@example.org") -> str:
    send_all()
    return text_of(received(mailoutbox, to, "answer"))


def test_a_second_move_after_the_first_ended_the_turn_is_named_with_that_reason(table, mailoutbox):
    send_all()
    first, second = hand(table, 0)[:2]
    message = deliver(reply("gmail", received(mailoutbox, "alice@example.org"), f"play {first}\nplay {second}"))
    assert (message.status, message.error_code) == ("refused", "not_your_turn"), message.outcome
    body = " ".join(answer_to(mailoutbox).split())
    assert f"Line 2: play {second}" in body
    assert "After your line 1 it is no longer your turn" in body and "waiting for Bob" in body
    assert "It is not your turn" not in body
    assert not Event.objects.filter(game=table, type="CardPlayed").exists()


def test_a_reply_sent_again_is_told_it_was_already_applied_with_the_state_now(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    card = hand(table, 0)[0]
    first = deliver(reply("gmail", notice, f"play {card}"))
    assert first.status == "applied"
    send_all()
    again = deliver(reply("gmail", notice, f"play {card}"))  # the same reply, a new Message-ID
    assert (again.status, again.error_code) == ("answered", "duplicate"), again.outcome
    body = answer_to(mailoutbox)
    assert f"already applied at version {first.result_version}" in body
    assert "send your move again" not in body
    assert "Already done." in body and "Next: waiting for Bob" in body
    assert "The board as it stands now" in body
    assert Event.objects.filter(game=table, type="CardPlayed").count() == 1


def finish_one_round_game(make_game, mailoutbox):
    """A one-round Dice Duel: both cards played; the winner's claim is sent by mail."""
    game = make_game(2, options={"rounds": 1})
    send_all()
    services.submit(game.pk, 0, f"play {hand(game, 0)[0]}")
    services.submit(game.pk, 1, f"play {hand(game, 1)[0]}")
    send_all()
    winner = eventlog.load(Game.objects.get(pk=game.pk)).state["game"]["winner"]
    address = ["alice@example.org", "bob@example.org"][winner]
    message = deliver(reply("gmail", received(mailoutbox, address, "turn"), "take", sender=address))
    assert message.status == "applied", message.outcome
    send_all()
    return game, address


def test_the_last_confirmation_shows_the_result_and_no_way_to_reply(make_game, mailoutbox):
    game, address = finish_one_round_game(make_game, mailoutbox)
    confirmation = received(mailoutbox, address, "answer")
    body = text_of(confirmation)
    assert "The game is over. Final standings:" in body and "1. " in body
    assert "Nobody is awaited now." not in body
    assert "How to reply" not in body and "What you may do now" not in body
    assert "Reply to this mail" not in confirmation.get_body(preferencelist=("html",)).get_content()


def test_the_result_mail_has_the_final_board_the_ranking_and_the_seed(make_game, mailoutbox):
    game, _address = finish_one_round_game(make_game, mailoutbox)
    seed = eventlog.load(Game.objects.get(pk=game.pk)).state["meta"]["seed"]
    for address in ("alice@example.org", "bob@example.org"):
        result = received(mailoutbox, address, "final")
        body = text_of(result)
        assert "Final standings:" in body and "1. " in body and "2. " in body
        assert "The final board:" in body
        assert str(seed) in body
        assert "How to reply" not in body
        assert "Reply to this mail" not in result.get_body(preferencelist=("html",)).get_content()


def test_an_answer_after_the_end_has_no_how_to_reply(make_game, mailoutbox):
    game, address = finish_one_round_game(make_game, mailoutbox)
    message = deliver(reply("gmail", received(mailoutbox, address, "final"), "board", sender=address))
    assert message.status == "answered", message.outcome
    body = answer_to(mailoutbox, address)
    assert "How to reply" not in body and "The game is over." in body


ISO_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


def test_away_until_announces_the_day_the_player_wrote_not_the_day_after(table, mailoutbox):
    send_all()
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")  # Bob waits now: he hears news
    last_day = (timezone.now() + timedelta(days=5)).date()
    message = deliver(reply("gmail", received(mailoutbox, "alice@example.org"), f"away until {last_day.isoformat()}"))
    assert message.status == "applied", message.outcome
    assert f"away until {last_day.isoformat()} (to the end of that day, UTC)" in answer_to(mailoutbox)
    news = " ".join(text_of(received(mailoutbox, "bob@example.org", "news")).split())
    # The day is Alice's, in her zone: the others read it with the zone named.
    assert f"Alice is away until the end of {last_day.isoformat()} (UTC)" in news
    away_until = table.seats.get(number=0).away_until
    assert away_until == datetime(last_day.year, last_day.month, last_day.day, tzinfo=UTC) + timedelta(days=1)


def test_deadlines_are_shown_in_utc_by_default_with_the_zone_named(table, mailoutbox):
    send_all()
    assert re.search(
        r"Deadline: \w{3} \d\d \w{3} \d{4}, \d\d:\d\d UTC \(in \d+ hours\)",
        text_of(received(mailoutbox, "alice@example.org", "turn")),
    )


def test_a_player_sets_a_time_zone_and_dates_are_shown_in_it(table, mailoutbox):
    send_all()
    message = deliver(reply("gmail", received(mailoutbox, "alice@example.org"), "zone europe/berlin"))
    assert message.status == "applied", message.outcome
    assert table.seats.get(number=0).time_zone == "Europe/Berlin"
    body = answer_to(mailoutbox)
    deadline = datetime.fromisoformat(Game.objects.get(pk=table.pk).deadlines["0"]).astimezone(
        ZoneInfo("Europe/Berlin")
    )
    assert f"Your deadline: {deadline:%a %d %b %Y, %H:%M} Europe/Berlin" in body
    # Away to the end of the day in Berlin: an hour before midnight UTC in winter.
    last_day = (timezone.now() + timedelta(days=5)).date()
    deliver(reply("gmail", received(mailoutbox, "alice@example.org", "turn"), f"away until {last_day.isoformat()}"))
    assert table.seats.get(number=0).away_until == (
        datetime(last_day.year, last_day.month, last_day.day, tzinfo=ZoneInfo("Europe/Berlin")) + timedelta(days=1)
    )


def test_an_unknown_time_zone_is_refused_and_changes_nothing(table, mailoutbox):
    send_all()
    message = deliver(reply("gmail", received(mailoutbox, "alice@example.org"), "zone Mars/Olympus"))
    assert message.status == "refused" and "Mars/Olympus is not a time zone name" in message.outcome
    assert table.seats.get(number=0).time_zone == "UTC"


def test_no_mail_shows_a_raw_iso_timestamp(table, mailoutbox):
    send_all()
    desk.extend_deadline(table.pk, 0, timezone.now() + timedelta(days=3), services.SYSTEM, "a family matter")
    services.submit(table.pk, 1, "say hello")
    send_all()
    assert mailoutbox
    for sent in mailoutbox:
        parsed = email.message_from_bytes(sent.message().as_bytes(), policy=email.policy.default)
        assert not ISO_TIMESTAMP.search(text_of(parsed)), text_of(parsed)


def latest_to(mailoutbox, to: str):
    send_all()
    return received(mailoutbox, to)


def test_table_talk_comes_without_housekeeping(table, mailoutbox):
    send_all()
    services.submit(table.pk, 1, "say good luck, Alice")
    news = latest_to(mailoutbox, "alice@example.org")
    assert Notice.objects.get(pk=int(news["X-Pbem-Notice"])).kind == "news"
    body = text_of(news)
    assert "table talk in Dice Duel" in body and "* Bob says: good luck, Alice" in body
    assert "Your view of the board" not in body and "notices digest" not in body
    assert "How to reply" not in body and "hash chain" not in body
    assert all(len(line) <= 80 for line in body.splitlines())


def test_a_player_is_not_sent_his_own_moves_back(table, mailoutbox):
    send_all()
    mine = hand(table, 0)[0]
    services.submit(table.pk, 0, f"play {mine}\nsay my card is down")
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")
    body = text_of(latest_to(mailoutbox, "alice@example.org"))
    news, receipts = body.split("Done in your name since your last notice")
    assert "Cards revealed:" in news  # what her move and Bob's caused is news
    assert f"Alice played {mine} face down" not in news
    assert "Alice says: my card is down" not in news
    assert "Bob played a card face down" in news
    # Her own acts are receipted, in her mail, each covered by the chain head it quotes (issue 26).
    assert f"Alice played {mine} face down" in receipts and "Alice says: my card is down" in receipts


def test_help_and_board_name_the_awaited_seat_by_its_player(db, settings, mailoutbox):
    settings.PBEM_NOTICE_DISPATCH = "none"
    people = [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")]
    game = services.create_game("elfenland", people, {})
    send_all()
    awaited = Game.objects.get(pk=game.pk).awaited[0]
    idle = 1 - awaited
    address = people[idle].email
    message = deliver(reply("gmail", received(mailoutbox, address), "help\nboard", sender=address))
    assert message.status == "answered", message.outcome
    body = answer_to(mailoutbox, address)
    assert f"Waiting for: {people[awaited].name}" in body
    assert not re.search(r"\bseat [0-9]", body)
    assert all(len(line) <= 80 for line in body.splitlines())
