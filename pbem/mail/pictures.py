"""The board as a picture in a notice: the game's own SVG (`GameSpec.render_svg`), rasterised to
PNG by resvg (resvg-py), because mail clients do not show SVG. The PNG goes inline
(multipart/related, referenced by cid: from the HTML part), with alt text; the plain-text part
keeps the text board, complete on its own.

A game without render_svg, or a render that fails, gets no picture: the notice goes out with
its text board alone (a picture is never a reason for a notice not to be sent).
"""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass

from pbem.log import eventlog

log = logging.getLogger(__name__)

MAX_BYTES = 150_000  # small enough for mobile data
ZOOMS = (1.0, 0.75, 0.5)  # tried in turn until the PNG fits in MAX_BYTES


@dataclass(frozen=True)
class Picture:
    cid: str  # the Content-ID, without angle brackets
    png: bytes
    width: int
    height: int
    alt: str


def board_png(spec, game_state, seat: int | None) -> bytes | None:
    """The seat's view of the board as PNG bytes (under MAX_BYTES), or None."""
    if spec.render_svg is None or game_state is None:
        return None
    try:
        svg = spec.render_svg(spec.view(game_state, seat))
    except Exception:  # noqa: BLE001 - a game's drawing bug must not stop its notices
        log.exception("render_svg of %s failed", spec.name)
        return None
    # Rasterising is the dear part: within a batch (eventlog.shared_loads) each distinct drawing
    # is rasterised once, for every seat whose view draws the same (keyed by the whole SVG: a
    # seat never gets a picture of anything but its own view).
    return eventlog.shared(("board png", svg), lambda: rasterise(svg))


def rasterise(svg: str) -> bytes | None:
    try:
        import resvg_py
    except ImportError:  # pragma: no cover - a dependency of the project; absent only in a broken install
        return None
    for zoom in ZOOMS:
        try:
            png = bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff"))
        except (ValueError, OSError):
            log.exception("an SVG board would not rasterise")
            return None
        if len(png) <= MAX_BYTES:
            return png
    log.warning("the board picture stays over %s bytes even at the smallest zoom: left out", MAX_BYTES)
    return None


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", png[16:24])


def picture(spec, game_state, seat: int | None, cid: str, alt: str) -> Picture | None:
    png = board_png(spec, game_state, seat)
    if png is None:
        return None
    width, height = png_size(png)
    return Picture(cid, png, width, height, alt)
