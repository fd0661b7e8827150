"""The third door: an ESP's inbound webhook (django-anymail; Mailgun wired in pbem/mail/urls.py).

anymail checks the request (basic auth and the ESP's signature) and turns the ESP's payload
into a message; we store it like every other door. An exception here makes the webhook answer
500, so the ESP retries later: nothing is lost when the database is briefly away.
"""

from __future__ import annotations

from anymail.signals import inbound
from django.dispatch import receiver

from .. import inbox


@receiver(inbound, dispatch_uid="pbem-inbound-mail")
def store_inbound(sender, event, esp_name, **kwargs) -> None:
    message = event.message
    envelope = [message.envelope_recipient] if getattr(message, "envelope_recipient", None) else []
    inbox.store_raw(message.as_bytes(), "webhook", envelope)
