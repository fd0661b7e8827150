"""The ESPs whose inbound webhooks django-anymail has, and what each needs before it may take
mail: the settings its view cannot work without, and how it proves a request came from the ESP
(its signature, or basic auth with ANYMAIL_WEBHOOK_SECRET). All settings come from ANYMAIL_…
variables (config/settings.py). Read from anymail 15.2's webhook views.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class Esp:
    required: tuple[str, ...] = ()  # the view refuses to start without these
    signature: str = ""  # the key it checks every request's signature with (then no basic auth)
    optional_signature: str = ""  # checked when given; basic auth otherwise


ESPS = {
    "amazon_ses": Esp(),
    "brevo": Esp(required=("BREVO_API_KEY",)),  # to fetch attachments
    "mailersend": Esp(signature="MAILERSEND_INBOUND_SECRET"),
    "mailgun": Esp(signature="MAILGUN_WEBHOOK_SIGNING_KEY"),
    "mailjet": Esp(),
    "mailtrap": Esp(required=("MAILTRAP_API_TOKEN",), optional_signature="MAILTRAP_INBOUND_SECRET"),
    "postal": Esp(signature="POSTAL_WEBHOOK_KEY"),
    "postmark": Esp(),
    "resend": Esp(required=("RESEND_API_KEY",), optional_signature="RESEND_INBOUND_SECRET"),
    "sendgrid": Esp(),
    "sendinblue": Esp(required=("SENDINBLUE_API_KEY",)),  # Brevo's former name and URL
    "sparkpost": Esp(),
}


def missing(name: str) -> list[str]:
    """The settings (ANYMAIL_… variables) this ESP's webhook still lacks; [] when it is on."""
    esp, given = ESPS[name], settings.ANYMAIL
    lacking = [key for key in esp.required if not given.get(key)]
    if esp.signature:
        lacking += [] if given.get(esp.signature) else [esp.signature]
    elif not given.get("WEBHOOK_SECRET") and not (esp.optional_signature and given.get(esp.optional_signature)):
        lacking.append("WEBHOOK_SECRET" + (f" or {esp.optional_signature}" if esp.optional_signature else ""))
    return lacking


def on() -> list[str]:
    return [name for name in sorted(ESPS) if not missing(name)]
