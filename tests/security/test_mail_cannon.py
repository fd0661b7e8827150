"""The service as a mail cannon: anonymous creation mails only the creator (with a fixed text)
until they accept, within per-creator and per-day limits; no answer to mail that proves no link
to us (backscatter), forged tokens refused at RCPT; a burst of mails from one seat is limited."""

from __future__ import annotations

import json
import smtplib

import pytest
from django.test import Client

from pbem.models import Event, Game, InboundMessage, Notice
from pbem.play import addressing, signing

from ..mail.conftest import deliver, send_all
from ..mail.doors import SmtpDoor
from ..mail.replies import reply
from ..mail.test_replies import received

pytestmark = pytest.mark.django_db

SPAM = "BUY CHEAP WATCHES AT spam.example"


def create(client, players, title=SPAM):
    body = {"kind": "diceduel", "title": title, "players": [{"name": n, "email": e} for n, e in players]}
    return client.post("/api/games", json.dumps(body), content_type="application/json")


@pytest.fixture(autouse=True)
def mail_now(settings):
    settings.PBEM_NOTICE_DISPATCH = "none"  # the tests send the outbox themselves


def test_anonymous_creation_mails_only_the_creator_and_none_of_the_creators_words(db, mailoutbox):
    victims = [(SPAM, f"victim{n}@example.net") for n in range(3)]
    assert create(Client(), [("Eve", "eve@example.org"), *victims]).status_code == 201
    send_all()
    assert [m.to for m in mailoutbox] == [["eve@example.org"]]
    mail = mailoutbox[0]
    assert SPAM not in mail.subject + mail.body + mail.alternatives[0][0]
    assert "If it was not you, ignore this mail" in mail.body


def test_the_others_are_invited_only_once_the_creator_accepts(db, mailoutbox):
    game = Game.objects.get(pk=create(Client(), [("Eve", "eve@example.org"), ("Bob", "bob@example.org")]).json()["id"])
    send_all()
    eve = game.seats.get(number=0)
    Client().post(f"/invite/{addressing.token_for(eve)}/")
    send_all()
    assert [m.to[0] for m in mailoutbox] == ["eve@example.org", "bob@example.org"]
    assert "eve@example.org invites you" in mailoutbox[1].body and SPAM not in mailoutbox[1].body


def test_one_creator_may_set_up_only_so_many_games_a_day(db, settings, mailoutbox):
    settings.PBEM_RATE_CREATE = (1000, 3600)  # many clients: the creator's own limit still holds
    for n in range(settings.PBEM_GAMES_PER_CREATOR_PER_DAY):
        assert create(Client(), [("Eve", "eve@example.org"), ("V", f"v{n}@example.net")]).status_code == 201
    refused = create(Client(), [("Eve", "EVE@example.org"), ("V", "late@example.net")])
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert Game.objects.count() == settings.PBEM_GAMES_PER_CREATOR_PER_DAY


def test_the_site_sends_only_so_many_invitations_a_day(db, settings):
    settings.PBEM_INVITATIONS_PER_DAY = 3
    assert create(Client(), [("A", "a@example.org"), ("B", "b@example.org")]).status_code == 201
    refused = create(Client(), [("C", "c@example.org"), ("D", "d@example.org")])
    assert refused.status_code == 429 and "as many invitations today" in refused.json()["message"]


def test_the_lobby_form_follows_the_same_rule(client, db, mailoutbox):
    response = client.post(
        "/games/new/?kind=diceduel",
        {
            "kind": "diceduel",
            "title": SPAM,
            "invitees": "Eve <eve@example.org>\nvictim@example.net",
            "deadline_hours": 48,
            "notices": "every",
            "opt_rounds": 1,
        },
        follow=True,
    )
    assert "Your invitation is on its way to eve@example.org" in response.content.decode()
    send_all()
    assert [m.to for m in mailoutbox] == [["eve@example.org"]]


def test_the_embedded_run_shows_the_creator_the_link_since_mail_stays_on_the_machine(client, db, settings):
    settings.PBEM_SHOW_CREATOR_LINK = True
    response = client.post(
        "/games/new/?kind=diceduel",
        {
            "kind": "diceduel",
            "invitees": "Ann <ann@example.org>\nben@example.org",
            "deadline_hours": 48,
            "notices": "every",
            "opt_rounds": 1,
        },
        follow=True,
    )
    ann = Game.objects.get().seats.get(number=0)
    assert f"/invite/{addressing.token_for(ann)}/" in response.content.decode()


