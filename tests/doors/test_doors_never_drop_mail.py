"""Doors that never drop mail: every ESP's inbound webhook answers any body 2xx or 4xx, never 5xx
(a 5xx makes the ESP retry the same request for days, and the mail is never stored), with valid
credentials or wrong ones; a mail too complex to parse (MIME nested 1,000 deep) is stored as it
came, before anymail's parser (which recurses once per part) sees it.

Every door × every hostile body × valid and wrong credentials, through a client that enforces
CSRF, as an ESP's request would be."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from pbem.doors import processing
from pbem.models import InboundMessage
from tests.doors.test_esp_webhooks import ESP_PATHS
from tests.mail.doors import mailgun_signature

DOORS = sorted(ESP_PATHS.values())
RAW_MIME_DOORS = {"amazon_ses", "mailersend", "mailgun", "postal", "postmark", "sendgrid", "sparkpost"}
FIELD_DOORS = {"brevo", "sendinblue", "mailjet"}  # the ESP parses the mail and posts its fields
# Resend and Mailtrap post only an id, and the mail is fetched from their API: no mail in the body.
ATTACKS = ["nested_1000_deep", "truncated_json", "wrong_types", "empty_body", "binary_junk", "huge_header"]
TO = "seals@pbem.localhost"
JUNK = bytes(range(256)) * 40

POSTAL_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
POSTAL_PUBLIC = base64.b64encode(
    POSTAL_KEY.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
).decode()


def nested_mime(depth: int = 1000) -> str:
    head = f"From: alice@example.org\r\nTo: {TO}\r\nSubject: deep\r\nMessage-ID: <deep@example.org>\r\nMIME-Version: 1.0\r\n"
    parts = [head]
    for n in range(depth):
        parts.append(f'Content-Type: multipart/mixed; boundary="b{n}"\r\n\r\n--b{n}\r\n')
    parts.append("Content-Type: text/plain\r\n\r\nplay 3\r\n")
    parts += [f"--b{n}--\r\n" for n in reversed(range(depth))]
    return "".join(parts)


def huge_header_mime() -> str:
    return (
        f"From: alice@example.org\r\nTo: {TO}\r\nSubject: {'x' * 200_000}\r\nMessage-ID: <huge@example.org>\r\n"
        "\r\nplay 3\r\n"
    )


def deep_json(depth: int = 100_000) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


def mail_payload(door: str, mime: str) -> tuple[bytes, str]:
    """The ESP's inbound request carrying `mime` as it posts it: (body, content type)."""
    raw = mime.encode()
    b64 = base64.b64encode(raw).decode()
    as_json = {
        "postmark": {"RecordType": "Inbound", "OriginalRecipient": TO, "RawEmail": mime, "Headers": []},
        "sparkpost": [
            {
                "msys": {
                    "relay_message": {
                        "rcpt_to": TO,
                        "content": {"email_rfc822": b64, "email_rfc822_is_base64": True},
                    }
                }
            }
        ],
        "postal": {"id": 1, "rcpt_to": TO, "mail_from": "alice@example.org", "message": b64, "base64": True},
        "mailersend": {
            "type": "inbound.message",
            "data": {"id": "m1", "raw": mime, "recipients": {"rcptTo": [{"email": TO}]}},
        },
        "amazon_ses": {
            "Type": "Notification",
            "MessageId": "sns-1",
            "Message": json.dumps(
                {
                    "notificationType": "Received",
                    "mail": {"messageId": "ses-1"},
                    "receipt": {"recipients": [TO], "action": {"type": "SNS", "encoding": "BASE64"}},
                    "content": b64,
                }
            ),
        },
        "brevo": {"items": [{"Uuid": ["u1"], "Subject": mime.split("Subject: ")[1][:200_000], "RawTextBody": "hi"}]},
        "mailjet": {"Sender": "alice@example.org", "Recipient": TO, "Subject": mime[:200_000], "Text-part": "hi"},
    }
    as_json["sendinblue"] = as_json["brevo"]
    if door in as_json:
        return json.dumps(as_json[door]).encode(), "application/json"
    if door in ("mailgun", "sendgrid"):
        field = "body-mime" if door == "mailgun" else "email"
        return encode_multipart(BOUNDARY, {"recipient": TO, field: mime}), MULTIPART_CONTENT
    return deep_json(10) if mime == "" else json.dumps({"type": "email.received", "data": {}}).encode(), (
        "application/json"
    )


