"""Processing one stored mail: who wrote it, what they asked, and the answer.

Runs inside `processing.process`'s transaction (the InboundMessage row locked): the command goes
through `services.submit` and the answer into the outbox, both committed with the row's new
status, so a crash anywhere leaves the message "received" for the sweep to take again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from pbem.log import eventlog, rows
from pbem.mail import inbound, outbound, sending
from pbem.models import WEB_CHANNELS, Game, InboundMessage, InboundStatus, Notice, NoticeStatus, Seat
from pbem.play import addressing, choosing, languages, outbox, runner, selectors, services, submissions, versioned
from pbem.registry import get_game

log = logging.getLogger(__name__)

CODE_RE = re.compile(r"^#?(\d{1,3})$")


@dataclass
class Refusal(Exception):
    code: str
    text: str
    seat: Seat | None = None
    answered: bool = True  # False: recorded with its reason, and no mail goes back
    # The text made again in another language: a refusal before the seat is known is made in
    # English, and answered in the language of the sender's address when it plays here.
    make: Callable[[], str] | None = None


def refusal(code: str, make: Callable[[], str], seat: Seat | None = None) -> Refusal:
    return Refusal(code, make(), seat, make=make)


# Refusals of mail that proves no link to us (a token whose MAC is not ours, or none at all from
# an address that plays nowhere here): answering would send our mail to whatever address a
# forger put in From (backscatter), so they are recorded and not answered.
SILENT_CODES = {"malformed", "forged", "unknown", "unknown_code"}
# Mail to a seat's reply address from another address than the seat's. Anyone who creates a game
# holds a reply address, and From is the sender's word: answering it would let anyone make us
# mail any address with their subject (a mail cannon). Recorded, never answered to the sender;
# the seat's owner is told (tell_owner), within per-seat and site-wide limits.
STRANGER_CODES = {"not_at_table", "wrong_sender"}


def process_mail(message: InboundMessage) -> Notice | None:
    """Reads the mail and applies what it orders; returns its answer, to be written with the
    message's end state (unsaved: pbem.doors.processing writes both in one statement). The answer
    is in the language of the seat that wrote (English until the seat is known), and its lines
    are read in that language's words too (the write path keeps the log in English)."""
    with translation.override(languages.DEFAULT), ExitStack() as speaking:
        return _process_mail(message, speaking)


def _process_mail(message: InboundMessage, speaking: ExitStack) -> Notice | None:
    raw = bytes(message.raw)
    parsed = inbound.parse(raw, message.envelope_to)
    message.sender = parsed.sender[:250]
    bounced_notice = _bounce_target(parsed)
    if parsed.automatic or bounced_notice:
        _automatic(message, parsed, raw, bounced_notice)
        return None
    facts = None
    try:
        seat, facts = identify_with_facts(parsed)
        speaking.enter_context(languages.reading(languages.of_seat(seat)))
        check_mail_rate(seat, facts)
        _check_readable(parsed, seat)
        by_game = lines_by_game(parsed.candidates)
        if by_game:
            return answer_many(message, parsed, seat, by_game, facts)
        reading = read_reply(parsed, seat)
        orders, positions, ignored = reading.orders, reading.positions, reading.ignored
        if not orders:
            raise Refusal(
                "empty",
                _(
                    "We found no command in your message (quoted text and signatures are "
                    "left out). Write one command a line above the quoted notice; 'help' lists them."
                )
                + ignored_note(ignored),
                seat,
            )
        if len(orders) > inbound.MAX_LINES:
            raise Refusal(
                "too_many", _("At most %(count)s commands go in one reply.") % {"count": inbound.MAX_LINES}, seat
            )
        # The stale guard is for moves: a reply of only table talk, questions or preferences to an
        # older notice is as good as one to the newest.
        expected = None if all(_neutral(line) for line in orders) else _expected_version(parsed, seat, facts)
        lines = translate_codes(orders, seat, expected, positions)
    except Refusal as refusal:
        if refusal.seat is not None:
            message.game_id, message.seat = refusal.seat.game_id, refusal.seat
        submissions.finish(message, InboundStatus.REFUSED, refusal.code, refusal.text)
        if refusal.code in STRANGER_CODES and refusal.seat is not None:
            return tell_owner(message, parsed, refusal.seat)
        if not refusal.answered:
            message.outcome += "\n(Not answered: its sender was told of this limit already.)"
        elif not _answerable(refusal, parsed):
            message.outcome += "\n(Not answered: the message proves no link to a seat here.)"
        else:
            note = ignored_note(ignored) if refusal.code == "no_such_code" else ""
            if refusal.seat is None and refusal.make is not None:
                with languages.reading(languages.default_for(parsed.sender)):
                    refusal.text = refusal.make()
            return answer(message, parsed, refusal.seat, refusal.code, refusal.text + note, facts=facts)
        return None
    # The game as it is now, for both checks against the notice answered: the row identify read
    # with the seat, a moment ago in this transaction (the append still checks the version).
    current = _game_row(seat) if expected is not None else None
    earlier = already_applied(message, seat, orders, expected, current)
    if earlier is not None:  # the same reply again: told so, never applied twice
        game = Game.objects.get(pk=seat.game_id)
        board = selectors.board_text(get_game(game.kind), eventlog.load(game).state, seat.number)
        text = _(
            "These orders were already applied at version %(version)s, from your message of %(when)s: nothing "
            "more was applied. The game is now at version %(now)s."
        ) % {
            "version": earlier.result_version,
            "when": outbound.local_time(earlier.processed_at or earlier.received_at, seat.time_zone),
            "now": game.version,
        }
        submissions.finish(message, InboundStatus.ANSWERED, "duplicate", text, game.version)
        message.game_id, message.seat = seat.game_id, seat
    else:
        if expected is not None and means_the_same(seat, lines, expected, current):
            expected = None  # the game moved on, but not in a way that changes what these orders mean
        board, text = _apply(message, seat, lines, positions, expected)
    note = inbound.loose_note(reading.loosened) + ignored_note(ignored)
    message.outcome += note
    return answer(message, parsed, seat, message.error_code, text + note, board=board, facts=facts)


