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
import functools
import hashlib
import html
import re
import unicodedata
from dataclasses import dataclass, field
from email.errors import HeaderParseError
from email.header import Header, decode_header, make_header
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from django.conf import settings
from mailparser_reply.parser import EmailMessage as ReplyText

from pbem.mail.trace import TRACE_HEADERS  # shared with the pipe's store (trace.py)

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
DIVIDER_RE = re.compile(
    r"^(_{8,}|-{3,} ?(original message|urspr[üu]ngliche nachricht|message d'origine|mensaje original)"
    r" ?-{3,}"
    # A notice forwarded to the reply address with the move written above it (Gmail, Thunderbird,
    # Outlook, Apple Mail, in English, German, French, Spanish): nothing below it is the player's.
    r"|-{2,} ?(forwarded message|weitergeleitete nachricht|message transf[ée]r[ée]|mensaje reenviado)"
    r" ?-{2,}|begin forwarded message:?|anfang der weitergeleiteten nachricht:?|d[ée]but du message r[ée]exp[ée]di[ée]\s*:?)$",
    re.I,
)
OUTLOOK_HEADER_RE = re.compile(
    r"^(from|von|de|sent|gesendet|envoyé|to|an|à|subject|betreff|objet|date|datum)\s*:", re.I
)
AUTOMATIC_SENDERS = re.compile(
    r"^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|bounces?|listserv|majordomo)"
    r"([+\-.@]|$)",
    re.I,
)


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
    lines: list[str] = field(default_factory=list)  # the orders (prose and signature left out)
    candidates: list[str] = field(default_factory=list)  # every new line, prose included
    signature: list[str] = field(default_factory=list)  # lines dropped as a signature or device footer
    ignored: list[str] = field(default_factory=list)  # the new lines that are not orders, in order
    too_large: bool = False
    size: int = 0
    unreadable: str = ""  # why the body could not be read at all ("" when it could)


def load(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


def load_fast(raw: bytes) -> Message:
    """The message for reading a reply: the compat32 policy keeps headers as strings (decoded
    by `_header` only when read), where the default policy parses every header again on each
    read, the parser itself asking for Content-Type a score of times: 3-5 ms of a reply's
    7 ms reading went there."""
    return email.message_from_bytes(raw, policy=email.policy.compat32)


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
    """The header block parsed (read only: shared by the few readers of one message's headers,
    its Message-ID, its sender and its marks, which would otherwise parse it once each)."""
    return _parsed_headers(bytes(raw))


@functools.lru_cache(maxsize=4)
def _parsed_headers(raw: bytes):
    return email.message_from_bytes(header_block(raw) + b"\n\n", policy=email.policy.compat32)


def message_id_of(raw: bytes) -> str:
    """The Message-ID, or a stable one made from the content: the headers the writer set (not
    the ones relays add) and the body, with line endings and trailing blanks made alike."""
    value = clean(str(_headers(raw).get("Message-ID") or "")).strip()
    if value:
        return value[:250]
    return f"<sha256.{content_hash(raw)}@no-message-id>"


def content_hash(raw: bytes) -> str:
    head = _headers(raw)
    kept = sorted(
        (name.lower(), " ".join(str(value).split()))
        for name, value in head.items()
        if name.lower() not in TRACE_HEADERS
    )
    separator = b"\r\n\r\n" if b"\r\n\r\n" in raw else b"\n\n"
    body = raw.split(separator, 1)[1] if separator in raw else b""
    body_lines = [line.rstrip() for line in body.replace(b"\r\n", b"\n").split(b"\n")]
    digest = hashlib.sha256(repr(kept).encode("utf-8", "replace"))
    digest.update(b"\n".join(body_lines).strip())
    return digest.hexdigest()


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
        msg = load_fast(header_block(raw) + b"\r\n\r\n" if unreadable else raw)
    except RecursionError:
        unreadable = "its structure could not be read"
        msg = load_fast(header_block(raw) + b"\r\n\r\n")
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
        message_id=message_id_of(raw),
        sender=sender,
        sender_name=name,
        recipients=recipients,
        subject=_header(msg, "Subject"),
        in_reply_to=list(dict.fromkeys(refs)),
        automatic=automatic_reason(msg, sender),
        is_bounce=is_bounce(msg, sender),
        text="",
        too_large=too_large,
        size=size,
        unreadable=unreadable,
    )
    if not too_large and not unreadable:
        try:
            body, html_signature = body_and_signature(msg)
            parsed.text, parsed.signature = read_new_text(body)
            parsed.text = parsed.text.replace("\x00", "")
            parsed.signature += html_signature
        except RecursionError:
            parsed.unreadable = "its structure could not be read"
        parsed.candidates = command_lines(parsed.text)
        parsed.lines, parsed.ignored = split_prose(parsed.candidates, name, parsed.signature)
    return parsed