def hostile_body(door: str, attack: str) -> tuple[bytes, str]:
    if attack == "nested_1000_deep":
        return mail_payload(door, nested_mime()) if door in RAW_MIME_DOORS else (deep_json(), "application/json")
    if attack == "huge_header":
        if door in RAW_MIME_DOORS | FIELD_DOORS:
            return mail_payload(door, huge_header_mime())
        return json.dumps({"type": "email.received", "data": {"x": "y" * 200_000}}).encode(), "application/json"
    if attack == "truncated_json":
        body, kind = mail_payload(door, huge_header_mime()[:300])
        return body[: len(body) // 2], kind
    if attack == "wrong_types":
        if door in ("mailgun", "sendgrid"):
            return encode_multipart(BOUNDARY, {"recipient": "7", "envelope": "[1]", "charsets": "3"}), MULTIPART_CONTENT
        return json.dumps(
            {
                "RawEmail": 5,
                "message": [1],
                "base64": True,
                "data": "x",
                "type": 3,
                "items": "x",
                "events": 7,
                "Type": "Notification",
                "MessageId": "sns-1",
                "Message": "[1, 2]",
                "Headers": 4,
            }
        ).encode(), "application/json"
    if attack == "empty_body":
        return b"", "application/json"
    assert attack == "binary_junk"
    return JUNK, "application/octet-stream" if door not in ("mailgun", "sendgrid") else MULTIPART_CONTENT


@pytest.fixture
def every_door(settings):
    settings.ANYMAIL = {
        **settings.ANYMAIL,
        "WEBHOOK_SECRET": "esp-user:esp-password",
        "POSTAL_WEBHOOK_KEY": POSTAL_PUBLIC,
        "MAILERSEND_INBOUND_SECRET": "mailersend-secret",
        "BREVO_API_KEY": "b",
        "SENDINBLUE_API_KEY": "s",
        "MAILTRAP_API_TOKEN": "m",
        "RESEND_API_KEY": "r",
    }
    return settings


def credentials(door: str, body: bytes, content_type: str, settings, valid: bool) -> tuple[bytes, dict]:
    """The body (Mailgun signs inside it) and the headers an ESP would send."""
    secret = settings.ANYMAIL["WEBHOOK_SECRET"] if valid else "esp-user:wrong"
    headers = {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(secret.encode()).decode()}
    if door == "mailgun" and content_type == MULTIPART_CONTENT:
        signature = mailgun_signature(settings.ANYMAIL["MAILGUN_WEBHOOK_SIGNING_KEY"] if valid else "wrong")
        extra = encode_multipart(BOUNDARY, signature)
        body = extra.rsplit(f"--{BOUNDARY}--".encode(), 1)[0] + body  # the signature's fields first
    if door == "mailersend":
        key = b"mailersend-secret" if valid else b"wrong"
        headers["HTTP_SIGNATURE"] = hmac.new(key, body, hashlib.sha256).hexdigest()
    if door == "postal":
        signature = POSTAL_KEY.sign(body, padding.PKCS1v15(), hashes.SHA1()) if valid else b"wrong"
        headers["HTTP_X_POSTAL_SIGNATURE"] = base64.b64encode(signature).decode()
    if door == "amazon_ses":
        headers.update(HTTP_X_AMZ_SNS_MESSAGE_TYPE="Notification", HTTP_X_AMZ_SNS_MESSAGE_ID="sns-1")
    return body, headers


def kept(door: str, attack: str, valid: bool) -> int:
    """How many mails the door must have stored."""
    if not valid:
        return 0
    if attack == "nested_1000_deep":
        return int(door in RAW_MIME_DOORS)
    if attack == "huge_header":
        return int(door in RAW_MIME_DOORS | FIELD_DOORS)
    if attack == "truncated_json":  # a form cut short still holds the start of its mail field
        return int(door in ("mailgun", "sendgrid"))
    return 0


@pytest.mark.django_db
@pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailNotSupportedWarning")
@pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailDeprecationWarning")
@pytest.mark.parametrize("valid", [True, False], ids=["valid_credentials", "wrong_credentials"])
@pytest.mark.parametrize("attack", ATTACKS)
@pytest.mark.parametrize("door", DOORS)
def test_a_hostile_body_at_an_esp_door_is_never_a_5xx_and_its_mail_is_kept(door, attack, valid, every_door):
    body, content_type = hostile_body(door, attack)
    body, headers = credentials(door, body, content_type, every_door, valid)
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    response = client.generic("POST", f"/mail/anymail/{door}/inbound/", body, content_type=content_type, **headers)
    assert response.status_code < 500, (door, attack, valid, response.status_code, response.content[:300])
    if not valid:
        assert 400 <= response.status_code < 500
    assert InboundMessage.objects.count() == kept(door, attack, valid), (door, attack, response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("door", sorted(RAW_MIME_DOORS))
def test_a_mail_nested_1000_deep_is_stored_unparsed_and_refused_with_its_reason(door, every_door):
    body, content_type = mail_payload(door, nested_mime())
    body, headers = credentials(door, body, content_type, every_door, True)
    response = Client(enforce_csrf_checks=True).generic(
        "POST", f"/mail/anymail/{door}/inbound/", body, content_type=content_type, **headers
    )
    assert response.status_code == 200
    message = InboundMessage.objects.get()
    assert message.message_id == "<deep@example.org>" and bytes(message.raw) == nested_mime().encode()
    processing.process(message.pk)
    message.refresh_from_db()
    assert message.status == "refused" and message.outcome
