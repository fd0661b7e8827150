"""A real round trip: notices over SMTP to a server the test starts, replies in through every
door, each move applied exactly once, the confirmation received over SMTP.

Transactional: the SMTP listener stores mail from its own thread, and on-commit dispatch runs
(Celery is eager here; tests/mail/test_celery_redis.py runs a real worker on Redis).
"""

from __future__ import annotations

import base64
import os
import signal
import smtplib
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from pbem.models import Event, InboundMessage, Notice
from pbem.play import services
from tests.conftest import CAST

from .conftest import free_port, hand
from .doors import DELIVER, DOORS, SmtpDoor, webhook_parsed
from .replies import reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def smtp_door():
    door = SmtpDoor()
    yield door
    door.stop()


@pytest.fixture
def live_game(settings, smtp_sink):
    settings.PBEM_NOTICE_DISPATCH = "on_commit"
    game = services.create_game("diceduel", CAST[:2], {})
    smtp_sink.wait_for(2)
    return game


def notice_to(sink, address: str, kind: str = "turn", game=None):
    for msg in reversed(sink.parsed()):
        if str(msg["To"]) == address or address in str(msg["To"]):
            notice = Notice.objects.get(pk=int(msg["X-Pbem-Notice"]))
            if notice.kind == kind and (game is None or notice.game_id == game.pk):
                return msg
    raise AssertionError(f"no {kind} mail to {address}: {[str(m['Subject']) for m in sink.parsed()]}")


@pytest.mark.parametrize("door", DOORS)
def test_round_trip_through_each_door(door, live_game, smtp_sink, smtp_door, monkeypatch, tmp_path, settings):
    """For each door, a reply quoted as Gmail, Outlook and Apple Mail quote (a game for each)."""
    games = [live_game] + [services.create_game("diceduel", CAST[:2], {}) for _ in range(2)]
    smtp_sink.wait_for(6)
    for game, style in zip(games, ("gmail", "outlook", "apple")):
        turn = notice_to(smtp_sink, "alice@example.org", game=game)
        assert turn["Reply-To"].startswith("play+") and turn["In-Reply-To"] == f"<pbem.game{game.pk}@pbem.localhost>"
        assert turn.get_body(preferencelist=("html",)) is not None
        card = hand(game, 0)[2]
        raw = reply(style, turn, f"play {card}")
        sent_before = len(smtp_sink.messages)

        DELIVER[door](raw, monkeypatch=monkeypatch, tmp_path=tmp_path / style, settings=settings, smtp_door=smtp_door)

        message = InboundMessage.objects.get(game=game)
        assert (message.channel, message.status) == (door, "applied"), (style, message.outcome)
        assert list(Event.objects.filter(game=game, type="CardPlayed").values_list("payload", flat=True)) == [
            {"seat": 0, "card": card}
        ]
        smtp_sink.wait_for(sent_before + 1)
        confirmation = notice_to(smtp_sink, "alice@example.org", "answer", game=game)
        assert confirmation["In-Reply-To"] == message.message_id
        assert "Done." in confirmation.get_body(preferencelist=("plain",)).get_content()
        assert f"play {card}" in confirmation.get_body(preferencelist=("plain",)).get_content()
    assert InboundMessage.objects.count() == 3 and Notice.objects.filter(kind="answer").count() == 3


def test_one_reply_through_all_doors_is_applied_once(live_game, smtp_sink, smtp_door, monkeypatch, tmp_path, settings):
    raw = reply(
        "gmail", notice_to(smtp_sink, "bob@example.org"), f"play {hand(live_game, 1)[0]}", sender="bob@example.org"
    )
    for door in DOORS:
        DELIVER[door](raw, monkeypatch=monkeypatch, tmp_path=tmp_path / door, settings=settings, smtp_door=smtp_door)
    assert InboundMessage.objects.count() == 1
    assert Event.objects.filter(game=live_game, type="CardPlayed").count() == 1
    assert Notice.objects.filter(kind="answer").count() == 1


def test_mailgun_fully_parsed_payload(live_game, smtp_sink, settings):
    turn = notice_to(smtp_sink, "alice@example.org")
    second_option = hand(live_game, 0)[1]  # the notice lists the hand in order: code 2
    webhook_parsed(reply("outlook", turn, "2"), settings=settings)
    message = InboundMessage.objects.get()
    assert (message.channel, message.status) == ("webhook", "applied"), message.outcome
    assert Event.objects.get(game=live_game, type="CardPlayed").payload == {"seat": 0, "card": second_option}


def test_webhook_with_a_bad_signature_is_refused(client, settings):
    fields = {
        "recipient": "play+1-1-aaaa@pbem.localhost",
        "body-mime": "Subject: x\r\n\r\nplay 1",
        "timestamp": "1",
        "token": "t",
        "signature": "0" * 64,
    }
    auth = base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    response = client.post("/mail/anymail/mailgun/inbound_mime/", fields, HTTP_AUTHORIZATION=f"Basic {auth}")
    assert response.status_code == 400
    assert InboundMessage.objects.count() == 0


def test_smtpd_refuses_other_domains_at_rcpt(smtp_door):
    with smtplib.SMTP("127.0.0.1", smtp_door.port) as client:
        client.ehlo()
        client.mail("eve@example.net")
        code, _msg = client.rcpt("someone@example.com")
        assert code == 550
        code, _msg = client.rcpt("seals@pbem.localhost")  # the plain address: the subject may name the seat
        assert code == 250


def test_the_smtpd_command_serves_until_stopped(live_game, smtp_sink, tmp_path):
    """`manage.py smtpd` as its own process (Celery eager there): a reply handed to it is applied."""
    db = connection.settings_dict
    port = free_port()
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="tests.settings",
        CELERY_BROKER_URL="",
        CELERY_TASK_ALWAYS_EAGER="1",
        PBEM_NOTICE_DISPATCH="on_commit",
        DATABASE_URL=f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_sink.port),
    )
    out = tmp_path / "smtpd.out"
    with out.open("wb") as sink_file:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "smtpd", "--port", str(port)],
            cwd=Path(__file__).resolve().parents[2],
            env=env,
            stdout=sink_file,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while b"Listening" not in out.read_bytes() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.05)
        assert b"Listening" in out.read_bytes(), out.read_bytes().decode(errors="replace")
        card = hand(live_game, 1)[0]
        raw = reply("outlook", notice_to(smtp_sink, "bob@example.org"), f"play {card}", sender="bob@example.org")
        with smtplib.SMTP("127.0.0.1", port) as client:
            client.sendmail("bob@example.org", [notice_to(smtp_sink, "bob@example.org")["Reply-To"]], raw)
        message = InboundMessage.objects.get()
        assert message.channel == "smtp" and message.status == "applied", message.outcome
        assert message.envelope_to == [str(notice_to(smtp_sink, "bob@example.org")["Reply-To"]).lower()]
        smtp_sink.wait_for(3)
        assert notice_to(smtp_sink, "bob@example.org", "answer")["In-Reply-To"] == message.message_id
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(10) == 0
