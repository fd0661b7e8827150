"""Kept pictures are shared by every process of the service through the database: the picture one
worker made for a notice is found by another process (a second Celery worker, a resend after a
restart) by its view alone, without drawing the SVG or rasterising it, and it is the very picture
the notice carried. Each process has its own in-memory caches (layers, palettes, code digests),
so this only holds if the keys they compute agree across interpreters."""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib

import pytest
from django.core import mail

from pbem.log import eventlog
from pbem.mail import pictures
from pbem.models import Game, Seat
from pbem.play import services
from tests.conftest import requires_postgres
from tests.processes import Peer

from .conftest import send_all

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]

PEOPLE = [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in ("Alice", "Bob", "Carol")]

# In the other process: send the game's notices (to memory) and answer each recipient's picture.
SEND_THERE = """
from django.conf import settings
from django.core import mail
from pbem.mail import sending
import base64
settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
mail.outbox = []
sending.send_pending(None)
result = [[m.to[0], base64.b64encode(m.message().as_bytes()).decode()] for m in mail.outbox]
"""

# In the other process: the pictures of the given seats, counting each SVG drawn and each
# picture rasterised there.
LOOK_THERE = """
import hashlib
from pbem.mail import pictures
drawn = []
real_svg, real_raster = pictures._svg_of, pictures.rasterise
pictures._svg_of = lambda *args: drawn.append("svg") or real_svg(*args)
pictures.rasterise = lambda *args, **kw: drawn.append("raster") or real_raster(*args, **kw)
loaded = eventlog.load(Game.objects.get(pk={game}))
with eventlog.shared_loads():
    pngs = [
        pictures.board_png(loaded.spec, loaded.state["game"], seat, game_id={game}, version=loaded.version)
        for seat in {seats}
    ]
result = {{"drawn": drawn, "pictures": [hashlib.sha256(png).hexdigest() for png in pngs]}}
"""


@pytest.fixture
def other_worker():
    peer = Peer()
    yield peer
    peer.close()


def pictures_by_seat(game, mailed: list[tuple[str, bytes]]) -> dict[int, str]:
    """Each seat's board picture (sha256 of the PNG) in the notices mailed to it."""
    seat_of = dict(Seat.objects.filter(game=game).values_list("email", "number"))
    found = {}
    for to, raw in mailed:
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        for part in parsed.walk():
            if part.get_content_type() == "image/png":
                found[seat_of[to]] = hashlib.sha256(part.get_content()).hexdigest()
    return found


def look_here(game, seats: list[int]) -> dict:
    """LOOK_THERE, in this process."""
    drawn = []
    real_svg, real_raster = pictures._svg_of, pictures.rasterise
    pictures._svg_of = lambda *args: drawn.append("svg") or real_svg(*args)
    pictures.rasterise = lambda *args, **kw: drawn.append("raster") or real_raster(*args, **kw)
    try:
        loaded = eventlog.load(Game.objects.get(pk=game.pk))
        with eventlog.shared_loads():
            pngs = [
                pictures.board_png(loaded.spec, loaded.state["game"], seat, game_id=game.pk, version=loaded.version)
                for seat in seats
            ]
    finally:
        pictures._svg_of, pictures.rasterise = real_svg, real_raster
    return {"drawn": drawn, "pictures": [hashlib.sha256(png).hexdigest() for png in pngs]}


@pytest.mark.parametrize("kind", ["elfenland", "elven_castle", "elfenwizards"])
def test_a_picture_kept_by_this_process_is_found_by_another_without_drawing_it(kind, other_worker, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game(kind, PEOPLE, {})
    mail.outbox = []
    send_all()  # this process composes the notices: each seat's picture drawn here and kept
    mailed = pictures_by_seat(game, [(m.to[0], m.message().as_bytes()) for m in mail.outbox])
    assert mailed, "the notices carried no picture"

    seen = other_worker.run(LOOK_THERE.format(game=game.pk, seats=sorted(mailed)))

    assert seen["drawn"] == []  # no SVG drawn, nothing rasterised: the kept rows alone
    assert seen["pictures"] == [mailed[seat] for seat in sorted(mailed)]


@pytest.mark.parametrize("kind", ["elfenland", "elven_castle", "elfenwizards"])
def test_a_picture_kept_by_another_process_is_found_here_without_drawing_it(kind, other_worker, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game(kind, PEOPLE, {})
    sent = other_worker.run(SEND_THERE)  # that process composes the notices and keeps the pictures
    mailed = pictures_by_seat(game, [(to, base64.b64decode(raw)) for to, raw in sent])
    assert mailed, "the notices carried no picture"

    seen = look_here(game, sorted(mailed))

    assert seen["drawn"] == []
    assert seen["pictures"] == [mailed[seat] for seat in sorted(mailed)]
