"""Builds replies from the .eml fixtures the way real mail clients quote a notice.

Fixtures hold {{PLACEHOLDERS}} where the notice's details go; each value is encoded the way its
part declares (quoted-printable in the charset of the part, or raw 8-bit UTF-8).
"""

from __future__ import annotations

import base64
import html
import quopri
import uuid
from email.utils import format_datetime, parseaddr

from django.utils import timezone

from .conftest import FIXTURES

STYLES = ["gmail", "outlook", "apple", "gmail_de", "gmail_fr", "thunderbird_bottom", "html_only"]
# Fixtures whose body is quoted-printable, with the charset of that body.
QP_CHARSETS = {"outlook": "cp1252", "apple": "utf-8", "gmail_de": "utf-8", "gmail_fr": "latin-1"}
BODY_KEYS = {"COMMAND", "QUOTED", "QUOTED_PLAIN", "COMMAND_HTML", "QUOTED_HTML"}


def fill(name: str, values: dict, qp_charset: str | None = None) -> bytes:
    """The fixture `name` with its placeholders filled, as bytes ready to deliver."""
    text = (FIXTURES / name).read_bytes().decode("latin-1")
    for key, value in values.items():
        if qp_charset and key in BODY_KEYS:
            encoded = quopri.encodestring(value.replace("\n", "\r\n").encode(qp_charset, "replace")).decode("ascii")
        else:
            encoded = value.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8").decode("latin-1")
        text = text.replace("{{" + key + "}}", encoded)
    return text.encode("latin-1")


def values_for(
    notice,
    command: str,
    *,
    sender: str,
    to: str | None,
    message_id: str | None,
    subject: str | None,
    keep_threading: bool,
) -> dict:
    body = notice.get_body(preferencelist=("plain",)).get_content()
    notice_id = str(notice["Message-ID"])
    return {
        "FROM": sender,
        "TO": to or parseaddr(str(notice.get("Reply-To") or notice.get("From")))[1],
        "SUBJECT": subject if subject is not None else str(notice["Subject"]),
        "MESSAGE_ID": message_id or f"<{uuid.uuid4().hex}@mail.example.org>",
        "IN_REPLY_TO": notice_id if keep_threading else "<unrelated@mail.example.org>",
        "REFERENCES": f"{notice.get('References', '')} {notice_id}".strip()
        if keep_threading
        else "<unrelated@mail.example.org>",
        "DATE": format_datetime(timezone.now()),
        "COMMAND": command,
        "QUOTED": "\n".join(("> " + line).rstrip() for line in body.splitlines()),
        "QUOTED_PLAIN": body,
        "COMMAND_HTML": "<br>\n".join(html.escape(line) for line in command.splitlines()),
        "QUOTED_HTML": "<br>\n".join(html.escape(line) for line in body.splitlines()),
    }


def reply(
    style: str,
    notice,
    command: str,
    *,
    sender: str = "alice@example.org",
    to: str | None = None,
    message_id: str | None = None,
    subject: str | None = None,
    keep_threading: bool = True,
) -> bytes:
    """A reply to `notice` (an email.message.EmailMessage as received) in a client's style."""
    values = values_for(
        notice, command, sender=sender, to=to, message_id=message_id, subject=subject, keep_threading=keep_threading
    )
    if style == "html_only":
        markup = (
            f'<html><body><div>{values["COMMAND_HTML"]}</div><br><div class="gmail_quote">On Mon, '
            f"Master of Seals wrote:<blockquote>{values['QUOTED_HTML']}</blockquote></div></body></html>"
        )
        values["HTML_BASE64"] = base64.encodebytes(markup.encode()).decode().strip()
    return fill(f"{style}_reply.eml", values, QP_CHARSETS.get(style))


def corpus(name: str, notice, command: str = "", **extra) -> bytes:
    """A bad-input fixture (auto_reply, bounce, attachment, broken_charset) aimed at `notice`."""
    values = values_for(
        notice,
        command,
        sender=extra.pop("sender", "alice@example.org"),
        to=extra.pop("to", None),
        message_id=extra.pop("message_id", None),
        subject=extra.pop("subject", None),
        keep_threading=True,
    )
    values.update(extra)
    return fill(f"{name}.eml", values)
