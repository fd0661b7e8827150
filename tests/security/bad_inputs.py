"""The bad-input corpus for every door: each case is a person's or a machine's mistake or attack,
and what the service must do with it. `test_bad_inputs.py` runs each through every door and
writes the table in pbem/SECURITY.md from what it saw (so the table cannot drift from the test)."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from pbem.play import addressing, signing

# What a mail case must end in: "answered" (refused or answered, and a mail goes back with the
# reason), "silent" (recorded with its reason, no mail back: no proof of a link to us, so an
# answer would be backscatter; the SMTP listener refuses these at RCPT), "ignored" (automatic
# mail, recorded with its reason, never answered).


@dataclass
class Ctx:
    game_id: int
    alice: object  # Seat
    bob: object

    @property
    def to(self) -> str:
        return addressing.reply_address(self.alice)

    @property
    def tag(self) -> str:
        from pbem.mail import outbound

        return outbound.subject_tag(self.alice)


def mail(
    ctx: Ctx,
    body: str = "play 99",
    *,
    sender: str = "alice@example.org",
    to: str | None = None,
    subject: str | None = None,
    headers: str = "",
    message_id: str | None = None,
) -> bytes:
    subject = f"Re: your move {ctx.tag}" if subject is None else subject
    mid = message_id or "<{n}@mail.example.org>"
    return (
        f"From: {sender}\r\nTo: {to or ctx.to}\r\nSubject: {subject}\r\nMessage-ID: {mid}\r\n"
        f"Date: Tue, 1 Dec 2026 10:00:00 +0000\r\n{headers}\r\n{body}\r\n"
    ).encode("utf-8", "surrogateescape")


def nested(ctx: Ctx, depth: int) -> bytes:
    opening = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(depth))
    closing = "".join(f"\r\n--b{i}--\r\n" for i in reversed(range(depth)))
    head = mail(ctx, "", headers="MIME-Version: 1.0\r\n").decode().rstrip("\r\n").rsplit("\r\n", 1)[0] + "\r\n"
    return (head + opening + "Content-Type: text/plain\r\n\r\nplay 99" + closing).encode()


def unknown_seat_token() -> str:
    return f"999999-1-{signing.mac('pbem-seat:999999:1', 16)}"


MAIL_CASES = [
    # (name, build(ctx) -> raw bytes, expected)
    (
        "forged token, from a stranger",
        lambda c: mail(c, sender="eve@example.net", to=f"play+1-1-{'a' * 16}@pbem.localhost"),
        "silent",
    ),
    ("forged token, from a player", lambda c: mail(c, to=f"play+1-1-{'b' * 16}@pbem.localhost"), "silent"),
    ("malformed token", lambda c: mail(c, to="play+not-a-token@pbem.localhost"), "silent"),
    ("token of no seat (a valid MAC)", lambda c: mail(c, to=f"play+{unknown_seat_token()}@pbem.localhost"), "silent"),
    ("forged bounce address", lambda c: mail(c, to="bounces+n1-aaaaaaaa@pbem.localhost"), "silent"),
    ("no token, no code, from a player", lambda c: mail(c, to="seals@pbem.localhost", subject="my move"), "answered"),
    (
        "no token, no code, from a stranger",
        lambda c: mail(c, to="seals@pbem.localhost", subject="hi", sender="eve@example.net"),
        "silent",
    ),
    (
        "forged subject code, from a stranger",
        lambda c: mail(c, to="seals@pbem.localhost", sender="eve@example.net", subject=f"Re: [{c.game_id}-aaaaaa]"),
        "silent",
    ),
    # Never answered to the sender (From is the sender's word: a mail cannon); the seat's owner is told.
    ("valid token, sender not at the table", lambda c: mail(c, sender="eve@example.net"), "silent"),
    ("valid token, sender plays another seat", lambda c: mail(c, sender="bob@example.org"), "silent"),
    ("illegal move", lambda c: mail(c, "play 99"), "answered"),
    ("unknown command", lambda c: mail(c, "dance wildly"), "answered"),
    ("empty body", lambda c: mail(c, ""), "answered"),
    ("only quoted text", lambda c: mail(c, "> play 3\r\n> board"), "answered"),
    ("41 command lines", lambda c: mail(c, "\r\n".join(["play 99"] * 41)), "answered"),
    ("a line of 10,000 characters", lambda c: mail(c, "x" * 10_000), "answered"),
    ("a line of control characters", lambda c: mail(c, "\x01\x02\x1b[31m\x7f"), "answered"),
    ("undo with nothing to take back", lambda c: mail(c, "undo"), "answered"),
    ("away until a past date", lambda c: mail(c, "away until 1999-01-01"), "answered"),
    ("away beyond the allowance", lambda c: mail(c, "away until 2999-01-01"), "answered"),
    ("notices with an unknown choice", lambda c: mail(c, "notices sometimes"), "answered"),
    ("say nothing", lambda c: mail(c, "say"), "answered"),
    ("NUL in From", lambda c: mail(c, sender="ali\x00ce@example.org"), "answered"),
    ("NUL in Subject", lambda c: mail(c, subject=f"Re: \x00 {c.tag}"), "answered"),
    ("NUL in Message-ID", lambda c: mail(c, message_id="<nul\x00{n}@mail.example.org>"), "answered"),
    ("NUL in the body", lambda c: mail(c, "play\x00 99"), "answered"),
    ("multipart nested 1,000 deep", lambda c: nested(c, 1000), "answered"),
    ("multipart nested 60 deep", lambda c: nested(c, 60), "answered"),
    (
        "unknown charset",
        lambda c: mail(
            c, "play 99", headers="MIME-Version: 1.0\r\nContent-Type: text/plain; charset=x-no-such-charset\r\n"
        ),
        "answered",
    ),
    (
        "bytes that are no UTF-8",
        lambda c: mail(
            c, "play 99 \udcff\udcfe", headers="MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
        ),
        "answered",
    ),
    (
        "broken base64",
        lambda c: mail(
            c,
            "cGxheSA5O%%%###",
            headers="MIME-Version: 1.0\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n",
        ),
        "answered",
    ),
    (
        "an encoded subject hiding a header",
        lambda c: mail(c, subject="=?utf-8?b?" + base64.b64encode(b"hi\r\nBcc: victim@example.net").decode() + "?="),
        "answered",
    ),
    (
        "HTML only, with a script",
        lambda c: mail(
            c,
            "<html><script>alert(1)</script><p>play 99</p></html>",
            headers="MIME-Version: 1.0\r\nContent-Type: text/html\r\n",
        ),
        "answered",
    ),
    ("a Message-ID of 5,000 characters", lambda c: mail(c, message_id="<{n}" + "m" * 5000 + "@x>"), "answered"),
    ("an address of 400 characters", lambda c: mail(c, sender="a" * 400 + "@example.org"), "ignored"),
    ("2 MB of text", lambda c: mail(c, "play 99\r\n" + "x" * 2_000_000), "answered"),
    ("an auto-reply", lambda c: mail(c, "I am away", headers="Auto-Submitted: auto-replied\r\n"), "ignored"),
    ("a mailing list's mail", lambda c: mail(c, "digest", headers="List-Id: <games.example.org>\r\n"), "ignored"),
    ("mail from our own address", lambda c: mail(c, sender="seals@pbem.localhost"), "ignored"),
    (
        "a bounce naming a guessed notice",
        lambda c: mail(
            c,
            "Delivery failed\r\nMessage-ID: <pbem.n1.v1.g1@pbem.localhost>",
            sender="mailer-daemon@mx.example.org",
            to="seals@pbem.localhost",
            subject="Undelivered Mail Returned to Sender",
        ),
        "ignored",
    ),
]


# (name, method, path(ctx, tokens), data, content type or None for a form) for the web pages;
# each must answer below 500 with a reason a person can read, and change nothing.
def _web(ctx, tokens):
    forged = f"{ctx.alice.pk}-1-{'a' * 16}"
    return [
        ("seat page with a forged token", "get", f"/play/{forged}/", None),
        ("seat page with a malformed token", "get", "/play/%00%0a<script>/", None),
        ("seat page of no seat (a valid MAC)", "get", f"/play/{unknown_seat_token()}/", None),
        ("a move with a NUL", "post", f"/play/{tokens[0]}/", {"text": "play\x0099", "expected_version": 1}),
        ("a move of 20,000 characters", "post", f"/play/{tokens[0]}/", {"text": "x" * 20_000, "expected_version": 1}),
        ("a move with a version of -1", "post", f"/play/{tokens[0]}/", {"text": "play 99", "expected_version": -1}),
        ("a move with a version of abc", "post", f"/play/{tokens[0]}/", {"text": "play 99", "expected_version": "abc"}),
        (
            "a move with a broken form key",
            "post",
            f"/play/{tokens[0]}/",
            {"text": "help", "expected_version": 1, "submission_key": "<script>"},
        ),
        ("table talk of 3,000 characters", "post", f"/play/{tokens[0]}/", {"message": "x" * 3000}),
        ("table talk with a NUL", "post", f"/play/{tokens[0]}/", {"message": "hi\x00"}),
        ("a forged invitation link", "post", f"/invite/{forged}/", {}),
        ("history at event abc", "get", f"/play/{tokens[0]}/history/?at=abc", None),
        ("history at round 99999999999", "get", f"/games/{ctx.game_id}/history/?round=99999999999", None),
        ("a game that does not exist", "get", "/games/987654321/", None),
        ("a new game of an unknown kind", "post", "/games/new/?kind=chess", {"kind": "chess"}),
        (
            "a new game with one bad address",
            "post",
            "/games/new/?kind=diceduel",
            {
                "kind": "diceduel",
                "invitees": "a@example.org\nnot-an-address",
                "deadline_hours": 48,
                "notices": "every",
                "opt_rounds": 1,
            },
        ),
        (
            "a new game with a deadline of 0 hours",
            "post",
            "/games/new/?kind=diceduel",
            {
                "kind": "diceduel",
                "invitees": "a@example.org\nb@example.org",
                "deadline_hours": 0,
                "notices": "every",
                "opt_rounds": 1,
            },
        ),
        (
            "a new game with a NUL in its title",
            "post",
            "/games/new/?kind=diceduel",
            {
                "kind": "diceduel",
                "title": "a\x00b",
                "invitees": "a@example.org\nb@example.org",
                "deadline_hours": 1,
                "notices": "every",
                "opt_rounds": 1,
            },
        ),
    ]


def _api(ctx, tokens):
    game = ctx.game_id
    good = {"kind": "diceduel", "players": [{"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@x.org"}]}
    return [
        ("no seat token", "get", f"/api/games/{game}/seat", None, None),
        ("a forged seat token", "get", f"/api/games/{game}/seat", None, f"{ctx.alice.pk}-1-{'a' * 16}"),
        ("a token with a NUL", "get", f"/api/games/{game}/seat", None, "1-1-\x00"),
        ("malformed JSON", "post", f"/api/games/{game}/commands", "{not json", tokens[0]),
        ("JSON that is a list", "post", f"/api/games/{game}/commands", "[1, 2]", tokens[0]),
        ("a command with a NUL", "post", f"/api/games/{game}/commands", {"text": "play\x00 99"}, tokens[0]),
        ("both text and a command", "post", f"/api/games/{game}/commands", {"text": "help", "command": {}}, tokens[0]),
        (
            "a structured command nobody listed",
            "post",
            f"/api/games/{game}/commands",
            {"command": {"type": "WinAtOnce"}},
            tokens[0],
        ),
        (
            "a structured command of the wrong type",
            "post",
            f"/api/games/{game}/commands",
            {"command": "play"},
            tokens[0],
        ),
        (
            "an expected version of -1",
            "post",
            f"/api/games/{game}/commands",
            {"text": "play 99", "expected_version": -1},
            tokens[0],
        ),
        (
            "an expected version of 10^30",
            "post",
            f"/api/games/{game}/commands",
            {"text": "play 99", "expected_version": 10**30},
            tokens[0],
        ),
        ("an illegal move", "post", f"/api/games/{game}/commands", {"text": "play 99"}, tokens[0]),
        ("a command to a game that does not exist", "post", "/api/games/987654/commands", {"text": "help"}, tokens[0]),
        ("a body of 10 MB", "post", f"/api/games/{game}/commands", {"text": "say " + "x" * 10_000_000}, tokens[0]),
        ("a game of an unknown kind", "post", "/api/games", {**good, "kind": "chess"}, None),
        (
            "a game with a bad address",
            "post",
            "/api/games",
            {**good, "players": [{"name": "A", "email": "nope"}, {"name": "B", "email": "b@x.org"}]},
            None,
        ),
        (
            "a game of 13 players",
            "post",
            "/api/games",
            {**good, "players": [{"name": f"P{n}", "email": f"p{n}@x.org"} for n in range(13)]},
            None,
        ),
        ("a game with an option of the wrong type", "post", "/api/games", {**good, "options": {"rounds": [1]}}, None),
        ("a game with a NUL in its title", "post", "/api/games", {**good, "title": "a\x00b"}, None),
        ("a list of 0 games", "get", "/api/games?limit=0", None, None),
        ("a game id of 10^30", "get", f"/api/games/{10**30}", None, None),
        ("a game id that is no number", "get", "/api/games/abc", None, None),
        ("events after -1", "get", f"/api/games/{game}/events?after=-1", None, None),
        ("the state at event 10^12", "get", f"/api/games/{game}/state?at=1000000000000", None, None),
        ("an endpoint that does not exist", "get", "/api/nothing/here", None, None),
    ]


WEB_CASES = _web
API_CASES = _api
