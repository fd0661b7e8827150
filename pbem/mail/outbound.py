"""Writing mail: one `make_message(notice)` renders subject, text and HTML from templates.

A notice is rendered when it is sent, from the log as it stood at `notice.version`, so the
outbox row stays one small insert in the command's transaction. Threading: every notice of a
game refers to one root Message-ID (<pbem.game12@domain>), so the game stays one thread.
Our Message-IDs carry the notice id, the version it speaks of and a MAC: a reply's In-Reply-To
then tells which notice it answers (the stale guard), and a bounce that quotes it proves which
notice failed (ids are sequential: without the MAC anyone could name a notice and forge its
bounce).
"""

from __future__ import annotations

import binascii
import bisect
import functools
import json
import operator
import os
import random
import re
import secrets
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.mime.image import MIMEImage
from email.policy import Compat32
from email.utils import formatdate, parseaddr
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote
from zoneinfo import ZoneInfo

import msgspec
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives
from django.core.mail.message import SafeMIMEMultipart, forbid_multi_line_headers
from django.db import connection as db
from django.template import Context, Engine, engines
from django.template.loaders.filesystem import Loader as FilesystemLoader
from django.utils import timezone
from django.utils.dates import MONTHS_3, WEEKDAYS_ABBR
from django.utils.translation import get_language, gettext, gettext_noop, ngettext

from games import i18n
from games.base import MAX_FEATURED
from games.i18n import game_text
from pbem.log import eventlog, fold
from pbem.mail import fastrender, pictures
from pbem.models import Event, Game, GameStatus, Notice, NoticePreference, PlayerSettings, Seat, Snapshot
from pbem.play import addressing, calendar, choosing, languages, selectors, signing, taps, versioned
from pbem.registry import get_game

# The MAC part is optional when reading: notices sent before it existed are still replied to.
NOTICE_ID_RE = re.compile(r"<pbem\.n(\d+)\.v(\d+)\.g(\d+)(?:\.([a-z2-7]{10}))?@", re.I)
NOTICE_MAC_LENGTH = 10
SUBJECT_TAG_RE = re.compile(r"\[(\d+)-([a-z2-7]{6})\]", re.I)
BOUNCE_LOCAL_RE = re.compile(r"^bounces\+n(\d+)-([a-z2-7]{8})$", re.I)
HEAD_HEADER = "X-Pbem-Head"
SEAT_KINDS_MOVING_LAST_NOTICE = {"turn", "news", "final", "digest", "reminder"}

# The labels of models.NoticePreference, as news mails tell them ("You hear of the others' moves …").
PREFERENCE_WORDS = (
    gettext_noop("once per turn of another player"),
    gettext_noop("once per round"),
    gettext_noop("every move"),
    gettext_noop("a daily digest"),
    gettext_noop("nothing"),
)

SUBJECTS = {
    "turn": gettext_noop("Your move: {title} #{game}{at} {tag}"),
    "reminder": gettext_noop("Reminder, your move: {title} #{game}{at} {tag}"),
    "news": gettext_noop("News: {title} #{game}{at} {tag}"),
    "digest": gettext_noop("Today's news: {title} #{game}{at} {tag}"),
    "final": gettext_noop("Game over: {title} #{game} {tag}"),
    "answer": "Re: {subject}",
    "overdue": gettext_noop("[Master of Seals] {title} #{game}: {seat_name} missed a deadline"),
    "bounced": gettext_noop("[Master of Seals] {title} #{game}: a notice to {seat_name} was not delivered"),
    "holdended": gettext_noop("[Master of Seals] {title} #{game}: {seat_name}'s deadline runs again"),
    "timedout": gettext_noop("[Master of Seals] {title} #{game}: {seat_name} missed a deadline; the timer played"),
    "replaced": gettext_noop("New player in your seat: {title} #{game}"),
    "welcome": gettext_noop("Your seat: {title} #{game}{at}: you take it over {tag}"),
    "correction": gettext_noop("Score corrected: {title} #{game} {tag}"),
    "standin": gettext_noop("Stand-in plays your seat: {title} #{game}; reply 'back' to play it again {tag}"),
    "invitation": gettext_noop("Invitation: a game of {title} (game #{game}) {tag}"),
    "channel": gettext_noop("Your other channel failed: {title} #{game} {tag}"),
}


class NoRecipient(Exception):
    """Nobody to send this notice to (no Master of Seals, no PBEM_MASTER_EMAIL, no superuser with an address)."""


# ---------------------------------------------------------------------------------------------
# Identifiers
# ---------------------------------------------------------------------------------------------


def seat_code(seat: Seat) -> str:
    """A short per-seat code for the subject: with the sender's address it names the seat when a
    mail client dropped our Reply-To. Changes with the token generation, like the token."""
    return signing.mac(_subject_signed(seat), 6)


def seat_code_matches(seat: Seat, code: str) -> bool:
    return signing.verify(_subject_signed(seat), code, 6)


def _subject_signed(seat: Seat) -> str:
    return f"pbem-subject:{seat.pk}:{seat.token_generation}"


def subject_tag(seat: Seat) -> str:
    return f"[{seat.game_id}-{seat_code(seat)}]"


def thread_id(game_id: int) -> str:
    return f"<pbem.game{game_id}@{settings.PBEM_MAIL_DOMAIN}>"


def notice_message_id(notice: Notice) -> str:
    ids = f"n{notice.pk}.v{notice.version}.g{notice.game_id or 0}"
    return f"<pbem.{ids}.{signing.mac(f'pbem-notice:{ids}', NOTICE_MAC_LENGTH)}@{settings.PBEM_MAIL_DOMAIN}>"


def notice_from_message_id(message_id: str) -> int | None:
    """The notice a Message-ID of ours names, if its MAC proves we wrote it (a bounce report
    quoting it is then about that notice); None for anything else, an old unsigned id included."""
    match = NOTICE_ID_RE.match(message_id or "")
    if not match or not match.group(4) or not message_id.lower().endswith(f"@{settings.PBEM_MAIL_DOMAIN.lower()}>"):
        return None
    notice_id, version, game_id = match.group(1), match.group(2), match.group(3)
    ids = f"n{notice_id}.v{version}.g{game_id}"
    return int(notice_id) if signing.verify(f"pbem-notice:{ids}", match.group(4), NOTICE_MAC_LENGTH) else None


def bounce_address(notice: Notice) -> str:
    """The envelope sender (VERP): a bounce comes back addressed to the notice it is about."""
    return f"bounces+n{notice.pk}-{signing.mac(f'pbem-bounce:{notice.pk}', 8)}@{settings.PBEM_MAIL_DOMAIN}"


def notice_from_bounce_address(address: str) -> int | None:
    local, _, domain = (address or "").lower().partition("@")
    match = BOUNCE_LOCAL_RE.match(local)
    if not match or domain != settings.PBEM_MAIL_DOMAIN.lower():
        return None
    notice_id = int(match.group(1))
    return notice_id if signing.verify(f"pbem-bounce:{notice_id}", match.group(2), 8) else None


def invite_url(seat: Seat) -> str:
    return f"{settings.PBEM_BASE_URL}/invite/{addressing.token_for(seat)}/"


def audit_url(game_id: int) -> str:
    return f"{settings.PBEM_BASE_URL}/games/{game_id}/audit/"


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


