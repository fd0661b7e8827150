"""The board as a picture in a notice: the game's own SVG (`GameSpec.render_svg`), rasterised by
resvg (resvg-py), because mail clients do not show SVG, then made a palette PNG by Pillow. The
PNG goes inline (multipart/related, referenced by cid: from the HTML part), with alt text; the
plain-text part keeps the text board, complete on its own.

The budget is the whole notice's: a notice with its picture weighs at most NOTICE_BUDGET bytes
on the wire (a phone on mobile data). The picture gets what the text, the HTML and the headers
leave (`picture_budget`), and is made to fit it: a palette of at most PALETTE colours first
(a board is flat colours and text: a palette PNG is a third to a half of the size of resvg's
RGBA one, and every mail client shows PNG, where WebP and AVIF are missing from Outlook's desktop
clients and older Apple Mail), then drawn smaller until it fits, never below MIN_ZOOM.

A game without render_svg, a render that fails, or a picture that fits in no budget: the notice
goes out with its text board alone (a picture is never a reason for a notice not to be sent).
"""

from __future__ import annotations

import hashlib
import io
import logging
import math
import struct
from dataclasses import dataclass

from pbem.log import eventlog

log = logging.getLogger(__name__)

NOTICE_BUDGET = 60_000  # bytes of a whole notice, picture included, as it goes over the wire
MAX_BYTES = 45_000  # the most a picture may take of it (its PNG's bytes, before base64)
PALETTE = 64  # colours of the palette PNG (boards are flat colours and antialiased text)
MIN_ZOOM = 0.45  # smaller than this the picture says nothing a phone can read: left out
MAX_TRIES = 4
BUDGET_STEP = 1024


@dataclass(frozen=True)
class Picture:
    cid: str  # the Content-ID, without angle brackets
    png: bytes
    width: int
    height: int
    alt: str


