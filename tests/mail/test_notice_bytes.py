"""The bytes of a notice: the quick header folding (outbound.QUICK_FOLD) makes what the standard
library's compat32 folding makes, and the preset MIME boundaries are found in no part."""

from __future__ import annotations

import random
import string
from email import message_from_bytes, policy
from unittest import mock

import pytest
from django.core.mail.message import sanitize_address

from pbem.mail import outbound
from pbem.models import Notice
from pbem.play import services
from pbem.registry import all_games, get_game
from tests.conftest import CAST

from .conftest import mail_goes_to

DRAWN = sorted(kind for kind, spec in all_games().items() if spec.render_svg is not None)


class _BytesSink:
    def __init__(self) -> None:
        self.messages: list[bytes] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(envelope.original_content or envelope.content)
        return "250 OK"


@pytest.fixture
def smtp_bytes_sink(settings):
    sink = _BytesSink()
    controller = mail_goes_to(sink, settings)
    yield sink.messages
    controller.stop()


@pytest.fixture
def three_tables_mail(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    for _ in range(3):
        services.create_game("diceduel", CAST[:2], {})


def test_quick_folding_gives_the_standard_librarys_bytes():
    standard = policy.compat32.clone(linesep="\r\n")
    quick = outbound.QUICK_FOLD.clone(linesep="\r\n")
    rng = random.Random(20)
    alphabet = string.ascii_letters + string.digits + "  \t<>@.=-_:;,\"()[]'"
    values = ["", " ", "a  b ", "\tx", "ü Grüße", "x" * 76, "x" * 77, "a " * 60, "line\r\nnext", "a\nb: c"]
    values += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 90))) for _ in range(3000)]
    for value in values:
        for name in ("Subject", "Message-ID", "X-Pbem-Head"):
            try:
                expected = standard.fold_binary(name, value)
            except Exception as exc:  # noqa: BLE001 - then the quick one must refuse it the same way
                expected = type(exc)
            try:
                got = quick.fold_binary(name, value)
            except Exception as exc:  # noqa: BLE001
                got = type(exc)
            assert got == expected, (name, value)


