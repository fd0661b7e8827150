"""Answers that are right: each of the answer texts issue 19 lists, as a test."""

from __future__ import annotations

from pbem.models import Event

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
    body = answer_to(mailoutbox)
    assert f"Line 2: play {second}" in body
    assert "After your line 1 it is no longer your turn" in body and "waiting for Bob" in body
    assert "It is not your turn" not in body
    assert not Event.objects.filter(game=table, type="CardPlayed").exists()