# The notice templates are Django templates, translated as every template is (makemessages finds
# their strings; one copy of each text). Rendering them, a third of a notice's cost went on the
# i18n tags: a gettext call and its lookups for every {% translate %} and {% blocktranslate %}
# (about fifty a notice). So each template is compiled once per language with its translations
# put in: a {% translate "literal" %} becomes its translated text, a {% blocktranslate %} its
# translated text with {{ }} where its placeholders were (the `with` values' expressions in
# them), then compiled by Django's engine as it is. A tag whose translation does not fit that
# (a plural, a context, `trimmed`, `as`, a translation naming what the text does not, a brace in
# it) is left as it is, to be translated at rendering as before. The output is the same, byte
# for byte (tests/mail/test_notice_templates.py compares them in every language).
_TRANSLATE_TAG = re.compile(r"{%\s*(?:translate|trans)\s+(.*?)\s*%}")
_BLOCK_TAG = re.compile(
    r"{%\s*(?:blocktranslate|blocktrans)\b(.*?)%}(.*?){%\s*(?:endblocktranslate|endblocktrans)\s*%}", re.S
)
_PLACEHOLDER = re.compile(r"%\((\w+)\)s|%%|%")
_BLOCK_VAR = re.compile(r"{{\s*(\w+)\s*}}")


def pretranslated(source: str) -> str:
    """A template's source with its translatable tags put in the active language (see above)."""
    from django.utils.text import smart_split, unescape_string_literal

    def literal(match: re.Match) -> str:
        bits = list(smart_split(match.group(1)))
        if len(bits) != 1 or bits[0][:1] not in ("'", '"') or bits[0][-1:] != bits[0][:1]:
            return match.group(0)
        text = unescape_string_literal(bits[0])
        out = gettext(text.replace("%", "%%")).replace("%%", "%")
        return match.group(0) if "{" in out or "}" in out else out

    def block(match: re.Match) -> str:
        bits = list(smart_split(match.group(1).strip()))
        bound: dict[str, str] = {}
        if bits:
            if bits[0] != "with":
                return match.group(0)
            for bit in bits[1:]:
                name, sep, expression = bit.partition("=")
                if not sep or not name.isidentifier() or not expression:
                    return match.group(0)
                bound[name] = expression
        body = match.group(2)
        if "{%" in body or "{#" in body:
            return match.group(0)
        names = _BLOCK_VAR.findall(body)
        parts = _BLOCK_VAR.split(body)  # text, name, text, name, ..., text
        msgid = "".join(part.replace("%", "%%") if i % 2 == 0 else f"%({part})s" for i, part in enumerate(parts))
        translated = gettext(msgid)
        out, texts, position = [], [], 0
        for found in _PLACEHOLDER.finditer(translated):
            texts.append(translated[position : found.start()])
            out.append(texts[-1])
            position = found.end()
            if found.group(0) == "%%":
                out.append("%")
            elif found.group(1) in names:
                out.append("{{ " + bound.get(found.group(1), found.group(1)) + " }}")
            else:
                return match.group(0)  # a lone %, or a name the text does not have: translated at rendering
        texts.append(translated[position:])
        out.append(texts[-1])
        if any("{" in text or "}" in text for text in texts):
            return match.group(0)  # a brace in the text could open a tag: translated at rendering
        return "".join(out)

    return _BLOCK_TAG.sub(block, _TRANSLATE_TAG.sub(literal, source))


class _TranslatedLoader(FilesystemLoader):
    """pbem's templates, each put in the engine's language as it is read (pretranslated)."""

    def __init__(self, engine, language: str) -> None:
        super().__init__(engine, [str(Path(__file__).resolve().parent.parent / "templates")])
        self.language = language

    def get_contents(self, origin) -> str:
        with languages.reading(self.language):
            return pretranslated(super().get_contents(origin))


_ENGINES: dict[str, Engine] = {}


def notice_template(name: str):
    """The notice template `name` compiled for the active language (kept, one engine a language,
    each like the project's own: its libraries and built-ins)."""
    language = get_language() or languages.DEFAULT
    engine = _ENGINES.get(language)
    if engine is None:
        project = engines["django"].engine  # type: ignore[attr-defined]
        engine = Engine(
            loaders=[("django.template.loaders.cached.Loader", [("pbem.mail.outbound._TranslatedLoader", language)])],
            libraries=project.libraries,
            builtins=project.builtins[len(Engine.default_builtins) :],
            string_if_invalid=project.string_if_invalid,
            autoescape=project.autoescape,
        )
        _ENGINES[language] = engine
    return engine.get_template(name)


_COMPILED: dict[tuple[str, str], Callable[[dict], str]] = {}


def render_to_string(name: str, context: dict) -> str:
    """What django.template.loader.render_to_string makes of a notice template, pretranslated,
    written by the template's nodes compiled to Python once (pbem/mail/fastrender.py)."""
    key = (get_language() or languages.DEFAULT, name)
    render = _COMPILED.get(key)
    if render is None:
        template = notice_template(name)
        try:
            render = fastrender.compile_template(template)
        except fastrender.Unsupported:
            render = lambda context, template=template: template.render(Context(context))  # noqa: E731
        _COMPILED[key] = render
    return render(context)


@dataclass
class Rendered:
    subject: str
    text: str
    html: str
    to: list[str]
    headers: dict
    pictures: list = field(default_factory=list)  # pictures.Picture, shown inline by the HTML part


def seat_of(notice: Notice) -> Seat:
    """The seat of a notice that has a seat_id (the callers check it first)."""
    seat = notice.seat
    assert seat is not None, "a notice with a seat_id has a seat"
    return seat


def recipients(notice: Notice) -> list[str]:
    if notice.kind == "answer" and notice.to_email:
        return [notice.to_email]
    if notice.seat_id:
        return [seat_of(notice).email]
    if notice.to_email:
        return [notice.to_email]
    emails: list[str] = []
    if notice.game_id:
        assert notice.game is not None, "a notice with a game_id has a game"
        emails = [u.email for u in notice.game.masters.all() if u.email]
    if not emails and settings.PBEM_MASTER_EMAIL:
        emails = [settings.PBEM_MASTER_EMAIL]
    if not emails:
        emails = list(
            get_user_model()
            .objects.filter(is_superuser=True, is_active=True)
            .exclude(email="")
            .values_list("email", flat=True)
        )
    if not emails:
        raise NoRecipient("no Master of Seals with an address, no PBEM_MASTER_EMAIL and no superuser with an address")
    return sorted(set(emails))


def language_of(notice: Notice) -> str:
    """The language the notice's reader reads: its seat's; an answer to an address without a seat
    in the player's own default; the Master of Seals' notices in the operator's language
    (PBEM_MASTER_LANGUAGE, languages.for_master)."""
    if notice.seat_id:
        return languages.of_seat(seat_of(notice))
    if notice.kind == "answer" and notice.to_email:
        return languages.supported(languages.default_for(notice.to_email))
    return languages.for_master()


def render(notice: Notice) -> Rendered:
    """Subject, text and HTML in the reader's language (the platform's words and the game's)."""
    language = languages.supported(language_of(notice))
    if get_language() == language and i18n.current() == language:
        return _render(notice)  # read in it already (a batch's run of notices in one language)
    with languages.reading(language):
        return _render(notice)


def _render(notice: Notice) -> Rendered:
    context = build_context(notice)
    kind = notice.kind if notice.kind in SUBJECTS else "answer"
    # Blank lines left by the parts a notice does not have are one blank line.
    text = _one_blank_line(fit(render_to_string(f"pbem/email/{kind}.txt", context).strip())) + "\n"
    html: str = (
        _with_picture(context, kind, text)
        if context.get("picture_args")
        else render_to_string(f"pbem/email/{kind}.html", context)
    )
    headers = {
        "From": settings.DEFAULT_FROM_EMAIL,
        "Message-ID": notice_message_id(notice),
        "X-Pbem-Notice": str(notice.pk),
        # RFC 3834: a player's vacation responder must not answer us (and we never answer it).
        "Auto-Submitted": "auto-replied" if notice.kind == "answer" else "auto-generated",
    }
    references = [thread_id(notice.game_id)] if notice.game_id else []
    reply_to_id = (notice.context or {}).get("in_reply_to")
    if reply_to_id:
        references.append(reply_to_id)
    if references:
        headers["In-Reply-To"] = references[-1]
        headers["References"] = " ".join(references)
    if notice.seat_id:
        # Worked out once for the text and the header (each a MAC of the seat's token).
        headers["Reply-To"] = context.get("reply_address") or addressing.reply_address(seat_of(notice))
    if context.get("head_hash"):
        # The chain head as the text quotes it, machine-readable: an anchor in the player's mailbox
        # (the outbox keeps it too, see pbem/log/anchors.py).
        headers[HEAD_HEADER] = f"{context['version']}:{context['head_hash']}"
    return Rendered(context["subject"], text, html, recipients(notice), headers, context.get("pictures", []))