def test_a_notice_is_the_same_bytes_with_either_folding(make_game, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    make_game(3)
    for notice in Notice.objects.select_related("game", "seat"):
        msg = outbound.make_message(notice).message()
        assert msg.policy is outbound.QUICK_FOLD
        quick = msg.as_bytes(linesep="\r\n")
        msg.policy = policy.compat32
        assert msg.as_bytes(linesep="\r\n") == quick
        boundaries = [part.get_boundary() for part in msg.walk() if part.is_multipart()]
        assert boundaries and all(b.startswith("=_pbem_") for b in boundaries)
        body = quick.split(b"\r\n\r\n", 1)[1]
        for boundary in boundaries:
            lines = [line for line in body.split(b"\r\n") if boundary.encode() in line and b"boundary=" not in line]
            assert all(line.startswith(b"--" + boundary.encode()) for line in lines)


FIXED_DATE = "Thu, 03 Dec 2026 12:00:00 -0000"


def _both_ways(message) -> tuple[bytes, bytes | None]:
    """Django's bytes and outbound.wire_bytes of one message, with the same boundary and date."""
    import django.core.mail.message as django_message

    boundary = "=_pbem_" + "0" * 24
    with (
        mock.patch.object(outbound, "_boundary", lambda texts: boundary),
        mock.patch.object(outbound, "formatdate", lambda timeval=None, localtime=False: FIXED_DATE),
        mock.patch.object(django_message, "formatdate", lambda localtime=False: FIXED_DATE),
    ):
        return message.message().as_bytes(linesep="\r\n"), outbound.wire_bytes(message)


def test_the_quick_bytes_of_a_notice_are_djangos_bytes(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    players = [
        services.PlayerSpec("Jürgen Ünal-Öztürk", "juergen@example.org"),
        services.PlayerSpec("Bob", "bob@example.org"),
        services.PlayerSpec('Carol "the Quick", Jr.', "carol+pbem@example.org"),
    ]
    services.create_game("diceduel", players, {}, title="Ein Spiel " + "ß" * 40)
    services.create_game("diceduel", players, {}, title="x" * 120)  # a subject that is folded
    compared = 0
    for notice in Notice.objects.select_related("game", "seat").order_by("id"):
        django_bytes, quick = _both_ways(outbound.make_message(notice))
        assert quick == django_bytes, notice.kind
        compared += 1
    assert compared == 2 * len(players)


@pytest.mark.parametrize("kind", DRAWN)
def test_the_quick_bytes_of_a_notice_with_its_board_picture_are_djangos_bytes(db, settings, kind):
    settings.PBEM_NOTICE_DISPATCH = "none"
    spec = get_game(kind)
    people = [services.PlayerSpec(f"Spieler {n} Ü", f"p{n}@example.org") for n in range(max(spec.min_players, 2))]
    services.create_game(kind, people, {})
    with_pictures = 0
    for notice in Notice.objects.select_related("game", "seat").order_by("id"):
        message = outbound.make_message(notice)
        django_bytes, quick = _both_ways(message)
        if quick is not None:  # None: left to Django (a line over 998 bytes goes quoted-printable)
            assert quick == django_bytes, notice.kind
            with_pictures += bool(message.pictures)
    assert with_pictures


def test_the_quick_bytes_step_aside_for_what_they_do_not_write(make_game, settings):
    make_game(2)
    notice = Notice.objects.select_related("game", "seat").first()
    message = outbound.make_message(notice)
    message.alternatives[0] = type(message.alternatives[0])("x" * 1200, "text/html")  # a line over 998
    assert outbound.wire_bytes(message) is None
    message = outbound.make_message(notice)
    message.pictures = [object()]
    assert outbound.wire_bytes(message) is None


@pytest.mark.parametrize(
    "address", ["bounces+n12-abcdefgh@pbem.example.org", "a.b-c_d=e@x-y.example", "juergen@example.org"]
)
def test_a_simple_address_is_what_djangos_envelope_makes_of_it(address):
    assert outbound.SIMPLE_ADDRESS.match(address)
    assert sanitize_address(address, "utf-8") == address


def test_a_batch_over_smtp_sends_the_quick_bytes(three_tables_mail, smtp_bytes_sink, monkeypatch):
    from pbem.mail import sending

    def not_this_way(self, fail_silently=False):
        raise AssertionError("sent through Django's message() instead of the quick bytes")

    monkeypatch.setattr(outbound.RelatedMessage, "send", not_this_way)
    assert sending.send_pending(None) == {"sent": 6}
    assert len(smtp_bytes_sink) == 6
    for raw in smtp_bytes_sink:
        parsed = message_from_bytes(raw)
        assert parsed.get_content_type() == "multipart/alternative"
        assert [p.get_content_type() for p in parsed.get_payload()] == ["text/plain", "text/html"]
        assert parsed["Message-ID"].startswith("<pbem.n")


def test_a_multipart_header_kept_with_a_sample_boundary_is_the_one_folded_for_its_own():
    """outbound._multipart_type folds a multipart Content-Type once per subtype with a sample
    boundary and puts each message's boundary in its place (issue 34): the bytes folding it
    with its own boundary gives, for boundaries as _boundary makes them."""
    for _ in range(200):
        boundary = outbound._boundary([])
        for subtype in ("alternative", "related", "mixed"):
            folded = outbound._fold_header("Content-Type", f'multipart/{subtype}; boundary="{boundary}"', True)
            assert outbound._multipart_type(subtype, boundary) == folded


def test_a_line_over_998_bytes_is_found_wherever_it_lies():
    """outbound._too_long looks at blocks of 499 bytes first (issue 34): it finds what weighing
    every line found, a line of 999 bytes or more at any place and of any characters."""
    rng = random.Random(34)

    def weighed(text: str) -> bool:
        return any(len(line.encode(errors="surrogateescape")) > 998 for line in text.splitlines())

    pieces = ["a", "ü", "€", "😀", "\n", "\r\n", "\u2028", " " * 40, "x" * 300]
    texts = ["", "x" * 998, "x" * 999, "\n" + "x" * 999, "ü" * 499, "ü" * 500, "x" * 998 + "\n" + "y" * 998]
    for _ in range(400):
        texts.append("".join(rng.choice(pieces) for _ in range(rng.randint(0, 200))))
        texts.append("\n".join("z" * rng.choice((10, 400, 997, 998, 999, 1500)) for _ in range(rng.randint(1, 6))))
    for text in texts:
        assert outbound._too_long(text.encode(), text) == weighed(text), len(text)
