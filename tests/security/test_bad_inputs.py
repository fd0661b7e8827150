"""Every bad input of `bad_inputs.py` through every door: the web form, the API, the MTA pipe
(`receive_email`), the SMTP listener, the Mailgun webhook and the IMAP poll (a stand-in mailbox).
For each: no state change (events, game versions), no server error (no 5xx, no error logged, no
message left unprocessed or ended as our error), and every person-written mail answered with a
reason, except those that prove no link to us (recorded with their reason, refused at RCPT by
the SMTP listener) and automatic mail (recorded, never answered).

The table in pbem/SECURITY.md is what this test saw; it fails when the two differ. After a
change, write the table anew with PBEM_WRITE_SECURITY_TABLE=1 and read the difference."""

from __future__ import annotations

import io
import json
import logging
import os
import smtplib
import sys
from email import message_from_bytes
from email.policy import compat32
from email.utils import getaddresses
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from pbem.doors import imap, processing
from pbem.models import Event, Game, InboundMessage, Notice
from pbem.play import addressing, services

from ..mail.doors import FakeMailBox, SmtpDoor, mailgun_signature
from .bad_inputs import API_CASES, MAIL_CASES, WEB_CASES, Ctx

SECURITY_MD = Path(__file__).resolve().parents[2] / "pbem" / "SECURITY.md"
START, END = "<!-- bad-inputs:start -->", "<!-- bad-inputs:end -->"
MAIL_DOORS = ["pipe", "smtp", "webhook", "imap"]


def snapshot() -> tuple:
    return Event.objects.count(), tuple(Game.objects.order_by("pk").values_list("pk", "version"))


def compat32_headers(raw: bytes):
    return message_from_bytes(raw.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n", policy=compat32)


def through(door: str, raw: bytes, settings, smtp_door) -> str:
    """Hands `raw` to a door as production would; returns "" or how the door itself refused it."""
    rcpt = [a for _n, a in getaddresses(compat32_headers(raw).get_all("To", []))][:1] or ["seals@pbem.localhost"]
    if door == "pipe":
        sys.stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="latin-1")
        try:
            call_command("receive_email", recipient=rcpt)
        finally:
            sys.stdin = sys.__stdin__
    elif door == "smtp":
        try:
            with smtplib.SMTP("127.0.0.1", smtp_door.port) as client:
                client.sendmail("sender@example.net", rcpt, raw)
        except smtplib.SMTPRecipientsRefused as refused:
            code, _text = next(iter(refused.recipients.values()))
            return f"{code} at RCPT"
        except smtplib.SMTPDataError as refused:  # the sending MTA bounces it to the writer, with the reason
            return f"{refused.smtp_code} at DATA ({refused.smtp_error.decode()[:40]})"
    elif door == "webhook":
        auth = __import__("base64").b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
        response = Client().post(
            "/mail/anymail/mailgun/inbound_mime/",
            {
                "recipient": rcpt[0],
                "body-mime": raw.decode("utf-8", "replace"),
                **mailgun_signature(settings.ANYMAIL["MAILGUN_WEBHOOK_SIGNING_KEY"]),
            },
            HTTP_AUTHORIZATION=f"Basic {auth}",
        )
        assert response.status_code == 200, response.content[:300]
    elif door == "imap":
        settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_USER = "imap.example.org", "pbem"
        imap.poll(FakeMailBox([raw]))
    return ""


def mail_outcome(door, name, raw, expected, settings, smtp_door) -> str:
    last = InboundMessage.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    refused_at_door = through(door, raw, settings, smtp_door)
    for pending in InboundMessage.objects.filter(status="received").values_list("pk", flat=True):
        processing.process(pending)
    rows = list(InboundMessage.objects.filter(pk__gt=last))
    if refused_at_door:
        assert not rows and (expected == "silent" or "at DATA" in refused_at_door), (door, name)
        return f"refused: {refused_at_door}"
    assert len(rows) == 1, (door, name, rows)
    row = rows[0]
    answered = Notice.objects.filter(kind="answer", context__inbound=row.pk).exists()
    assert row.status != "received" and row.error_code != "error", (door, name, row.outcome)
    got = "answered" if answered else ("ignored" if row.status == "ignored" else "silent")
    assert got == expected, (door, name, row.status, row.error_code, row.outcome)
    if answered:
        return f"{row.status}: {row.error_code}, answered"
    return f"{row.status}: {row.error_code}, recorded, not answered"


