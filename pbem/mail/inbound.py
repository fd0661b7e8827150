"""Reading a reply: bytes in; sender, addresses, automatic-mail verdict and command lines out.

Pure functions over the raw message (no database), so every door and every test shares them.
Lenient when reading: any charset Python knows (and a fallback for the ones it does not),
quoted-printable and base64, text/plain or HTML-only, attachments ignored. The new text is
taken with mail-parser-reply (quote headers in several languages, signatures), then every line
still quoted with ">" is dropped: that covers bottom-posting, which the library misses.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import html
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from django.conf import settings
from mailparser_reply.parser import EmailMessage as ReplyText

LANGUAGES = ["en", "de", "fr", "es", "it", "nl"]
MAX_LINES = 40  # commands in one reply; more is not a turn but a paste accident
MAX_LINE_LENGTH = 500

# Signature and device footers the library keeps when they stand alone.
FOOTER_RE = re.compile(
    r"^(sent from my .*|get outlook for .*|envoy[ée] de mon .*|von meinem .* gesendet|gesendet von .*"
    r"|enviado desde mi .*|sent from mail for windows.*|sent from yahoo mail.*)$",
    re.I,
)
# Quote attributions that survive when the library misses them (e.g. wrapped over two lines).
ATTRIBUTION_RE = re.compile(
    r"^(on .+ wrote:?|am .+ schrieb .+:|le .+ a écrit ?:?|el .+ escribió:?|il .+ ha scritto:?|op .+ schreef .+:)$",
    re.I,
)
OUTLOOK_HEADER_RE = re.compile(r"^(from|von|de|sent|gesendet|envoyé|to|an|à|subject|betreff|objet|date|datum)\s*:",
                               re.I)
AUTOMATIC_SENDERS = re.compile(r"^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|bounces?|listserv|majordomo)"
                               r"([+\-.@]|$)", re.I)


@dataclass
class Parsed:
    message_id: str
    sender: str  # the address only, lower-case
    sender_name: str
    recipients: list[str]  # every address it was sent to (envelope first), lower-case
    subject: str
    in_reply_to: list[str]  # Message-IDs from In-Reply-To and References, newest first
    automatic: str  # why it is automatic mail ("" when a person wrote it)
    is_bounce: bool
    text: str  # the new text the player wrote
    lines: list[str] = field(default_factory=list)
    too_large: bool = False
    size: int = 0
    unreadable: str = ""  # why the body could not be read at all ("" when it could)


def load(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


# Python's parser recurses once per nested multipart, so a message nested a thousand deep raises
# RecursionError wherever it is read. Real mail nests a few levels; past this many multipart
# parts a message is not read at all (its headers are, so its sender can be told why).
MAX_MULTIPARTS = 50
MULTIPART_RE = re.compile(rb"content-type:\s*multipart/", re.I)
# Control characters a header cannot hold in the database (PostgreSQL text takes no NUL) nor
# means anything in: removed from every header value we keep.
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean(value: str) -> str:
    return CONTROL_RE.sub("", value)


def too_complex(raw: bytes) -> bool:
    return len(MULTIPART_RE.findall(raw, 0, 4_000_000)) > MAX_MULTIPARTS


def header_block(raw: bytes) -> bytes:
    return raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]


def _headers(raw: bytes):
    return email.message_from_bytes(header_block(raw) + b"\n\n", policy=email.policy.compat32)


# Headers a relay adds or rewrites on the way: left out of the content hash, so the same mail
# arriving by two routes (a retry through another relay, two MX hosts) hashes the same.
TRACE_HEADERS = {"received", "return-path", "delivered-to", "x-original-to", "envelope-to", "x-received",
                 "arc-seal", "arc-message-signature", "arc-authentication-results", "authentication-results",
                 "received-spf", "dkim-signature", "x-google-dkim-signature", "x-gm-message-state",
                 "x-spam-status", "x-spam-score", "x-spam-flag", "x-virus-scanned", "x-pbem-truncated"}


def message_id_of(raw: bytes) -> str:
    """The Message-ID, or a stable one made from the content: the headers the writer set (not
    the ones relays add) and the body, with line endings and trailing blanks made alike."""
    value = clean(str(_headers(raw).get("Message-ID") or "")).strip()
    if value:
        return value[:250]
    return f"<sha256.{content_hash(raw)}@no-message-id>"


def content_hash(raw: bytes) -> str:
    head = _headers(raw)
    kept = sorted((name.lower(), " ".join(str(value).split())) for name, value in head.items()
                  if name.lower() not in TRACE_HEADERS)
    separator = b"\r\n\r\n" if b"\r\n\r\n" in raw else b"\n\n"
    body = raw.split(separator, 1)[1] if separator in raw else b""
    body_lines = [line.rstrip() for line in body.replace(b"\r\n", b"\n").split(b"\n")]
    digest = hashlib.sha256(repr(kept).encode("utf-8", "replace"))
    digest.update(b"\n".join(body_lines).strip())
    return digest.hexdigest()


def truncated(raw: bytes) -> bytes:
    """The headers of an oversized message, marked with its size: all we keep of it."""
    for sep in (b"\r\n\r\n", b"\n\n"):
        if sep in raw[:200_000]:
            head = raw.split(sep, 1)[0]
            break
    else:
        head = raw[:64_000]
    newline = b"\r\n" if b"\r\n" in head else b"\n"
    kept, dropping = [], False
    for line in head.splitlines():
        if line[:1] in (b" ", b"\t"):  # a folded continuation of the header above
            if not dropping:
                kept.append(line)
            continue
        dropping = line.lower().startswith((b"content-type", b"content-transfer-encoding", b"mime-version"))
        if not dropping:
            kept.append(line)
    head = b"".join(line + newline for line in kept)
    return head + b"X-Pbem-Truncated: " + str(len(raw)).encode() + newline + newline


def sender_of(raw: bytes) -> str:
    return clean(parseaddr(str(_headers(raw).get("From") or ""))[1].lower())


def parse(raw: bytes, envelope_to: list[str] | None = None) -> Parsed:
    """Reads a stored message. Never raises for what a sender can put in one: a message we
    cannot read comes back with `unreadable` saying why (and its headers read), to be answered."""
    unreadable = ""
    if too_complex(raw):
        unreadable = f"it has more than {MAX_MULTIPARTS} nested parts"
    elif _header(_headers(raw), "X-Pbem-Unreadable"):
        unreadable = "its structure could not be read"
    try:
        msg = load(header_block(raw) + b"\r\n\r\n" if unreadable else raw)
    except RecursionError:
        unreadable = "its structure could not be read"
        msg = load(header_block(raw) + b"\r\n\r\n")
    name, sender = _address(msg, "From")
    if not sender:
        name, sender = _address(msg, "Sender")
    recipients = [clean(a.lower()) for a in (envelope_to or []) if a]
    for header in ("Delivered-To", "X-Original-To", "To", "Cc"):
        for _n, addr in getaddresses([_header(msg, header, every=True)]):
            if addr and clean(addr.lower()) not in recipients:
                recipients.append(clean(addr.lower()))
    refs = _ids(_header(msg, "In-Reply-To")) + list(reversed(_ids(_header(msg, "References"))))
    truncated_size = _header(msg, "X-Pbem-Truncated")
    size = int(truncated_size) if truncated_size.isdigit() else len(raw)
    too_large = size > settings.PBEM_INBOUND_MAX_BYTES
    parsed = Parsed(
        message_id=message_id_of(raw), sender=sender, sender_name=name, recipients=recipients,
        subject=_header(msg, "Subject"), in_reply_to=list(dict.fromkeys(refs)), automatic=automatic_reason(msg, sender),
        is_bounce=is_bounce(msg, sender), text="", too_large=too_large, size=size, unreadable=unreadable,
    )
    if not too_large and not unreadable:
        try:
            parsed.text = new_text(body_text(msg)).replace("\x00", "")
        except RecursionError:
            parsed.unreadable = "its structure could not be read"
        parsed.lines = command_lines(parsed.text)
    return parsed


def _header(msg, name: str, every: bool = False) -> str:
    """A header's value as clean text ("" when absent or when it will not decode); every copy of
    it, comma-joined, with `every`."""
    try:
        values = msg.get_all(name, []) if every else [msg.get(name) or ""]
        return clean(", ".join(str(v) for v in values)).strip()
    except Exception:  # noqa: BLE001 - a header that will not decode is as good as absent
        return ""


def _address(msg, header: str) -> tuple[str, str]:
    name, addr = parseaddr(_header(msg, header))
    # No address is longer than 254 characters (RFC 5321): a longer one is no address to answer.
    return name[:200], (addr.lower() if len(addr) <= 254 else "")


def _ids(value: str) -> list[str]:
    return re.findall(r"<[^<>\s]+>", value)


# ---------------------------------------------------------------------------------------------
# Automatic mail (RFC 3834): never answered, so no mail loop can start
# ---------------------------------------------------------------------------------------------


def automatic_reason(msg, sender: str) -> str:
    auto = _header(msg, "Auto-Submitted").lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    if _header(msg, "X-Pbem-Notice"):
        return "one of our own notices"
    precedence = _header(msg, "Precedence").lower()
    if precedence in ("bulk", "list", "junk", "auto_reply"):
        return f"Precedence: {precedence}"
    for header in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress", "List-Id", "List-Unsubscribe",
                   "X-Loop"):
        if header == "X-Auto-Response-Suppress" and _header(msg, header).lower() not in ("all", "oof", "autoreply"):
            continue
        if _header(msg, header):
            return f"{header} header"
    if _header(msg, "Return-Path").strip() == "<>":
        return "null return path (Return-Path: <>)"
    if not sender:
        return "no sender address"
    if AUTOMATIC_SENDERS.match(sender.split("@", 1)[0]):
        return f"automatic sender {sender}"
    if sender == parseaddr(settings.DEFAULT_FROM_EMAIL)[1].lower():
        return "sent from our own address"
    if is_bounce(msg, sender):
        return "a delivery status notification"
    return ""


def is_bounce(msg, sender: str) -> bool:
    if msg.get_content_type() == "multipart/report":
        return True
    local = sender.split("@", 1)[0].lower()
    return local in ("mailer-daemon", "postmaster")


def bounce_details(raw: bytes) -> tuple[list[str], str]:
    """The Message-IDs of our mail a bounce quotes, and its diagnostic text."""
    if too_complex(raw):
        return [], "the message could not be delivered"
    try:
        return _bounce_details(load(raw), raw)
    except RecursionError:
        return [], "the message could not be delivered"


def _bounce_details(msg, raw: bytes) -> tuple[list[str], str]:
    ids: list[str] = []
    diagnostic = ""
    for part in msg.walk():
        ctype = part.get_content_type()
        if ctype == "message/rfc822" and part.is_multipart():  # the returned message itself
            ids += _ids(str(part.get_payload(0).get("Message-ID", "")))
        elif ctype in ("text/rfc822-headers", "message/rfc822-headers"):  # only its headers
            ids += [found for line in _part_text(part).splitlines() if line.lower().startswith("message-id:")
                    for found in _ids(line)]
        elif ctype == "message/delivery-status" and not diagnostic:
            found = re.search(r"Diagnostic-Code:\s*(.+)", part.as_string(), re.I)
            diagnostic = found.group(1).strip() if found else ""
    if not ids:  # a plain-text bounce: look for our Message-IDs anywhere
        ids = re.findall(r"<pbem\.[^<>\s]+>", raw.decode("latin-1"))
    return list(dict.fromkeys(ids)), clean(diagnostic)[:1000] or "the message could not be delivered"


# ---------------------------------------------------------------------------------------------
# The body: plain text preferred, else the HTML part as text; attachments ignored
# ---------------------------------------------------------------------------------------------


def body_text(msg) -> str:
    plain, rich = None, None
    for part in msg.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain" and plain is None:
            plain = _part_text(part)
        elif ctype == "text/html" and rich is None:
            rich = _part_text(part)
    if plain is not None and plain.strip():
        return plain
    if rich is not None:
        return html_to_text(rich)
    return plain or ""


def _part_text(part) -> str:
    """Decoded text of one part: its declared charset, else UTF-8, else Latin-1 (never fails)."""
    payload = part.get_payload(decode=True)
    if payload is None:
        payload = str(part.get_payload()).encode("utf-8", "replace")
    charset = part.get_content_charset() or "utf-8"
    for candidate in (charset, "utf-8"):
        try:
            return payload.decode(candidate)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("latin-1")


class _HTMLText(HTMLParser):
    """HTML to lines. Quoted blocks (Gmail, Outlook, Apple Mail, Thunderbird) are dropped."""

    BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "table", "hr"}
    SKIP = {"style", "script", "head", "title"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.depth_skip = 0
        self.stack: list[tuple[str, bool]] = []
        self.stopped = False

    def _quoted(self, tag: str, attrs: dict) -> bool:
        cls = (attrs.get("class") or "").lower()
        ident = (attrs.get("id") or "").lower()
        return (tag == "blockquote" or "gmail_quote" in cls or "moz-cite-prefix" in cls or "gmail_signature" in cls
                or ident in ("appendonsend", "divrplyfwdmsg", "mail-editor-reference-message-container")
                or "x_divrplyfwdmsg" in ident or "apple-mail-signature" in ident)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.stopped:
            return
        if tag in ("hr",) and (attrs.get("id") or "").lower() == "stopspelling":
            self.stopped = True  # Outlook: everything after this rule is the quoted message
            return
        if (attrs.get("id") or "").lower() in ("appendonsend", "divrplyfwdmsg"):
            self.stopped = True  # Outlook puts the quote after this marker, not inside it
            return
        skip = tag in self.SKIP or self._quoted(tag, attrs)
        if tag not in ("br", "hr", "img", "meta", "link", "input", "wbr"):
            self.stack.append((tag, skip))
            if skip:
                self.depth_skip += 1
        if tag in self.BLOCK:
            self.out.append("\n")

    def handle_endtag(self, tag):
        if self.stopped:
            return
        while self.stack:
            open_tag, skip = self.stack.pop()
            if skip:
                self.depth_skip -= 1
            if open_tag == tag:
                break
        if tag in self.BLOCK:
            self.out.append("\n")

    def handle_data(self, data):
        if not self.depth_skip and not self.stopped:
            self.out.append(re.sub(r"[ \t\r\n]+", " ", data))


def html_to_text(markup: str) -> str:
    parser = _HTMLText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # broken HTML: fall back to removing tags
        return html.unescape(re.sub(r"<[^>]+>", " ", markup))
    text = "".join(parser.out).replace("\xa0", " ")
    # Each block tag opens and closes a line: collapse the blank lines that leaves behind.
    return re.sub(r"\n{2,}", "\n", "\n".join(line.strip() for line in text.splitlines())).strip()


# ---------------------------------------------------------------------------------------------
# The new text and the command lines in it
# ---------------------------------------------------------------------------------------------


def new_text(body: str) -> str:
    body = body.replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ").replace("\u200b", "")
    # keep_hyphen_lists: a line such as '-2 gold' is not a signature here.
    parsed = ReplyText(text=body, languages=list(LANGUAGES), keep_hyphen_lists=True).read()
    reply = next((r for r in parsed.replies if _unquoted(r.body)), None)
    text = reply.body if reply else ""
    kept: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped == "--" or stripped == "-- " or stripped == "__":
            break  # the signature delimiter: nothing after it is an order
        if stripped.startswith(">"):
            _drop_attribution(kept)
            continue
        if ATTRIBUTION_RE.match(stripped) or FOOTER_RE.match(stripped):
            continue
        if OUTLOOK_HEADER_RE.match(stripped) and kept and not kept[-1].strip():
            break  # an Outlook header block after a blank line: the quoted message starts here
        kept.append(line)
    return "\n".join(kept).strip()


def _drop_attribution(kept: list[str]) -> None:
    """Before a quoted block: drop the attribution ("On … wrote:", "Am … schrieb …:") even when
    the client wrapped it over two lines, which the library's one-line patterns miss."""
    while kept and not kept[-1].strip():
        kept.pop()
    for size in (2, 1):
        if len(kept) >= size and ATTRIBUTION_RE.match(" ".join(line.strip() for line in kept[-size:])):
            del kept[-size:]
            return


def _unquoted(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith(">") for line in text.split("\n"))


def command_lines(text: str) -> list[str]:
    lines = []
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        lines.append(line[:MAX_LINE_LENGTH])
    return lines[: MAX_LINES + 1]  # one more than allowed, so the caller can tell it was too many