def _one_blank_line(text: str) -> str:
    """re.sub(r"\n{3,}", "\n\n", text) by str.replace (a run of three newlines or more loses one
    in three at each pass, down to two; the regular expression tried every place in the text)."""
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text


# What a notice spends besides its text and HTML: its headers, the MIME parts' own headers and
# boundaries (measured: 1.3-1.6 kB).
HEADERS_ESTIMATE = 2_000
# Where the picture's size goes in the HTML written before the picture is made (then known).
_WIDTH, _HEIGHT = "\x00pbem-picture-width\x00", "\x00pbem-picture-height\x00"


def _with_picture(context: dict, kind: str, text: str) -> str:
    """The HTML showing the board picture, made to fit what the notice's text and this HTML leave
    of its budget (pictures.NOTICE_BUDGET). The notice's HTML is written once, with a slot where
    the picture's block goes (pbem/email/_picture.html, written on its own: a few lines); the
    block is written with the picture's place held (its cid and alt text are known; its width and
    height are filled in after), so the budget is what the notice will really spend; without a
    picture to show (a game that draws none, a drawing that failed) the block is written again
    as it is then (the board in words), never the whole HTML."""
    spec, game_state, seat, cid, alt, game_id, version = context["picture_args"]
    context["picture_slot"] = _SLOT
    try:
        html: str = render_to_string(f"pbem/email/{kind}.html", context)
    finally:
        del context["picture_slot"]
    if html.count(_SLOT) != 1:  # a notice's HTML without its one picture block: as it is written
        return render_to_string(f"pbem/email/{kind}.html", context)
    found = None
    if spec.render_svg is not None:
        context["board_picture"] = SimpleNamespace(cid=cid, alt=alt, width=_WIDTH, height=_HEIGHT)
        block = render_to_string(_PICTURE_BLOCK, context)
        rest = len(text.encode()) + len(html.encode()) - len(_SLOT) + len(block.encode()) + HEADERS_ESTIMATE
        budget = pictures.picture_budget(rest)
        found = pictures.picture(spec, game_state, seat, cid, alt, budget, game_id, version)
    if found is None:
        context.pop("board_picture", None)
        block = render_to_string(_PICTURE_BLOCK, context)
    else:
        context["pictures"] = [found]
        context["board_picture"] = found
        block = block.replace(_WIDTH, str(found.width)).replace(_HEIGHT, str(found.height))
    return html.replace(_SLOT, block)


_SLOT = "\x00pbem-picture-block\x00"
_PICTURE_BLOCK = "pbem/email/_picture.html"


class _QuickFold(Compat32):
    """The standard library's compat32 header folding, without its Header machinery for what
    needs none: an ASCII value on one line that fits in 78 columns comes out as it is (which is
    what Header.encode makes of it, at about a twentieth of the cost; every other value goes the
    usual way)."""

    def _fold(self, name, value, sanitize):
        if (
            isinstance(value, str)
            and value.isascii()
            and len(name) + 2 + len(value) <= 78
            and "\n" not in value
            and "\r" not in value
        ):
            return f"{name}: {value}{self.linesep}"
        return super()._fold(name, value, sanitize)


QUICK_FOLD = _QuickFold()


