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

import logging
import time

import requests
from anymail.exceptions import AnymailWebhookValidationFailure
from anymail.signals import inbound
from anymail.webhooks.mailgun import MailgunInboundWebhookView
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError
from django.dispatch import receiver
from django.http import HttpResponseNotFound
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import View

from pbem.doors import esp_mime, inbox, open_doors
from pbem.mail import inbound as reading

log = logging.getLogger(__name__)


@receiver(inbound, dispatch_uid="pbem-inbound-mail")
def store_inbound(sender, event, esp_name, **kwargs) -> None:
    message = event.message
    if message is None:  # Resend's event without an email id: nothing to store, nothing to retry
        log.warning("%s inbound event without a message: nothing stored", esp_name)
        return
    envelope = [message.envelope_recipient] if getattr(message, "envelope_recipient", None) else []
    # Mailgun's MIME route carries the message as it came: store those bytes, not a re-rendering.
    mime = getattr(getattr(event, "esp_event", None), "POST", {}).get("body-mime")
    raw = mime.encode("utf-8", "surrogateescape") if mime else inbox.raw_of(message)
    inbox.store_raw(raw, "webhook", envelope)


class NeverDrop:
    """What every ESP's inbound view is given (mixed in before anymail's view, pbem/doors/urls.py):
    a request is answered 2xx or 4xx, never 5xx, whatever its body, so an ESP never retries for
    ever a mail that can never be taken, and the mail is kept wherever it can be.

    - Checking the request (credentials, signature) that fails in any other way than a refusal
      (a body that is not even JSON, a header of the wrong type) is a refusal: 400.
    - After the check, the raw MIME is read out of the ESP's payload by us, bounded and before
      anymail parses it: one too complex to parse (Python's parser recurses once per nested part)
      is stored as it came, and read (and refused with its reason) like any other.
    - anymail failing on a payload (wrong types, a field missing) stores the raw MIME when there
      is one, and is otherwise a 400 (nothing to keep).
    Storing itself failing (the database away) still answers 500, so the ESP retries later.
    """

    esp = ""

    @method_decorator(csrf_exempt)
    def dispatch(self, request, *args, **kwargs):
        return super().dispatch(request, *args, **kwargs)

    def run_validators(self, request):
        try:
            super().run_validators(request)
        except AnymailWebhookValidationFailure:
            raise
        except Exception as exc:  # noqa: BLE001 - a body the check cannot read is refused
            raise AnymailWebhookValidationFailure(
                f"{self.esp} webhook: the request could not be checked ({type(exc).__name__})"
            ) from exc

    def parse_events(self, request):
        found = esp_mime.of(self.esp, request)
        if any(reading.too_complex(raw) for raw, _to in found):
            return self.keep(found, "too complex to parse")
        try:
            return super().parse_events(request)
        except (DatabaseError, requests.RequestException):
            raise  # the ESP's API (to fetch the mail) or our database away: a 5xx, the ESP retries
        except Exception as exc:  # noqa: BLE001 - RecursionError, KeyError, TypeError, …
            if found:
                return self.keep(found, f"its payload could not be parsed ({type(exc).__name__})")
            raise AnymailWebhookValidationFailure(
                f"{self.esp} webhook: the payload could not be read ({type(exc).__name__})"
            ) from exc

    def keep(self, found: list[tuple[bytes, list[str]]], why: str) -> list:
        for raw, envelope in found:
            inbox.store_raw(raw, "webhook", envelope)
        log.warning("%s webhook: a mail stored unparsed, %s", self.esp, why)
        return []


class MailgunInbound(NeverDrop, MailgunInboundWebhookView):
    """Mailgun's inbound route, with the door check, the freshness window and the replay cache."""

    esp = "mailgun"

    def __init__(self, **kwargs):
        # anymail refuses to build the view without a signing key; the door answers for itself.
        self.door = open_doors.mailgun()
        if self.door.on:
            super().__init__(**kwargs)

    # Django's as_view() copies the attributes of `dispatch`: overriding it without csrf_exempt
    # drops the exemption, and every real (cookie-less) request would be refused with 403.
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

    def post(self, request, *args, **kwargs):
        try:
            return super().post(request, *args, **kwargs)
        except AnymailWebhookValidationFailure:
            raise
        except Exception:
            # Not stored: the ESP's retry of this very request must be let through.
            cache.delete(replay_key(getattr(request, "pbem_webhook_token", "")))
            raise


def guarded(view_class: type, esp: str) -> type[View]:
    """anymail's inbound view for `esp`, with NeverDrop before it."""
    return type(f"NeverDrop{view_class.__name__}", (NeverDrop, view_class), {"esp": esp})


def replay_key(token: str) -> str:
    return f"pbem-webhook-token:{token[:200]}"
