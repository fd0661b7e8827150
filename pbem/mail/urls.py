"""Inbound webhook URLs (included from config/urls.py under "mail/")."""

from anymail.webhooks.mailgun import MailgunInboundWebhookView
from django.urls import path

from . import webhook  # noqa: F401  (connects the receiver of anymail's inbound signal)

urlpatterns = [
    path("anymail/mailgun/inbound/", MailgunInboundWebhookView.as_view(), name="mailgun_inbound"),
    # Mailgun posts the raw MIME to a route URL ending in "mime" (forward("…/inbound_mime/")).
    path("anymail/mailgun/inbound_mime/", MailgunInboundWebhookView.as_view(), name="mailgun_inbound_mime"),
]