def http_outcome(client, method, path, data, token=None, api=False) -> str:
    headers = {"HTTP_X_SEAT_TOKEN": token} if token else {}
    if method == "get":
        response = client.get(path, **headers)
    elif api:
        body = data if isinstance(data, str) else json.dumps(data)
        response = client.post(path, body, content_type="application/json", **headers)
    else:
        response = client.post(path, data, **headers)
    for pending in InboundMessage.objects.filter(status="received").values_list("pk", flat=True):
        processing.process(pending)
    assert response.status_code < 500, (path, response.status_code)
    if api:
        body = response.json()
        assert body["message"] and body["code"], (path, body)
        return f"{response.status_code} {body['code']}"
    assert response.content.strip(), path  # a page that says why
    return str(response.status_code)


def render(rows: list[tuple[str, str, str]]) -> str:
    lines = [START, "", "| # | door | bad input | what happened |", "| --- | --- | --- | --- |"]
    lines += [f"| {n} | {door} | {name} | {outcome} |" for n, (door, name, outcome) in enumerate(rows, start=1)]
    lines += ["", f"{len(rows)} bad inputs; 0 state changes; 0 server errors.", "", END]
    return "\n".join(lines)


@pytest.mark.django_db(transaction=True)  # the SMTP listener stores from a thread of its own
def test_every_bad_input_through_every_door_changes_nothing_and_gets_a_reason(settings, caplog):
    settings.PBEM_NOTICE_DISPATCH = "none"
    settings.PBEM_RATE_SUBMIT = settings.PBEM_RATE_TOKEN_FAILURES = settings.PBEM_RATE_CREATE = (100_000, 600)
    settings.PBEM_RATE_MAIL_COMMANDS, settings.PBEM_MAIL_ANSWERS_PER_HOUR = (100_000, 600), 100_000
    game = services.create_game(
        "diceduel",
        [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")],
        {"rounds": 3},
    )
    seats = list(game.seats.order_by("number"))
    ctx, tokens = Ctx(game.pk, seats[0], seats[1]), [addressing.token_for(s) for s in seats]
    rows: list[tuple[str, str, str]] = []
    caplog.set_level(logging.ERROR)
    smtp_door = SmtpDoor()
    try:
        for door in MAIL_DOORS:
            for n, (name, build, expected) in enumerate(MAIL_CASES):
                raw = build(ctx).replace(b"{n}", f"{door}.{n}".encode())
                before = snapshot()
                rows.append((door, name, mail_outcome(door, name, raw, expected, settings, smtp_door)))
                assert snapshot() == before, (door, name)
    finally:
        smtp_door.stop()
    client = Client()
    for name, method, path, data in WEB_CASES(ctx, tokens):
        before = snapshot()
        rows.append(("web", name, http_outcome(client, method, path, data)))
        assert snapshot() == before, ("web", name)
    for name, method, path, data, token in API_CASES(ctx, tokens):
        before = snapshot()
        rows.append(("api", name, http_outcome(client, method, path, data, token, api=True)))
        assert snapshot() == before, ("api", name)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors][:5]
    assert len(rows) >= 150
    table = render(rows)
    text = SECURITY_MD.read_text()
    if os.environ.get("PBEM_WRITE_SECURITY_TABLE"):
        head, _, rest = text.partition(START)
        SECURITY_MD.write_text(head + table + rest.partition(END)[2])
    else:
        assert table in text, "pbem/SECURITY.md's table differs from what the doors did (PBEM_WRITE_SECURITY_TABLE=1)"
