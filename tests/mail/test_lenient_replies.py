"""Replies as people write them: greetings, thanks, sign-offs, names, signatures and
format=flowed bodies around the orders. The orders apply and the answer names every line left
out; a line that is neither an order nor recognisable prose refuses the whole reply, by name.

Table-driven: one real .eml per client style under fixtures/, each with the prose its users add.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pbem.mail import inbound
from pbem.models import Event

from .conftest import deliver, hand, send_all
from .replies import fill, values_for
from .test_replies import received, text_of


@dataclass(frozen=True)
class Case:
    fixture: str
    ignored: tuple[str, ...]  # the lines the answer names as not commands, in order
    said: str = ""  # the table talk the reply holds besides its move, as one line


CASES = {
    "thunderbird_flowed": Case(
        "thunderbird_flowed_reply.eml",
        ("Hi all,", "Cheers,", "Alice"),
        said="Well played so far, I did not expect that last roll at all, and I think this round is yours",
    ),
    "thunderbird_delsp": Case("thunderbird_delsp_reply.eml", ("Thanks!",), said="Good luck with the next round, Bob"),
    "thunderbird_html_signature": Case(
        "thunderbird_html_signature_reply.eml", ("Alice Example", "Dice enthusiast, play 9 here is no order")
    ),
    "gmail_thanks_and_name": Case("gmail_signoff_reply.eml", ("Thanks!", "Best, Alice")),
    "gmail_signature_without_dashes": Case(
        "gmail_company_signature_reply.eml",
        ("Kind regards,", "Alice Example", "Head of Dice | Example Ltd", "+44 20 7946 0000"),
    ),
    "outlook_ios": Case("outlook_ios_reply.eml", ("Regards", "Alice", "Get Outlook for iOS<https://aka.ms/o0ukef>")),
    "iphone": Case("iphone_reply.eml", ("Cheers", "Sent from my iPhone")),
    "mutt_bottom_posted_with_signature": Case(
        "mutt_reply.eml",
        (
            "Hello Bob,",
            "Thanks,",
            "A.",
            "Alice Example <alice@example.org>",
            "GPG 0x5EA1ED00 | play 9 is not an order here",
        ),
    ),
}


@pytest.fixture
def alice_notice(table, mailoutbox):
    send_all()
    return received(mailoutbox, "alice@example.org")


def reply_from(fixture: str, notice, command: str) -> bytes:
    return fill(
        fixture,
        values_for(
            notice, command, sender="alice@example.org", to=None, message_id=None, subject=None, keep_threading=True
        ),
    )


@pytest.mark.parametrize("name", list(CASES))
def test_the_reply_reads_the_orders_and_sets_the_prose_apart(name, alice_notice, table):
    case = CASES[name]
    card = hand(table, 0)[0]
    parsed = inbound.parse(reply_from(case.fixture, alice_notice, f"play {card}"))
    expected = [f"play {card}"] + ([f"say {case.said}"] if case.said else [])
    assert parsed.lines == expected, parsed.text
    assert parsed.ignored == list(case.ignored)


@pytest.mark.parametrize("name", list(CASES))
def test_the_orders_apply_and_the_answer_names_what_was_ignored(name, alice_notice, table, mailoutbox):
    case = CASES[name]
    card = hand(table, 0)[0]
    message = deliver(reply_from(case.fixture, alice_notice, f"play {card}"))
    assert (message.status, message.error_code) == ("applied", "applied"), message.outcome
    assert Event.objects.get(game=table, type="CardPlayed").payload == {"seat": 0, "card": card}
    if case.said:
        assert Event.objects.get(game=table, type="pbem.Said").payload["text"] == case.said
    send_all()
    body = " ".join(text_of(received(mailoutbox, "alice@example.org", "answer")).split())
    named = ", ".join(f"'{line}'" for line in case.ignored)
    assert f"Ignored as not a command: {named}." in body


def test_a_line_neither_order_nor_prose_refuses_the_whole_reply_naming_it(alice_notice, table, mailoutbox):
    card = hand(table, 0)[0]
    message = deliver(reply_from("gmail_typo_reply.eml", alice_notice, f"play {card}"))
    assert (message.status, message.error_code) == ("refused", "illegal"), message.outcome
    assert not Event.objects.filter(game=table, type="CardPlayed").exists()
    send_all()
    body = text_of(received(mailoutbox, "alice@example.org", "answer"))
    # Counted as the player sees them: the greeting is line 1.
    assert "Line 3: plya 3" in body and "Nothing in your message was applied." in body


def test_a_reply_of_only_thanks_is_no_command_and_says_what_it_ignored(alice_notice, table, mailoutbox):
    message = deliver(reply_from("gmail_signoff_reply.eml", alice_notice, "Thank you so much"))
    assert (message.status, message.error_code) == ("refused", "empty"), message.outcome
    send_all()
    body = " ".join(text_of(received(mailoutbox, "alice@example.org", "answer")).split())
    assert "We found no command" in body
    assert "Ignored as not a command: 'Thank you so much', 'Thanks!', 'Best, Alice'." in body


def test_an_order_after_thanks_is_still_an_order(alice_notice, table):
    card = hand(table, 0)[0]
    message = deliver(reply_from("gmail_reply.eml", alice_notice, f"Thanks!\nplay {card}\nCheers"))
    assert message.status == "applied", message.outcome
    assert Event.objects.get(game=table, type="CardPlayed").payload == {"seat": 0, "card": card}


def test_a_name_that_is_not_the_senders_is_not_taken_for_a_signature(alice_notice, table):
    card = hand(table, 0)[0]
    message = deliver(reply_from("gmail_reply.eml", alice_notice, f"play {card}\nZebedee"))
    assert (message.status, message.error_code) == ("refused", "illegal"), message.outcome
    assert "Line 2: Zebedee" in message.outcome


def test_flowed_text_joins_soft_breaks_and_keeps_hard_ones():
    flowed = "say one \ntwo\nboard\n> quoted \n> on\n-- \nsig"
    assert inbound.unflow(flowed) == "say one two\nboard\n> quoted on\n-- \nsig"
    assert inbound.unflow("say ro \nund", delsp=True) == "say round"
    assert inbound.unflow("  stuffed", delsp=False) == " stuffed"
