"""The ESP webhooks: every inbound webhook django-anymail has is routed, takes requests only with
its credentials, and a reply posted in an ESP's own format is stored and applied like any other."""

from __future__ import annotations

import base64
import json
from email import message_from_bytes, policy

import pytest
from anymail import urls as anymail_urls
from django.test import Client
from django.urls import resolve

from pbem.doors import processing
from pbem.models import Event, InboundMessage
from pbem.ops import health
from tests.mail.conftest import hand, send_all
from tests.mail.replies import reply
from tests.mail.test_replies import received

ANYMAIL_INBOUND = sorted(p.name for p in anymail_urls.urlpatterns if (p.name or "").endswith("_inbound_webhook"))
ESP_PATHS = {
    "amazon_ses_inbound_webhook": "amazon_ses",
    "brevo_inbound_webhook": "brevo",
    "mailersend_inbound_webhook": "mailersend",
    "mailgun_inbound_webhook": "mailgun",
    "mailjet_inbound_webhook": "mailjet",
    "mailtrap_inbound_webhook": "mailtrap",
    "postal_inbound_webhook": "postal",
    "postmark_inbound_webhook": "postmark",
    "resend_inbound_webhook": "resend",
    "sendgrid_inbound_webhook": "sendgrid",
    "sendinblue_inbound_webhook": "sendinblue",
    "sparkpost_inbound_webhook": "sparkpost",
}


@pytest.fixture
def esp_settings(settings):
    """Complete settings for every ESP, as an operator would give them by variables."""
    settings.ANYMAIL = {
        **settings.ANYMAIL,
        "WEBHOOK_SECRET": "esp-user:esp-password",
        "POSTAL_WEBHOOK_KEY": "postal-key",
        "MAILERSEND_INBOUND_SECRET": "mailersend-secret",
        "BREVO_API_KEY": "b",
        "SENDINBLUE_API_KEY": "s",
        "MAILTRAP_API_TOKEN": "m",
        "RESEND_API_KEY": "r",
    }
    return settings


def basic_auth(settings) -> dict:
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()}


def test_every_inbound_webhook_anymail_has_is_routed():
    assert set(ANYMAIL_INBOUND) == set(ESP_PATHS), "anymail gained or lost an ESP: add it to the table"
    for name, esp in ESP_PATHS.items():
        match = resolve(f"/mail/anymail/{esp}/inbound/")
        assert match.url_name == name, esp
    assert resolve("/mail/anymail/mailgun/inbound_mime/").url_name == "mailgun_inbound_webhook"


@pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailNotSupportedWarning")
@pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailDeprecationWarning")  # sendinblue's old URL
@pytest.mark.parametrize("esp", sorted(ESP_PATHS.values()))
def test_an_esp_webhook_refuses_a_request_without_its_credentials(esp, esp_settings, db):
    response = Client().post(f"/mail/anymail/{esp}/inbound/", data="{}", content_type="application/json")
    assert response.status_code in (400, 401, 403), (esp, response.status_code)
    assert InboundMessage.objects.count() == 0


def test_health_lists_the_esps_whose_settings_are_complete(settings):
    settings.ANYMAIL = {"WEBHOOK_SECRET": "u:p"}
    basic_only = health.webhook_esps()
    assert "postmark" in basic_only and "sendgrid" in basic_only
    assert "mailgun" not in basic_only and "postal" not in basic_only  # they sign: their key is missing
    assert "brevo" not in basic_only  # it needs its API key to fetch attachments
    settings.ANYMAIL = {"WEBHOOK_SECRET": "u:p", "MAILGUN_WEBHOOK_SIGNING_KEY": "k", "BREVO_API_KEY": "b"}
    assert {"mailgun", "brevo"} <= set(health.webhook_esps())
    settings.ANYMAIL = {"RESEND_API_KEY": "r", "RESEND_INBOUND_SECRET": "whsec_x"}
    assert health.webhook_esps() == ["resend"]  # signed, so no basic auth needed
    settings.ANYMAIL = {}
    assert health.webhook_esps() == []


def test_an_esp_without_its_settings_answers_503_and_says_what_is_missing(settings, db, caplog):
    settings.ANYMAIL = {"WEBHOOK_SECRET": "u:p"}
    response = Client().post("/mail/anymail/postal/inbound/", data="{}", content_type="application/json")
    assert response.status_code == 503 and b"postal" in response.content
    assert "ANYMAIL_POSTAL_WEBHOOK_KEY" in caplog.text
    assert InboundMessage.objects.count() == 0


def postmark(raw: bytes, to: str) -> dict:
    """Postmark's inbound JSON with "Include raw email content" on."""
    msg = message_from_bytes(raw, policy=policy.default)
    return {
        "content_type": "application/json",
        "data": json.dumps(
            {
                "RecordType": "Inbound",
                "OriginalRecipient": to,
                "RawEmail": raw.decode(),
                "FromFull": {"Email": "alice@example.org", "Name": "Alice"},
                "ToFull": [{"Email": to, "Name": ""}],
                "Subject": str(msg["Subject"]),
                "MessageID": "postmark-1",
                "Headers": [],
            }
        ),
    }


def sendgrid(raw: bytes, to: str) -> dict:
    """SendGrid's Inbound Parse with "Send Raw": a form with the whole message in `email`."""
    return {"data": {"email": raw.decode(), "envelope": json.dumps({"from": "alice@example.org", "to": [to]})}}


def sparkpost(raw: bytes, to: str) -> dict:
    """SparkPost's inbound relay webhook: a JSON list of relay_message events."""
    event = {
        "msys": {
            "relay_message": {
                "protocol": "smtp",
                "rcpt_to": to,
                "msg_from": "alice@example.org",
                "content": {"email_rfc822": base64.b64encode(raw).decode(), "email_rfc822_is_base64": True},
            }
        }
    }
    return {"content_type": "application/json", "data": json.dumps([event])}


@pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailNotSupportedWarning")
@pytest.mark.parametrize("esp, payload", [("postmark", postmark), ("sendgrid", sendgrid), ("sparkpost", sparkpost)])
def test_a_reply_through_an_esp_configured_by_settings_alone_is_applied(esp, payload, table, mailoutbox, esp_settings):
    send_all()
    card = hand(table, 0)[0]
    turn = received(mailoutbox, "alice@example.org")
    raw = reply("gmail", turn, f"play {card}")
    response = Client().post(
        f"/mail/anymail/{esp}/inbound/", **payload(raw, str(turn["Reply-To"])), **basic_auth(esp_settings)
    )
    assert response.status_code == 200, response.content
    message = InboundMessage.objects.get()
    assert message.channel == "webhook" and message.envelope_to == [str(turn["Reply-To"]).lower()]
    processing.process(message.pk)
    message.refresh_from_db()
    assert message.status == "applied", message.outcome
    assert Event.objects.get(game=table, type="CardPlayed").payload == {"seat": 0, "card": card}