def picture_budget(rest_bytes: int) -> int:
    """The PNG bytes a notice may still spend on its picture when the rest of it (headers, text,
    HTML) takes `rest_bytes`: base64 makes 57 bytes a line of 78 (76 characters and CRLF), and
    the picture's MIME headers take about 250."""
    left = NOTICE_BUDGET - rest_bytes - 250
    # In steps of BUDGET_STEP bytes: notices of one view differ by a few bytes of text (a name, a
    # notice's number in its links), and a kept picture serves the same budget again as it is.
    return max(0, min(MAX_BYTES, left * 57 // 78 // BUDGET_STEP * BUDGET_STEP))


def board_png(
    spec, game_state, seat: int | None, budget: int = MAX_BYTES, game_id: int | None = None, version: int | None = None
) -> bytes | None:
    """The seat's view of the board as PNG bytes of at most `budget`, or None.

    With the game and version it shows, made once and kept (BoardPicture): a version's view never
    changes, so a picture is looked for by (game, version, drawing_digest of its SVG) before it is
    rasterised, and kept once made. Within a batch (eventlog.shared_loads) the same drawing is
    looked up once. A seat never gets a picture of anything but its own view: the key is the
    digest of the very SVG its view draws."""
    if spec.render_svg is None or game_state is None:
        return None
    try:
        svg = spec.render_svg(spec.view(game_state, seat))
    except Exception:  # noqa: BLE001 - a game's drawing bug must not stop its notices
        log.exception("render_svg of %s failed", spec.name)
        return None
    if game_id is None or version is None:
        return eventlog.shared(("board png", svg, budget), lambda: rasterise(svg, budget, spec.name))
    drawing = drawing_digest(svg)
    # The pictures kept of this version, read once a batch (or all of a batch's at once by
    # prefetch_kept); a box each, so that one made here is found by the batch's next seat alike.
    kept_here = eventlog.shared(
        ("kept pictures", game_id, version), lambda: _kept_of([(game_id, version)])[game_id, version]
    )
    box = kept_here.setdefault(drawing, [None])
    kept = box[0]
    if kept is not None:
        png, made_under = kept
        if len(png) <= budget and (png or budget <= made_under):
            return png or None  # empty: nothing fitted a budget at least this large
    png = eventlog.shared(("board png", svg, budget), lambda: rasterise(svg, budget, spec.name))
    if kept is None:
        _keep(game_id, version, drawing, png or b"", budget)
        box[0] = (png or b"", budget)
    return png


# What the rasteriser makes of an SVG: part of a kept picture's key, so that a change to how
# pictures are made (palette, method) is a new key rather than old pictures under the new rules.
RASTER_REVISION = f"resvg palette={PALETTE} octree min_zoom={MIN_ZOOM} tries={MAX_TRIES} max={MAX_BYTES}"


def drawing_digest(svg: str) -> str:
    return hashlib.sha256(f"{RASTER_REVISION}\n{svg}".encode()).hexdigest()


def prefetch_kept(pairs: set[tuple[int, int]]) -> None:
    """The pictures kept of these (game id, version) pairs read in one query, where board_png
    looks first (eventlog.shared, within the caller's shared_loads block)."""
    if pairs:
        for pair, kept in _kept_of(sorted(pairs)).items():
            eventlog.shared(("kept pictures", *pair), lambda kept=kept: kept)


def _kept_of(pairs: list[tuple[int, int]]) -> dict[tuple[int, int], dict[str, list]]:
    from django.db.models import Q

    from pbem.models import BoardPicture

    found: dict[tuple[int, int], dict[str, list]] = {pair: {} for pair in pairs}
    where = Q()
    for game_id, version in pairs:
        where |= Q(game_id=game_id, version=version)
    for game_id, version, drawing, png, made_under in BoardPicture.objects.filter(where).values_list(
        "game_id", "version", "drawing", "png", "made_under"
    ):
        found[game_id, version][drawing] = [(bytes(png), made_under)]
    return found


def _keep(game_id: int, version: int, drawing: str, png: bytes, budget: int) -> None:
    """Kept for every later notice of this version's view; a sender that made the same picture at
    the same moment has kept its own (the first stays: the two are the same drawing)."""
    from pbem.models import BoardPicture

    BoardPicture.objects.bulk_create(
        [BoardPicture(game_id=game_id, version=version, drawing=drawing, png=png, made_under=budget)],
        ignore_conflicts=True,
    )


# The zoom and bytes of the last picture of each game that fitted its budget (this process's):
# boards of one game weigh alike from one notice to the next, so the next picture's first try
# starts where that one fitted, scaled to its own budget, rather than at 1.0 to be shrunk in tries
# (a try is a whole rasterisation: three or four of them were most of a notice's cost).
_FITTED: dict[str, tuple[float, int]] = {}
FIT_POWER = 1.5  # between the zoom (text-dense pictures) and its square (flat colours)


def first_zoom(kind: str | None, budget: int) -> float:
    if kind is None or kind not in _FITTED:
        return 1.0
    zoom, size = _FITTED[kind]
    return max(MIN_ZOOM, min(1.0, zoom * (budget / size) ** (1 / FIT_POWER) * 0.97))


def rasterise(svg: str, budget: int = MAX_BYTES, kind: str | None = None) -> bytes | None:
    """The SVG as a palette PNG of at most `budget` bytes, or None. The first try is at 1.0, or,
    for a game (`kind`) whose last picture fitted at a smaller zoom, where that one fitted
    (first_zoom). Each try after the first draws it smaller by how far the last was over: its
    size goes with the drawn area (the square of the zoom) for a picture of flat colours, but
    closer to the zoom alone for one dense with text (a phone's portrait picture), so from the
    second try on the power is measured from the last two tries. The last try is at MIN_ZOOM
    itself rather than nothing (the power is only estimated)."""
    zoom = first_zoom(kind, budget)
    tried: list[tuple[float, int]] = []
    for _ in range(MAX_TRIES):
        png = _palette_png(svg, zoom)
        if png is None:
            return None
        if len(png) <= budget:
            if kind is not None:
                _FITTED[kind] = (zoom, len(png))
            return png
        tried.append((zoom, len(png)))
        if zoom <= MIN_ZOOM:
            break
        power = 2.0
        if len(tried) >= 2:
            (z0, n0), (z1, n1) = tried[-2:]
            power = min(2.0, max(1.0, math.log(n0 / n1) / math.log(z0 / z1)))
        zoom = max(MIN_ZOOM, zoom * (budget / len(png)) ** (1 / power) * 0.97)
    log.warning("the board picture stays over %s bytes even drawn small: left out", budget)
    return None


def _palette_png(svg: str, zoom: float) -> bytes | None:
    try:
        import resvg_py
        from PIL import Image
    except ImportError:  # pragma: no cover - dependencies of the project; absent only in a broken install
        return None
    try:
        rgba = bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff"))
    except (ValueError, OSError):
        log.exception("an SVG board would not rasterise")
        return None
    with Image.open(io.BytesIO(rgba)) as image:
        # No dithering: dots between two flat colours cost bytes and blur the text.
        paletted = image.convert("RGB").quantize(PALETTE, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    paletted.save(out, "PNG", optimize=True)
    return out.getvalue()


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", png[16:24])


def picture(
    spec,
    game_state,
    seat: int | None,
    cid: str,
    alt: str,
    budget: int = MAX_BYTES,
    game_id: int | None = None,
    version: int | None = None,
) -> Picture | None:
    png = board_png(spec, game_state, seat, budget, game_id, version)
    if png is None:
        return None
    width, height = png_size(png)
    return Picture(cid, png, width, height, alt)
