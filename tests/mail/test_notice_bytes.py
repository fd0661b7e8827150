"""The bytes of a notice: the quick header folding (outbound.QUICK_FOLD) makes what the standard
library's compat32 folding makes, and the preset MIME boundaries are found in no part."""

from __future__ import annotations

import random
import string
from email import policy

from pbem.mail import outbound
from pbem.models import Notice


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
