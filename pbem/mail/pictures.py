"""The board as a picture in a notice: the game's own SVG (`GameSpec.render_svg`), drawn to pixels
because mail clients do not show SVG, then made a palette PNG by Pillow. The PNG goes inline
(multipart/related, referenced by cid: from the HTML part), with alt text; the plain-text part
keeps the text board, complete on its own.

Drawing (issue 34): the games draw rectangles, circles, polygons, paths of lines and curves, and
short texts. Pillow draws those straight to pixels (draw_svg: text by FreeType without shaping,
each label's coverage kept for the next picture), at a tenth of what resvg takes, which lays out
every glyph and fills it as a path; a drawing with anything else in it (a filter, a gradient, a
rotation, text placed glyph by glyph) goes to resvg as before. Each picture is made once per
(game, version, view) and kept (BoardPicture: a version's view never changes).

A new picture costs what changed since the pictures before it (this process's): each top-level
piece of its SVG is read once, kept by its text and place (_pieced); each op of a drawing (a
shape, a text) is worked out once into the calls to Pillow it makes, kept by what it is; the
picture is made of bands of BAND rows, each kept as its palette indices under the ops that reach
it, so that a game's next version, or another seat's view of this one, draws only the bands
something changed reaches (_banded_png); and its palette is one made for the colours the SVG
names, shared by the drawings painted alike (a few hundred at most: _Bands.USES). Nothing kept
is ever another drawing's: a band is taken only where every op reaching it is equal, attribute
for attribute. A kept picture is found by its view, without drawing its SVG (view_digest).

The budget is the whole notice's: a notice with its picture weighs at most NOTICE_BUDGET bytes
on the wire (a phone on mobile data). The picture gets what the text, the HTML and the headers
leave (`picture_budget`), and is made to fit it: a palette of at most PALETTE colours (a board is
flat colours and text: a palette PNG is a third to a half of the size of an RGBA one, and every
mail client shows PNG, where WebP and AVIF are missing from Outlook's desktop clients and older
Apple Mail), at the zoom the game's last picture says will fit (smaller only if it does not,
never below MIN_ZOOM).

A game without render_svg, a render that fails, or a picture that fits in no budget: the notice
goes out with its text board alone (a picture is never a reason for a notice not to be sent).
"""

from __future__ import annotations

import functools
import hashlib
import io
import itertools
import logging
import math
import os
import pickle
import re
import struct
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbem.log import eventlog

log = logging.getLogger(__name__)