def _check_readable(parsed, seat) -> None:
    """Refuses a message whose commands cannot be read: unreadable, or too large."""
    if parsed.unreadable:
        raise Refusal(
            "unreadable",
            _("We could not read your message: %(why)s. Please send your commands as plain text, one a line.")
            % {"why": parsed.unreadable},
            seat,
        )
    if parsed.too_large:
        raise Refusal(
            "too_large",
            _(
                "Your message is %(size)s KB; replies may be at most %(most)s KB. Please send your commands as "
                "plain text, without attachments."
            )
            % {"size": parsed.size // 1024, "most": settings.PBEM_INBOUND_MAX_BYTES // 1024},
            seat,
        )


# A line of a reply to the notice for several games: "#12: 3", "#14 pass", "# 12: move to Virst".
GAME_LINE_RE = re.compile(r"^\s*#\s*(\d{1,12})\s*[:.)\-]?\s+(\S.*?)\s*$")


def lines_by_game(candidates: list[str]) -> dict[int, list[str]]:
    """The lines of a reply prefixed by a game's number, by game in the order first named (the
    other lines are prose, greetings, a signature: left out); {} for a reply with none."""
    out: dict[int, list[str]] = {}
    for line in candidates:
        match = GAME_LINE_RE.match(line)
        if match:
            out.setdefault(int(match.group(1)), []).append(match.group(2))
    return out


def answer_many(
    message: InboundMessage, parsed: inbound.Parsed, seat: Seat, by_game: dict[int, list[str]], facts
) -> Notice | None:
    """A reply answering several games at once: each game's lines are applied together, all or
    none for that game (its own command), as the player's seat in that game (the same address
    as the seat the reply proved, so a reply moves only its own player's seats); a game whose
    part is refused changes nothing there and is named in the answer, the others go on. One
    answer tells each game's outcome in turn."""
    if sum(len(lines) for lines in by_game.values()) > inbound.MAX_LINES:
        submissions.finish(
            message,
            InboundStatus.REFUSED,
            "too_many",
            _("At most %(count)s commands go in one reply.") % {"count": inbound.MAX_LINES},
        )
        return answer(message, parsed, seat, "too_many", message.outcome, facts=facts)
    seats = {
        s.game_id: s
        for s in Seat.objects.select_related("game").filter(game_id__in=list(by_game), email__iexact=seat.email)
    }
    parts, applied, refused = [], [], []
    for game_id, lines in by_game.items():
        mine = seats.get(game_id)
        if mine is None:
            refused.append(game_id)
            parts.append(
                _("#%(game)s: refused: you have no seat in game #%(game)s; nothing was applied there.")
                % {"game": game_id}
            )
            continue
        title = f"#{game_id} {mine.game.title}"
        try:
            translated = translate_codes(lines, mine, None)
            outcome = services.submit(
                game_id, mine.number, translated, causation_id=f"{message.message_id[:150]}#{game_id}"
            )
        except Refusal as refusal:
            refused.append(game_id)
            parts.append(
                _("%(title)s: refused, nothing applied in this game.") % {"title": title} + f"\n{refusal.text}"
            )
            continue
        except services.ServiceError as exc:
            if exc.code == "busy":
                raise submissions.TryLater(str(exc)) from exc
            refused.append(game_id)
            parts.append(
                _("%(title)s: refused, nothing applied in this game.") % {"title": title}
                + f"\n{submissions.describe_refusal(exc)}"
            )
            continue
        applied.append(game_id)
        said = _("already applied before") if outcome.duplicate else submissions.describe_outcome(outcome)
        parts.append(f"{title}: {said}")
    code = "applied" if applied and not refused else ("refused" if not applied else "partly")
    status = InboundStatus.REFUSED if not applied else InboundStatus.APPLIED
    text = "\n\n".join(parts)
    if refused:
        text = (
            _("Refused in %(games)s (the other games' lines stand).") % {"games": ", ".join(f"#{g}" for g in refused)}
            + "\n\n"
            + text
        )
    submissions.finish(message, status, code, text)
    message.game_id, message.seat = seat.game_id, seat
    return answer(message, parsed, seat, code, text, facts=facts)


def _game_row(seat: Seat) -> Game:
    """The game row read with the seat when identify_with_facts() found it (in this
    transaction), else read now."""
    cached = Seat.game.field.get_cached_value(seat, None)  # read with the seat (select_related)
    return cached if isinstance(cached, Game) else Game.objects.get(pk=seat.game_id)


def _apply(
    message: InboundMessage, seat: Seat, lines: list[str], positions: list[int], expected: int | None
) -> tuple[str, str]:
    """Applies the orders; returns the board to show (after a stale refusal) and the answer's text."""
    result = submissions.apply(message, seat, "\n".join(lines), expected)
    board, text = "", message.outcome
    if isinstance(result, services.CommandRejected):
        if result.line_number:  # the line as the player counts them: greetings and blank lines included
            result.line_number = positions[result.line_number - 1]
        submissions.finish(message, message.status, message.error_code, submissions.describe_refusal(result))
        text = submissions.describe_refusal(result, with_legal=False)  # the answer lists them with codes
    if isinstance(result, services.StaleVersion):
        game = Game.objects.get(pk=seat.game_id)
        board = selectors.board_text(get_game(game.kind), eventlog.load(game).state, seat.number)
    return board, text


def read_orders(parsed: inbound.Parsed, seat: Seat) -> tuple[list[str], list[int], list[str]]:
    """The orders of a reply, the line number (1-based, among its non-blank new lines) of each,
    and the lines left out as prose or signature. Whatever the game reads as a command of its
    own (or a code, or a platform command) is an order, however polite it looks."""
    reading = read_reply(parsed, seat)
    return reading.orders, reading.positions, reading.ignored


def read_reply(parsed: inbound.Parsed, seat: Seat) -> inbound.Reading:
    """read_orders with the lines read loosely ("Hi! 1" as "1"), for the answer to name them.
    The player's own names are the sender's display name and the seat's ("-Carol")."""
    names = " ".join(name for name in (parsed.sender_name, seat.name) if name)
    order_like = _order_like(seat, names)
    return inbound.read_lines(parsed.candidates, names, parsed.signature, order_like)


def _order_like(seat: Seat, sender_name: str = ""):
    """Whether a line is an order of this seat's game: a platform command or code, a line the
    game's parser takes, or (for a line that does not look like prose) one starting with the verb
    of a move some seat may make now. The game is loaded, and its moves listed, only when needed."""
    known: dict = {}

    def game():
        if not known:
            row = _game_row(seat)
            state = runner.cached_state(row)  # the log read again only when this process has not it
            if state is None:
                state = eventlog.load(row).state
            known.update(
                spec=get_game(row.kind), state=state, running=state["game"] is not None and not state["meta"]["ended"]
            )
        return known

    def verbs() -> set[str]:
        if "verbs" not in known:
            found, loaded = set(), game()
            if loaded["running"]:
                spec, game_state = loaded["spec"], loaded["state"]["game"]
                for number in range(len(loaded["state"]["meta"]["names"] or [])):
                    try:
                        found |= {
                            spec.describe(c).split(None, 1)[0].lower()
                            for c in spec.legal(game_state, number)
                            if spec.describe(c).strip()
                        }
                    except Exception:  # noqa: BLE001 - a game that cannot list a seat's moves now
                        continue
            known["verbs"] = found
        return known["verbs"]

    def order_like(line: str) -> bool:
        if inbound.looks_like_platform_order(line):
            return True
        loaded = game()
        if not loaded["running"]:
            return False
        try:
            loaded["spec"].parse(line, loaded["state"]["game"], seat.number)
            return True
        except Exception:  # noqa: BLE001 - not a command of this game as written
            pass
        if inbound.looks_like_prose(line, sender_name):
            return False
        return line.split(None, 1)[0].lower() in verbs()

    return order_like


def already_applied(
    message: InboundMessage, seat: Seat, orders: list[str], expected: int | None, game: Game | None = None
) -> InboundMessage | None:
    """The earlier mail of this seat, applied after the notice this one answers, that held the
    same orders: a reply sent again (a client's "send again", a second copy from another
    address book entry) is then told it was applied, not asked to move again. `game`: its row
    read just now, if the caller has it."""
    if expected is None:
        return None
    version = game.version if game is not None else Game.objects.values_list("version", flat=True).get(pk=seat.game_id)
    if expected >= version:
        return None
    earlier = (
        InboundMessage.objects.filter(seat=seat, status=InboundStatus.APPLIED, result_version__gt=expected)
        .exclude(pk=message.pk)
        .exclude(channel__in=WEB_CHANNELS)
        .order_by("-id")[:3]
    )
    for row in earlier:
        parsed = inbound.parse(bytes(row.raw), row.envelope_to)
        if read_orders(parsed, seat)[0] == orders:
            return row
    return None


MAX_IGNORED_SHOWN = 8


def ignored_note(ignored: list[str]) -> str:
    """'Ignored as not a command: 'Cheers,', 'Bob'' for the answer ("" when nothing was)."""
    if not ignored:
        return ""
    shown = ", ".join(f"'{line[:60]}'" for line in ignored[:MAX_IGNORED_SHOWN])
    extra = len(ignored) - MAX_IGNORED_SHOWN
    more = _(" and %(count)s more lines") % {"count": extra} if extra > 0 else ""
    return "\n\n" + _("Ignored as not a command: %(lines)s%(more)s.") % {"lines": shown, "more": more}


# ---------------------------------------------------------------------------------------------
# Who: the token in the address, else the sender plus the seat code in the subject
# ---------------------------------------------------------------------------------------------


def _answerable(refusal: Refusal, parsed: inbound.Parsed) -> bool:
    if refusal.code in SILENT_CODES:
        return False
    if refusal.code == "no_token":  # neither token nor code: answered only to an address that plays here
        return Seat.objects.filter(email__iexact=parsed.sender).exists()
    return True  # a token or subject code of ours (perhaps revoked, or another seat's) came with it


@dataclass
class Facts:
    """What the checks of one reply read about its seat and sender, in one round trip: the
    seat's mails read in the rate window, the answers sent to the sender in the last hour, and
    which of the notices the reply names (In-Reply-To, References) went to this seat, at what
    version. Read inside the message's transaction, as the checks were one query each."""

    mails: int
    answers: int
    notices: dict[int, int]  # notice id -> version, of the named notices sent to this seat


def read_facts(seat: Seat, parsed: inbound.Parsed) -> Facts:
    columns, params, named = facts_columns(parsed)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns[2:]} FROM pbem_seat WHERE pbem_seat.id = %s", [*params, seat.pk])
        return facts_from(cursor.fetchone(), named)


