"""The raw MIME inside an ESP's inbound payload, read by us before anymail parses it (so a mail
too complex for Python's parser is found and stored as it came, pbem.doors.webhook.NeverDrop).

Each reader takes the request and gives [(raw bytes, envelope recipients)]: [] when the ESP sends
no raw MIME (the JSON-field ESPs: Brevo, Mailjet; the fetching ones: Resend, Mailtrap), or when
the payload is not of the shape expected. A reader never raises: anything unexpected is [].
"""

from __future__ import annotations

import base64
import binascii
import json
import logging

log = logging.getLogger(__name__)

Found = list[tuple[bytes, list]]  # (raw, envelope); `of` keeps only the envelope's strings

MAX_ITEMS = 50  # SparkPost posts a list of events; more than this in one request is not a mail batch


def of(esp: str, request) -> Found:
    reader = READERS.get(esp)
    if reader is None:
        return []
    try:
        return [(raw, [a for a in to if isinstance(a, str) and a][:50]) for raw, to in reader(request) if raw]
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError, UnicodeError, binascii.Error):
        return []


def _text(value) -> bytes:
    return value.encode("utf-8", "surrogateescape") if isinstance(value, str) else b""


def _b64(value) -> bytes:
    return base64.b64decode(value) if isinstance(value, str) else b""


def _json(request):
    return json.loads(request.body.decode("utf-8"))


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def mailgun(request) -> Found:
    return [(_text(request.POST.get("body-mime")), [request.POST.get("recipient", "")])]


def sendgrid(request) -> Found:
    try:
        to = _dict(json.loads(request.POST.get("envelope", "{}"))).get("to") or []
    except ValueError:
        to = []
    return [(_text(request.POST.get("email")), to if isinstance(to, list) else [])]


def postmark(request) -> Found:
    event = _dict(_json(request))
    return [(_text(event.get("RawEmail")), [event.get("OriginalRecipient")])]


def sparkpost(request) -> Found:
    events = _json(request)
    found: Found = []
    for item in events[:MAX_ITEMS] if isinstance(events, list) else []:
        relay = _dict(_dict(_dict(item).get("msys")).get("relay_message"))
        content = _dict(relay.get("content"))
        raw = content.get("email_rfc822")
        found.append((_b64(raw) if content.get("email_rfc822_is_base64") else _text(raw), [relay.get("rcpt_to")]))
    return found


def postal(request) -> Found:
    event = _dict(_json(request))
    raw = event.get("message")
    return [(_b64(raw) if event.get("base64") is True else _text(raw), [event.get("rcpt_to")])]


def mailersend(request) -> Found:
    data = _dict(_dict(_json(request)).get("data"))
    rcpt = _dict(data.get("recipients")).get("rcptTo")
    to = [_dict(r).get("email") for r in rcpt[:50]] if isinstance(rcpt, list) else []
    return [(_text(data.get("raw")), to)]


def amazon_ses(request) -> Found:
    sns = _dict(_json(request))
    if sns.get("Type") != "Notification" or not isinstance(sns.get("Message"), str):
        return []
    event = _dict(json.loads(sns["Message"]))
    receipt = _dict(event.get("receipt"))
    action = _dict(receipt.get("action"))
    if action.get("type") != "SNS":
        return []
    content = event.get("content")
    raw = _b64(content) if action.get("encoding") == "BASE64" else _text(content)
    to = receipt.get("recipients")
    return [(raw, to if isinstance(to, list) else [])]


READERS = {
    "amazon_ses": amazon_ses,
    "mailersend": mailersend,
    "mailgun": mailgun,
    "postal": postal,
    "postmark": postmark,
    "sendgrid": sendgrid,
    "sparkpost": sparkpost,
}
