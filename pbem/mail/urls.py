"""Inbound webhook URLs (included from config/urls.py under "mail/"): every ESP inbound webhook
that django-anymail has, at anymail's own paths (mail/anymail/<esp>/inbound/, and Mailgun's
…/inbound_mime/ for raw MIME). Each checks its own request (basic auth with
ANYMAIL_WEBHOOK_SECRET, and the ESP's signature where it signs), so an ESP is switched on by
its settings alone (ANYMAIL_<ESP>_<SETTING>, see the README's variable table).

Only the inbound views are routed: the tracking webhooks would take delivery events nobody reads.
"""

from anymail import urls as anymail_urls
from django.urls import URLPattern, include, path

from . import webhook  # noqa: F401  (connects the receiver of anymail's inbound signal)


def inbound_patterns() -> list[URLPattern]:
    return [pattern for pattern in anymail_urls.urlpatterns
            if isinstance(pattern, URLPattern) and (pattern.name or "").endswith("_inbound_webhook")]


urlpatterns = [path("anymail/", include(inbound_patterns()))]
