"""Inbound webhook URLs (included from config/urls.py under "mail/"): every ESP inbound webhook
that django-anymail has, at anymail's own paths (mail/anymail/<esp>/inbound/, and Mailgun's
…/inbound_mime/ for raw MIME). Each checks its own request (basic auth with
ANYMAIL_WEBHOOK_SECRET, and the ESP's signature where it signs), so an ESP is switched on by
its settings alone (ANYMAIL_<ESP>_<SETTING>, see the README's variable table and `esps`).

An ESP whose settings are incomplete answers 503 and logs what it lacks (the ESP retries, and
nothing is taken unchecked). Only the inbound views are routed: the tracking webhooks would take
delivery events nobody reads.
"""

from __future__ import annotations

import functools
import logging

from anymail import urls as anymail_urls
from django.http import HttpResponse
from django.urls import URLPattern, include, path
from django.views.decorators.csrf import csrf_exempt

from pbem.doors import esps
from pbem.doors.webhook import (  # importing webhook connects the receiver of anymail's inbound signal
    MailgunInbound,
    guarded,
)

log = logging.getLogger(__name__)


def esp_of(pattern: URLPattern) -> str:
    return str(pattern.pattern).lstrip("^").split("/", 1)[0]


def inbound_patterns() -> list[URLPattern]:
    return [
        pattern
        for pattern in anymail_urls.urlpatterns
        if isinstance(pattern, URLPattern) and (pattern.name or "").endswith("_inbound_webhook")
    ]


def only_when_configured(view, esp: str):
    @csrf_exempt
    @functools.wraps(view)
    def guarded(request, *args, **kwargs):
        lacking = esps.missing(esp)
        if lacking:
            log.warning("inbound webhook %s is off: set %s", esp, ", ".join(f"ANYMAIL_{key}" for key in lacking))
            return HttpResponse(
                f"The {esp} inbound webhook is not configured here.\n", status=503, content_type="text/plain"
            )
        return view(request, *args, **kwargs)

    return guarded


def never_drop(view, esp: str):
    """anymail's view rebuilt with NeverDrop (pbem.doors.webhook): never a 5xx for a body."""
    return guarded(view.view_class, esp).as_view(**view.view_initkwargs)


def guarded_patterns() -> list[URLPattern]:
    # Mailgun's routes have their own view: the freshness window and the replay cache.
    patterns = [
        path("mailgun/inbound/", csrf_exempt(MailgunInbound.as_view()), name="mailgun_inbound_webhook"),
        # Mailgun posts the raw MIME to a route URL ending in "mime" (forward("…/inbound_mime/")).
        path("mailgun/inbound_mime/", csrf_exempt(MailgunInbound.as_view()), name="mailgun_inbound_webhook"),
    ]
    for pattern in inbound_patterns():
        if esp_of(pattern) == "mailgun":
            continue
        patterns.append(
            URLPattern(
                pattern.pattern,
                only_when_configured(never_drop(pattern.callback, esp_of(pattern)), esp_of(pattern)),
                pattern.default_args,
                pattern.name,
            )
        )
    return patterns


urlpatterns = [path("anymail/", include(guarded_patterns()))]