def test_forged_senders_to_unknown_tokens_get_no_answer(duel, mailoutbox):
    game, seats, tokens = duel
    unknown_seat = f"99999-1-{signing.mac('pbem-seat:99999:1', 16)}"
    for n, to in enumerate(
        [
            f"play+1-1-{'a' * 16}@pbem.localhost",
            f"play+{unknown_seat}@pbem.localhost",
            "play+garbage@pbem.localhost",
            "seals@pbem.localhost",
        ]
    ):
        raw = (
            f"From: victim{n}@example.net\r\nTo: {to}\r\nSubject: hello\r\nMessage-ID: <bs{n}@example.net>\r\n"
            "\r\nplay 3\r\n"
        ).encode()
        message = deliver(raw)
        assert message.status == "refused" and "Not answered" in message.outcome
    assert Notice.objects.filter(kind="answer").count() == 0


@pytest.mark.django_db(transaction=True)  # the listener's thread reads the seats
def test_the_smtp_listener_refuses_forged_and_unknown_tokens_at_rcpt(duel):
    game, seats, tokens = duel
    door = SmtpDoor()
    try:
        with smtplib.SMTP("127.0.0.1", door.port) as client:
            client.ehlo()
            client.mail("eve@example.net")
            assert client.rcpt(f"play+1-1-{'a' * 16}@pbem.localhost")[0] == 550
            assert client.rcpt(f"play+99999-1-{signing.mac('pbem-seat:99999:1', 16)}@pbem.localhost")[0] == 550
            assert client.rcpt("bounces+n1-aaaaaaaa@pbem.localhost")[0] == 550
            assert client.rcpt(addressing.reply_address(seats[0]))[0] == 250
    finally:
        door.stop()
    assert InboundMessage.objects.count() == 0


def test_a_burst_of_say_mails_from_one_seat_is_limited_and_answered_once(duel, settings, mailoutbox):
    game, seats, tokens = duel
    count, _window = settings.PBEM_RATE_MAIL_COMMANDS
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    messages = [deliver(reply("gmail", notice, f"say hello {n}")) for n in range(100)]
    assert Event.objects.filter(game=game, type="pbem.Said").count() == count
    limited = [m for m in messages if m.error_code == "rate_limited"]
    assert len(limited) == 100 - count
    answers = Notice.objects.filter(kind="answer")
    assert answers.filter(context__code="rate_limited").count() == 1
    assert Notice.objects.filter(game=game).count() < 3 * count  # not 200 notices for 100 mails


def test_mail_cannon_100_forged_senders_to_one_reply_address_get_no_mail(duel, settings, mailoutbox):
    """Anyone who creates a game holds a reply address: 100 mails to it, each with a forged
    From and a spammer's subject, send nothing to any of the 100; the seat's owner is told once."""
    game, seats, tokens = duel
    settings.PBEM_RATE_MAIL_COMMANDS = (1000, 600)  # not the per-seat limit: the rule itself
    send_all()
    mailoutbox.clear()
    to = addressing.reply_address(seats[0])
    victims = [f"victim{n}@example.net" for n in range(100)]
    for n, victim in enumerate(victims):
        raw = (
            f"From: {victim}\r\nTo: {to}\r\nSubject: {SPAM} {n}\r\nMessage-ID: <cannon{n}@example.net>\r\n"
            f"\r\n{SPAM}\r\n"
        ).encode()
        message = deliver(raw)
        assert message.status == "refused" and message.error_code == "not_at_table"
        assert "Not answered" in message.outcome
    send_all()
    assert not [m for m in mailoutbox if set(m.to) & set(victims)]
    assert [m.to for m in mailoutbox] == [["alice@example.org"]]  # the owner, once, in fixed words
    assert SPAM not in mailoutbox[0].subject + mailoutbox[0].body
    assert not Event.objects.filter(game=game, type="pbem.Said").exists()


def test_mail_cannon_the_site_tells_only_so_many_owners_an_hour(make_game, settings, mailoutbox):
    settings.PBEM_STRANGER_NOTES_PER_HOUR = 3
    games = [make_game(2) for _ in range(5)]
    send_all()
    mailoutbox.clear()
    for n, game in enumerate(games):
        to = addressing.reply_address(game.seats.get(number=0))
        deliver(f"From: v{n}@example.net\r\nTo: {to}\r\nSubject: x\r\nMessage-ID: <s{n}@x>\r\n\r\nhi\r\n".encode())
    send_all()
    assert len(mailoutbox) == 3 and all(m.to == ["alice@example.org"] for m in mailoutbox)


def test_mail_cannon_a_revoked_token_with_a_forged_sender_is_not_answered(duel, mailoutbox):
    game, seats, tokens = duel
    seats[0].token_generation += 1
    seats[0].save()
    send_all()
    mailoutbox.clear()
    raw = (
        f"From: victim@example.net\r\nTo: play+{tokens[0]}@pbem.localhost\r\nSubject: {SPAM}\r\n"
        "Message-ID: <rev@example.net>\r\n\r\nplay 3\r\n"
    ).encode()
    message = deliver(raw)
    assert message.status == "refused" and message.error_code == "revoked" and "Not answered" in message.outcome
    send_all()
    assert mailoutbox == []
