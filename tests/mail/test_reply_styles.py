"""Replies as people write a code (issue 27): "Hi! 1", "1 👍", "- 1", "move: 1", the notice
forwarded to the reply address with the move above it, and "-Carol" as a sign-off. Each is a
real .eml under fixtures/, each applies code 1 of the notice it answers, and the answer says how
the line was read and what was left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pbem.models import Event

from .conftest import deliver, send_all
from .replies import fill, values_for
from .test_replies import received, text_of


@dataclass(frozen=True)
class Style:
    fixture: str
    read: tuple[str, ...] = ()  # "Read 'Hi! 1' as '1'": the lines read loosely, as the answer names them
    ignored: tuple[str, ...] = ()  # the lines the answer names as not commands
    player: str = "alice"
    threaded: bool = True  # a forward names no notice it answers


STYLES = {
    "greeting and code on one line": Style(
        "iphone_greeting_code_reply.eml", read=("'Hi! 1' as '1'",), ignored=("Sent from my iPhone",)
    ),
    "code and an emoji": Style("android_emoji_code_reply.eml", read=("'1 👍🏽' as '1'",)),
    "code as a list item": Style("outlook_list_code_reply.eml", read=("'- 1' as '1'",)),
    "code with a label": Style("thunderbird_move_label_reply.eml", read=("'move: 1' as '1'",)),
    "the notice forwarded with the code above it": Style("gmail_forwarded_notice_reply.eml", threaded=False),
    "a dash and the player's name as sign-off": Style(
        "plain_dash_name_signoff_reply.eml", ignored=("-Carol",), player="carol"
    ),
}


@pytest.fixture
def three(make_game):
    """Alice, Bob and Carol at Dice Duel, every turn notice sent."""
    game = make_game(3)
    send_all()
    return game


def reply_in(style: Style, mailoutbox) -> bytes:
    address = f"{style.player}@example.org"
    notice = received(mailoutbox, address, "turn")
    values = values_for(
        notice, "1", sender=address, to=None, message_id=None, subject=None, keep_threading=style.threaded
    )
    return fill(style.fixture, values)


@pytest.mark.parametrize("name", list(STYLES))
def test_a_code_written_as_people_write_it_plays_that_move(name, three, mailoutbox):
    style = STYLES[name]
    seat = ["alice", "bob", "carol"].index(style.player)
    message = deliver(reply_in(style, mailoutbox))
    assert (message.status, message.error_code) == ("applied", "applied"), message.outcome
    played = Event.objects.get(game=three, type="CardPlayed")
    assert played.payload["seat"] == seat


@pytest.mark.parametrize("name", list(STYLES))
def test_the_answer_says_how_the_line_was_read_and_what_was_left_out(name, three, mailoutbox):
    style = STYLES[name]
    deliver(reply_in(style, mailoutbox))
    send_all()
    body = " ".join(text_of(received(mailoutbox, f"{style.player}@example.org", "answer")).split())
    assert body.startswith("Done.")
    if style.read:
        assert f"Read {', '.join(style.read)}." in body
    else:
        assert "Read '" not in body
    if style.ignored:
        assert "Ignored as not a command: " + ", ".join(f"'{line}'" for line in style.ignored) + "." in body


def test_a_forwarded_notice_is_not_read_for_orders(three, mailoutbox):
    """The notice below the forward holds every code and command it offered: none is applied."""
    message = deliver(reply_in(STYLES["the notice forwarded with the code above it"], mailoutbox))
    assert message.status == "applied", message.outcome
    assert Event.objects.filter(game=three, type="CardPlayed").count() == 1
    assert not Event.objects.filter(game=three, type="pbem.Said").exists()