# At most this many of the notices a reply names are looked up (its newest references).
NAMED_LOOKED_UP = 5


def facts_columns(parsed: inbound.Parsed) -> tuple[str, list, list[int]]:
    """The Facts as columns of a query on pbem_seat (", …", its parameters, the notice ids
    asked): read with the seat itself when the reply's token names it (identify)."""
    _count, window = getattr(settings, "PBEM_RATE_MAIL_COMMANDS", (20, 600))
    now = timezone.now()
    adapt = connection.ops.adapt_datetimefield_value
    columns = (
        ", (SELECT COUNT(*) FROM pbem_inboundmessage WHERE seat_id = pbem_seat.id AND processed_at >= %s "
        "AND channel NOT IN (%s, %s))"
        ", (SELECT COUNT(*) FROM pbem_notice WHERE to_email = %s AND kind = 'answer' AND created_at >= %s)"
    )
    params: list = [adapt(now - timedelta(seconds=window)), *WEB_CHANNELS]
    params += [parsed.sender, adapt(now - timedelta(hours=1))]
    named = list(dict.fromkeys(notice_id for notice_id, _version, _game in _our_notices(parsed)))[:NAMED_LOOKED_UP]
    for notice_id in named:
        columns += ", (SELECT version FROM pbem_notice WHERE id = %s AND seat_id = pbem_seat.id)"
        params.append(notice_id)
    return columns, params, named