class RelatedMessage(EmailMultiAlternatives):
    """multipart/alternative of the text and, when there are pictures, multipart/related of the
    HTML and its images (each with a Content-ID the HTML names as cid:)."""

    def __init__(self, *args, pictures=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.pictures = list(pictures)

    def message(self):
        msg = super().message()
        msg.policy = QUICK_FOLD  # the same bytes, folded faster (the generator takes it from the top)
        texts = [self.body, *(str(content) for content, _mimetype in self.alternatives)]
        for part in msg.walk():
            if part.is_multipart() and part.get_boundary() is None:
                part.set_boundary(_boundary(texts))
        return msg

    def _create_alternatives(self, msg):
        msg = super()._create_alternatives(msg)
        if not self.pictures or not msg.is_multipart():
            return msg
        parts = msg.get_payload()
        for index, part in enumerate(parts):
            if part.get_content_type() == "text/html":
                related = SafeMIMEMultipart(_subtype="related", encoding=self.encoding or settings.DEFAULT_CHARSET)
                related.attach(part)
                for picture in self.pictures:
                    image = MIMEImage(picture.png, "png")
                    image["Content-ID"] = f"<{picture.cid}>"
                    image.add_header("Content-Disposition", "inline", filename=f"{picture.cid.split('@')[0]}.png")
                    related.attach(image)
                parts[index] = related
        return msg


def _boundary(texts: list[str]) -> str:
    """A MIME boundary found in none of the message's texts (the pictures are base64, which has no
    "_"): what the generator would otherwise check by compiling a regular expression per part."""
    while True:
        boundary = f"=_pbem_{_BOUNDARY_RANDOM.getrandbits(96):024x}"
        if not any(boundary in text for text in texts):
            return boundary


# A boundary needs to be found in no part, which _boundary checks, not to be unguessable: drawn
# from a generator seeded once per process by the system's (secrets.token_hex asked the kernel
# for twelve bytes twice a notice, a system call each).
_BOUNDARY_RANDOM = random.Random(secrets.token_bytes(32))
if hasattr(os, "register_at_fork"):  # a forked worker draws its own (not its siblings') boundaries
    os.register_at_fork(after_in_child=lambda: _BOUNDARY_RANDOM.seed(secrets.token_bytes(32)))


QUICK_FOLD_CRLF = QUICK_FOLD.clone(linesep="\r\n")
_NEWLINES = re.compile(r"\r\n|\r|\n")
# An address that Django's sanitize_address gives back as it is (the envelope of the fast path).
SIMPLE_ADDRESS = re.compile(r"[A-Za-z0-9._+=-]+@[A-Za-z0-9.-]+\Z")


_CID = re.compile(r"[A-Za-z0-9.@_-]+\Z")
# A line of 250 characters or more, between newlines (splitlines breaks at more than \n: its lines
# are no longer): fewer are at most 996 bytes in UTF-8, under SMTP's 998.
_LONG_LINE = re.compile(r"^.{250,}", re.M)  # anchored at each line's start: one pass over the text


def wire_bytes(message: RelatedMessage) -> bytes | None:
    """What Django's `message.message().as_bytes(linesep="\r\n")` makes of a notice (its text,
    its HTML and the HTML's pictures), byte for byte (a test compares them), in a fraction of the
    time: the same header rules (forbid_multi_line_headers, the compat32 folding), written
    without building and walking the MIME objects. None for anything else (attachments, another
    charset, a line over 998 bytes, ...): that goes the usual way."""
    if (
        message.attachments
        or len(message.alternatives) != 1
        or not message.body
        or (message.encoding or settings.DEFAULT_CHARSET) != "utf-8"
        or not all(isinstance(p, pictures.Picture) and _CID.match(p.cid) for p in message.pictures)
    ):
        return None
    html, mimetype = message.alternatives[0]
    body = message.body
    if mimetype != "text/html" or not isinstance(html, str) or not isinstance(body, str):
        return None
    texts = [body, html]
    parts = []
    for text, subtype in ((body, message.content_subtype), (html, "html")):
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:
            return None
        if _too_long(raw, text):
            return None  # Django sends it quoted-printable
        # What _NEWLINES.sub("\r\n", text) makes of it, by one replace where it has no "\r".
        data = raw.replace(b"\n", b"\r\n") if b"\r" not in raw else _NEWLINES.sub("\r\n", text).encode("utf-8")
        parts.append(
            _header("Content-Type", f'text/{subtype}; charset="utf-8"', raw=True)
            + _header("MIME-Version", "1.0", raw=True)
            + _header("Content-Transfer-Encoding", "7bit" if data.isascii() else "8bit", raw=True)
            + b"\r\n"
            + data
        )
    boundary = _boundary(texts)
    if message.pictures:  # the HTML and its pictures, multipart/related (RelatedMessage)
        inner = _boundary(texts)
        images = [
            _header("Content-Type", "image/png", raw=True)
            + _header("MIME-Version", "1.0", raw=True)
            + _header("Content-Transfer-Encoding", "base64", raw=True)
            + _header("Content-ID", f"<{picture.cid}>", raw=True)
            + _header("Content-Disposition", f'inline; filename="{picture.cid.split("@")[0]}.png"', raw=True)
            + b"\r\n"
            + (_base64_kept(picture.png) if type(picture.png) is bytes else _base64_lines(picture.png))
            for picture in message.pictures
        ]
        related = [_multipart_type("related", inner), _header("MIME-Version", "1.0", raw=True)]
        parts[1] = _multipart(related, inner, [parts[1], *images])
    extra = message.extra_headers
    lower = {name.lower() for name in extra}
    head = [
        _multipart_type("alternative", boundary),
        _header("MIME-Version", "1.0", raw=True),
        _header("Subject", message.subject),
        _header("From", extra.get("From", message.from_email)),
    ]
    for name, values in (("To", message.to), ("Cc", message.cc), ("Reply-To", message.reply_to)):
        if name in extra:
            head.append(_header(name, extra[name]))
        elif values:
            head.append(_header(name, ", ".join(str(v) for v in values)))
    if "date" not in lower:
        head.append(_date_header(int(time.time()), settings.EMAIL_USE_LOCALTIME, formatdate))
    if "message-id" not in lower:
        return None  # ours always carry one; Django would make one up
    for name, value in extra.items():
        if name.lower() not in {"from", "to", "cc", "reply-to"}:
            head.append(_header(name, value))
    return _multipart(head, boundary, parts)


@functools.lru_cache(maxsize=64)
def _base64_kept(data: bytes) -> bytes:
    """_base64_lines of a picture, kept by its bytes: the same picture goes to every seat that
    sees the same board, and again in a notice sent anew (a retry, a reminder); 64 of them are
    about 3 MB."""
    return _base64_lines(data)


@functools.lru_cache(maxsize=2)
def _date_header(second: int, localtime: bool, write: Callable) -> bytes:
    """The Date header at a second (what `write`, formatdate, writes then): written once a second."""
    return _header("Date", write(second, localtime=localtime))


def _base64_lines(data: bytes) -> bytes:
    """base64.encodebytes(data) with CRLF line ends (lines of 76), encoded in one call rather
    than one a line (a picture is 700 lines)."""
    encoded = binascii.b2a_base64(data, newline=False)
    if not encoded:
        return b""
    return b"\r\n".join([encoded[i : i + 76] for i in range(0, len(encoded), 76)]) + b"\r\n"


def _multipart(head: list[bytes], boundary: str, parts: list[bytes]) -> bytes:
    """A multipart entity as the generator writes it (no preamble, no epilogue)."""
    mark = b"--" + boundary.encode("ascii")
    return (
        b"".join(head) + b"\r\n" + mark + b"\r\n" + (b"\r\n" + mark + b"\r\n").join(parts) + b"\r\n" + mark + b"--\r\n"
    )


def _too_long(raw: bytes, text: str) -> bool:
    """Whether a line of `text` (`raw`: its UTF-8) is over 998 bytes, as str.splitlines cuts its
    lines. A run of 999 bytes without a newline holds one of the blocks of 499 bytes that `raw`
    is cut into from its start: where every block has a newline, no line is that long (a block
    is looked at by one find). Else only a line of 250 characters or more between newlines can
    be over, and only such a line is weighed."""
    if all(raw.find(b"\n", start, start + 499) >= 0 for start in range(0, len(raw) - 498, 499)):
        return False
    for found in _LONG_LINE.finditer(text):
        line = found.group()
        if len(line.encode(errors="surrogateescape")) > 998 and any(
            len(part.encode(errors="surrogateescape")) > 998 for part in line.splitlines()
        ):
            return True
    return False


# Headers whose value is every message's own: written each time (the rest are kept, _folded).
_OWN_VALUES = frozenset({"message-id", "x-pbem-notice", "date"})


def _header(name: str, value, raw: bool = False) -> bytes:
    """One header line as the MIME classes write it: set through forbid_multi_line_headers
    (unless the MIME class sets it itself: `raw`), folded by compat32. A header that repeats
    from notice to notice (From, the game's thread, the head of a version, a seat's address and
    subject, the MIME parts' own) is written once and kept (_folded: the same input, the same
    bytes); a message's own (its id, number, date) each time."""
    if type(value) is str and name.lower() not in _OWN_VALUES:
        return _folded(name, value, raw)
    return _fold_header(name, value, raw)


def _fold_header(name: str, value, raw: bool) -> bytes:
    if (
        type(value) is str
        and value.isascii()
        and len(name) + 2 + len(value) <= 78
        and "\n" not in value
        and "\r" not in value
        and name.lower() != "subject"
    ):
        # What forbid_multi_line_headers leaves as it is (ASCII, no line break, not a subject)
        # and compat32 writes on one line (_QuickFold): a message's id, number and date.
        return f"{name}: {value}\r\n".encode("ascii")
    if not raw:
        name, value = forbid_multi_line_headers(name, value, "utf-8")
    return QUICK_FOLD_CRLF.fold_binary(name, value)


@functools.lru_cache(maxsize=4096)
def _folded(name: str, value: str, raw: bool) -> bytes:
    return _fold_header(name, value, raw)


# A boundary as _boundary makes it: "=_pbem_" and 24 hex digits.
_BOUNDARY = re.compile(r"=_pbem_[0-9a-f]{24}\Z")
_SAMPLE_BOUNDARY = "=_pbem_" + "0" * 24


def _multipart_type(subtype: str, boundary: str) -> bytes:
    """The Content-Type header of a multipart part. Folded once per subtype with a sample
    boundary of the same length and the boundary put in its place: the folding breaks lines at
    spaces, ";" and "," only, and a boundary of hex digits has none, so where the lines break
    depends on its length alone (tests/mail/test_notice_bytes.py compares the two ways)."""
    if _BOUNDARY.match(boundary):
        kept = _folded("Content-Type", f'multipart/{subtype}; boundary="{_SAMPLE_BOUNDARY}"', True)
        return kept.replace(_SAMPLE_BOUNDARY.encode(), boundary.encode())
    return _fold_header("Content-Type", f'multipart/{subtype}; boundary="{boundary}"', True)


def make_message(notice: Notice, connection=None) -> EmailMultiAlternatives:
    rendered = render(notice)
    message = RelatedMessage(
        subject=rendered.subject,
        body=rendered.text,
        from_email=bounce_address(notice),
        to=rendered.to,
        headers=rendered.headers,
        connection=connection,
        pictures=rendered.pictures,
    )
    message.attach_alternative(rendered.html, "text/html")
    return message


# ---------------------------------------------------------------------------------------------
# What a batch reads at once
# ---------------------------------------------------------------------------------------------


def prefetch(notices: list[Notice]) -> None:
    """Reads what rendering `notices` needs from the log in three queries, whatever their number,
    and leaves it where build_context looks first (eventlog.shared, within the caller's
    eventlog.shared_loads block): each game's state at each version a notice speaks of (its newest
    snapshot up to that version, then the events after it), the chain head at that version, the
    rows of each seat's news since its last notice, and who sat where and what was undone. What is
    not here (a kind of notice that reads more, a database without LATERAL) is read as before,
    one query at a time. Nothing of it is a secret by itself: the feed redacts per seat after."""
    if db.vendor != "postgresql" or not notices:
        return
    ranges = _ranges_of(notices)
    if not ranges:
        return
    pairs = list(ranges.items())
    specs = [get_game(game.kind) for (_key, (game, _after)) in pairs]
    with db.cursor() as cursor:
        snaps = _newest_snapshots(cursor, pairs, specs)
        # The events each notice's version needs: after the snapshot (the state), after the
        # oldest last notice of its seats (their news), the one at the version (the head).
        lows = [min(_after, snaps[i][0] if i in snaps else 0) for i, (_key, (_game, _after)) in enumerate(pairs)]
        rows_of = _events_between(cursor, pairs, lows)
        game_ids = sorted({game_id for (game_id, _at) in ranges})
        special = _seating_and_undos(cursor, game_ids)
    games = {}
    folded: dict[int, tuple] = {}  # game id -> what _prime_load folded last for it, to go on from
    for i, ((game_id, at), (game, after)) in enumerate(pairs):
        games[game_id] = game
        raw = rows_of.get(i, [])
        folded[game_id] = _prime_load(game, specs[i], at, snaps.get(i), raw, folded.get(game_id))
        _share_feed(game_id, at, after, raw)
    for game_id, game in games.items():
        _share_seating(game, special[game_id])
    # The pictures kept of the versions notices that carry one speak of (pictures.board_png), of
    # the games that draw one (_with_picture asks for none of the others).
    drawn = {game.kind for game in games.values() if get_game(game.kind).render_svg is not None}
    pictures.prefetch_kept(
        {
            (g.pk, min(n.version or g.version, g.version))
            for n in notices
            if (g := n.game) is not None and g.kind in drawn and _pictured(n)
        }
    )
    _share_calendars(notices)


def _share_calendars(notices: list[Notice]) -> None:
    """Each seat's calendar feed URL, for every address of the batch in one statement (a player
    who has no settings row yet gets one, with the defaults a new seat gets anyway)."""
    emails = sorted({seat_of(n).email.strip().lower() for n in notices if n.seat_id and seat_of(n).email})
    if not emails:
        return
    table = PlayerSettings._meta.db_table
    with db.cursor() as cursor:
        cursor.execute(
            f"""WITH made AS (
                INSERT INTO {table} (email, notice_preference, news_pictures, forced_moves, combined_notices,
                    updated_at, calendar_generation)
                SELECT e, %s, false, false, false, now(), 1 FROM unnest(%s::text[]) AS e
                ON CONFLICT (email) DO NOTHING RETURNING id, email, calendar_generation)
            SELECT id, email, calendar_generation FROM made
            UNION ALL SELECT id, email, calendar_generation FROM {table} WHERE email = ANY(%s::text[])""",
            [NoticePreference.TURN, emails, emails],
        )
        found = cursor.fetchall()
    for pk, email, generation in found:
        player = PlayerSettings(pk=pk, email=email, calendar_generation=generation)
        eventlog.shared(("calendar", email), lambda player=player: calendar.url_for(player))


_JSON_FIELDS = {"payload", "public", "visible_to", "rng"}


def _ranges_of(notices: list[Notice]) -> dict[tuple[int, int], list]:
    """(game id, version) -> [game, lowest seq read after]: the head at each version at least,
    and each seat's news since its last notice."""
    ranges: dict[tuple[int, int], list] = {}
    for notice in notices:
        game = notice.game
        if game is None:
            continue
        at = min(notice.version or game.version, game.version)
        entry = ranges.setdefault((game.pk, at), [game, at - 1])
        if notice.seat_id and notice.kind != "answer":
            entry[1] = min(entry[1], seat_of(notice).last_notice_version)
    return ranges


def _newest_snapshots(cursor, pairs, specs) -> dict[int, tuple]:
    """The newest snapshot at or before each version (as eventlog.load picks it)."""
    # The pairs as arrays (one text of the statement whatever their number: the driver parses it
    # once, where a VALUES list of as many placeholders was parsed anew for every batch).
    columns: list[list[int]] = [[], [], [], []]
    for i, ((game_id, at), _entry) in enumerate(pairs):
        for column, value in zip(columns, (i, game_id, at, specs[i].version), strict=True):
            column.append(value)
    cursor.execute(
        "SELECT v.i, s.seq, s.state::text FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[]) AS v(i, g, a, rv) "
        f"JOIN LATERAL (SELECT seq, state FROM {Snapshot._meta.db_table} WHERE game_id = v.g "
        "AND reducer_version = v.rv AND seq <= v.a ORDER BY seq DESC LIMIT 1) s ON true",
        columns,
    )
    return {i: (seq, state) for i, seq, state in cursor.fetchall()}


def _events_between(cursor, pairs, lows) -> dict[int, list[tuple]]:
    """The event rows after each pair's low up to its version. Each game's rows are read once
    for all its versions in the batch (from the lowest low to the highest version) and each
    version's cut from them: a batch holding several versions of a game (a backlog, a table of
    stand-ins) read the rows they share once for each. A row at or before every `after` of its
    game is read for the state alone (_prime_load), never for a feed: its created_at comes as
    NULL (the driver's parsing of timestamps was half of this query's time on the client)."""
    spans: dict[int, list[int]] = {}  # game id -> [low, after, highest version]
    for i, ((game_id, at), (_game, after)) in enumerate(pairs):
        span = spans.setdefault(game_id, [lows[i], after, at])
        span[0], span[1], span[2] = min(span[0], lows[i]), min(span[1], after), max(span[2], at)
    columns = ", ".join(
        f"e.{name}::text"
        if name in _JSON_FIELDS
        else "CASE WHEN e.seq > v.after THEN e.created_at END"
        if name == "created_at"
        else f"e.{name}"
        for name in _ROW_COLUMNS
    )
    cursor.execute(
        f"SELECT v.g, {columns} FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[]) AS v(g, lo, after, hi) "
        f"JOIN {Event._meta.db_table} e ON e.game_id = v.g AND e.seq > v.lo AND e.seq <= v.hi "
        "ORDER BY v.g, e.seq",
        [list(spans), *([span[k] for span in spans.values()] for k in range(3))],
    )
    of_game: dict[int, list[tuple]] = {}
    for row in cursor.fetchall():
        of_game.setdefault(row[0], []).append(row[1:])
    seq_at = _ROW_COLUMNS.index("seq")
    seqs = {game_id: [row[seq_at] for row in rows] for game_id, rows in of_game.items()}
    rows_of: dict[int, list[tuple]] = {}
    for i, ((game_id, at), _entry) in enumerate(pairs):
        rows, numbers = of_game.get(game_id, []), seqs.get(game_id, [])
        rows_of[i] = rows[bisect.bisect_right(numbers, lows[i]) : bisect.bisect_right(numbers, at)]
    return rows_of


def _seating_and_undos(cursor, game_ids: list[int]) -> dict[int, list[tuple]]:
    """Who sat where and what was undone, for each game of the batch."""
    cursor.execute(
        f"SELECT game_id, seq, type, payload::text FROM {Event._meta.db_table} "
        "WHERE game_id = ANY(%s) AND type = ANY(%s) ORDER BY game_id, seq",
        [game_ids, [*selectors.OCCUPANCY_TYPES, "pbem.Undone"]],
    )
    special: dict[int, list[tuple]] = {game_id: [] for game_id in game_ids}
    for game_id, seq, etype, payload in cursor.fetchall():
        special[game_id].append((seq, etype, json.loads(payload)))
    return special


def _share_feed(game_id: int, at: int, after: int, raw: list[tuple]) -> None:
    """The news rows after `after` and the head at `at`, where the feed and the head look first."""
    loads = eventlog.json_loads
    feed_rows = []
    head = None
    seq_at, hash_at = _ROW_COLUMNS.index("seq"), _ROW_COLUMNS.index("hash")
    for row in raw:
        if row[seq_at] == at:
            head = row[hash_at]
        if row[seq_at] <= after:
            continue  # read for the state only (prime_load): its JSON is not decoded here
        item = dict(zip(_ROW_COLUMNS, row, strict=True))
        for name in _JSON_FIELDS:
            if item[name] is not None:
                item[name] = loads(item[name])
        feed_rows.append(item)
    eventlog.shared(selectors.feed_rows_key(game_id, at), lambda lo=after, rows=feed_rows: (lo, rows))
    eventlog.shared(("head", game_id, at), lambda head=head: head)


def _share_seating(game: Game, rows: list[tuple]) -> None:
    occupants = [row for row in rows if row[1] in selectors.OCCUPANCY_TYPES]
    undone: set[int] = set()
    for _seq, etype, payload in rows:
        if etype == "pbem.Undone":
            undone.update(payload["events"])
    eventlog.shared(("occupancy", game.pk, game.version), lambda rows=occupants: selectors.occupancy_of(rows))
    eventlog.shared(("undone", game.pk, game.version), lambda undone=undone: undone)


_ROW_COLUMNS = selectors.FEED_FIELDS
# The columns of a row that eventlog.row_from_text takes, in its order (the first: the seq).
_state_columns = operator.itemgetter(*(_ROW_COLUMNS.index(name) for name in eventlog.ROW_FROM_TEXT))
_STATE_SEQ = _ROW_COLUMNS.index(eventlog.ROW_FROM_TEXT[0])


def _prime_load(game: Game, spec, at: int, snap: tuple | None, raw: list[tuple], before: tuple | None = None):
    """eventlog.load(game, at=at) from rows read here, kept where that load looks first; an undo
    after the snapshot reaching back behind it is left to eventlog.load (a replay from the start).
    `before`: what this returned for an earlier version of the game in the batch (a backlog, a
    table of stand-ins: a version a move), gone on from when it was folded from the same snapshot
    and no undo came since (_went_on). Returns (snapshot seq, version, state, undone) or None."""
    start = snap[0] if snap else 0
    if before is not None and before[0] == start and before[1] < at:
        loaded = _went_on(game, spec, at, raw, before)
        if loaded is not None:
            eventlog.prime_load(game, at, loaded)
            return (start, at, loaded.state, loaded.undone)
    # loaded_from folds only the rows after the snapshot: only they are decoded
    rows = [eventlog.row_from_text(*_state_columns(row)) for row in raw if row[_STATE_SEQ] > start]
    loaded = eventlog.loaded_from(game, spec, at, snap, rows)
    if loaded is None:
        return None
    eventlog.prime_load(game, at, loaded)
    return (start, at, loaded.state, loaded.undone)


_encode_state = msgspec.json.Encoder().encode


def _went_on(game: Game, spec, at: int, raw: list[tuple], before: tuple) -> eventlog.Loaded | None:
    """The state at `at` from the one folded at an earlier version (`before`): a copy of it (its
    JSON read back, as a snapshot's is; used only where that copy equals it, so no tuple, no
    number key turns into something else) with the events after that version folded in. None
    where an undo is among them (it may take back what the earlier state holds)."""
    _start, version, state, undone = before
    seq_at, type_at = _ROW_COLUMNS.index("seq"), _ROW_COLUMNS.index("type")
    new = [row for row in raw if version < row[seq_at] <= at]
    if len(new) != at - version or any(row[type_at] == "pbem.Undone" for row in new):
        return None
    copy = eventlog.json_loads(_encode_state(state))
    if copy != state:
        return None
    rows = [eventlog.row_from_text(*_state_columns(row)) for row in new]
    state = fold.fold_rows(spec, copy, rows, undone)
    return eventlog.Loaded(game.pk, spec, state, at, game.head_hash, set(undone))


# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# What each kind of notice says
# ---------------------------------------------------------------------------------------------

# The kinds of notice that speak of the seat's own turn: they list its moves, as codes and links.
OPTION_KINDS = ("turn", "reminder", "answer", "welcome")
# The kinds of notice that carry the board as a picture; news and digests only for a seat that
# asked for it (notices … pictures): a picture is most of a notice's weight.
PICTURE_KINDS = {"turn", "final", "reminder", "welcome"}
NEWS_PICTURE_KINDS = {"news", "digest"}


@dataclass
class Option:
    """A move the notice offers: its code, the command it stands for, and the links that make it
    (a one-tap link to a confirming page; a mailto: that opens a reply with it filled in)."""

    code: int
    line: str
    tap_url: str = ""
    mailto: str = ""


def build_context(notice: Notice) -> dict:
    ctx: dict = {
        "notice": notice,
        "extra": notice.context or {},
        "base_url": settings.PBEM_BASE_URL,
        "domain": settings.PBEM_MAIL_DOMAIN,
    }
    fields: dict[str, object] = dict.fromkeys(("title", "round", "phase", "at", "tag", "subject", "seat_name"), "")
    fields["game"] = notice.game_id or ""
    if notice.game is not None:
        _game_context(ctx, fields, notice, notice.game)
    if "text" in ctx["extra"]:
        ctx["answer_text"] = wrap(ctx["extra"]["text"])
    if ctx["extra"].get("board"):
        ctx["answer_board"] = fit(ctx["extra"]["board"])
    fields["subject"] = _answer_subject(notice)
    ctx["subject_fields"] = fields
    ctx["subject"] = subject_of(notice, ctx)
    _mailto_links(ctx)
    return ctx


def _game_context(ctx: dict, fields: dict, notice: Notice, game: Game) -> None:
    spec = get_game(game.kind)
    version = notice.version or game.version
    loaded = eventlog.load(game, at=min(version, game.version))
    state = loaded.state
    summary = spec.summary(state["game"]) if state["game"] is not None else {}
    names = state["meta"]["names"] or selectors.seat_names(game)
    # The log is append-only: the head at a version is one query for every notice of a batch.
    head = eventlog.shared(
        ("head", game.pk, loaded.version),
        lambda: Event.objects.filter(game=game, seq=loaded.version).values_list("hash", flat=True).first(),
    )
    # A scheme-1 game's head would confirm guesses at hidden payloads: quoted only once it is over.
    head = (head or game.head_hash) if selectors.hashes_public(game) else ""
    colours = list(spec.colours or ())[: len(names)]
    ctx.update(
        game=game,
        spec=spec,
        names=names,
        head_hash=head,
        version=loaded.version,
        ended=bool(state["meta"]["ended"] or state["meta"].get("abandoned")),
        round=summary.get("round", ""),
        phase=game_text(spec.name, summary.get("phase", "")),
        audit_url=audit_url(game.pk),
        # Who is who when a board names seats by colour ("P2 blue"): the players by seat.
        seating=[
            f"{n + 1} {name} ({game_text(spec.name, colour)})"
            for n, (name, colour) in enumerate(zip(names, colours))
            if colour
        ],
        # Read only by the templates that show them (final, correction, answer): looked up then.
        standings=_lazy(lambda: _standings(game, state, names, colours)),
        seed=state["meta"].get("seed"),
    )
    where = gettext(", round %(round)s") % {"round": ctx["round"]} if ctx["round"] not in ("", None) else ""
    fields.update(title=game.title or spec.title, round=ctx["round"], phase=ctx["phase"], at=where)
    other = (notice.context or {}).get("seat")
    if other is not None and 0 <= int(other) < len(names):
        fields["seat_name"] = ctx["other_name"] = names[int(other)]
    if not notice.seat_id and game.status in (GameStatus.RUNNING, GameStatus.PAUSED):
        # The Master of Seals' notices: who the table waits for, in UTC (named).
        ctx.update(waiting_until=selectors.awaited_lines(game, "UTC", names=names), reader_zone="UTC")
    if notice.seat_id:
        seat = seat_of(notice)
        ctx.update(_seat_context(notice, game, spec, state, seat, loaded.version))
        if ctx["board"] and _pictured(notice):
            ctx["picture_args"] = _picture_args(notice, game, spec, state, seat, loaded.version)
        fields["tag"] = ctx.get("tag") or subject_tag(seat)
        if notice.kind == "invitation":
            # A fixed text: the title and the names are the creator's words, and an invitation
            # to an address nobody confirmed must not carry them (pbem/SECURITY.md).
            creator = game.seats.order_by("number").values_list("email", flat=True).first()
            ctx.update(accept_url=invite_url(seat), creator_email=creator)
            fields["title"] = spec.title


def _pictured(notice: Notice) -> bool:
    """Whether the notice carries the board as a picture (when the game draws one)."""
    if notice.game_id is None or notice.seat_id is None:
        return False
    return notice.kind in PICTURE_KINDS or (notice.kind in NEWS_PICTURE_KINDS and seat_of(notice).news_pictures)


def _picture_args(notice: Notice, game: Game, spec, state: dict, seat: Seat, version: int) -> tuple:
    """What pictures.picture needs for this notice, save its budget (known once the rest is written)."""
    alt = gettext(
        "The board of %(title)s (game #%(game)s) at version %(version)s, "
        "as %(name)s sees it; the text part of this mail has it in words."
    ) % {"title": game.title or spec.title, "game": game.pk, "version": version, "name": seat.name}
    cid = f"board.n{notice.pk}.v{version}@{settings.PBEM_MAIL_DOMAIN}"
    return (spec, state["game"], seat.number, cid, alt, game.pk, version)


SUBJECTS_TALK = gettext_noop("Table talk: {title} #{game} {tag}")


def subject_of(notice: Notice, ctx: dict) -> str:
    """The subject, starting with what the mail wants of its reader ("Your move: …", "News: …"):
    a mail client's list shows its start, and cuts the rest."""
    kind = notice.kind if notice.kind in SUBJECTS else "answer"
    template = SUBJECTS_TALK if kind == "news" and ctx.get("talk_only") else SUBJECTS[kind]
    subject = gettext(template).format(**ctx["subject_fields"])  # in the reader's language (render)
    return re.sub(r"\s+", " ", subject).strip()[:250]


def _mailto_links(ctx: dict) -> None:
    """Each offered move's mailto: a reply to the seat's address with the move written out. The
    whole command, not its code: a message a mail program composes from a link carries no
    In-Reply-To, so a code in it could not be told from a code of a later notice's menu."""
    address = ctx.get("reply_address")
    if not address:
        return
    subject = _quote(ctx["subject"] if ctx["subject"].lower().startswith("re:") else f"Re: {ctx['subject']}")
    for option in ctx.get("options", ()):
        if option.tap_url:  # a plain numbered line has neither (TAPPED)
            option.mailto = f"mailto:{address}?subject={subject}&body={_quote(option.line)}"


# What urllib.parse.quote (safe "/") makes of each ASCII character: an ASCII text quoted by one
# str.translate (a notice quotes each offered move); anything else goes to quote itself.
_QUOTED = str.maketrans({chr(c): quote(chr(c)) for c in range(128) if quote(chr(c)) != chr(c)})


def _quote(text: str) -> str:
    return text.translate(_QUOTED) if text.isascii() else quote(text)


TEXT_WIDTH = 80


def wrap(text: str, width: int = TEXT_WIDTH) -> str:
    """Long lines folded for an 80-column reader; lines that fit (boards, lists, a game's own
    wrapping) left as they are."""
    return fit(text, width)


def fit(board: str, width: int = TEXT_WIDTH) -> str:
    """Text in lines of at most `width` columns for an 80-column reader: a longer line is broken
    between words; a line of prose (it starts at the margin) goes on at the margin, an indented
    one (a list item, a board's row) under its own text. Never a word alone on the last line of
    a paragraph (the lines are made a little shorter instead), and nothing is cut: a word longer
    than the line, such as a link, stays whole."""
    lines = board.split("\n")
    stripped = list(map(str.rstrip, lines))  # (a line with nothing to strip comes back as it is)
    if max(map(len, stripped)) <= width:
        return board if stripped == lines else "\n".join(stripped)  # most of a notice's text
    out: list[str] = []
    for line in stripped:
        if len(line) <= width:
            out.append(line)
        else:
            out += _wrapped_kept(line, width)
    return "\n".join(out)


@functools.lru_cache(maxsize=1024)
def _wrapped_kept(line: str, width: int) -> tuple[str, ...]:
    """_wrapped, kept: the same long line comes in notice after notice (the news preference's,
    a game's rule lines), and textwrap tries several widths for each."""
    return tuple(_wrapped(line, width))


BULLET_RE = re.compile(r"^(\s*)([*•-] |\d{1,2}[.)] )?")


def _wrapped(line: str, width: int) -> list[str]:
    match = BULLET_RE.match(line)
    indent, bullet = (match.group(1), match.group(2) or "") if match else ("", "")
    hanging = indent + (" " * len(bullet) if bullet else ("    " if indent else ""))
    narrowest = max(width * 3 // 4, len(hanging) + 20)
    lines: list[str] = []
    for size in range(width, narrowest - 1, -1):
        lines = textwrap.wrap(
            line, size, subsequent_indent=hanging, break_on_hyphens=False, break_long_words=False
        ) or [line]
        if len(lines) < 2 or len(lines[-1].split()) > 1:
            break  # no word left alone on the last line
    return lines


def _answer_subject(notice: Notice) -> str:
    subject = (notice.context or {}).get("subject") or "your message"
    return re.sub(r"^((re|aw|sv|antw|fwd?)\s*:\s*)+", "", subject, flags=re.I)


def _seat_context(notice: Notice, game: Game, spec, state: dict, seat: Seat, version: int) -> dict:
    number = seat.number
    told = (
        []
        if notice.kind == "answer"
        else selectors.feed(game, number, after=min(seat.last_notice_version, version), upto=version)
    )
    since = [item for item in told if not item.undone]
    # Table talk alone (nothing else happened since the last notice): the words, without the
    # board and the housekeeping of a news mail.
    talk_only = notice.kind == "news" and bool(since) and all(item.type == "pbem.Said" for item in since)
    # A player is not told his own moves back (the receipts below list them); what they caused is news.
    since = [item for item in since if not own_doing(item, number)]
    options, others = _options(notice, spec, state, seat, version)
    deadline = (game.deadlines or {}).get(str(number))
    waiting = selectors_waiting(spec, state)
    return {
        "seat": seat,
        "seat_name": seat.name,
        "since": _since_lines([item.text for item in since]),
        "since_html": [item.text for item in since[-MAX_SINCE:]],
        "since_dropped": max(0, len(since) - MAX_SINCE),
        "receipts": _receipts(told, number) if notice.kind in SEAT_KINDS_MOVING_LAST_NOTICE else [],
        "folded": [wrap(text) for text in (notice.context or {}).get("folded", [])],
        "talk_only": talk_only,
        "preference_text": gettext(NoticePreference(seat.notice_preference).label)
        if seat.notice_preference in _PREFERENCES
        else seat.notice_preference,
        "board": versioned.kept(
            "board", game.pk, version, number, lambda: fit(selectors.board_text(spec, state, number))
        )
        if notice.kind != "answer" and not talk_only
        else "",
        "options": options,
        "plain_options": options[TAPPED:],  # numbered lines without a button (TAPPED)
        "other_options": others,
        "deadline": _when(deadline, seat.time_zone) if deadline else "",
        "seat_url": addressing.seat_url(seat),
        # Every deadline of the player, in all their games, as a calendar feed.
        "calendar_url": calendar.url_of(seat.email) if seat.email else "",
        "reply_address": addressing.reply_address(seat),
        "tag": subject_tag(seat),
        "waiting": [state["meta"]["names"][s] for s in waiting],
        "awaited_me": number in waiting,
        # Who the table waits for and until when, in this reader's zone: the same for every
        # reader of the batch in that zone and language (public: every seat's notice shows it).
        # Read from the game's row as the batch read it (its awaited seats and deadlines: the
        # row's version, not the notice's), with the names at the notice's version: the notices
        # of a move to several seats, each at its own version, share it.
        "waiting_until": eventlog.shared(
            ("awaited lines", game.pk, game.version, tuple(state["meta"]["names"]), seat.time_zone, get_language()),
            lambda: selectors.awaited_lines(game, seat.time_zone, names=state["meta"]["names"]),
        ),
        "reader_zone": seat.time_zone or "UTC",
    }


_PREFERENCES = frozenset(NoticePreference.values)  # (the enum's `values` builds its list at each look)


def _options(notice: Notice, spec, state: dict, seat: Seat, version: int) -> tuple[list[Option], list]:
    """The seat's featured moves with their codes and one-tap links, and the other groups."""
    meta = state["meta"]
    if state["game"] is None or meta["ended"] or meta["paused"] or notice.kind not in OPTION_KINDS:
        return [], []
    # The log is append-only: the menu at this version never changes (kept per version).
    offered = versioned.kept(
        "menu", seat.game_id, version, seat.number, lambda: choosing.menu(spec, state["game"], seat.number)
    )
    # The moves as typed, kept with the menu (the game's describe of each, in the reader's language).
    lines = versioned.kept(
        "menu lines",
        seat.game_id,
        version,
        seat.number,
        lambda: tuple((code, offered.line(choice)) for code, choice in offered.codes()),
    )
    options = [Option(code, line, taps.tap_url(seat, version, code) if code <= TAPPED else "") for code, line in lines]
    others = [(group.name, group.unfeatured, group.example) for group in offered.groups if group.unfeatured]
    return options, others


MAX_SINCE = 100
# Codes with a one-tap button and a mailto in a notice's HTML (about 0.7 kB each); a game that
# numbers more (Elven Castle numbers every scoring placement: up to 50 in a turn of random play,
# hundreds in a castle built as a grid) lists the rest as plain numbered lines, about 0.1 kB,
# so the notice keeps its picture and stays under a mail program's clipping size.
TAPPED = MAX_FEATURED


def own_doing(item, seat: int) -> bool:
    """An event the seat did itself and that is about itself (its move, its words): not news to it."""
    data = item.data if isinstance(item.data, dict) else {}
    return item.actor == "seat" and item.actor_seat == seat and data.get("seat") == seat


def _receipts(items, seat: int) -> list[str]:
    """Every act credited to the seat since its last notice, one line a command (its events
    numbered, the first one told): what the chain head the notice quotes covers. A move in this
    seat's name that its player did not make (a forged event, a desk action) shows here, in the
    player's own mail (issue 26)."""
    lines: list[str] = []
    batch: list = []
    for item in items:
        if item.actor_seat != seat:
            continue
        if batch and (item.actor, item.created_at) == (batch[0].actor, batch[0].created_at):
            batch.append(item)
            continue
        if batch:
            lines.append(_receipt(batch))
        batch = [item]
    if batch:
        lines.append(_receipt(batch))
    return lines


RECEIPT_TOLD = 3  # events of one command told in its receipt; the rest counted


def _receipt(batch: list) -> str:
    first, last = batch[0], batch[-1]
    numbers = f"#{first.seq}" if first is last else f"#{first.seq}-{last.seq}"
    told = " ".join(item.text for item in batch[:RECEIPT_TOLD])
    more = f" (+{len(batch) - RECEIPT_TOLD} more)" if len(batch) > RECEIPT_TOLD else ""
    undone = " (taken back)" if all(item.undone for item in batch) else ""
    return f"{numbers} {told}{more}{undone}"


def _since_lines(texts: list[str]) -> list[str]:
    """The events since the last notice, wrapped; only the newest when there are many."""
    lines = [fit(text, 74).replace("\n", "\n    ") for text in texts[-MAX_SINCE:]]
    if len(texts) > MAX_SINCE:
        lines.insert(0, f'({len(texts) - MAX_SINCE} earlier events: reply "history {len(texts)}" for all)')
    return lines


def selectors_waiting(spec, state) -> list[int]:
    if state["game"] is None or state["meta"]["ended"] or state["meta"]["abandoned"]:
        return []
    return list(spec.waiting_for(state["game"]))


class _lazy:
    """A value computed the first time a template reads it (Django templates call callables),
    then kept: the text and the HTML part of one notice read it from one computation."""

    def __init__(self, compute):
        self.compute = compute
        self.done = False
        self.value = None

    def __call__(self):
        if not self.done:
            self.value, self.done = self.compute(), True
        return self.value


def _standings(game: Game, state: dict, names: list[str], colours: list[str] | None = None) -> list[dict]:
    ended = Event.objects.filter(game=game, type="pbem.GameEnded").values_list("payload", flat=True).first()
    if not ended:
        return []
    colours = colours or []
    place = {}
    for position, group in enumerate(ended.get("ranking") or [], start=1):
        for seat in group:
            place[seat] = position
    rows = [
        {
            "place": place.get(s, ""),
            "name": names[s],
            "colour": game_text(game.kind, colours[s]) if s < len(colours) and colours[s] else "",
            "score": score,
        }
        for s, score in enumerate(ended["scores"])
    ]
    return sorted(rows, key=lambda r: (r["place"] if r["place"] != "" else 99, r["name"]))


def zone_named(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ValueError, KeyError, OSError):
        return ZoneInfo("UTC")


def local_time(moment: datetime, zone_name: str | None = "UTC") -> str:
    """A moment in the player's zone, the zone always named: 'Thu 10 Dec 2026, 19:00 Europe/Berlin'."""
    zone = zone_named(zone_name)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    # The day's and the month's names in the reader's language (render's): 'Do 10 Dez 2026'.
    # What dateformat.format(moment, 'D d M Y, H:i') writes, with the names looked up once a
    # language (dateformat builds a formatter and splits its format at every call: a notice's
    # deadline cost more than its headers).
    days, months = _date_names(get_language())
    at = moment.astimezone(zone)
    return (
        f"{days[at.weekday()]} {at.day:02d} {months[at.month]} {at.year:04d}, {at.hour:02d}:{at.minute:02d} {zone.key}"
    )


@functools.lru_cache(maxsize=64)
def _date_names(language: str | None) -> tuple[tuple[str, ...], dict[int, str]]:
    """The short names of the week's days (dateformat's D) and of the months (its M) in the active
    language (`language`: its code, the key they are kept by)."""
    return tuple(str(WEEKDAYS_ABBR[day]) for day in range(7)), {
        month: str(MONTHS_3[month]).title() for month in range(1, 13)
    }


def _when(iso: str, zone_name: str | None = "UTC") -> str:
    moment = datetime.fromisoformat(iso)
    delta = moment - timezone.now()
    hours = int(delta.total_seconds() // 3600)
    if hours >= 1:
        left = ngettext("in %(n)d hour", "in %(n)d hours", hours) % {"n": hours}
    else:
        left = gettext("in less than an hour") if delta.total_seconds() > 0 else gettext("passed")
    return f"{local_time(moment, zone_name)} ({left})"


def sender_address() -> str:
    return parseaddr(settings.DEFAULT_FROM_EMAIL)[1].lower()