def _header(msg, name: str, every: bool = False) -> str:
    """A header's value as clean text ("" when absent or when it will not decode); every copy of
    it, comma-joined, with `every`."""
    try:
        values = msg.get_all(name, []) if every else [msg.get(name) or ""]
        return clean(", ".join(_decoded(v) for v in values)).strip()
    except Exception:  # noqa: BLE001 - a header that will not decode is as good as absent
        return ""


def _decoded(value) -> str:
    """A header value as text: unfolded, RFC 2047 encoded words decoded (a compat32 message
    keeps them as sent); an undecodable word is left as it came rather than lost."""
    text = str(value).replace("\r\n", "").replace("\n", "")
    if "=?" not in text and not isinstance(value, Header):
        return text
    try:
        return str(make_header(decode_header(text if not isinstance(value, Header) else value)))
    except (LookupError, UnicodeError, ValueError, HeaderParseError):
        return text


def _address(msg, header: str) -> tuple[str, str]:
    # The address is read before the name is decoded: a decoded name may hold a comma or "<".
    try:
        value = str(msg.get(header) or "").replace("\r\n", "").replace("\n", "")
    except Exception:  # noqa: BLE001 - a header that will not decode is as good as absent
        value = ""
    name, addr = parseaddr(value)
    name, addr = clean(_decoded(name)).strip(), clean(addr)
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
    for header in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress", "List-Id", "List-Unsubscribe", "X-Loop"):
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
            ids += [
                found
                for line in _part_text(part).splitlines()
                if line.lower().startswith("message-id:")
                for found in _ids(line)
            ]
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
    return body_and_signature(msg)[0]


def body_and_signature(msg) -> tuple[str, list[str]]:
    """The body as text, and the lines of an HTML signature block (kept apart from the text, so
    a Thunderbird or Outlook signature never runs into the orders)."""
    plain, rich = None, None
    for part in _own_parts(msg):
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain" and plain is None:
            plain = _part_text(part)
            if str(part.get_param("format") or "").lower() == "flowed":
                plain = unflow(plain, str(part.get_param("delsp") or "").lower() == "yes")
        elif ctype == "text/html" and rich is None:
            rich = _part_text(part)
    if plain is not None and plain.strip():
        return plain, []
    if rich is not None:
        return html_text_and_signature(rich)
    return plain or "", []


def _own_parts(msg):
    """The parts of the message itself, depth first: not those of a message forwarded inside it
    as message/rfc822 (a notice forwarded as an attachment holds a text part of its own, with
    every code of the notice in it)."""
    yield msg
    if msg.get_content_type() == "message/rfc822":
        return
    payload = msg.get_payload() if msg.is_multipart() else None
    for part in payload or ():
        yield from _own_parts(part)


