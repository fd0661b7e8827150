"""Inbound webhook URLs (included from config/urls.py under "mail/")."""

from django.urls import path

from .webhook import MailgunInbound

urlpatterns = [
    path("anymail/mailgun/inbound/", MailgunInbound.as_view(), name="mailgun_inbound"),
    # Mailgun posts the raw MIME to a route URL ending in "mime" (forward("…/inbound_mime/")).
    path("anymail/mailgun/inbound_mime/", MailgunInbound.as_view(), name="mailgun_inbound_mime"),
]
