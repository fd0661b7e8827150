"""The board on a narrow screen: legible, or pannable, never shrunk to unreadable text.

A game's drawing (render_html) scales to the page's width (`.board svg{max-width:100%}`). When
that would render most of its text under `LEGIBLE_PX` on a phone, the drawing gets a
`min-width` at which it is legible, and its container (`.board`, `overflow-x:auto`) pans
sideways instead of the page: a phone layout that needs no JavaScript. A drawing legible when
scaled (or wider screens, where the page is wider than the minimum) is left as it is.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

LEGIBLE_PX = 9.0  # the smallest text size a board should render at
SHARE = 0.9  # ... for at least this share of its text
DEFAULT_FONT = 16.0

_NUMBER = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(px)?\s*$")
_STYLE_FONT = re.compile(r"font-size\s*:\s*([0-9]*\.?[0-9]+)\s*(px)?", re.I)


def _font(attrs: dict) -> float | None:
    style = _STYLE_FONT.search(attrs.get("style") or "")
    if style:
        return float(style.group(1))
    found = _NUMBER.match(attrs.get("font-size") or "")
    return float(found.group(1)) if found else None


class _Drawings(HTMLParser):
    """Each <svg>'s viewBox width and the font size of each of its <text> elements (inherited
    through <g font-size=…>)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.drawings: list[dict] = []  # {"start": offset of "<svg", "width": float, "sizes": [float]}
        self._stack: list[tuple[str, float]] = []
        self._depth = 0  # svg nesting

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        inherited = self._stack[-1][1] if self._stack else DEFAULT_FONT
        size = _font(attrs) or inherited
        if tag == "svg":
            if self._depth == 0:
                box = (attrs.get("viewbox") or "").replace(",", " ").split()
                width = float(box[2]) if len(box) == 4 and _NUMBER.match(box[2]) else None
                self.drawings.append({"offset": self._offset(), "width": width, "sizes": []})
            self._depth += 1
        if self._depth and tag == "text":
            self.drawings[-1]["sizes"].append(size)
        self._stack.append((tag, size))

    def handle_startendtag(self, tag, attrs):
        pass  # <rect/>, <circle/>: nothing to inherit, no text

    def handle_endtag(self, tag):
        while self._stack:
            name, _ = self._stack.pop()
            if name == tag:
                break
        if tag == "svg" and self._depth:
            self._depth -= 1

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def feed_markup(self, markup: str):
        self._line_starts = [0]
        for found in re.finditer("\n", markup):
            self._line_starts.append(found.end())
        self.feed(markup)
        self.close()


def legible_width(width: float | None, sizes: list[float]) -> int:
    """The CSS width (px) at which SHARE of the text renders at LEGIBLE_PX or more (0: any)."""
    if not width or not sizes:
        return 0
    ordered = sorted(sizes)
    small = ordered[min(len(ordered) - 1, int(len(ordered) * (1 - SHARE)))]
    return int(width * LEGIBLE_PX / small) + 1 if small > 0 else 0


def phone_layout(markup: str) -> str:
    """`markup` with a `min-width` on each drawing that needs one to stay legible."""
    parser = _Drawings()
    try:
        parser.feed_markup(markup)
    except (ValueError, IndexError):
        return markup
    out, last = [], 0
    for drawing in parser.drawings:
        need = legible_width(drawing["width"], drawing["sizes"])
        if need <= 0:
            continue
        start = drawing["offset"] + len("<svg")
        out.append(markup[last:start])
        out.append(f' data-min-width="{need}" style="min-width:{need}px"')
        last = start
    out.append(markup[last:])
    return _merge_styles("".join(out))


_TWO_STYLES = re.compile(r'(<svg data-min-width="\d+" style="min-width:\d+px)"([^>]*?)\sstyle="([^"]*)"')


def _merge_styles(markup: str) -> str:
    """One style attribute per <svg> (a second one would be ignored by the browser)."""
    return _TWO_STYLES.sub(lambda m: f'{m.group(1)};{m.group(3)}"{m.group(2)}', markup)
