"""Simultaneous phases without traps: a seat still choosing hears (batched) when another seat's
move changes what it sees, and its reply to the notice it holds is refused as stale only when
the change alters what its order means."""

from __future__ import annotations

from pbem.models import Event, Notice
from pbem.play import services

from .conftest import deliver, hand, send_all
from .replies import reply
from .test_replies import received, text_of


def test_a_seat_still_choosing_is_told_when_another_seat_moves(table, mailoutbox):
    send_all()
    services.submit(table.pk, 0, f"play {hand(table, 0)[0]}")
    send_all()
    news = received(mailoutbox, "bob@example.org", "news")
    assert "Alice played a card face down" in text_of(news)
    assert "What you may do now" in text_of(news) or "Waiting for: Bob" in text_of(news)


def test_a_seat_still_choosing_is_told_at_most_once_in_a_while(make_game, mailoutbox):
    game = make_game(3)
    send_all()
    services.submit(game.pk, 0, f"play {hand(game, 0)[0]}")
    services.submit(game.pk, 1, f"play {hand(game, 1)[0]}")
    assert Notice.objects.filter(game=game, kind="news", seat__number=2).count() == 1


def test_a_reply_to_a_notice_another_seat_has_moved_past_applies_when_its_meaning_stands(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "bob@example.org", "turn")
    services.submit(table.pk, 0, f"play {hand(table, 0)[0]}")  # Alice's card, face down: Bob sees it
    card = hand(table, 1)[0]
    message = deliver(reply("gmail", notice, f"play {card}", sender="bob@example.org"))
    assert (message.status, message.error_code) == ("applied", "applied"), message.outcome
    assert Event.objects.filter(game=table, type="CardPlayed", payload__seat=1).exists()


def test_a_code_to_a_moved_on_notice_means_the_move_it_meant_then(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "bob@example.org", "turn")
    third = sorted(hand(table, 1))[2]
    services.submit(table.pk, 0, f"play {hand(table, 0)[0]}")
    message = deliver(reply("gmail", notice, "3", sender="bob@example.org"))
    assert message.status == "applied", message.outcome
    assert Event.objects.get(game=table, type="CardPlayed", payload__seat=1).payload["card"] == third


def test_a_reply_whose_move_the_change_took_away_is_refused_as_stale(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "alice@example.org", "turn")
    first, second = hand(table, 0)[:2]
    services.submit(table.pk, 0, f"play {first}")
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")  # the round is decided
    message = deliver(reply("gmail", notice, f"play {second}"))
    assert message.error_code == "stale", message.outcome
    send_all()
    assert "The board as it stands now" in text_of(received(mailoutbox, "alice@example.org", "answer"))
