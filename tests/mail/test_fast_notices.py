"""Issue 34: a notice composed the quick way (its templates run as compiled Python,
pbem/mail/fastrender.py; its move menu and text board kept per game, version and seat,
pbem/play/versioned.py) is the notice Django's template engine writes, in every game and
language: the same subject, text, HTML and headers."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string as django_render

from pbem.mail import outbound
from pbem.models import Notice, Seat
from pbem.play import services, versioned
from pbem.registry import all_games

from .whole_games import people, seeded, standin_choice

LANGUAGES = ("en", "de", "fr")
MOVES = 6


def _played(kind: str):
    """A game of `kind` a few moves in, its seats reading English, German and French, every
    seat's news with its picture; the notices of the moves left in the outbox."""
    with seeded("ab" * 32):
        game = services.create_game(kind, people(kind), {})
    for number, seat in enumerate(Seat.objects.filter(game=game).order_by("number")):
        Seat.objects.filter(pk=seat.pk).update(language=LANGUAGES[number % 3], news_pictures=True)
    for _move in range(MOVES):
        game.refresh_from_db()
        waiting = game.awaited or []
        command = standin_choice(game, waiting[0]) if waiting else None
        if command is None:
            break
        services.submit(game.pk, waiting[0], command=command)
    return game


def _rendered(notice: Notice) -> tuple:
    found = outbound.render(notice)
    headers = {k: v for k, v in found.headers.items() if k != "Message-ID"}
    return found.subject, found.text, found.html, found.to, headers, [(p.cid, p.alt) for p in found.pictures]


@pytest.mark.parametrize("kind", sorted(all_games()))
def test_a_notice_composed_the_quick_way_is_the_one_djangos_templates_write(kind, db, settings, monkeypatch):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _played(kind)
    notices = list(Notice.objects.filter(game=game).select_related("game", "seat").order_by("id"))
    assert {n.seat.language for n in notices if n.seat_id} >= {"en", "de"}, "notices in several languages"
    assert any(n.kind == "turn" for n in notices) and any(n.kind == "news" for n in notices)
    quick = [_rendered(n) for n in notices]
    again = [_rendered(n) for n in notices]  # the menus and boards kept now
    versioned.clear()
    with monkeypatch.context() as patched:
        patched.setattr(outbound, "render_to_string", lambda name, context: django_render(name, context))
        slow = [_rendered(n) for n in notices]
    for notice, mine, kept, theirs in zip(notices, quick, again, slow, strict=True):
        assert mine == theirs, (notice.kind, notice.seat.language if notice.seat_id else "")
        assert kept == theirs, (notice.kind, "with its menu and board kept")


def test_a_move_in_a_mailto_link_is_quoted_as_urllib_quotes_it():
    """outbound._quote: one str.translate for an ASCII text, urllib's quote for the rest."""
    import random
    from urllib.parse import quote

    rng = random.Random(34)
    texts = ["place 3 at b4", "say «hi» & go", "100% / 50%", "ü", "", *map(chr, range(128))]
    texts += ["".join(chr(rng.randrange(128)) for _ in range(rng.randrange(40))) for _ in range(2000)]
    for text in texts:
        assert outbound._quote(text) == quote(text), text