def unflow(text: str, delsp: bool = False) -> str:
    """format=flowed (RFC 3676) to plain lines: a line ending in a space goes on in the next one
    of the same quote depth (its trailing space removed too with DelSp=yes); one leading space
    (space-stuffing) is removed; "-- " (the signature delimiter) is never flowed."""
    out: list[str] = []
    para: str | None = None
    para_depth = 0

    def close(depth: int, body: str) -> None:
        out.append((">" * depth + " " + body) if depth else body)

    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        body = line[depth:]
        if body.startswith(" "):
            body = body[1:]
        flowed = body.endswith(" ") and body != "-- "
        if flowed and delsp:
            body = body[:-1]
        if para is not None and depth != para_depth:
            close(para_depth, para)  # a flowed paragraph cut short by a change of quote depth
            para = None
        para = body if para is None else para + body
        para_depth = depth
        if not flowed:
            close(depth, para)
            para = None
    if para is not None:
        close(para_depth, para)
    return "\n".join(out)


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
        self.depth_signature = 0
        self.signature: list[str] = []

    def _quoted(self, tag: str, attrs: dict) -> bool:
        cls = (attrs.get("class") or "").lower()
        ident = (attrs.get("id") or "").lower()
        return (
            tag == "blockquote"
            or "gmail_quote" in cls
            or "moz-cite-prefix" in cls
            or "gmail_signature" in cls
            or ident in ("appendonsend", "divrplyfwdmsg", "mail-editor-reference-message-container")
            or "x_divrplyfwdmsg" in ident
            or "apple-mail-signature" in ident
        )

    @staticmethod
    def _signature(attrs: dict) -> bool:
        cls = (attrs.get("class") or "").lower().split()
        ident = (attrs.get("id") or "").lower()
        return (
            "moz-signature" in cls
            or ident in ("signature", "x_signature")
            or ident.startswith("ms-outlook-mobile-signature")
        )

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.stopped:
            return
        if self.depth_signature and tag not in ("br", "hr", "img", "meta", "link", "input", "wbr"):
            self.depth_signature += 1
        elif not self.depth_skip and self._signature(attrs) and tag not in ("br", "hr", "img"):
            self.depth_signature = 1
        if self.depth_signature and tag in self.BLOCK:
            self.signature.append("\n")
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
        if self.depth_signature:
            self.depth_signature -= 1
            if tag in self.BLOCK:
                self.signature.append("\n")
        while self.stack:
            open_tag, skip = self.stack.pop()
            if skip:
                self.depth_skip -= 1
            if open_tag == tag:
                break
        if tag in self.BLOCK:
            self.out.append("\n")

    def handle_data(self, data):
        if self.depth_skip or self.stopped:
            return
        (self.signature if self.depth_signature else self.out).append(re.sub(r"[ \t\r\n]+", " ", data))


def html_to_text(markup: str) -> str:
    return html_text_and_signature(markup)[0]


def _lines_of(pieces: list[str]) -> str:
    text = "".join(pieces).replace("\xa0", " ")
    # Each block tag opens and closes a line: collapse the blank lines that leaves behind.
    return re.sub(r"\n{2,}", "\n", "\n".join(line.strip() for line in text.splitlines())).strip()


def html_text_and_signature(markup: str) -> tuple[str, list[str]]:
    """HTML to text without its quoted blocks, and the lines of its signature block apart."""
    parser = _HTMLText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # broken HTML: fall back to removing tags
        return html.unescape(re.sub(r"<[^>]+>", " ", markup)), []
    lines = _lines_of(parser.signature).split("\n")
    return _lines_of(parser.out), [line for line in lines if line.strip() and line.strip() not in ("--", "__")]


# ---------------------------------------------------------------------------------------------
# The new text and the command lines in it
# ---------------------------------------------------------------------------------------------


def new_text(body: str) -> str:
    return read_new_text(body)[0]


def read_new_text(body: str) -> tuple[str, list[str]]:
    """The new text of a reply, and the lines dropped from it as a signature: everything after
    "-- " (or "--", "__"), device footers ("Sent from my iPhone"), and the signature
    mail-parser-reply finds ("Best regards," and what follows) when no order follows it."""
    body = body.replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ").replace("\u200b", "")
    body = _without_trailing_quote(body)
    # keep_hyphen_lists: a line such as '-2 gold' is not a signature here.
    parsed = ReplyText(text=body, languages=list(LANGUAGES), keep_hyphen_lists=True).read()
    reply = next((r for r in parsed.replies if _unquoted(r.content)), None)
    # The library's signature is judged below, line by line, with the other prose (it would cut
    # an order written after "Thanks," without a word).
    text = reply.content if reply else ""
    kept: list[str] = []
    signature: list[str] = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped in ("--", "-- ", "__"):
            # The signature delimiter: nothing after it is an order (up to a quoted block).
            signature += [rest.strip() for rest in lines[index + 1 :] if rest.strip() and not _quote_line(rest)]
            break
        if stripped.startswith(">"):
            _drop_attribution(kept)
            continue
        if DIVIDER_RE.match(stripped):
            break  # Outlook's rule above the quoted message
        if FOOTER_RE.match(stripped):
            signature.append(stripped)
            continue
        if ATTRIBUTION_RE.match(stripped):
            continue
        if OUTLOOK_HEADER_RE.match(stripped) and kept and not kept[-1].strip():
            break  # an Outlook header block after a blank line: the quoted message starts here
        kept.append(line)
    return "\n".join(kept).strip(), signature


