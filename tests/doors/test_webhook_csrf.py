"""CSRF at the webhook doors: an ESP posts without a cookie or a CSRF token, so every inbound
webhook view must be exempt. Django's test client skips the CSRF check unless told, which hid that
the Mailgun view (its `dispatch` overridden) had lost anymail's exemption: every real request was
refused with 403. These tests enforce the check, and once go through a real HTTP server."""

from __future__ import annotations

import base64

import pytest
import requests
from django.test import Client
from django.urls import URLPattern, get_resolver

from pbem.models import InboundMessage
from tests.doors.test_esp_webhooks import ESP_PATHS, basic_auth, esp_settings  # noqa: F401 - a fixture
from tests.mail.doors import mailgun_signature

MAILGUN_MIME = "/mail/anymail/mailgun/inbound_mime/"


def mail(tag: str) -> str:
    return (
        f"From: alice@example.org\r\nTo: seals@pbem.localhost\r\nSubject: hi\r\nMessage-ID: <{tag}@example.org>\r\n"
        f"\r\nhello {tag}\r\n"
    )


def mailgun_fields(settings, tag: str) -> dict:
    return {
        "recipient": "seals@pbem.localhost",
        "body-mime": mail(tag),
        **mailgun_signature(settings.ANYMAIL["MAILGUN_WEBHOOK_SIGNING_KEY"]),
    }


def webhook_patterns():
    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern), pattern
            else:
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))

    return [(route, p) for route, p in walk(get_resolver().url_patterns) if route.startswith("mail/anymail/")]


def test_every_webhook_view_is_csrf_exempt():
    routes = webhook_patterns()
    assert len(routes) == len(ESP_PATHS) + 1  # Mailgun has two routes
    for route, pattern in routes:
        assert getattr(pattern.callback, "csrf_exempt", False), route


@pytest.mark.django_db
@pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailNotSupportedWarning")
@pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailDeprecationWarning")
@pytest.mark.parametrize("esp", sorted(ESP_PATHS.values()))
def test_csrf_attack_an_esp_door_is_not_refused_for_want_of_a_csrf_token(esp, esp_settings):  # noqa: F811
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)  # 5xx: see test_doors_never_drop_mail
    response = client.post(f"/mail/anymail/{esp}/inbound/", "{}", content_type="application/json")
    assert response.status_code != 403 or b"CSRF" not in response.content, (esp, response.content[:200])
    with_auth = client.post(
        f"/mail/anymail/{esp}/inbound/", "{}", content_type="application/json", **basic_auth(esp_settings)
    )
    assert b"CSRF" not in with_auth.content, esp


@pytest.mark.django_db
def test_csrf_attack_a_signed_mailgun_request_through_a_csrf_enforcing_client_is_stored(settings):
    response = Client(enforce_csrf_checks=True).post(
        MAILGUN_MIME, mailgun_fields(settings, "csrf-client"), **basic_auth(settings)
    )
    assert response.status_code == 200, response.content[:300]
    assert list(InboundMessage.objects.values_list("message_id", flat=True)) == ["<csrf-client@example.org>"]


@pytest.mark.django_db(transaction=True)
def test_csrf_attack_a_signed_mailgun_request_over_real_http_is_stored(live_server, settings):
    """As Mailgun sends it: a multipart form, no cookie, basic auth, to a server on a free port."""
    fields = mailgun_fields(settings, "csrf-live")
    auth = base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    response = requests.post(
        live_server.url + MAILGUN_MIME,
        files={name: (None, value) for name, value in fields.items()},
        headers={"Authorization": f"Basic {auth}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text[:300]
    assert list(InboundMessage.objects.values_list("message_id", flat=True)) == ["<csrf-live@example.org>"]
