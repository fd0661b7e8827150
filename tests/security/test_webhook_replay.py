"""Webhook replay: Mailgun signs only a timestamp and a token, so a captured request is refused
when sent again (with any content) and when its timestamp is stale."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest
from django.db import DatabaseError
from django.test import Client

from pbem.doors import inbox
from pbem.models import InboundMessage

pytestmark = pytest.mark.django_db

URL = "/mail/anymail/mailgun/inbound_mime/"


def signed(settings, timestamp: int | None = None, token: str = "t" * 50) -> dict:
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    key = settings.ANYMAIL["MAILGUN_WEBHOOK_SIGNING_KEY"].encode()
    return {
        "timestamp": stamp,
        "token": token,
        "signature": hmac.new(key, f"{stamp}{token}".encode(), hashlib.sha256).hexdigest(),
    }


def post(settings, body: str, signature: dict):
    auth = base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    return Client().post(
        URL, {"recipient": "seals@pbem.localhost", "body-mime": body, **signature}, HTTP_AUTHORIZATION=f"Basic {auth}"
    )


def mail(text: str) -> str:
    return f"From: alice@example.org\r\nTo: seals@pbem.localhost\r\nSubject: hi\r\nMessage-ID: <{text}@x>\r\n\r\n{text}\r\n"


def test_a_captured_signed_request_sent_again_with_other_content_is_refused(settings):
    signature = signed(settings)
    assert post(settings, mail("first"), signature).status_code == 200
    again = post(settings, mail("second"), signature)
    assert again.status_code == 400
    assert list(InboundMessage.objects.values_list("message_id", flat=True)) == ["<first@x>"]


def test_a_two_day_old_signature_is_refused(settings):
    response = post(settings, mail("old"), signed(settings, int(time.time()) - 2 * 86400))
    assert response.status_code == 400 and InboundMessage.objects.count() == 0


def test_a_signature_from_the_future_is_refused(settings):
    response = post(settings, mail("future"), signed(settings, int(time.time()) + 3600))
    assert response.status_code == 400 and InboundMessage.objects.count() == 0


def test_a_request_that_could_not_be_stored_may_be_retried_by_the_esp(settings, monkeypatch):
    signature = signed(settings, token="r" * 50)
    original = inbox.store_raw

    def database_away(*args, **kwargs):
        raise DatabaseError("the database is away")

    monkeypatch.setattr(inbox, "store_raw", database_away)
    with pytest.raises(DatabaseError):  # Django answers 500: the ESP retries later
        post(settings, mail("retried"), signature)
    monkeypatch.setattr(inbox, "store_raw", original)
    assert post(settings, mail("retried"), signature).status_code == 200
    assert InboundMessage.objects.count() == 1