def _without_trailing_quote(body: str) -> str:
    """The body without the quoted block it ends with (the notice a top-posted reply quotes),
    save its first line: nothing in that block is read (the first reply with new text is), yet
    the library's patterns ran over all of it, most of a reply's reading time. Its first line
    stays so that an attribution above it is still recognised as one."""
    lines = body.split("\n")
    end = len(lines)
    while end and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith(">")):
        end -= 1
    first_quoted = next((i for i in range(end, len(lines)) if lines[i].lstrip().startswith(">")), None)
    if first_quoted is None:
        return body
    return "\n".join(lines[: first_quoted + 1])


def _quote_line(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(">") or bool(ATTRIBUTION_RE.match(stripped))


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


# ---------------------------------------------------------------------------------------------
# Prose around the orders: greetings, thanks, sign-offs, names, signatures
# ---------------------------------------------------------------------------------------------

GREETING_RE = re.compile(
    r"^(hi|hello|hey|hiya|howdy|dear|greetings|good (morning|afternoon|evening|day)|morning|evening|"
    r"hallo|moin|servus|liebe|lieber|bonjour|salut|coucou|hola|buenos d[ií]as|ciao|salve|hoi|goedemorgen)"
    r"\b[^0-9]{0,40}$",
    re.I,
)
SIGNOFF_RE = re.compile(
    r"^(cheers|cheerio|thanks|thank you|thankyou|many thanks|thanks a lot|thanks again|thx|tnx|ta|tia|"
    r"best|best wishes|best regards|all the best|kind regards|warm regards|warmest regards|regards|rgds|"
    r"br|kr|yours|yours truly|sincerely|love|take care|see you|see ya|cu|bye|later|good luck|gl|have fun|"
    r"gg|wp|gg wp|well played|enjoy|lg|liebe gr[üu](ß|ss)e|viele gr[üu](ß|ss)e|gr[üu](ß|ss)e|gru(ß|ss)|"
    r"mfg|vg|danke|danke sch[öo]n|vielen dank|merci|merci beaucoup|bises|cordialement|amiti[ée]s|"
    r"saludos|gracias|un saludo|grazie|saluti|ciao|groeten|bedankt|dank je)\b"
    r"( (all|everyone|everybody|again|so much|a lot|very much|mate|guys|folks|y'all)\b)?"
    r"\s*[,.!:;)]*\s*(:-?\)|;-?\)|:d)?"
    r"(([-–—,]\s*|\s+)[^\W\d][\w.'’-]*( [^\W\d][\w.'’-]*){0,2}[.!]?)?$",
    re.I,
)
CODE_LINE_RE = re.compile(r"^#?\d{1,3}$")
PLATFORM_ORDERS = ("help", "board", "history", "say", "undo", "away", "back", "notices", "zone", "orders", "order")
CONDITIONAL_RE = re.compile(r"^if\s+\S.*\sthen\s+\S", re.I)
MAX_SIGNATURE_LINES = 8  # lines after a sign-off taken as its signature


def looks_like_platform_order(line: str) -> bool:
    """A platform command, or a code alone on its line ("1 👍" is a code only once read loosely)."""
    words = line.split(None, 1)
    if words and words[0].lower() == "if":  # a conditional order (pbem.play.orders), not "If you …"
        return bool(CONDITIONAL_RE.match(line.strip()))
    return bool(words) and (words[0].lower() in PLATFORM_ORDERS or bool(CODE_LINE_RE.match(line.strip())))


def looks_like_prose(line: str, sender_name: str = "") -> bool:
    """A greeting, thanks, a sign-off, a device footer or the sender's own name, by its look alone."""
    return bool(
        SIGNOFF_RE.match(line) or GREETING_RE.match(line) or FOOTER_RE.match(line) or _is_name(line, sender_name)
    )


def _is_name(line: str, sender_name: str) -> bool:
    """The sender's own name (from their From header, or the seat's name: the caller may give
    both) or initials on a line of their own, with or without a dash before it ("-Carol")."""
    stripped = line.strip().lstrip("-–—~ ").rstrip(".! ")
    if not stripped or any(ch.isdigit() for ch in stripped):
        return False
    own = {part.lower() for part in re.split(r"[\s,]+", sender_name or "") if len(part) > 1}
    words = stripped.lower().split()
    if own and all(w in own for w in words):
        return True
    # Initials: "B", "B.", "-B", "AB"
    return bool(re.fullmatch(r"[A-Z]{1,3}\.?", stripped))


@dataclass
class Reading:
    """The new lines of a reply as orders and prose: each order as read, the number (1-based,
    among the non-blank new lines) of the line it came from, the lines left out, and the lines
    read loosely ("Hi! 1" read as "1"), as (written, read)."""

    orders: list[str]
    positions: list[int]
    ignored: list[str]
    loosened: list[tuple[str, str]]


def split_prose(
    lines: list[str], sender_name: str = "", signature: list[str] | None = None, order_like=looks_like_platform_order
) -> tuple[list[str], list[str]]:
    """The orders in the new lines, and every line left out as prose (read_lines without the
    line numbers and the loose readings)."""
    reading = read_lines(lines, sender_name, signature, order_like)
    return reading.orders, reading.ignored


def read_lines(
    lines: list[str], sender_name: str = "", signature: list[str] | None = None, order_like=looks_like_platform_order
) -> Reading:
    """The orders in the new lines, and every line left out as prose, in the order written.

    Left out: greetings before the first order ("Hi all,"); thanks and sign-offs ("Cheers,",
    "Thanks!", "Best, Bob"); the sender's own name or initials on a line of their own, with or
    without a dash ("-Carol"); and after the last sign-off, when no order follows it, up to
    MAX_SIGNATURE_LINES lines of signature (a name, a company, a phone number).
    `order_like(line)` says a line is an order whatever it looks like. A line that is not, as
    written, may be one read loosely (`loosely`): "Hi! 1", "1 👍", "- 1", "move: 1" are "1". A
    line that is neither prose nor an order is kept, for the game to refuse by name."""
    signature = list(signature or [])
    asked: dict[str, bool] = {}

    def is_order(line: str) -> bool:  # asked once a line: a game may parse it to tell
        if line not in asked:
            asked[line] = order_like(line)
        return asked[line]

    read = [_read_one(line, is_order) for line in lines]
    kinds = ["order" if found is not None else _prose_kind(line, sender_name) for line, found in zip(lines, read)]
    _greetings_before_orders(lines, kinds)
    _signature_after_signoff(kinds, read)
    reading = Reading([], [], [], [])
    for number, (line, kind, found) in enumerate(zip(lines, kinds, read, strict=True), start=1):
        if kind != "order":
            reading.ignored.append(line)
            continue
        reading.orders.append(found if found is not None else line)
        reading.positions.append(number)
        if found is not None and found != line:
            reading.loosened.append((line, found))
    reading.ignored += signature
    return reading


def _read_one(line: str, is_order) -> str | None:
    """The order a line holds, as written or read loosely; None when it holds none."""
    if is_order(line):
        return line
    labelled = LABELLED_CODE_RE.match(line)
    if labelled:  # "move: 1", "my choice - 2": the code (a game's own command would have read)
        return labelled.group("code")
    return next((variant for variant in loosely(line) if is_order(variant)), None)


def _prose_kind(line: str, sender_name: str) -> str:
    if SIGNOFF_RE.match(line):
        return "signoff"
    if _is_name(line, sender_name) or FOOTER_RE.match(line):
        return "prose"
    return "unknown"


def _greetings_before_orders(lines: list[str], kinds: list[str]) -> None:
    """Greetings count only before the first order (or the first line meant as one)."""
    for index, line in enumerate(lines):
        if kinds[index] == "order":
            return
        if kinds[index] == "unknown":
            if not GREETING_RE.match(line):
                return
            kinds[index] = "prose"


def _signature_after_signoff(kinds: list[str], read: list[str | None]) -> None:
    """A signature without "-- ": what follows the first sign-off after the last order."""
    last_order = max((i for i, found in enumerate(read) if found is not None), default=-1)
    first_signoff = next((i for i in range(last_order + 1, len(kinds)) if kinds[i] == "signoff"), None)
    if first_signoff is not None and len(kinds) - first_signoff - 1 <= MAX_SIGNATURE_LINES:
        for index in range(first_signoff + 1, len(kinds)):
            kinds[index] = "signoff" if kinds[index] == "signoff" else "prose"
    for index, kind in enumerate(kinds):
        if kind == "unknown":
            kinds[index] = "order"  # neither prose nor an order: kept, for the game to refuse by name


# ---------------------------------------------------------------------------------------------
# Loose readings: the few ways people wrap a code or a command in a line of their own
# ---------------------------------------------------------------------------------------------

# Words people put before a code: "move: 1", "my choice - 2", "code 3".
CODE_LABELS = r"(?:my |the )?(?:move|choice|option|code|answer|order|reply)"
CODE_LABEL_RE = re.compile(rf"^{CODE_LABELS}$", re.I)
LABELLED_CODE_RE = re.compile(rf"^{CODE_LABELS}\s*[:=-]\s*#?(?P<code>\d{{1,3}})\W*$", re.I)
LABEL_RE = re.compile(r"^(?P<label>[^\W\d][\w ]{0,14}?)\s*[:=]\s*(?P<rest>\S.*)$", re.I)
LIST_MARKER_RE = re.compile(r"^(?:[-*•–—+>]|\d{1,2}[.)])\s+(?=\S)")
GREETING_LEAD_RE = re.compile(
    r"^(hi|hello|hey|hiya|howdy|dear|morning|evening|hallo|moin|servus|bonjour|salut|hola|ciao|hoi)\b"
    r"[^0-9:]{0,30}?[,!.;]+\s*(?P<rest>\S.*)$",
    re.I,
)


def loosely(line: str) -> list[str]:
    """The line with what people put around an order taken off, one thing after another: a
    greeting before it ("Hi! 1"), a list mark ("- 1", "* play 3"), a label ("move: 1", or
    "play: 3" as "play 3"), and symbols and punctuation after it ("1 👍", "play 3!"). Fewest
    changes first; the caller takes the first that reads as an order."""
    found: list[str] = []
    todo = [line]
    for _ in range(3):
        nxt = []
        for text in todo:
            for variant in _loosened_once(text):
                if variant and variant != line and variant not in found:
                    found.append(variant)
                    nxt.append(variant)
        todo = nxt
    return found


def _loosened_once(text: str) -> list[str]:
    out = []
    greeting = GREETING_LEAD_RE.match(text)
    if greeting:
        out.append(greeting.group("rest"))
    marker = LIST_MARKER_RE.match(text)
    if marker:
        out.append(text[marker.end() :])
    label = LABEL_RE.match(text)
    if label:
        # "move: 1" is code 1; "play: 3" is the command "play 3".
        if CODE_LABEL_RE.match(label.group("label")):
            out.append(label.group("rest"))
        out.append(f"{label.group('label')} {label.group('rest')}")
    trimmed = _without_trailing_symbols(text)
    if trimmed != text:
        out.append(trimmed)
    return out


def _without_trailing_symbols(text: str) -> str:
    """The text without the symbols, punctuation and joiners it ends with (emoji, "!", "👍🏽")."""
    end = len(text)
    while end and (text[end - 1].isspace() or unicodedata.category(text[end - 1])[0] in "SPCM"):
        end -= 1
    return text[:end]


def loose_note(loosened: list[tuple[str, str]]) -> str:
    """ "Read 'Hi! 1' as '1'." for the answer ("" when every order was read as written)."""
    if not loosened:
        return ""
    shown = ", ".join(f"'{written[:60]}' as '{read[:60]}'" for written, read in loosened[:8])
    return f"\n\nRead {shown}."
