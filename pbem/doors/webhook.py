"""The third door: an ESP's inbound webhook (django-anymail; Mailgun wired in pbem/doors/urls.py).

anymail checks the request (Mailgun's signature, and basic auth when set) and turns the ESP's
payload into a message; we store it like every other door. Mailgun's signature covers only a
timestamp and a token, not the content, so a captured request could be sent again with other
content: a request is accepted only within PBEM_WEBHOOK_MAX_AGE seconds of its timestamp, and
each token once (a replay cache in Django's cache, shared by every web process through Redis).
The door is off, answering 404, while its signing key is unset (pbem.doors.open_doors).

An exception while storing makes the webhook answer 500, so the ESP retries later: nothing is
lost when the database is briefly away (the token is then released for that retry).
"""

from __future__ import annotations

import time

from anymail.exceptions import AnymailWebhookValidationFailure
from anymail.signals import inbound
from anymail.webhooks.mailgun import MailgunInboundWebhookView
from django.conf import settings
from django.core.cache import cache
from django.dispatch import receiver
from django.http import HttpResponseNotFound
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt

from pbem.doors import inbox, open_doors
from pbem.mail import inbound as reading


@receiver(inbound, dispatch_uid="pbem-inbound-mail")
def store_inbound(sender, event, esp_name, **kwargs) -> None:
    message = event.message
    envelope = [message.envelope_recipient] if getattr(message, "envelope_recipient", None) else []
    # Mailgun's MIME route carries the message as it came: store those bytes, not a re-rendering.
    mime = getattr(getattr(event, "esp_event", None), "POST", {}).get("body-mime")
    raw = mime.encode("utf-8", "surrogateescape") if mime else inbox.raw_of(message)
    inbox.store_raw(raw, "webhook", envelope)


class MailgunInbound(MailgunInboundWebhookView):
    """Mailgun's inbound route, with the door check, the freshness window and the replay cache."""

    def __init__(self, **kwargs):
        # anymail refuses to build the view without a signing key; the door answers for itself.
        self.door = open_doors.mailgun()
        if self.door.on:
            super().__init__(**kwargs)

    # Django's as_view() copies the attributes of `dispatch`: overriding it drops the csrf_exempt
    # anymail put on its own, and every real (cookie-less) request would be refused with 403.
    @method_decorator(csrf_exempt)
    def dispatch(self, request, *args, **kwargs):
        if not self.door.on:
            open_doors.refused(self.door)
            return HttpResponseNotFound(f"This door is off: {self.door.why}.", content_type="text/plain")
        return super().dispatch(request, *args, **kwargs)

    def run_validators(self, request):
        super().run_validators(request)  # the signature first: an unsigned token proves nothing
        token, timestamp = request.POST.get("token", ""), request.POST.get("timestamp", "")
        if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > settings.PBEM_WEBHOOK_MAX_AGE:
            raise AnymailWebhookValidationFailure("Mailgun webhook called with a stale or missing timestamp")
        if not cache.add(replay_key(token), 1, timeout=2 * settings.PBEM_WEBHOOK_MAX_AGE):
            raise AnymailWebhookValidationFailure("Mailgun webhook called again with a token already used")
        request.pbem_webhook_token = token

    def parse_events(self, request):
        # anymail parses the MIME itself, and Python's parser recurses once per nested part: a
        # message nested a thousand deep would answer 500 at every retry of the ESP. Such a one
        # is stored as it came, and read (and refused with its reason) like any other.
        mime = request.POST.get("body-mime")
        if mime and reading.too_complex(mime.encode("utf-8", "surrogateescape")):
            inbox.store_raw(mime.encode("utf-8", "surrogateescape"), "webhook", [request.POST.get("recipient", "")])
            return []
        return super().parse_events(request)

    def post(self, request, *args, **kwargs):
        try:
            return super().post(request, *args, **kwargs)
        except AnymailWebhookValidationFailure:
            raise
        except Exception:
            # Not stored: the ESP's retry of this very request must be let through.
            cache.delete(replay_key(getattr(request, "pbem_webhook_token", "")))
            raise


def replay_key(token: str) -> str:
    return f"pbem-webhook-token:{token[:200]}"