NOTICE_BUDGET = 60_000  # bytes of a whole notice, picture included, as it goes over the wire
MAX_BYTES = 45_000  # the most a picture may take of it (its PNG's bytes, before base64)
PALETTE = 64  # colours of the palette PNG (boards are flat colours and antialiased text)
MIN_ZOOM = 0.45  # smaller than this the picture says nothing a phone can read: left out
MAX_TRIES = 4
SAMPLE = 3  # the palette is chosen from every SAMPLE-th pixel of every SAMPLE-th row
ZOOM_STEPS = 20  # pictures are drawn at zooms of whole twentieths (_rung)
BUDGET_STEP = 1024
BAND = 32  # rows of a kept band of a picture (_banded_png)


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
    changes, so a picture is looked for before it is rasterised, and kept once made. It is kept
    under drawing_digest of its SVG (every seat whose view draws the same SVG shares it), and the
    view is kept pointing at it under view_digest (the view's bytes, the game's drawing code, the
    language): a notice sent again, or another notice of the same view, finds its picture
    without drawing the SVG (a lookup). Within a batch (eventlog.shared_loads) the same drawing
    is looked up once. A seat never gets a picture of anything but its own view: both keys are
    digests of exactly what it sees (its view, or the SVG its view draws)."""
    if spec.render_svg is None or game_state is None:
        return None
    try:
        view = spec.view(game_state, seat)
    except Exception:  # noqa: BLE001 - a game's drawing bug must not stop its notices
        log.exception("the view of %s failed", spec.name)
        return None
    if game_id is None or version is None:
        svg = _svg_of(spec, view)
        return (
            None
            if svg is None
            else eventlog.shared(("board png", svg, budget), lambda: rasterise(svg, budget, spec.name))
        )
    # The pictures kept of this version, read once a batch (or all of a batch's at once by
    # prefetch_kept); a box each, so that one made here is found by the batch's next seat alike.
    kept_here = eventlog.shared(
        ("kept pictures", game_id, version), lambda: _kept_of([(game_id, version)])[game_id, version]
    )
    seen = view_digest(spec, view)
    svg, drawing = None, _drawing_seen(kept_here, seen)
    if drawing is None:
        svg = _svg_of(spec, view)
        if svg is None:
            return None
        drawing = drawing_digest(svg)
    rows: list[tuple[str, bytes, int]] = []
    if seen is not None and seen not in kept_here:  # the view pointed at its drawing from now on
        kept_here[seen] = [(SEEN_AS + drawing.encode(), 0)]
        rows.append((seen, SEEN_AS + drawing.encode(), 0))
    box = kept_here.setdefault(drawing, [None])
    kept = box[0]
    if kept is not None:
        png, made_under = kept
        if len(png) <= budget and (png or budget <= made_under):
            _keep(game_id, version, rows)
            return png or None  # empty: nothing fitted a budget at least this large
    if svg is None:
        svg = _svg_of(spec, view)
        if svg is None:
            return None
    png = eventlog.shared(("board png", svg, budget), lambda: rasterise(svg, budget, spec.name))
    if kept is None:
        rows.append((drawing, png or b"", budget))
        box[0] = (png or b"", budget)
    _keep(game_id, version, rows)
    return png


def _svg_of(spec, view) -> str | None:
    try:
        return spec.render_svg(view)
    except Exception:  # noqa: BLE001 - a game's drawing bug must not stop its notices
        log.exception("render_svg of %s failed", spec.name)
        return None


# A kept row under a view's digest holds this and the digest of the drawing that view draws
# (made_under 0): a picture's PNG starts with PNG's signature, or is empty.
SEEN_AS = b"drawing:"


def _drawing_seen(kept_here: dict, seen: str | None) -> str | None:
    """The drawing digest the view `seen` was kept pointing at, if that drawing is kept too."""
    box = kept_here.get(seen) if seen is not None else None
    if box is None or box[0] is None or not box[0][0].startswith(SEEN_AS):
        return None
    drawing = box[0][0][len(SEEN_AS) :].decode()
    found = kept_here.get(drawing)
    return drawing if found is not None and found[0] is not None else None


# What the rasteriser makes of an SVG: part of a kept picture's key, so that a change to how
# pictures are made (palette, method) is a new key rather than old pictures under the new rules.
RASTER_REVISION = f"pixels+resvg bands={BAND} palette={PALETTE}+named octree/{SAMPLE}+nearest libdeflate=6 zoom/{ZOOM_STEPS}+kept min_zoom={MIN_ZOOM} tries={MAX_TRIES} max={MAX_BYTES}"


def drawing_digest(svg: str) -> str:
    return hashlib.sha256(f"{RASTER_REVISION}\n{svg}".encode()).hexdigest()


def view_digest(spec, view) -> str | None:
    """A key for the picture of this view, made without drawing it: the view's pickled bytes (a
    view that pickles alike is equal: same types, same values; one equal but pickled otherwise, a
    set in another order, only misses) but for the keys its drawing does not read (a game's
    `render_svg.picture_ignores`), the game's drawing code (_code_revision: every file of
    the package that draws it), the language it is drawn in (games.i18n) and RASTER_REVISION.
    None where the view will not pickle or the code's files are not found: the picture is then
    looked for by its drawing alone."""
    from games import i18n

    revision = _code_revision(getattr(spec.render_svg, "__module__", None) or "")
    if revision is None:
        return None
    # What the drawing does not read of the view (a game's render_svg says so: `picture_ignores`,
    # names of the view's keys; a test draws every seat's view of real games with those keys
    # changed): left out, so that seats whose views differ only there (Elven Castle, all
    # public, differs by the seat alone) find one picture without drawing it again.
    ignored = getattr(spec.render_svg, "picture_ignores", ())
    if ignored and isinstance(view, dict):
        view = {key: value for key, value in view.items() if key not in ignored}
    try:
        data = pickle.dumps(view, protocol=5)
    except Exception:  # noqa: BLE001 - anything that does not pickle: no key of this kind
        return None
    head = f"view\n{RASTER_REVISION}\n{spec.name}\n{revision}\n{i18n.current()}\n{sorted(ignored)}\n".encode()
    return hashlib.sha256(head + data).hexdigest()


@functools.lru_cache(maxsize=64)
def _code_revision(module: str) -> str | None:
    """A digest of the files of the module's folder (and those below it: a game's code, data and
    translations), of the files beside its top package's __init__ (games/*.py) and of its folders
    that are no package (games/locale): what draws a view. Read once per process; None for a
    module without a file."""
    from pathlib import Path

    found = getattr(sys.modules.get(module), "__file__", None)
    if not found or not module:
        return None
    folder = Path(found).parent
    top_file = getattr(sys.modules.get(module.partition(".")[0]), "__file__", None)
    top_folder = Path(top_file).parent if top_file else folder
    files = sorted(f for f in folder.rglob("*") if f.is_file() and "__pycache__" not in f.parts)
    if top_folder != folder:  # the top package's own modules and folders that are no package (its locale)
        shared = [top_folder, *(d for d in top_folder.iterdir() if d.is_dir() and not (d / "__init__.py").exists())]
        files += sorted(
            f
            for place in shared
            for f in (place.glob("*") if place == top_folder else place.rglob("*"))
            if f.is_file() and "__pycache__" not in f.parts
        )
    digest = hashlib.sha256()
    try:
        for path in files:
            digest.update(f"{path.relative_to(top_folder.parent)}\n".encode())
            digest.update(path.read_bytes())
    except (OSError, ValueError):
        return None
    return digest.hexdigest()


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


def _keep(game_id: int, version: int, rows: list[tuple[str, bytes, int]]) -> None:
    """Kept for every later notice of this version's view: (key, png, made_under) rows, a
    picture under its drawing's digest, or a view's pointer to its drawing (SEEN_AS); a sender
    that kept the same row at the same moment has kept its own (the first stays: the same).

    Committed on its own (outside a caller's transaction) without waiting for the write-ahead log
    to reach the disk: a kept picture is a cache (a crash that loses one costs drawing it again),
    and the wait was a commit's flush for every picture, more than drawing it costs."""
    if not rows:
        return
    from django.db import connection, transaction

    from pbem.models import BoardPicture

    kept = [
        BoardPicture(game_id=game_id, version=version, drawing=key, png=png, made_under=made_under)
        for key, png, made_under in rows
    ]
    if connection.in_atomic_block:  # committed with the caller's work, flushed or not as it is
        BoardPicture.objects.bulk_create(kept, ignore_conflicts=True)
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        BoardPicture.objects.bulk_create(kept, ignore_conflicts=True)


# The zoom and bytes of the last picture of each game that fitted its budget (this process's):
# boards of one game weigh alike from one notice to the next, so the next picture's first try
# starts where that one fitted, scaled to its own budget, rather than at 1.0 to be shrunk in tries
# (a try is a whole rasterisation: three or four of them were most of a notice's cost).
_FITTED: dict[str, tuple[float, int]] = {}


def first_zoom(kind: str | None, budget: int) -> float:
    if kind is None or kind not in _FITTED:
        return 1.0
    zoom, size = _FITTED[kind]
    # Cautious both ways: smaller as if the bytes went with the zoom alone, larger as if with its
    # square (a first try that fits saves a whole drawing; a few pixels less cost nothing). Never
    # below the zoom of a picture that took at most 95 % of this budget: the game's pictures stay
    # at that zoom (notices' budgets differ by a kB or two, and 0.97 of a little more rounded
    # down was a rung smaller each time), where the next finds its ops and bands kept.
    if budget < size:
        return _rung(zoom * budget / size * 0.97)
    grown = _rung(min(1.0, zoom * (budget / size) ** 0.5 * 0.97))
    return max(zoom, grown) if size <= budget * 0.95 else grown


def _rung(zoom: float) -> float:
    """The zoom rounded down to a whole number of ZOOM_STEPS (at least MIN_ZOOM): pictures of a
    game are drawn at a few zooms, not at one a little different each time, so that the next
    picture finds the layer its game's last ones left at its zoom (_Layers: the same ops in the
    same places)."""
    return max(MIN_ZOOM, math.floor(zoom * ZOOM_STEPS + 1e-9) / ZOOM_STEPS)


def rasterise(svg: str, budget: int = MAX_BYTES, kind: str | None = None) -> bytes | None:
    """The SVG as a palette PNG of at most `budget` bytes, or None. The first try is at 1.0, or,
    for a game (`kind`) whose last picture fitted at a smaller zoom, where that one fitted
    (first_zoom). Each try after the first draws it smaller by how far the last was over: its
    size goes with the drawn area (the square of the zoom) for a picture of flat colours, but
    closer to the zoom alone for one dense with text (a phone's portrait picture), so the second
    try assumes the zoom alone (it then fits, a little smaller than it might have been, rather
    than needing a third try), and from the third on the power is measured from the last two. The last try is at MIN_ZOOM
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
        power = 1.0  # the smallest step that surely fits a text-dense picture: a try costs more than a few pixels
        if len(tried) >= 2:
            (z0, n0), (z1, n1) = tried[-2:]
            power = min(2.0, max(1.0, math.log(n0 / n1) / math.log(z0 / z1)))
        zoom = _rung(zoom * (budget / len(png)) ** (1 / power) * 0.97)
    log.warning("the board picture stays over %s bytes even drawn small: left out", budget)
    return None


def _palette_png(svg: str, zoom: float) -> bytes | None:
    """The SVG as a palette PNG at `zoom`: drawn straight to pixels where it can be, of kept
    bands where they match (_banded_png), else by resvg (its palette and PNG by _paletted, _png)."""
    try:
        return _banded_png(svg, zoom)
    except Unsupported as exc:
        log.debug("drawn by resvg: %s", exc)
        image = _resvg_image(svg, zoom)
        if image is None:
            return None
    return _png(_paletted(image))


def _paletted(image):
    """The image with a palette of PALETTE colours, without dithering (_palette_of)."""
    from PIL import Image

    return image.quantize(palette=_palette_of(image), dither=Image.Dither.NONE)


def _palette_of(image, exact: Sequence[tuple[int, int, int]] = ()):
    """A palette of PALETTE colours for the image (a palette image, to quantize with): chosen by
    fast octree from a sample of the pixels (a ninth: a board is flat colours, each over many
    pixels); every pixel then takes its nearest colour in it, without dithering (dots between
    two flat colours cost bytes and blur the text). Measured on Elfenland boards, 4 ms a picture
    against 8 for the octree of every pixel, and closer to the drawing (mean error 0.97 against
    1.06, 99.9th percentile 11 against 20, worst pixel 38 alike; sums of RGB differences)."""
    from PIL import Image

    width, height = image.size
    sample = image
    if width >= 16 * SAMPLE and height >= 16 * SAMPLE:
        sample = image.resize((width // SAMPLE, height // SAMPLE), Image.Resampling.NEAREST)
    palette = sample.quantize(PALETTE, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    if not exact:
        return palette
    # The colours the drawing names, as they are, where the octree has nothing of them (a
    # highlight of few pixels, or one this drawing lacks that the next of its kind has).
    values = palette.getpalette()
    have = {tuple(values[i : i + 3]) for i in range(0, len(values), 3)}
    values += [v for colour in sorted(set(exact) - have)[: 256 - len(have)] for v in colour]
    wider = Image.new("P", (1, 1))
    wider.putpalette(values)
    return wider


def _paint_colour(value: str) -> tuple[int, int, int] | None:
    try:
        return _colour(value)
    except Unsupported:  # an opacity
        return None


def _png(paletted) -> bytes:
    """A palette image as PNG bytes (_png_of)."""
    width, height = paletted.size
    colours = paletted.getextrema()[1] + 1
    palette = bytes(paletted.getpalette()[: 3 * colours])
    return _png_of(_filtered(paletted.tobytes(), width, 0, height), width, height, palette)


def _png_of(rows: bytes, width: int, height: int, palette: bytes) -> bytes:
    """Rows of palette indices (each after its filter byte) as PNG bytes, written here: each row
    unfiltered (PNG's filters do nothing for a palette's indices) and deflated by libdeflate at
    level 6 (the `deflate` package: 3 ms an Elfenland board and 4 % fewer bytes, against zlib's
    7-9 ms at its default level), or by zlib where that package is missing."""
    import zlib

    compress: Callable[[bytes, int], bytes | bytearray]
    try:
        from deflate import zlib_compress as compress
    except ImportError:  # pragma: no cover - a dependency of the project; zlib does the same, slower
        compress = zlib.compress

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8 bits an index, a palette
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"PLTE", palette),
            chunk(b"IDAT", bytes(compress(rows, 6))),
            chunk(b"IEND", b""),
        ]
    )


def _resvg_image(svg: str, zoom: float):
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
        return image.convert("RGB")


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


# --- drawn straight to pixels -----------------------------------------------------------------
# The games' drawings are rectangles, circles, polygons, straight paths, lines and short texts:
# Pillow draws them straight to pixels (text with FreeType, no shaping) at a tenth of what resvg
# takes to lay out and fill every glyph as a path. Anything else in a drawing (a curve, a
# gradient, a filter, a text with spans, a rotation) and the drawing goes to resvg as it is.


class Unsupported(Exception):
    """Something in the SVG the direct drawing does not do: resvg draws it."""


FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/local/share/fonts")
FONT_FILES = {
    (False, False): "DejaVuSans.ttf",
    (True, False): "DejaVuSans-Bold.ttf",
    (False, True): "DejaVuSans-Oblique.ttf",
    (True, True): "DejaVuSans-BoldOblique.ttf",
}
# Attributes that change nothing in a raster picture (or nothing the direct drawing does otherwise).
INERT = frozenset(
    {
        "id",
        "class",
        "role",
        "aria-label",
        "aria-hidden",
        "shape-rendering",
        "text-rendering",
        "pointer-events",
        "font-family",
        "xmlns",
        "version",
        "stroke-linejoin",
        "stroke-linecap",
        "stroke-miterlimit",
        "preserveAspectRatio",
    }
)
INHERITED = (
    "fill",
    "stroke",
    "stroke-width",
    "fill-opacity",
    "stroke-opacity",
    "font-size",
    "font-weight",
    "font-style",
    "text-anchor",
    "stroke-dasharray",
    "opacity",
)
SHAPE_ATTRS = {
    "svg": {"width", "height", "viewBox", "x", "y"},
    "g": {"transform"},
    "use": {"href", "x", "y", "transform"},
    "rect": {"x", "y", "width", "height", "rx", "ry", "transform"},
    "circle": {"cx", "cy", "r", "transform"},
    "ellipse": {"cx", "cy", "rx", "ry", "transform"},
    "line": {"x1", "y1", "x2", "y2", "transform"},
    "polygon": {"points", "transform"},
    "polyline": {"points", "transform"},
    "path": {"d", "transform"},
    "text": {"x", "y", "transform"},
}
SKIPPED = {"title", "desc", "metadata", "defs"}
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TRANSFORM = re.compile(r"\s*(translate|scale)\s*\(([^)]*)\)\s*,?")
_PATH = re.compile(r"([MmLlHhVvZzQqCc])([^MmLlHhVvZzCcSsQqTtAa]*)")
CURVE_STEPS = 12  # straight pieces of a quadratic or cubic curve


def _numbers(text: str) -> list[float]:
    return [float(n) for n in _NUMBER.findall(text or "")]


def _length(text: str | None, default: float = 0.0) -> float:
    if text is None:
        return default
    text = text.strip()
    if text.endswith("px"):
        text = text[:-2]
    try:
        return float(text)
    except ValueError:
        raise Unsupported(f"length {text!r}") from None


@functools.lru_cache(maxsize=256)
def _font(bold: bool, italic: bool, size: float):
    from PIL import ImageFont

    for folder in FONT_DIRS:
        path = os.path.join(folder, FONT_FILES[bold, italic])
        if os.path.exists(path):
            return ImageFont.truetype(path, size, layout_engine=ImageFont.Layout.BASIC)
    raise Unsupported("no DejaVu Sans font on this machine")


@functools.lru_cache(maxsize=4096)
def _text_mask(text: str, font, anchor: str):
    """A text's coverage (an L image) and where it goes from its anchor point, kept: a board's
    labels (numbers, names, the legend) come again from one picture to the next."""
    from PIL import Image, ImageDraw

    left, top, right, bottom = font.getbbox(text, anchor=anchor)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=font, anchor=anchor)
    return mask, left, top


@functools.lru_cache(maxsize=512)
def _colour(value: str) -> tuple[int, int, int] | None:
    from PIL import ImageColor

    value = value.strip()
    if value in ("none", "transparent"):
        return None
    try:
        return ImageColor.getrgb(value)[:3]
    except ValueError:
        raise Unsupported(f"colour {value!r}") from None


@functools.lru_cache(maxsize=1024)
def _attributes(tag: str, names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Of an element's attributes, those its children inherit, as (attribute, style name); or
    Unsupported where one is neither inherited, nor the element's own, nor inert."""
    if tag not in SHAPE_ATTRS:
        raise Unsupported(f"<{tag}>")
    if "style" in names:
        raise Unsupported("style=")
    allowed, inherited = SHAPE_ATTRS[tag], []
    for key in names:
        name = key.rpartition("}")[2]
        if name in INHERITED:
            inherited.append((key, name))
        elif name not in allowed and name not in INERT:
            raise Unsupported(f"{name}= on <{tag}>")
    return tuple(inherited)


class _Recorder:
    """Stands for an ImageDraw.Draw: each call recorded as (blended, method, args, kwargs)."""

    def __init__(self, calls: list, blended: bool) -> None:
        self.calls, self.blended = calls, blended

    def __getattr__(self, name: str):
        # Lists (of points) kept as tuples: tuples of numbers are left alone by Python's cyclic
        # garbage collector once it has met them, lists never are (a kept op would make every
        # full collection of the process longer).
        return lambda *args, **kwargs: self.calls.append(
            (self.blended, name, tuple(tuple(a) if isinstance(a, list) else a for a in args), kwargs)
        )


# Each op compiled (_Canvas.compiled), by op key (_op_key: the same key, the same calls).
COMPILED = 30_000  # about 30 MB at most (a text op keeps its coverage)
_compiled: dict = {}
# Each op's plan (_Canvas.shape_plan, text_plan: what it draws, read once), by its key without its
# place (the translation of its transform): placed at (dx, dy) it makes the calls compiling the op
# there makes, number for number (each coordinate is dx + s * x as when read in place).
_plans: dict = {}
_serial = itertools.count()  # ops' ids, never reused: a band key made before a clear() stays unequal


def _call_rows(calls: list) -> tuple[int, int]:
    """The first and last row of pixels these calls to Pillow may paint, with room to spare (a
    line's width and joints, rounding); (0, -1) for none."""
    top, bottom = math.inf, -math.inf
    for _blended, name, args, kwargs in calls:
        if name == "paste":
            _colour, (_x, y), mask = args
            ys, pad = [y, y + mask.height], 1
        elif name in ("rectangle", "rounded_rectangle", "ellipse"):
            box = args[0]
            ys, pad = [box[1], box[3]], 2
        else:  # polygon, line: points
            ys, pad = [y for _x, y in args[0]], kwargs.get("width", 1) + 2
        if ys:
            top, bottom = min(top, min(ys) - pad), max(bottom, max(ys) + pad)
    if top > bottom:
        return 0, -1
    return math.floor(top), math.ceil(bottom)


_NOWHERE = (1.0, 0.0, 0.0)  # the transform a <use>'s target is walked with once (_Canvas.walked)


class _Canvas:
    def __init__(self, root, zoom: float) -> None:
        width, height = _length(root.get("width"), 0), _length(root.get("height"), 0)
        box = _numbers(root.get("viewBox", ""))
        if len(box) == 4:
            width, height = width or box[2], height or box[3]
            sx, sy = width / box[2], height / box[3]
            if abs(sx - sy) > 0.01 * sx:
                raise Unsupported("a viewBox stretched out of its proportions")
            origin = (-box[0] * sx, -box[1] * sy)
        else:
            sx, origin = 1.0, (0.0, 0.0)
        if not (width > 0 and height > 0):
            raise Unsupported("no size")
        self.size = (max(1, round(width * zoom)), max(1, round(height * zoom)))
        self.ids = {element.get("id"): element for element in root.iter() if element.get("id")}
        self.base = (sx * zoom, origin[0] * zoom, origin[1] * zoom)
        # What the drawing draws, in order: (tag, node, transform, style), found by element(); None
        # for an op read from a kept piece (its compiled calls are in self.known).
        self.ops: list = []
        self.keys: list[tuple] = []  # each op's key (_op_key)
        self.known: list | None = None  # each op compiled, where read from kept pieces (_pieced)
        self.calls: list = []  # what the op being compiled draws (run)
        self.used: dict = {}  # each <use>'s target's ops, by its href, depth and style (walked)

    def start_on(self, image) -> None:
        from PIL import ImageDraw

        self.image = image
        self.blended = ImageDraw.Draw(image, "RGBA")  # for inks with some transparency
        self.solid = ImageDraw.Draw(image)  # the same pixels for opaque inks, without blending each

    def via(self, *inks) -> _Recorder:
        """What draws with these inks: a draw blending them where one is not opaque, the plain
        one otherwise (the same pixels, without blending each); recorded for run() to replay."""
        return _Recorder(self.calls, any(ink is not None and ink[3] < 255 for ink in inks))

    def compiled(self, ops, keys) -> list[tuple]:
        """Each op as (id, first row, last row, the calls to Pillow it makes, its key): its shape's or
        text's numbers and colours worked out once and kept by its key (_compiled), its rows those
        its calls may paint (_call_rows), its id a number no other key gets (_serial)."""
        found = []
        for op, key in zip(ops, keys):
            entry = _compiled.get(key)
            if entry is None:
                calls = self.calls = []
                tag, node, (s, dx, dy), style = op
                # What it draws wherever it is (its numbers, colours, text and fonts), kept by its
                # key without its place: an op moved (a board drawn lower when what is above it
                # grew) is placed anew, not read anew (_plans).
                plan_key = (key[0], key[1], s, *key[3:])
                plan = _plans.get(plan_key)
                if plan is None:
                    plan = self.text_plan(node, s, style) if tag == "text" else self.shape_plan(tag, node, s, style)
                    if len(_plans) >= COMPILED:
                        _plans.clear()
                    _plans[plan_key] = plan
                plan(self, dx, dy)
                if len(_compiled) >= COMPILED:
                    _compiled.clear()
                entry = _compiled[key] = (next(_serial), *_call_rows(calls), tuple(calls), key)
            found.append(entry)
        return found

    def entries(self, upto: int | None = None) -> list[tuple]:
        """The first `upto` ops (all by default) compiled: as kept with their pieces, or now."""
        if self.known is not None:
            return self.known[:upto]
        return self.compiled(self.ops[:upto], self.keys[:upto])

    def run(self, entries) -> None:
        """The compiled ops drawn (a kept layer or band keeps the pixels of ops the next drawings
        meet again, this the work of drawing each)."""
        draws = (self.solid, self.blended)
        paste = self.image.paste
        for _id, _first, _last, calls, _key in entries:
            for blended, name, args, kwargs in calls:
                if name == "paste":
                    paste(*args)
                else:
                    getattr(draws[blended], name)(*args, **kwargs)

    # A transform is (scale, dx, dy): the drawings translate and scale, evenly; nothing else.
    @staticmethod
    def transformed(transform, text: str | None):
        if not text:
            return transform
        s, dx, dy = transform
        position = 0
        for match in _TRANSFORM.finditer(text):
            if match.start() != position:
                raise Unsupported(f"transform {text!r}")
            position = match.end()
            args = _numbers(match.group(2))
            if match.group(1) == "translate" and len(args) in (1, 2):
                tx, ty = args[0], args[1] if len(args) == 2 else 0.0
                dx, dy = dx + s * tx, dy + s * ty
            elif match.group(1) == "scale" and (len(args) == 1 or (len(args) == 2 and args[0] == args[1])):
                s *= args[0]
            else:
                raise Unsupported(f"transform {text!r}")
        if position != len(text):
            raise Unsupported(f"transform {text!r}")
        return (s, dx, dy)

    def element(self, node, transform, style: dict, depth: int = 0, items: tuple = ()) -> None:
        """The element's ops listed (self.ops, with their keys in self.keys), or Unsupported.
        `items` is `style`'s items as a tuple, made once for each style an element changes."""
        tag = node.tag
        if "}" in tag:
            tag = tag.rpartition("}")[2]
        if tag in SKIPPED:
            return
        if depth > 20:
            raise Unsupported(f"<{tag}>")
        inherited = _attributes(tag, tuple(node.attrib))
        if inherited:
            style = {**style, **{name: node.attrib[key] for key, name in inherited}}
            items = tuple(style.items())
        transform = self.transformed(transform, node.get("transform"))
        if tag in ("svg", "g"):
            if tag == "svg" and depth:
                raise Unsupported("a nested <svg>")
            for child in node:
                self.element(child, transform, style, depth + 1, items)
        elif tag == "use":
            href = node.get("href") or node.get("{http://www.w3.org/1999/xlink}href") or ""
            target = self.ids.get(href[1:]) if href.startswith("#") else None
            if target is None:
                raise Unsupported(f"use of {href!r}")
            s, dx, dy = transform
            moved = (s, dx + s * _length(node.get("x")), dy + s * _length(node.get("y")))
            used = self.used.get((href, depth, items))
            if used is None:
                used = self.used[href, depth, items] = self.walked(target, style, depth + 1, items)
            if not isinstance(used, list):  # False: walked at each <use>
                self.element(target, moved, style, depth + 1, items)
            else:  # the same ops as walking it again, at this place
                for head, target_node, target_style, tail in used:
                    self.ops.append((head[0], target_node, moved, target_style))
                    self.keys.append((*head, moved, *tail))
        else:  # drawn later (run), in this order: a drawing's first ops may be a kept layer
            op = (tag, node, transform, style)
            self.ops.append(op)
            self.keys.append(_op_key(op, items))

    def walked(self, target, style: dict, depth: int, items: tuple) -> list | bool:
        """The ops of a <use>'s target without a place (their keys cut around the transform:
        (tag, attributes), the rest), for every <use> of it: the target's ops all take the
        <use>'s transform as it is, unless something in it transforms or uses again (False:
        walked at each <use>)."""
        if any(e.get("transform") is not None or e.tag.rpartition("}")[2] == "use" for e in target.iter()):
            return False
        ops, keys = self.ops, self.keys
        self.ops, self.keys = [], []
        try:
            self.element(target, _NOWHERE, style, depth, items)
            return [(key[:2], op[1], op[3], key[3:]) for op, key in zip(self.ops, self.keys)]
        finally:
            self.ops, self.keys = ops, keys

    def paint(self, style: dict, kind: str):
        value = style.get(kind, "#000000" if kind == "fill" else "none")
        colour = _colour(value)
        if colour is None:
            return None
        alpha = float(style.get(f"{kind}-opacity", 1)) * float(style.get("opacity", 1))
        return (*colour, max(0, min(255, round(alpha * 255))))

    def shape_plan(self, tag: str, node, s: float, style: dict) -> Callable:
        """A shape's plan (_plans): its numbers and paint read once; the function returned draws
        it translated by (dx, dy)."""
        fill, stroke = self.paint(style, "fill"), self.paint(style, "stroke")
        width = max(1, round(_length(style.get("stroke-width"), 1.0) * s)) if stroke else 0
        dashes = _numbers(style.get("stroke-dasharray", "")) if stroke else []
        dashes = [d * s for d in dashes] if any(dashes) else []
        pen = (fill, stroke, width, dashes)
        if tag == "rect":
            x, y = _length(node.get("x")), _length(node.get("y"))
            w, h = _length(node.get("width")), _length(node.get("height"))
            geometry: tuple = (x, y, x + w, y + h, w > 0 and h > 0, _length(node.get("rx") or node.get("ry")) * s)
            outline = _Canvas._rect
        elif tag in ("circle", "ellipse"):
            if tag == "circle":
                rx = ry = _length(node.get("r")) * s
            else:
                rx, ry = _length(node.get("rx")) * s, _length(node.get("ry")) * s
            geometry, outline = (_length(node.get("cx")), _length(node.get("cy")), rx, ry), _Canvas._ellipse
        else:
            geometry, outline = _line_numbers(tag, node), _Canvas._lines
            if tag == "polygon" and not dashes and len(geometry[1][0][0]) >= 2:
                return _polygon_plan(geometry[1][0][0], s, pen)

        def draw(canvas: _Canvas, dx: float, dy: float) -> None:
            def at(x: float, y: float) -> tuple[float, float]:
                return (dx + s * x, dy + s * y)

            canvas.stroked(outline(canvas, geometry, at, pen), pen)

        return draw

    def stroked(self, outlines: list[tuple[list, bool]], pen) -> None:
        _fill, stroke, width, dashes = pen
        if stroke:
            for points, closed in outlines:
                path = [*points, points[0]] if closed else points
                if dashes:
                    for a, b in _dashed(path, dashes):
                        self.via(stroke).line([a, b], fill=stroke, width=width)
                elif len(path) >= 2:
                    self.via(stroke).line(path, fill=stroke, width=width, joint="curve" if width > 2 else None)

    def _rect(self, geometry: tuple, at, pen) -> list[tuple[list, bool]]:
        """A rectangle filled (and stroked, unless dashed); the outline left to stroke, if any."""
        fill, stroke, width, dashes = pen
        x, y, right, bottom, drawn, radius = geometry
        if not drawn:
            return []
        (x0, y0), (x1, y1) = at(x, y), at(right, bottom)
        box = [round(x0), round(y0), round(x1) - 1, round(y1) - 1]
        if stroke and not dashes:
            # SVG strokes the edge's middle, Pillow inside the box: the box grown by half the
            # stroke, so that neighbouring cells share one line rather than two side by side.
            half = width / 2
            box = [round(x0 - half), round(y0 - half), round(x1 + half) - 1, round(y1 + half) - 1]
        if dashes or not stroke:
            if fill:
                if radius >= 1:
                    self.via(fill).rounded_rectangle(box, radius, fill=fill)
                else:
                    self.via(fill).rectangle(box, fill=fill)
            return [([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], True)] if stroke else []
        if radius >= 1:
            self.via(fill, stroke).rounded_rectangle(box, radius, fill=fill, outline=stroke, width=width)
        else:
            self.via(fill, stroke).rectangle(box, fill=fill, outline=stroke, width=width)
        return []

    def _ellipse(self, geometry: tuple, at, pen) -> list[tuple[list, bool]]:
        """A circle or ellipse filled (and stroked, unless dashed: then its ring is returned)."""
        fill, stroke, width, dashes = pen
        x, y, rx, ry = geometry
        cx, cy = at(x, y)
        if rx <= 0 or ry <= 0:
            return []
        box = [cx - rx, cy - ry, cx + rx, cy + ry]
        if not dashes:
            self.via(fill, stroke).ellipse(box, fill=fill, outline=stroke, width=width)
            return []
        if fill:
            self.via(fill).ellipse(box, fill=fill)
        steps = max(12, int(math.pi * (rx + ry) / 2))
        ring = [
            (cx + rx * math.cos(2 * math.pi * i / steps), cy + ry * math.sin(2 * math.pi * i / steps))
            for i in range(steps)
        ]
        return [(ring, True)]

    def _lines(self, geometry: tuple, at, pen) -> list[tuple[list, bool]]:
        """A line, polygon, polyline or path (_line_numbers): its fill drawn, its outlines returned
        to stroke."""
        fill = pen[0]
        tag, subpaths = geometry
        outlines = []
        for numbers, closed in subpaths:
            points = [at(x, y) for x, y in numbers]
            if tag == "line":
                return [(points, False)]
            if tag in ("polygon", "polyline"):
                if len(points) < 2:
                    return []
                if fill:
                    self.via(fill).polygon(points, fill=fill)
                return [(points, closed)]
            if fill and len(points) > 2:
                self.via(fill).polygon(points, fill=fill)
            outlines.append((points, closed))
        return outlines

    def text_plan(self, node, s: float, style: dict) -> Callable:
        """A line of text, with spans in it that change its font or colour (not its place): its
        plan (_plans), its runs, fonts and coverage found once; the function returned draws it
        translated by (dx, dy)."""
        xs, ys = _numbers(node.get("x", "0")), _numbers(node.get("y", "0"))
        if len(xs) != 1 or len(ys) != 1:
            raise Unsupported("a <text> placed glyph by glyph")
        pieces = [(node.text or "", style)]
        for span in node:
            if span.tag.rpartition("}")[2] != "tspan" or len(span):
                raise Unsupported("a <text> with something but spans in it")
            inner = dict(style)
            for key, value in span.attrib.items():
                name = key.rpartition("}")[2]
                if name in INHERITED:
                    inner[name] = value
                elif name not in INERT:
                    raise Unsupported(f"{name}= on <tspan>")
            pieces += [(span.text or "", inner), (span.tail or "", style)]
        # White space as SVG has it: runs of it one space, none at the ends.
        joined = re.sub(r"\s+", " ", "".join(text for text, _style in pieces))
        if not joined.strip():
            return _nothing
        runs, left = [], joined.lstrip()
        lead = len(joined) - len(left)
        for text, piece_style in pieces:
            text = re.sub(r"\s+", " ", text)
            take = max(0, len(text) - lead) if lead else len(text)
            lead = max(0, lead - len(text))
            part, left = left[:take], left[take:]
            if part:
                runs.append((part, self.font(piece_style, s), self.paint(piece_style, "fill")))
        if runs:
            last = runs[-1]
            runs[-1] = (last[0].rstrip(), *last[1:])
        anchor = style.get("text-anchor", "start")
        if anchor not in ("start", "middle", "end"):
            raise Unsupported("text-anchor")
        x0, y0 = xs[0], ys[0]
        if len(runs) == 1:
            text, font, fill = runs[0]
            ink = _ink(text, font, fill, {"start": "ls", "middle": "ms", "end": "rs"}[anchor])

            def one(canvas: _Canvas, dx: float, dy: float) -> None:
                canvas.put(dx + s * x0, dy + s * y0, ink)

            return one
        widths = [font.getlength(text) for text, font, _fill in runs]
        shift = {"start": 0, "middle": sum(widths) / 2, "end": sum(widths)}[anchor]
        inks = [(_ink(text, font, fill, "ls"), width) for (text, font, fill), width in zip(runs, widths)]

        def several(canvas: _Canvas, dx: float, dy: float) -> None:
            x, y = dx + s * x0, dy + s * y0
            x -= shift
            for ink, width in inks:
                canvas.put(x, y, ink)
                x += width

        return several

    def put(self, x: float, y: float, ink) -> None:
        """A run of text (_ink) with its anchor point at (x, y)."""
        if ink is not None:
            colour, mask, left, top = ink
            self.calls.append((False, "paste", (colour, (round(x) + left, round(y) + top), mask), {}))

    @staticmethod
    def font(style: dict, scale: float):
        size = _length(style.get("font-size"), 16.0) * scale
        weight = style.get("font-weight", "normal")
        bold = weight in ("bold", "bolder") or (weight.isdigit() and int(weight) >= 600)
        italic = style.get("font-style", "normal") in ("italic", "oblique")
        return _font(bold, italic, round(size * 4) / 4)


def _nothing(canvas, dx: float, dy: float) -> None:
    """The plan of an op that draws nothing (a text of white space)."""


def _ink(text: str, font, fill, anchor: str):
    """A run of text as it is pasted: (colour, coverage, its offset from the anchor point), or
    None where it has no fill."""
    if fill is None:
        return None
    mask, left, top = _text_mask(text, font, anchor)
    if fill[3] < 255:
        mask = mask.point(lambda v, a=fill[3]: v * a // 255)
    return (fill[:3], mask, left, top)


def _polygon_plan(points: list[tuple[float, float]], s: float, pen) -> Callable:
    """The plan of a polygon of two points or more, stroked without dashes: the calls
    _Canvas._lines and stroked make of it (the same tuples), made here without their steps."""
    fill, stroke, width, _dashes = pen
    blend_fill, blend_stroke = fill is not None and fill[3] < 255, stroke is not None and stroke[3] < 255
    line = {"fill": stroke, "width": width, "joint": "curve" if width > 2 else None}

    def draw(canvas: _Canvas, dx: float, dy: float) -> None:
        placed = tuple([(dx + s * x, dy + s * y) for x, y in points])
        if fill:
            canvas.calls.append((blend_fill, "polygon", (placed,), {"fill": fill}))
        if stroke:
            canvas.calls.append((blend_stroke, "line", ((*placed, placed[0]),), line))

    return draw


def _line_numbers(tag: str, node) -> tuple:
    """(tag, subpaths) of a line, polygon, polyline or path: each subpath's points as the
    element has them (not yet placed) and whether it is closed."""
    if tag == "line":
        ends = [(_length(node.get("x1")), _length(node.get("y1"))), (_length(node.get("x2")), _length(node.get("y2")))]
        return tag, [(ends, False)]
    if tag in ("polygon", "polyline"):
        numbers = _numbers(node.get("points", ""))
        return tag, [([(numbers[i], numbers[i + 1]) for i in range(0, len(numbers) - 1, 2)], tag == "polygon")]
    return tag, _subpaths(node.get("d", "")) if tag == "path" else []


def _subpaths(d: str) -> list[tuple[list[tuple[float, float]], bool]]:
    """A path of straight lines and quadratic or cubic curves (M, L, H, V, Q, C, Z, absolute or
    relative) as its subpaths' points, the curves in CURVE_STEPS straight pieces."""
    if _PATH.sub("", d).strip():
        raise Unsupported("a path with curves")
    found: list[tuple[list[tuple[float, float]], bool]] = []
    points: list[tuple[float, float]] = []
    x = y = 0.0
    for command, args in _PATH.findall(d):
        numbers = _numbers(args)
        relative = command.islower()
        op = command.upper()
        if op == "Z":
            if points:
                found.append((points, True))
                x, y = points[0]
            points = []
            continue
        step = {"H": 1, "V": 1, "Q": 4, "C": 6}.get(op, 2)
        if not numbers or len(numbers) % step:
            raise Unsupported(f"path data {command}{args!r}")
        for i in range(0, len(numbers), step):
            if op in "QC":
                if not points:
                    points = [(x, y)]
                ox, oy = (x, y) if relative else (0.0, 0.0)
                controls = [(ox + numbers[j], oy + numbers[j + 1]) for j in range(i, i + step, 2)]
                points += _curve((x, y), controls)
                x, y = controls[-1]
                continue
            if op == "H":
                x = x + numbers[i] if relative else numbers[i]
            elif op == "V":
                y = y + numbers[i] if relative else numbers[i]
            else:
                nx, ny = numbers[i], numbers[i + 1]
                x, y = (x + nx, y + ny) if relative else (nx, ny)
            if op == "M" and i == 0:
                if len(points) > 1:
                    found.append((points, False))
                points = [(x, y)]
            else:
                points.append((x, y))
    if len(points) > 1:
        found.append((points, False))
    return found


def _curve(start: tuple[float, float], controls: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """A Bézier curve from `start` through its control points, as CURVE_STEPS points."""
    out = []
    for k in range(1, CURVE_STEPS + 1):
        t = k / CURVE_STEPS
        row = [start, *controls]
        while len(row) > 1:  # de Casteljau
            row = [(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t) for a, b in zip(row, row[1:])]
        out.append(row[0])
    return out


def _dashed(path: list[tuple[float, float]], dashes: list[float]):
    """The dashes along a polyline as (start, end) pairs."""
    if len(dashes) % 2:
        dashes = dashes * 2
    index, left, on = 0, dashes[0], True
    for (x0, y0), (x1, y1) in zip(path, path[1:]):
        length = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while done < length:
            step = min(left, length - done)
            if on:
                a, b = done / length, (done + step) / length
                yield (x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)
            done += step
            left -= step
            if left <= 1e-9:
                index = (index + 1) % len(dashes)
                left, on = dashes[index], not on


def draw_svg(svg: str, zoom: float = 1.0):
    """The SVG drawn straight to an RGB image (Pillow), or Unsupported. Where its first ops are
    those of a kept layer (the same ops in the same places: a game's map, grid and legend, drawn
    before what moves), it starts from that layer's pixels and draws only the rest: the same
    pixels as drawn whole, since each op paints over what the ones before left."""
    canvas = _parsed(svg, zoom)
    return _drawn(canvas, canvas.keys, range(len(canvas.ops)))


def _parsed(svg: str, zoom: float) -> _Canvas:
    """The SVG read, its ops listed in drawing order (canvas.ops), nothing drawn yet: of kept
    pieces where it can be (_pieced), else read whole."""
    import xml.etree.ElementTree as ET

    canvas = _pieced(svg, zoom)
    if canvas is not None:
        return canvas
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as exc:
        raise Unsupported(f"not XML: {exc}") from None
    if root.tag.rpartition("}")[2] != "svg":
        raise Unsupported("not an <svg>")
    canvas = _Canvas(root, zoom)
    canvas.element(root, canvas.base, {})
    return canvas


# Each top-level piece of a drawing (an element of the <svg> and all in it) read once, kept by its
# text and where it is drawn (_pieced): (its ops, their keys, their compiled calls).
PIECES = 4_096  # pieces kept at most, and their text's characters at most (a piece's text and
PIECE_CHARS = 8 << 20  # the list of its ops' keys and calls are what it adds: those are kept anyway)
_pieces: dict = {}
_piece_chars = [0]


class _Whole(Exception):
    """The drawing is read whole, not in pieces (_pieced)."""


def _pieced(svg: str, zoom: float) -> _Canvas | None:
    """The SVG's ops from its top-level pieces (each element of the <svg>, with everything in
    it), each read once and kept by its text and the place it is drawn at (the <svg>'s size,
    zoom and inherited attributes): a game's next drawing has most of its pieces, word for word,
    and reads only those that changed. The ops and keys are those of reading it whole (a piece
    of the same text, at the same place, draws the same ops). None (read it whole) for a drawing
    with anything else in it: a reference (<use>: what it draws is elsewhere), a comment,
    CDATA, a declaration, an attribute in single quotes or with a ">" in its value, or pieces
    that do not read as XML on their own."""
    import xml.etree.ElementTree as ET

    if "<!" in svg or "<?" in svg or "href" in svg or "='" in svg or "= '" in svg:
        return None
    chunks = svg.split("<")  # each a tag (without its "<") and the text after it
    if len(chunks) < 3 or chunks[0].strip() or not chunks[1].startswith("svg") or not chunks[-1].startswith("/svg>"):
        return None
    try:
        # +1 a tag that opens, -1 one that closes, 0 one that closes itself: the depth after each
        depths = list(
            itertools.accumulate(-1 if c[0] == "/" else 0 if c[c.index(">") - 1] == "/" else 1 for c in chunks[2:-1])
        )
        root = ET.fromstring("<" + chunks[1][: chunks[1].index(">") + 1] + "</svg>")
    except (ValueError, IndexError, ET.ParseError):
        return None
    if depths and (depths[-1] != 0 or min(depths) < 0):
        return None
    if any(c.count('"', 0, c.index(">")) % 2 for c in chunks[1:]):  # a ">" in a quoted value
        return None
    canvas = _Canvas(root, zoom)
    inherited = _attributes("svg", tuple(root.attrib))
    style = {name: root.attrib[key] for key, name in inherited}
    items = tuple(style.items())
    place = (canvas.size, canvas.base, items)
    texts, start = [], 2
    for end in [i + 2 for i, depth in enumerate(depths) if depth == 0]:
        text = "<" + "<".join(chunks[start : end + 1])
        texts.append(text[: text.rindex(">") + 1])
        start = end + 1
    nodes = _pieces_read(svg, texts, place)
    if nodes is None:
        return None
    entries: list = []
    try:
        for text, node in zip(texts, nodes):
            ops, keys, compiled = _piece(canvas, text, place, style, items, node)
            canvas.ops += [None] * ops
            canvas.keys += keys
            entries += compiled
    except _Whole:
        return None
    canvas.known = entries
    return canvas


def _pieces_read(svg: str, texts: list[str], place: tuple) -> list | None:
    """Each piece's element where more than a few pieces are new (the drawing read once, its
    <svg>'s children, each checked against its piece's tag: a new game's first drawing would
    otherwise read every piece on its own), else None for each (each new piece reads its own
    text); None where the children are not the pieces found."""
    import xml.etree.ElementTree as ET

    if sum((text, place) not in _pieces for text in texts) <= 8:
        return [None] * len(texts)
    try:
        children = list(ET.fromstring(svg))
    except ET.ParseError:
        return None
    if len(children) != len(texts):
        return None
    for text, child in zip(texts, children):
        name = child.tag.rpartition("}")[2]
        if not text.startswith(name, 1) or text[1 + len(name)] not in " \t\r\n/>":
            return None
    return children


def _piece(canvas: _Canvas, text: str, place: tuple, style: dict, items: tuple, node=None) -> tuple:
    """(ops, keys, compiled calls) of one top-level piece of a drawing, kept (_pieces); read from
    its text, or `node` (its element, read with the whole drawing)."""
    import xml.etree.ElementTree as ET

    key = (text, place)
    found = _pieces.get(key)
    if found is not None:
        return found
    try:
        node = ET.fromstring(text) if node is None else node
    except ET.ParseError:
        raise _Whole from None
    ops, keys = canvas.ops, canvas.keys
    canvas.ops, canvas.keys = [], []
    try:
        canvas.element(node, place[1], style, 1, items)
        # Its ops not kept (their elements weigh more than all the rest: canvas.ops is read for
        # its length once compiled calls are known, canvas.known), nor its own keys: the equal
        # keys kept with the compiled calls stand for them (one copy of each op's key).
        compiled = canvas.compiled(canvas.ops, canvas.keys)
        found = (len(canvas.ops), [entry[4] for entry in compiled], compiled)
    finally:
        canvas.ops, canvas.keys = ops, keys
    if len(_pieces) >= PIECES or _piece_chars[0] + len(text) > PIECE_CHARS:
        _pieces.clear()
        _piece_chars[0] = 0
    _pieces[key] = found
    _piece_chars[0] += len(text)
    return found


def _drawn(canvas: _Canvas, keys: list, wanted, entries: list | None = None, rows: int | None = None):
    """The canvas's ops of the indices `wanted` (in order) drawn, from a kept layer where one
    fits: the ops of a layer are in its pixels already, wanted or not. An op not wanted is not
    drawn: the pixels are the whole drawing's only where no op left out reaches (_banded_png
    draws every op that reaches the bands it makes). With `rows`, only the drawing's first
    `rows` rows are drawn (the image is that tall: what the ops paint below it is left out, the
    pixels above are the same)."""
    from PIL import Image

    width, height = canvas.size
    height = height if rows is None else max(1, min(height, rows))
    image, drawn, keep_at = _layers.start(canvas.size, keys)
    if keep_at:
        # Drawn anew, taller than this drawing (HEIGHT times): the same game's next picture may
        # be a little taller (a longer hand, a longer list), and an op drawn past this one's
        # bottom shows there; a shorter one takes the layer's top.
        tall = (width, round(height * _Layers.HEIGHT))
        canvas.start_on(Image.new("RGB", tall, "#ffffff"))
        canvas.run(canvas.entries(keep_at))
        _layers.keep(tall, keys, keep_at, canvas.image)
        image, drawn = canvas.image, keep_at
    if image is not None:
        canvas.start_on(image.crop((0, 0, width, height)))  # a copy, as tall as this drawing
    else:
        canvas.start_on(Image.new("RGB", (width, height), "#ffffff"))
    if entries is None:
        entries = canvas.entries()
    canvas.run([entries[i] for i in wanted if i >= drawn])
    return canvas.image


def _op_key(op, items: tuple | None = None) -> tuple:
    """What an op draws, as a value: its element's attributes (and a text's words and spans), with
    the transform and the style it inherits (`items`: the style's items, if made already). Two
    ops of equal keys paint the same pixels."""
    tag, node, transform, style = op
    key: tuple = (tag, tuple(node.attrib.items()), transform, tuple(style.items()) if items is None else items)
    if tag == "text":
        key += (node.text, tuple((tuple(span.attrib.items()), span.text, span.tail) for span in node))
    return key


def _common(keys: list, other: list) -> int:
    n = 0
    for a, b in zip(keys, other):
        if a != b:
            break
        n += 1
    return n


class _Layers:
    """The first ops of drawings, drawn and kept (this process's, at most LAYERS of them): a
    game's static layer (map, grid, legend; each game draws it first) is learnt from two drawings
    that start alike, and every later drawing of the same width and at most the layer's height
    that starts with the same ops (the same places, so the same scale) starts from its pixels.
    The drawings seen last are remembered (their ops' keys, no pixels) to learn from."""

    LAYERS = 8  # kept pixels: a 600 x 1,200 picture's layer is 2 MB
    SEEN = 16
    MIN_OPS = 8  # fewer ops in common than this, or than MIN_SHARE of a drawing's: no layer
    MIN_SHARE = 0.4
    HEIGHT = 1.5  # a layer is drawn this much taller than the drawing it is learnt from

    def __init__(self) -> None:
        import threading

        self.lock = threading.Lock()
        self.layers: list[tuple] = []  # (size, keys, ops drawn, image), most recently used last
        self.seen: list[tuple] = []  # (size, keys)

    def start(self, size, keys: list):
        """(the kept image to start from or None, ops drawn in it, ops after which to keep a new
        layer: more than those drawn where this drawing shares more with one seen before)."""
        with self.lock:
            best = None
            for layer in self.layers:
                (width, height), at = layer[0], layer[2]
                fits = width == size[0] and height >= size[1]
                if fits and at > (best[2] if best else 0) and keys[:at] == layer[1][:at]:
                    best = layer
            if best is not None:
                self.layers.remove(best)
                self.layers.append(best)
                return best[3], best[2], 0
            # A new layer only where none fits: two drawings alike by chance further than the
            # static layer (two seats' views of one version) must not replace it with one that
            # fits them alone.
            least = max(self.MIN_OPS, len(keys) * self.MIN_SHARE)
            shared = [n for s, k in self.seen if s[0] == size[0] and least <= (n := _common(keys, k)) < len(keys)]
            self.seen = [seen for seen in self.seen if seen[1] != keys][-(self.SEEN - 1) :] + [(size, keys)]
        # What this drawing shares with every drawing seen that shares enough with it (not the
        # most it shares with one: two seats' views of one version share more than the next
        # version will), and not with a drawing seen whole before (its picture is kept as it is).
        # Learnt from three drawings at least: from two, a layer is often longer than the next
        # drawings share, and drawing it (taller) costs more than a drawing.
        return None, 0, (min(shared) if len(shared) >= 2 else 0)

    def keep(self, size, keys: list, at: int, image) -> None:
        with self.lock:
            self.layers = self.layers[-(self.LAYERS - 1) :] + [(size, keys, at, image)]

    def clear(self) -> None:
        with self.lock:
            self.layers, self.seen = [], []


_layers = _Layers()


# --- kept bands (issue 34) -----------------------------------------------------------------------
# A picture is made of bands of BAND rows, each kept (this process's, at most _Bands.BYTES of
# them) as its rows of palette indices, under what draws it: the ops that reach it (each op's
# key, its rows found from its shape), where it is and the palette. A band of the next picture
# with the same key is the same pixels: a game's next version, or another seat's view of this
# one, draws again only the bands that something changed reaches, with every op that reaches
# them (the rest of the picture is kept bands), and its PNG deflates rows mostly kept.

# The paint of a drawing (its palette's key): every colour and opacity the SVG names.
_PAINT = re.compile(r'(?:fill|stroke|opacity|fill-opacity|stroke-opacity|stop-color)="([^"]*)"')


class _Bands:
    """The bands kept, by key (most recently used last: the palette's id, the width, the band's
    place and height, and the ids of the ops that reach it, _Canvas.compiled: equal only where
    the ops are equal), and the palettes, one per paint of a drawing (its colours and opacities:
    the drawings of a game's next versions and other seats mostly paint with the same, and their
    bands then share it)."""

    BYTES = 48 << 20  # kept bands' bytes: a band of 32 rows 510 wide is 16 kB (3,000 bands)
    USES = 400  # drawings a palette serves (a dozen made games' bands stale while others' were drawn)

    def __init__(self) -> None:
        import threading
        from collections import OrderedDict

        self.lock = threading.Lock()
        self.bands: OrderedDict = OrderedDict()  # band key -> its rows of indices (filtered)
        self.size = 0  # their bytes
        self.palettes: dict = {}  # paint -> (id, palette image)
        self.hits = self.misses = 0

    def palette(self, paint: frozenset):
        """(id, palette) of a kept palette made for this paint or more, or (None, None): every
        colour the drawing names is in it as it is (_palette_of). A palette serves USES drawings
        at most, then is made anew from the next (a game's boards fill up and change colours over
        its versions: an old palette would drift from them)."""
        with self.lock:
            key = paint if paint in self.palettes else None
            if key is None:
                key = next((wider for wider in reversed(self.palettes) if paint <= wider), None)
            if key is None:
                return None, None
            kept = self.palettes[key]
            kept[2] += 1
            if kept[2] > self.USES:
                del self.palettes[key]
                return None, None
            return kept[0], kept[1]

    def learn(self, paint: frozenset, image):
        """A palette for this drawing and those like it: its paint with that of the kept palette
        it shares most with (a game's drawings differ by a highlight, a seat's colour: the next
        ones then find the palette made for both), chosen from its pixels (_palette_of)."""
        with self.lock:
            if len(self.palettes) > 64:
                self.palettes.clear()
            like: frozenset = max(self.palettes, key=lambda wider: len(wider & paint), default=frozenset())
        if len(like & paint) * 2 >= len(paint):
            paint = paint | like
        palette = _palette_of(image, [c for c in map(_paint_colour, paint) if c is not None])
        with self.lock:
            kept = self.palettes.setdefault(paint, [next(_serial), palette, 0])
            return kept[0], kept[1]

    def get(self, keys: list) -> list[bytes | None]:
        with self.lock:
            found = []
            for key in keys:
                band = self.bands.get(key)
                if band is not None:
                    self.bands.move_to_end(key)
                found.append(band)
            self.hits += sum(band is not None for band in found)
            self.misses += sum(band is None for band in found)
        return found

    def put(self, made: dict) -> None:
        with self.lock:
            for key, rows in made.items():
                self.size += len(rows) - len(self.bands.get(key, b""))
                self.bands[key] = rows
            while self.size > self.BYTES:
                self.size -= len(self.bands.popitem(last=False)[1])

    def clear(self) -> None:
        with self.lock:
            self.bands.clear()
            self.palettes.clear()
            self.size = self.hits = self.misses = 0


_bands = _Bands()


def _banded_png(svg: str, zoom: float) -> bytes:
    """The SVG drawn straight to pixels as a palette PNG (or Unsupported), of kept bands where it
    can: only the bands no kept one matches are drawn (with every op that reaches them, from a
    kept layer where one fits: _drawn), given their palette indices and kept."""
    canvas = _parsed(svg, zoom)
    keys = canvas.keys
    ops = canvas.entries()
    width, height = canvas.size
    paint = frozenset(_PAINT.findall(svg))
    palette_id, palette = _bands.palette(paint)
    count = -(-height // BAND)
    members: list[list[int]] = [[] for _ in range(count)]
    for op_id, first, last, _calls, _key in ops:
        for band in range(max(0, first // BAND), min(count - 1, last // BAND) + 1):
            members[band].append(op_id)
    band_keys = [
        (palette_id, width, band * BAND, min(BAND, height - band * BAND), tuple(ids))
        for band, ids in enumerate(members)
    ]
    found: list[bytes | None] = _bands.get(band_keys) if palette is not None else [None] * count
    missing = [band for band, rows in enumerate(found) if rows is None]
    if missing:
        # Every op that reaches a missing band, in order: those bands are then the whole drawing's.
        before = [0]
        for band in range(count):
            before.append(before[-1] + (found[band] is None))
        wanted = [
            i
            for i, (_id, first, last, _calls, _key) in enumerate(ops)
            if last >= 0
            and first < height
            and before[min(count, last // BAND + 1)] > before[max(0, min(count - 1, first // BAND))]
        ]
        bottom = min(height, (missing[-1] + 1) * BAND)
        image = _drawn(canvas, keys, wanted, ops, bottom)
        if palette is None:
            palette_id, palette = _bands.learn(paint, image)
            band_keys = [(palette_id, *key[1:]) for key in band_keys]
        top, bottom = missing[0] * BAND, min(height, (missing[-1] + 1) * BAND)
        indices = image.crop((0, top, width, bottom)).quantize(palette=palette, dither=0).tobytes()
        made = {}
        for band in missing:
            start, rows = band * BAND, min(BAND, height - band * BAND)
            found[band] = made[band_keys[band]] = _filtered(indices, width, start - top, rows)
        _bands.put(made)
    return _png_of(b"".join(found), width, height, bytes(palette.getpalette()))  # type: ignore[arg-type]


def _filtered(indices: bytes, width: int, start: int, rows: int) -> bytes:
    """`rows` rows of palette indices from row `start`, each after its PNG filter byte (0: none)."""
    out = bytearray(rows * (width + 1))
    raw = memoryview(indices)
    for y in range(rows):
        at = y * (width + 1) + 1
        out[at : at + width] = raw[(start + y) * width : (start + y + 1) * width]
    return bytes(out)
