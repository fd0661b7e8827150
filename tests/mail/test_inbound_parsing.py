"""Taking only the new text from replies as real clients write them (fixtures under fixtures/)."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.mail import inbound, outbound, trace
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
    assert [int(g) for g in match.groups()[:3]] == [notice.pk, notice.version, table.pk]
    assert outbound.notice_from_message_id(outbound.notice_message_id(notice)) == notice.pk
    tag = outbound.subject_tag(notice.seat)
    assert outbound.SUBJECT_TAG_RE.search(f"Re: Dice Duel {tag}").group(2) == outbound.seat_code(notice.seat)
    assert outbound.notice_from_bounce_address(outbound.bounce_address(notice)) == notice.pk
    forged = outbound.bounce_address(notice).replace(f"n{notice.pk}-", f"n{notice.pk + 1}-")
    assert outbound.notice_from_bounce_address(forged) is None


def test_html_to_text_drops_quotes_and_keeps_lines():
    text = inbound.html_to_text(
        '<div>play 7</div><div>say hi&nbsp;there</div><blockquote type="cite"><div>1 play 5</div></blockquote>'
    )
    assert text.split("\n") == ["play 7", "say hi there"]


AUTOMATIC = [
    ("Auto-Submitted: auto-replied", "Auto-Submitted: auto-replied"),
    ("Auto-Submitted: auto-generated", "Auto-Submitted: auto-generated"),
    ("Precedence: bulk", "Precedence: bulk"),
    ("Precedence: list", "Precedence: list"),
    ("List-Id: <players.example.org>", "List-Id header"),
    ("X-Autoreply: yes", "X-Autoreply header"),
    ("X-Auto-Response-Suppress: OOF", "X-Auto-Response-Suppress header"),
    ("X-Pbem-Notice: 12", "one of our own notices"),
    ("Return-Path: <>", "null return path (Return-Path: <>)"),
]


@pytest.mark.parametrize(("header", "reason"), AUTOMATIC)
def test_automatic_mail_is_recognised(header, reason, settings):
    raw = f"From: alice@example.org\r\nTo: play+1-1-x@pbem.localhost\r\n{header}\r\nSubject: hi\r\n\r\nplay 5\r\n"
    assert inbound.parse(raw.encode()).automatic == reason


@pytest.mark.parametrize(
    "sender",
    [
        "MAILER-DAEMON@mx.example.org",
        "postmaster@example.org",
        "no-reply@example.org",
        "noreply@example.org",
        "seals@pbem.localhost",
    ],
)
def test_automatic_senders(sender):
    raw = f"From: {sender}\r\nTo: seals@pbem.localhost\r\nSubject: hi\r\n\r\nplay 5\r\n"
    assert inbound.parse(raw.encode()).automatic


def test_a_person_writing_is_not_automatic():
    raw = b"From: Alice <alice@example.org>\r\nAuto-Submitted: no\r\nSubject: hi\r\n\r\nplay 5\r\n"
    parsed = inbound.parse(raw)
    assert parsed.automatic == "" and parsed.lines == ["play 5"]


def test_no_message_id_gets_a_stable_one():
    raw = b"From: alice@example.org\r\nSubject: hi\r\n\r\nplay 5\r\n"
    assert inbound.message_id_of(raw) == inbound.message_id_of(raw) != inbound.message_id_of(raw + b"x")


def test_oversized_message_keeps_headers_and_its_size(settings):
    raw = b"From: alice@example.org\r\nSubject: big\r\nContent-Type: multipart/mixed;\r\n boundary=x\r\n\r\n" + b"a" * (
        settings.PBEM_INBOUND_MAX_BYTES + 10
    )
    kept = trace.truncated(raw)
    assert len(kept) < 300 and b"boundary" not in kept
    parsed = inbound.parse(kept)
    assert parsed.too_large and parsed.size == len(raw) and parsed.sender == "alice@example.org"


@pytest.mark.parametrize("container", ["text/rfc822-headers", "message/rfc822"])
def test_a_delivery_report_names_our_notice_and_the_reason(container, alice_notice):
    from .replies import corpus

    raw = corpus("bounce", alice_notice, to="seals@pbem.localhost")
    raw = raw.replace(b"Content-Type: text/rfc822-headers", f"Content-Type: {container}".encode())
    ids, diagnostic = inbound.bounce_details(raw)
    assert ids == [str(alice_notice["Message-ID"])]
    assert diagnostic.startswith("smtp; 550 5.1.1") and "User unknown" in diagnostic
    parsed = inbound.parse(raw)
    assert parsed.is_bounce and parsed.automatic


def test_an_encoded_name_with_a_comma_keeps_its_address():
    # "Müller, Hans" as clients encode it: the comma is inside the encoded word, so the address
    # is read before the name is decoded (a decoded comma would split the From in two).
    raw = (
        b"From: =?utf-8?q?M=C3=BCller=2C_Hans?= <hans@example.org>\r\nTo: play+1-1-x@pbem.localhost\r\n"
        b"Subject: =?utf-8?b?UmU6IFp1ZyBmw7xyIEhhbnM=?=\r\n\r\nplay 5\r\n"
    )
    parsed = inbound.parse(raw)
    assert (parsed.sender_name, parsed.sender) == ("Müller, Hans", "hans@example.org")
    assert parsed.subject == "Re: Zug für Hans"


def test_a_folded_subject_is_read_as_one_line():
    raw = b"From: alice@example.org\r\nSubject: Re: Dice Duel\r\n [g12-abcd]\r\n\r\nplay 5\r\n"
    assert inbound.parse(raw).subject == "Re: Dice Duel [g12-abcd]"


def test_an_undecodable_encoded_word_is_kept_as_it_came():
    raw = b"From: alice@example.org\r\nSubject: =?x-unknown?q?abc?= hi\r\n\r\nplay 5\r\n"
    assert inbound.parse(raw).subject == "=?x-unknown?q?abc?= hi"


def test_raw_eight_bit_headers_do_not_stop_the_reading():
    raw = "From: Jürgen <j@example.org>\r\nSubject: Zug für mich\r\n\r\nplay 5\r\n".encode()
    parsed = inbound.parse(raw)
    assert parsed.sender == "j@example.org" and parsed.lines == ["play 5"]