@pytest.mark.parametrize(
    ("line", "quick"),
    [
        ("x" * 249, True),
        ("y" * 600, True),
        ("z" * 998, True),
        ("w" * 999, False),
        ("ü" * 499, True),
        ("ü" * 500, False),
    ],
)
def test_a_line_over_998_bytes_goes_djangos_way_and_a_long_one_under_it_does_not(line, quick, db, settings):
    """wire_bytes weighs the lines only when one has 250 characters or more: a line of 999 bytes
    is still refused (Django sends it quoted-printable), one of 998 written."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    message = outbound.RelatedMessage(
        subject="s",
        body=f"a\n{line}\nb",
        from_email="x@pbem.localhost",
        to=["y@example.org"],
        headers={"Message-ID": "<m@x>"},
    )
    message.attach_alternative("<p>a</p>", "text/html")
    data = outbound.wire_bytes(message)
    assert (data is not None) == quick
    if data is not None:
        assert f"{line}\r\n".encode() in data


@pytest.mark.parametrize("size", [0, 1, 2, 3, 56, 57, 58, 113, 114, 40_001])
def test_a_pictures_base64_is_what_encodebytes_writes_with_crlf(size):
    import base64
    import os

    data = os.urandom(size)
    assert outbound._base64_lines(data) == base64.encodebytes(data).replace(b"\n", b"\r\n")


def test_what_is_kept_of_a_version_is_never_served_for_another_version_seat_or_language():
    """versioned.kept: the key holds the game, the version, the seat and both languages."""
    from games import i18n
    from pbem.play import languages

    made: list[tuple] = []

    def menu(*key):
        return lambda: made.append(key) or key

    assert versioned.kept("menu", 1, 5, 0, menu(1, 5, 0)) == (1, 5, 0)
    assert versioned.kept("menu", 1, 5, 0, menu("again")) == (1, 5, 0)  # kept
    assert versioned.kept("menu", 1, 6, 0, menu(1, 6, 0)) == (1, 6, 0)  # a newer version: its own
    assert versioned.kept("menu", 1, 5, 1, menu(1, 5, 1)) == (1, 5, 1)  # another seat
    assert versioned.kept("board", 1, 5, 0, menu("board")) == ("board",)
    with languages.reading("de"):
        assert versioned.kept("menu", 1, 5, 0, menu("de")) == ("de",)
    with i18n.using("fr"):
        assert versioned.kept("menu", 1, 5, 0, menu("fr")) == ("fr",)
    assert made == [(1, 5, 0), (1, 6, 0), (1, 5, 1), ("board",), ("de",), ("fr",)]
    versioned.clear()
    assert versioned.kept("menu", 1, 5, 0, menu("anew")) == ("anew",)


def test_markup_in_a_players_name_is_escaped_the_quick_way_as_django_escapes_it(db, settings, monkeypatch):
    """An attacker names themselves in HTML: the compiled templates must
    escape it exactly where Django's do, or every notice's HTML part carries their markup."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    hostile = "<script>alert(1)</script>&\"'"
    with seeded("cd" * 32):
        game = services.create_game("elfenland", people("elfenland"), {})
    Seat.objects.filter(game=game, number=0).update(name=hostile)
    game.refresh_from_db()
    waiting = game.awaited or []
    services.submit(game.pk, waiting[0], command=standin_choice(game, waiting[0]))
    notices = list(Notice.objects.filter(game=game).select_related("game", "seat").order_by("id"))
    quick = [_rendered(n) for n in notices]
    versioned.clear()
    with monkeypatch.context() as patched:
        patched.setattr(outbound, "render_to_string", lambda name, context: django_render(name, context))
        slow = [_rendered(n) for n in notices]
    assert quick == slow
    html = "".join(found[2] or "" for found in quick)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, "the hostile name reached the notices"
    assert "<script>" not in html


def test_a_text_that_fits_is_left_as_it_is_and_one_that_does_not_is_fitted_line_by_line():
    """outbound.fit gives a text whose lines all fit and end in no space back as it is (issue
    34): what fitting it line by line makes of it, for texts of every kind of white space."""
    import random

    rng = random.Random(34)

    def by_lines(text: str, width: int = 80) -> str:
        out: list[str] = []
        for line in text.split("\n"):
            line = line.rstrip()
            out += [line] if len(line) <= width else outbound._wrapped(line, width)
        return "\n".join(out)

    pieces = ["word", " ", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2028", "\u3000", "ü", "x" * 70]
    texts = ["", "\n", "a \n", "a\n ", "x" * 80, "x" * 81, " " * 81]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 60))) for _ in range(3000)]
    for text in texts:
        assert outbound.fit(text) == by_lines(text), repr(text)


def test_what_a_batch_shares_is_each_seats_own_where_seats_differ(db, settings):
    """Issue 34: in a batch, who the table waits for is written once per game, version, time
    zone and language, and the moves as typed are kept per game, version, seat and language.
    Each seat's notice in the batch is the one it gets alone, though the seats read different
    languages in different zones; and a notice of a later version is not served the earlier
    version's moves."""
    from pbem.log import eventlog

    settings.PBEM_NOTICE_DISPATCH = "none"
    game = _played("elfenland")
    zones = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo")
    for seat in Seat.objects.filter(game=game):
        Seat.objects.filter(pk=seat.pk).update(time_zone=zones[seat.number % 4])
    notices = list(Notice.objects.filter(game=game).select_related("game", "seat").order_by("id"))
    assert {n.version for n in notices if n.kind == "turn"} and len({n.seat_id for n in notices}) >= 3
    alone = []
    for notice in notices:  # each with nothing kept: what a wrong key would serve shows as a difference
        versioned.clear()
        alone.append(_rendered(notice))
    versioned.clear()
    with eventlog.shared_loads():
        outbound.prefetch(notices)
        batched = [_rendered(n) for n in notices]
    assert batched == alone
    texts = {(n.seat.number, n.version): found[1] for n, found in zip(notices, batched, strict=True)}
    assert len({text.split("\n", 1)[0] for text in texts.values()}) > 1  # the seats' own words
    turns = [(n, found) for n, found in zip(notices, batched, strict=True) if n.kind == "turn"]
    assert len({n.version for n, _found in turns}) > 1
    first, later = turns[0], turns[-1]
    assert first[0].version < later[0].version and first[1][1] != later[1][1]


def test_blank_lines_are_one_as_the_regular_expression_made_them():
    import random
    import re

    rng = random.Random(3)
    for _ in range(2000):
        text = "".join(rng.choice(["a", "\n", "\n\n\n", " ", "\r\n"]) for _ in range(rng.randint(0, 40)))
        assert outbound._one_blank_line(text) == re.sub(r"\n{3,}", "\n\n", text), repr(text)