def facts_from(values, named: list[int]) -> Facts:
    notices = {notice_id: version for notice_id, version in zip(named, values[2:], strict=True) if version is not None}
    return Facts(values[0], values[1], notices)


def _our_notices(parsed: inbound.Parsed) -> list[tuple[int, int, int]]:
    """(id, version, game) of each notice of ours the reply names, as its Message-ID says,
    newest reference first."""
    found = []
    for ref in parsed.in_reply_to:
        match = outbound.NOTICE_ID_RE.match(ref)
        if match and ref.lower().endswith(f"@{settings.PBEM_MAIL_DOMAIN.lower()}>"):
            notice_id, version, game_id = (int(g) for g in match.groups()[:3])
            found.append((notice_id, version, game_id))
    return found


def _named_notices(parsed: inbound.Parsed, seat: Seat) -> list[tuple[int, int]]:
    """(id, version) of each of our notices of this seat's game that the reply names."""
    return [(notice_id, version) for notice_id, version, game_id in _our_notices(parsed) if game_id == seat.game_id]


def check_mail_rate(seat: Seat, facts: Facts) -> None:
    """At most PBEM_RATE_MAIL_COMMANDS (count, seconds) mails from one seat are read in a window:
    a burst (a script, a loop with a mail program) must not fill the game's log and everyone's
    mailbox. The first refusal is answered; later ones in the window are recorded only, so two
    programs answering each other cannot keep a loop going."""
    count, window = getattr(settings, "PBEM_RATE_MAIL_COMMANDS", (20, 600))
    if facts.mails < count:
        return
    since = timezone.now() - timedelta(seconds=window)
    recent = InboundMessage.objects.filter(seat=seat, processed_at__gte=since).exclude(channel__in=WEB_CHANNELS)
    told = recent.filter(error_code="rate_limited").exists()
    raise Refusal(
        "rate_limited",
        _(
            "You sent more than %(count)s mails to game #%(game)s in %(minutes)s minutes; this one was not read. "
            "Please wait a while, and put several commands in one mail, one a line."
        )
        % {"count": count, "game": seat.game_id, "minutes": window // 60},
        seat,
        answered=not told,
    )


def identify_with_facts(parsed: inbound.Parsed) -> tuple[Seat, Facts]:
    """The seat the reply is for, and the Facts of its checks: read with the seat, in one
    query, when a token names it (the common case), else after it."""
    tokens = [t for t in (addressing.token_from_address(a) for a in parsed.recipients if _ours(a)) if t]
    if tokens:
        problem = None
        columns, params, named = facts_columns(parsed)
        read: dict[int, Facts] = {}

        def load(seat_id: int) -> Seat | None:
            found = rows.seat_game_and(seat_id, columns, params)
            if found is None:
                return None
            read[seat_id] = facts_from(found[1], named)
            return found[0]

        for token in tokens:
            try:
                seat = addressing.resolve(token, _game_in_subject(parsed.subject), load=load)
            except addressing.TokenProblem as exc:
                problem = problem or exc
                continue
            return _check_sender(seat, parsed), read[seat.pk]
        assert problem is not None, "every token was refused, so one problem was kept"
        found = problem
        raise refusal(
            found.code,
            lambda: (
                _(str(found))
                + " "
                + _("Nothing was applied. Reply to the latest notice of your game, or use the link in it.")
            ),
        )
    seat = _by_subject(parsed)
    return seat, read_facts(seat, parsed)


def _ours(address: str) -> bool:
    return address.rpartition("@")[2] == settings.PBEM_MAIL_DOMAIN.lower()


def _game_in_subject(subject: str) -> int | None:
    match = outbound.SUBJECT_TAG_RE.search(subject or "")
    return int(match.group(1)) if match else None


def _check_sender(seat: Seat, parsed: inbound.Parsed) -> Seat:
    if parsed.sender == seat.email.lower():
        return seat
    others = Seat.objects.filter(game_id=seat.game_id, email__iexact=parsed.sender).exists()
    if others:
        raise Refusal(
            "wrong_sender",
            _(
                "You wrote from %(sender)s, which plays another seat of game #%(game)s; this reply address "
                "belongs to a different seat. Nothing was applied."
            )
            % {"sender": parsed.sender, "game": seat.game_id},
            seat,
        )
    raise Refusal(
        "not_at_table",
        _(
            "%(sender)s is not at the table of game #%(game)s: only its players may send it commands, from the "
            "address they play with. Nothing was applied."
        )
        % {"sender": parsed.sender or _("Your address"), "game": seat.game_id},
        seat,
    )


def _by_subject(parsed: inbound.Parsed) -> Seat:
    match = outbound.SUBJECT_TAG_RE.search(parsed.subject or "")
    if not match:
        raise refusal(
            "no_token",
            lambda: _(
                "We could not tell which game and seat your message is for: the reply address of the notice is "
                "missing, and so is the code in square brackets from its subject. Reply to the notice itself "
                "(keeping its subject), or use the link in it."
            ),
        )
    game_id, code = int(match.group(1)), match.group(2).lower()
    seats = list(Seat.objects.select_related("game").filter(game_id=game_id))
    if not seats:
        raise refusal("unknown", lambda: _("There is no game #%(game)s here.") % {"game": game_id})
    for seat in seats:
        if outbound.seat_code_matches(seat, code):
            return _check_sender(seat, parsed)
    if any(s.email.lower() == parsed.sender for s in seats):
        raise refusal(
            "revoked",
            lambda: (
                _(
                    "The code %(code)s in your subject is not (or no longer) the code of your seat in game #%(game)s. "
                    "Reply to the latest notice of your game. Nothing was applied."
                )
                % {"code": code, "game": game_id}
            ),
        )
    raise refusal(
        "unknown_code",
        lambda: (
            _(
                "The code %(code)s in the subject names no seat of game #%(game)s, and %(sender)s is not at its "
                "table. Nothing was applied."
            )
            % {"code": code, "game": game_id, "sender": parsed.sender or _("the sender")}
        ),
    )


# ---------------------------------------------------------------------------------------------
# What: the version the reply answers, and short codes from that notice
# ---------------------------------------------------------------------------------------------


def _expected_version(parsed: inbound.Parsed, seat: Seat, facts: Facts) -> int | None:
    """The version of the notice this reply answers (from In-Reply-To/References, newest
    first), if ours: trusted only when we sent that notice to this seat at the version its
    Message-ID names (a Message-ID is not signed; `facts` holds what the database says)."""
    for notice_id, version in _named_notices(parsed, seat):
        if facts.notices.get(notice_id) == version:
            return version
    return None


NEUTRAL_WORDS = {"help", "board", "history", "say", "notices", "away", "back", "zone", "channel", "channels"}


def _neutral(line: str) -> bool:
    return line.split(None, 1)[0].lower() in NEUTRAL_WORDS


def means_the_same(seat: Seat, lines: list[str], version: int, game: Game | None = None) -> bool:
    """Whether the orders, written against the notice at `version`, still mean what they meant:
    its one move reads as the same command now as then, was a move the seat could make then and
    is one it can make now. Another seat's move in a
    simultaneous phase (an offer, a card played face down) then does not make the reply stale;
    one that changes the move's meaning or takes it away does. `game`: its row read just now,
    if the caller has it."""
    game = game if game is not None else Game.objects.get(pk=seat.game_id)
    if version >= game.version:
        return True
    spec = get_game(game.kind)
    then = eventlog.load(game, at=version).state
    now = eventlog.load(game).state
    if then["game"] is None or now["game"] is None or now["meta"]["ended"]:
        return False
    moves = [line for line in lines if line.split(None, 1)[0].lower() not in inbound.PLATFORM_ORDERS]
    if not moves:
        return True
    try:
        meant = [spec.parse(line, then["game"], seat.number) for line in moves]
        means = [spec.parse(line, now["game"], seat.number) for line in moves]
    except Exception:  # noqa: BLE001 - an order that does not read (then or now): the guard decides
        return False
    if meant != means:
        return False
    # One move, a move the seat could make at the notice it answers and can make now.
    return (
        len(moves) == 1
        and meant[0] in spec.legal(then["game"], seat.number)
        and meant[0] in spec.legal(now["game"], seat.number)
    )


def translate_codes(lines: list[str], seat: Seat, version: int | None, positions: list[int] | None = None) -> list[str]:
    """'3' becomes the third featured move the answered notice listed (the menu at its version).
    A code that notice did not offer is refused for that, by name: it is no command of the game
    (the game would answer "There is no command '3'")."""
    if not any(CODE_RE.match(line) for line in lines):
        return lines
    game = Game.objects.get(pk=seat.game_id)
    spec = get_game(game.kind)
    loaded = eventlog.load(game, at=version if version is not None else None)
    state = loaded.state
    if state["game"] is None:
        return lines
    # The menu the notice listed, kept per version (the sender of that notice may have made it).
    offered = versioned.kept(
        "menu",
        game.pk,
        min(loaded.version, game.version),
        seat.number,
        lambda: choosing.menu(spec, state["game"], seat.number),
    )
    out = []
    for index, line in enumerate(lines):
        match = CODE_RE.match(line)
        if not match:
            out.append(line)
            continue
        choice = offered.by_code(int(match.group(1)))
        if choice is None:
            number = positions[index] if positions else index + 1
            raise _no_such_code(seat, spec, state, offered, int(match.group(1)), number, version is not None)
        out.append(offered.line(choice))
    return out


def _no_such_code(seat: Seat, spec, state: dict, offered, code: int, number: int, answered: bool) -> Refusal:
    head = _("Line %(number)s:") % {"number": number} + f" {code}\n" + _("Refused:") + " "
    applied = " " + _("Nothing in your message was applied.")
    if offered.empty or not offered.featured:
        waiting = [state["meta"]["names"][s] for s in selectors_waiting(spec, state)]
        why = _("it is not your move: the game is waiting for %(names)s") % {"names": ", ".join(waiting) or _("nobody")}
        if offered.groups:
            why = _("it offered no codes, only moves to type (reply 'help' for them)")
        offers = (
            _("the notice you answered offered no codes: %(why)s.")
            if answered
            else _("your latest notice offered no codes: %(why)s.")
        )
        return Refusal("no_such_code", head + offers % {"why": why} + applied, seat)
    last = len(offered.featured)
    offers = (
        _("the notice you answered offered codes 1 to %(last)s, not %(code)s.")
        if answered
        else _("your latest notice offered codes 1 to %(last)s, not %(code)s.")
    )
    return Refusal("no_such_code", head + offers % {"last": last, "code": code} + applied, seat)


def selectors_waiting(spec, state: dict) -> list[int]:
    if state["game"] is None or state["meta"]["ended"] or state["meta"]["abandoned"]:
        return []
    return list(spec.waiting_for(state["game"]))


# ---------------------------------------------------------------------------------------------
# Automatic mail and bounces: recorded, never answered
# ---------------------------------------------------------------------------------------------


def _bounce_target(parsed: inbound.Parsed) -> int | None:
    for address in parsed.recipients:
        notice_id = outbound.notice_from_bounce_address(address)
        if notice_id:
            return notice_id
    return None


def _automatic(message: InboundMessage, parsed: inbound.Parsed, raw: bytes, bounced_notice: int | None) -> None:
    reason = parsed.automatic or "sent to a bounce address"
    failure = parsed.is_bounce or _looks_like_failure(parsed)
    ids, diagnostic = inbound.bounce_details(raw) if failure else ([], "")
    if bounced_notice is None and failure:
        # No VERP address (a relay rewrote the envelope): the report must quote one of our
        # Message-IDs with its MAC. Ids are sequential, so a bare one proves nothing: believed,
        # it would let a stranger hold any seat's deadline.
        bounced_notice = next((found for found in map(outbound.notice_from_message_id, ids) if found), None)
    notice = (
        Notice.objects.filter(pk=bounced_notice, status__in=SENT_OR_BOUNCED).first()
        if failure and bounced_notice is not None
        else None
    )  # no id names no notice
    if notice is not None:
        sending.record_bounce(notice.pk, diagnostic)
        message.game_id, message.seat_id = notice.game_id, notice.seat_id
        submissions.finish(message, InboundStatus.IGNORED, "bounce", f"Bounce of notice {notice.pk}: {diagnostic}")
        return
    if failure:
        submissions.finish(
            message,
            InboundStatus.IGNORED,
            "bounce_unproven",
            "Not believed: a delivery report that names no notice of ours by its signed "
            "bounce address or signed Message-ID. Nothing was changed.",
        )
        return
    # An out-of-office or list mail, even one sent to a bounce address: recorded, not answered.
    submissions.finish(message, InboundStatus.IGNORED, "automatic", f"Not answered: automatic mail ({reason}).")


SENT_OR_BOUNCED = (NoticeStatus.SENT, NoticeStatus.BOUNCED)


def _looks_like_failure(parsed: inbound.Parsed) -> bool:
    return bool(re.search(r"undeliver|delivery (status|failure)|returned mail|failure notice", parsed.subject, re.I))


# ---------------------------------------------------------------------------------------------
# The answer
# ---------------------------------------------------------------------------------------------


def answer(
    message: InboundMessage,
    parsed: inbound.Parsed,
    seat: Seat | None,
    code: str,
    text: str,
    board: str = "",
    facts: Facts | None = None,
) -> Notice | None:
    """The answer to a person's mail, made ready (not yet written: the caller writes it in this
    transaction, and it is sent once that commits). `facts`: what read_facts found for this
    message, if it was read."""
    if not parsed.sender:
        return None
    if not _own_address(parsed.sender, seat):
        # An answer goes only to a seat's own address: the sender's word (From) is all we have.
        message.outcome += f"\n(Not answered: {parsed.sender[:100]} is not the address of a seat here.)"
        return None
    # A loop guard for what RFC 3834 headers miss (an autoresponder that does not say so, a
    # forged sender): at most so many answers an hour to one address; the rest is recorded only.
    limit = getattr(settings, "PBEM_MAIL_ANSWERS_PER_HOUR", 30)
    since = timezone.now() - timedelta(hours=1)
    if facts is not None:
        answers = facts.answers
    else:
        answers = Notice.objects.filter(kind="answer", to_email=parsed.sender, created_at__gte=since).count()
    if answers >= limit:
        log.warning("not answering %s: %s answers in the last hour", parsed.sender, limit)
        message.outcome += f"\n(Not answered: {limit} answers went to this address in the last hour.)"
        return None
    version = message.result_version
    if seat is not None and version is None:
        version = Game.objects.values_list("version", flat=True).get(pk=seat.game_id)
    held = _held_until(seat, code)
    notice = Notice(
        game_id=seat.game_id if seat else None,
        seat=seat,
        kind="answer",
        version=version or 0,
        to_email=parsed.sender,
        context={
            "code": code,
            "text": text,
            "subject": parsed.subject[:200],
            "in_reply_to": parsed.message_id,
            "board": board,
            "inbound": message.pk,
        },
        next_attempt_at=held,
    )
    outbox.dispatch_on_commit(notice.game_id, later=outbox.fold_seconds() if held else 0)
    return notice


def _own_address(sender: str, seat: Seat | None) -> bool:
    """Whether an answer may go to `sender`: the seat's own address when the mail names a seat,
    else an address that plays a seat here."""
    if seat is not None:
        return sender == seat.email.lower()
    return Seat.objects.filter(email__iexact=sender).exists()


def tell_owner(message: InboundMessage, parsed: inbound.Parsed, seat: Seat) -> Notice | None:
    """Mail from another address to `seat`'s reply address: nothing to the sender; the seat's
    owner is told once in PBEM_STRANGER_NOTES_PER_SEAT's window (a player writing from a second
    address learns why nothing happened; a leaked reply address is noticed), and the site sends at
    most PBEM_STRANGER_NOTES_PER_HOUR such notes in all. Fixed words: nothing of the stranger's
    mail but its sender's address goes to the owner."""
    per_seat, window = settings.PBEM_STRANGER_NOTES_PER_SEAT
    notes = Notice.objects.filter(kind="answer", context__code="stranger")
    if notes.filter(seat=seat, created_at__gte=timezone.now() - timedelta(seconds=window)).count() >= per_seat:
        message.outcome += "\n(Not answered: its sender is not the seat's address; the seat's owner was told already.)"
        return None
    if (
        notes.filter(created_at__gte=timezone.now() - timedelta(hours=1)).count()
        >= settings.PBEM_STRANGER_NOTES_PER_HOUR
    ):
        log.warning("not telling seat %s of a stranger's mail: the site-wide limit is reached", seat.pk)
        message.outcome += (
            "\n(Not answered: its sender is not the seat's address; the site's limit of notes is reached.)"
        )
        return None
    message.outcome += "\n(Not answered: its sender is not the seat's address; the seat's owner is told.)"
    with languages.reading(languages.of_seat(seat)):  # the owner's language (the sender's is unknown)
        sender = parsed.sender[:100] or _("an address without a sender")
        text = _(
            "A mail from %(sender)s came to your reply address for game #%(game)s. It was not read: only mail "
            "from the address you play with, %(email)s, is. If it was you, send it again from that address. If "
            "not, someone else has your reply address; nothing was applied, and nothing was sent to them."
        ) % {"sender": sender, "game": seat.game_id, "email": seat.email}
        subject = _("Mail to your reply address (game #%(game)s)") % {"game": seat.game_id}
    version = Game.objects.values_list("version", flat=True).get(pk=seat.game_id)
    notice = Notice(
        game_id=seat.game_id,
        seat=seat,
        kind="answer",
        version=version,
        to_email=seat.email,
        context={
            "code": "stranger",
            "text": text,
            "subject": subject,
            "in_reply_to": "",
            "board": "",
            "about_inbound": message.pk,
        },
    )
    outbox.dispatch_on_commit(notice.game_id)
    return notice


def _held_until(seat: Seat | None, code: str):
    """When a confirmation may go out: at once, unless a notice to the seat may follow within
    seconds (its turn passed to others, who may be stand-ins moving at once, or the command
    itself wrote the seat a notice): then after the fold time, so that notice can carry it
    (sending.fold_answers) instead of a mail of its own."""
    fold = outbox.fold_seconds()
    if seat is None or code not in sending.FOLDED_CODES or fold <= 0:
        return None
    awaited = Game.objects.filter(pk=seat.game_id).values_list("awaited", flat=True).first() or []
    follows = seat.number not in awaited or (
        Notice.objects.filter(seat=seat, status=NoticeStatus.PENDING).exclude(kind="answer").exists()
    )
    return timezone.now() + timedelta(seconds=fold) if follows else None
