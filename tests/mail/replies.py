"""Builds replies from the .eml fixtures the way real mail clients quote a notice."""

from __future__ import annotations

import base64
import html
import uuid
from email.utils import format_datetime, parseaddr

from django.utils import timezone

from .conftest import FIXTURES

STYLES = ["gmail", "outlook", "apple", "gmail_de", "gmail_fr", "thunderbird_bottom", "html_only"]
QP_STYLES = {"outlook", "apple", "gmail_de", "gmail_fr"}


def _qp(text: str) -> str:
    return text.replace("=", "=3D")


def reply(style: str, notice, command: str, *, sender: str = "alice@example.org", to: str | None = None,
          message_id: str | None = None, subject: str | None = None, keep_threading: bool = True) -> bytes:
    """`notice`: the received notice (an email.message.EmailMessage). Returns the reply's bytes."""
    body = notice.get_body(preferencelist=("plain",)).get_content()
    quoted = "\n".join(("> " + line).rstrip() for line in body.splitlines())
    to = to or parseaddr(str(notice.get("Reply-To") or notice.get("From")))[1]
    notice_id = str(notice["Message-ID"])
    values = {
        "FROM": sender, "TO": to, "SUBJECT": subject if subject is not None else str(notice["Subject"]),
        "MESSAGE_ID": message_id or f"<{uuid.uuid4().hex}@mail.example.org>",
        "IN_REPLY_TO": notice_id if keep_threading else "",
        "REFERENCES": f"{notice.get('References', '')} {notice_id}".strip() if keep_threading else "",
        "DATE": format_datetime(timezone.now()), "COMMAND": command, "QUOTED": quoted, "QUOTED_PLAIN": body,
        "COMMAND_HTML": "<br>".join(html.escape(line) for line in command.splitlines()),
        "QUOTED_HTML": "<br>".join(html.escape(line) for line in body.splitlines()),
    }
    if style == "html_only":
        markup = (f"<html><body><div>{values['COMMAND_HTML']}</div><br><div class=\"gmail_quote\">On Mon, "
                  f"Master of Seals wrote:<blockquote>{values['QUOTED_HTML']}</blockquote></div></body></html>")
        values["HTML_BASE64"] = base64.encodebytes(markup.encode()).decode().replace("\n", "\r\n").strip()
    text = (FIXTURES / f"{style}_reply.eml").read_text(encoding="ascii")
    for key, value in values.items():
        if style in QP_STYLES and key in ("COMMAND", "QUOTED", "QUOTED_PLAIN", "COMMAND_HTML", "QUOTED_HTML"):
            value = _qp(value)
        text = text.replace("{{" + key + "}}", value.replace("\n", "\r\n"))
    if not keep_threading:
        text = "\r\n".join(line for line in text.split("\r\n")
                           if not line.startswith(("In-Reply-To: \r", "References: ")) or line.strip(": "))
    return text.encode("utf-8")
