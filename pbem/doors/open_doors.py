"""Which doors are open: a door whose secret is unset is off, says so in the log at start-up and
on /health/, and answers (when asked anyway) that it is off instead of trusting a default.

The MTA pipe, the SMTP listener, the web form and the API need no secret of their own (the
seat tokens they take are signed with SECRET_KEY, which the settings refuse to run without).
The ESP webhook needs the ESP's signing key; IMAP needs a host, a user and a password.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Door:
    name: str
    on: bool
    why: str  # what is missing when off; how it is secured when on


def mailgun() -> Door:
    if not settings.ANYMAIL.get("MAILGUN_WEBHOOK_SIGNING_KEY"):
        return Door("webhook", False, "MAILGUN_WEBHOOK_SIGNING_KEY is not set")
    auth = " and basic auth" if settings.ANYMAIL.get("WEBHOOK_SECRET") else ""
    return Door("webhook", True, f"Mailgun's signature{auth}, a fresh timestamp, each token once")


def imap() -> Door:
    missing = [
        name for name in ("PBEM_IMAP_HOST", "PBEM_IMAP_USER", "PBEM_IMAP_PASSWORD") if not getattr(settings, name, "")
    ]
    if missing:
        return Door("imap", False, f"{', '.join(missing)} not set")
    return Door("imap", True, f"polling {settings.PBEM_IMAP_USER}@{settings.PBEM_IMAP_HOST}")


def webhook() -> Door:
    """The ESP door is on when at least one ESP's inbound webhook has every setting it needs
    (`pbem.doors.esps`): Mailgun its signing key, most others ANYMAIL_WEBHOOK_SECRET."""
    from pbem.doors import esps

    ready = esps.on()
    if not ready:
        return Door(
            "webhook",
            False,
            "no ESP's webhook is configured (Mailgun needs MAILGUN_WEBHOOK_SIGNING_KEY, "
            "the others ANYMAIL_WEBHOOK_SECRET or their own key)",
        )
    return Door("webhook", True, f"{', '.join(ready)}: each by its signature or basic auth")


def all_doors() -> list[Door]:
    signed = "seat tokens signed with SECRET_KEY"
    return [
        Door("pipe", True, signed),
        Door("smtp", True, f"{signed}; forged ones refused at RCPT"),
        webhook(),
        imap(),
        Door("web", True, signed),
        Door("api", True, signed),
    ]


def status() -> dict:
    """For /health/: {door: {"on": bool, "why": text}}."""
    return {door.name: {"on": door.on, "why": door.why} for door in all_doors()}


def log_doors() -> None:
    """Called as a web process starts (config/wsgi.py). A warning where an operator runs the
    service; on the embedded run the ESP and IMAP doors are off by design, said at INFO."""
    level = logging.INFO if getattr(settings, "PBEM_EMBEDDED", False) else logging.WARNING
    for door in all_doors():
        if not door.on:
            log.log(level, "door %s is off: %s", door.name, door.why)


def refused(door: Door) -> None:
    """A request came to a door that is off: worth a warning, the operator may have meant it on."""
    log.warning("a request came to the %s door, which is off: %s", door.name, door.why)
