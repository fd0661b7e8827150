"""Taking only the new text from replies as real clients write them (fixtures under fixtures/)."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.mail import inbound, outbound
from pbem.models import Notice

from .conftest import send_all
from .replies import STYLES, reply


@pytest.fixture
def alice_notice(table, mailoutbox):
    send_all()
    sent = next(m for m in mailoutbox if m.to == ["alice@example.org"])
    return email.message_from_bytes(sent.message().as_bytes(), policy=email.policy.default)


@pytest.mark.parametrize("style", STYLES)
def test_only_the_new_lines_are_commands(style, alice_notice):
    raw = reply(style, alice_notice, "play 5\nsay good luck, Bob")
    parsed = inbound.parse(raw)
    assert parsed.lines == ["play 5", "say good luck, Bob"], parsed.text
    assert parsed.automatic == ""
    assert parsed.sender == "alice@example.org"
    assert any(a.startswith("play+") for a in parsed.recipients)
    assert parsed.in_reply_to[0] == str(alice_notice["Message-ID"])


@pytest.mark.parametrize("style", STYLES)
def test_a_bare_code_survives_quoting(style, alice_notice):
    parsed = inbound.parse(reply(style, alice_notice, "2"))
    assert parsed.lines == ["2"], parsed.text


def test_outlook_quote_without_markers_is_not_read_as_orders(alice_notice):
    # Outlook quotes without ">": the notice's option list ("1  play 5") must not become orders.
    parsed = inbound.parse(reply("outlook", alice_notice, "board"))
    assert parsed.lines == ["board"]


def test_notice_ids_and_subject_tags_round_trip(table):
    notice = Notice.objects.filter(seat__number=0).first()
    match = outbound.NOTICE_ID_RE.match(outbound.notice_message_id(notice))
    assert [int(g) for g in match.groups()] == [notice.pk, notice.version, table.pk]
    tag = outbound.subject_tag(notice.seat)
    assert outbound.SUBJECT_TAG_RE.search(f"Re: Dice Duel {tag}").group(2) == outbound.seat_code(notice.seat)
    assert outbound.notice_from_bounce_address(outbound.bounce_address(notice)) == notice.pk
    forged = outbound.bounce_address(notice).replace(f"n{notice.pk}-", f"n{notice.pk + 1}-")
    assert outbound.notice_from_bounce_address(forged) is None


def test_html_to_text_drops_quotes_and_keeps_lines():
    text = inbound.html_to_text('<div>play 7</div><div>say hi&nbsp;there</div><blockquote type="cite">'
                                "<div>1 play 5</div></blockquote>")
    assert text.split("\n") == ["play 7", "say hi there"]
