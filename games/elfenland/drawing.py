"""The board drawn in SVG: towns, routes and the counters on them, the Elves' boots, the town
pieces still to collect, and the seat's own cards and counters.

Two layouts share the code. NARROW is a portrait drawing 360 units wide: at a phone's 358 CSS
px every text is about 10 px, and scaled to 600 px it is the picture of the turn notice.
WIDE is a landscape drawing for a desktop page, with the panels beside the map.

Where a move is made on the board the element has an id, its *target* (see `grammar.choices`):
  town-<town id>           a town (moving there)
  route-<route id, ":" as "-">   the spot in the middle of a land route (placing a counter or Trouble)
  pool-<counter>, pile     a face-up counter, the face-down pile (step 2)
  card-<card>              a kind of card in the seat's hand (discarding)
  counter-<counter>, counter-hidden-<counter>   a counter the seat holds (keeping)
Given `links` (target -> URL), each of these is wrapped in <a href> with a transparent hit area
of at least 44 units (44 CSS px on a phone in the narrow layout) and an accessible name.

Label positions are worked out once at import, per layout: each town's name goes below, above,
right or left of it, wherever it overlaps least with the other towns, names and counter spots.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape as _escape

from games.i18n import current

from . import board as B
from .lang import N_, _, ngettext

COLOURS = ("red", "blue", "green", "yellow", "purple", "black")
SEAT_FILL = {
    "red": "#d32f2f",
    "blue": "#1565c0",
    "green": "#2e7d32",
    "yellow": "#f9a825",
    "purple": "#6a1b9a",
    "black": "#212121",
}
FONT = "DejaVu Sans, sans-serif"
CHAR_W = 0.62  # DejaVu Sans: average advance of a letter, in ems (for laying out labels)

ROUTE_STYLE = {  # colour, dash pattern, width
    "road": ("#a1887f", "", 4),
    "forest": ("#2e7d32", "", 4),
    "desert": ("#e0a800", "9 4", 4),
    "mountain": ("#5d4037", "2 4", 4),
    "river": ("#1e88e5", "", 3.5),
    "lake": ("#64b5f6", "2 5", 3),
}
COUNTER_FILL = {
    "giant_pig": "#f8bbd0",
    "elfcycle": "#dcedc8",
    "magic_cloud": "#eceff1",
    "unicorn": "#e1bee7",
    "troll_wagon": "#d7ccc8",
    "dragon": "#ffcdd2",
    "raft": "#bbdefb",
}
CHIP_WORD = {
    "giant_pig": N_("pig"),
    "elfcycle": N_("cycle"),
    "magic_cloud": N_("cloud"),
    "unicorn": N_("unicorn"),
    "troll_wagon": N_("troll"),
    "dragon": N_("dragon"),
    "raft": N_("raft"),
}
COLOUR_NAMES = {
    "red": N_("red"),
    "blue": N_("blue"),
    "green": N_("green"),
    "yellow": N_("yellow"),
    "purple": N_("purple"),
    "black": N_("black"),
}
VARIANTS = {"home_cities": N_("Home Cities"), "lakes": N_("Lakes"), "boatmen": N_("Boatmen")}
LAKES = {B.MAGNUM: ("elvenhold", "strykhaven", "virst"), B.NEBULAE: ("grangor", "yttar", "parundia")}
PHASE_TEXT = {
    "draw": N_("step 2: drawing counters"),
    "place": N_("step 3: placing counters"),
    "move": N_("step 4: moving"),
    "discard": N_("step 4: discarding"),
    "keep": N_("step 5: keeping a counter"),
    "over": N_("game over"),
}


def colour(seat: int) -> str:
    """A seat's colour by name, in the reader's language."""
    return _(COLOUR_NAMES[COLOURS[seat]])


def chip_word(kind: str) -> str:
    return _(CHIP_WORD[kind])


HIT = 23  # radius of a touch target: 46 units across, 45.7 CSS px on a phone


@lru_cache(maxsize=8192)
def escape(text: str) -> str:
    """html.escape, remembered: the same names and ids come back in every drawing."""
    return _escape(text)


def text_width(text: str, size: float) -> float:
    return len(text) * size * CHAR_W


def target_of_route(route: str) -> str:
    return "route-" + route.replace(":", "-")


class Layout:
    """Where things go in one drawing: the map's projection, sizes and the panel area."""

    def __init__(self, name, width, map_x, map_y, scale_x, scale_y, font, panel):
        self.name = name
        self.width = width
        self.map_x, self.map_y, self.scale_x, self.scale_y = map_x, map_y, scale_x, scale_y
        self.font = font  # town names, counters and panel text
        self.small = font  # nothing is drawn smaller than this
        self.town_r = font * 0.8
        self.panel = panel  # (x, y, width) of the panel column
        self.xy = {t: self._project(*B.TOWNS[t]["approx_xy"]) for t in B.TOWN_IDS}
        self.spots, self.curves = self._route_spots()
        self.labels = self._place_labels()
        self._slide_chips()

    def _project(self, x, y):
        return self.map_x + (x - 8) * self.scale_x, self.map_y + (y - 10) * self.scale_y

    def _route_spots(self):
        """The middle of each route (a water route twinned with a land route bends aside)."""
        spots, curves = {}, {}
        for route in B.ROUTE_IDS:
            r = B.ROUTES[route]
            (x1, y1), (x2, y2) = self.xy[r["a"]], self.xy[r["b"]]
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            if len(B.BETWEEN[(r["a"], r["b"])]) > 1 and r["type"] in B.WATER:
                dx, dy = x2 - x1, y2 - y1
                ln = max((dx * dx + dy * dy) ** 0.5, 1)
                bend = 0.28 * ln
                cx, cy = mx - dy / ln * bend, my + dx / ln * bend
                curves[route] = (cx, cy)
                mx, my = (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4
            spots[route] = (mx, my)
        return spots, curves

    def chip_box(self, route):
        x, y = self.spots[route]
        w = text_width("unicorn", self.font) + 6
        return (x - w / 2, y - self.font * 0.8, x + w / 2, y + self.font * 0.8)

    def _place_labels(self):
        """Each town's name where it overlaps least: other names and towns weigh most, then the
        counter spots; a name never leaves the map."""
        towns = []
        for t in B.TOWN_IDS:
            x, y = self.xy[t]
            reach = self.town_r + 2
            towns.append((x - reach, y - reach - 9, x + reach, y + reach))  # the squares above it too
        chips = [self.chip_box(r) for r in B.LAND_ROUTES]
        names: list = []
        out = {}
        # Crowded towns first (most neighbours close by), so they get the best sides.
        order = sorted(
            B.TOWN_IDS,
            key=lambda t: (-sum(1 for o in B.TOWN_IDS if o != t and _dist(self.xy[t], self.xy[o]) < 24 * self.font), t),
        )
        for t in order:
            best = None
            for rank, side in enumerate(SIDES):
                box, anchor = self._label_box(t, B.name(t), side)
                if box[0] < 2 or box[2] > self.map_limit_x() or box[1] < self.map_y - 16:
                    continue
                clash = (
                    3 * sum(_overlap(box, o) for o in names)
                    + 3 * sum(_overlap(box, o) for o in towns)
                    + 2 * sum(_overlap(box, o) for o in chips)
                    + rank * 2
                )
                nearest = min(B.TOWN_IDS, key=lambda o: _box_dist(box, self.xy[o]))
                if nearest != t:  # a name nearer another town reads as that town's
                    clash += 5000
                if best is None or clash < best[0]:
                    best = (clash, box, anchor)
            out[t] = best[2]
            names.append(best[1])
        return out

    def _slide_chips(self):
        """Moves a land route's counter spot along the route, off the town names it covers."""
        names = []
        for t in B.TOWN_IDS:
            lx, ly, _anchor = self.labels[t]
            w = text_width(B.name(t), self.font)
            names.append((lx, ly - self.font * 0.82, lx + w, ly + self.font * 0.18))
        circles = []
        for t in B.TOWN_IDS:
            x, y = self.xy[t]
            circles.append((x - self.town_r, y - self.town_r, x + self.town_r, y + self.town_r))
        placed = []
        for route in B.LAND_ROUTES:
            r = B.ROUTES[route]
            (x1, y1), (x2, y2) = self.xy[r["a"]], self.xy[r["b"]]
            best = None
            for rank, t in enumerate((0.5, 0.42, 0.58, 0.34, 0.66)):
                self.spots[route] = (x1 + (x2 - x1) * t, y1 + (y2 - y1) * t)
                box = self.chip_box(route)
                clash = (
                    sum(_overlap(box, o) for o in names) * 3
                    + sum(_overlap(box, o) for o in circles) * 3
                    + sum(_overlap(box, o) for o in placed)
                    + rank * 3
                )
                if best is None or clash < best[0]:
                    best = (clash, self.spots[route], box)
            self.spots[route] = best[1]
            placed.append(best[2])

    def map_limit_x(self):
        return self.width - 2 if self.panel[1] > self.map_y else self.panel[0] - 4

    def _label_box(self, t, name, side):
        x, y = self.xy[t]
        f = self.font
        w = text_width(name, f)
        gap = self.town_r + 2
        dx = {
            "below": 0,
            "above": 0,
            "right": 1,
            "left": -1,
            "below-right": 0.5,
            "below-left": -0.5,
            "above-right": 0.5,
            "above-left": -0.5,
        }[side]
        if side in ("right", "left"):
            top = y - f / 2
        elif side.startswith("below"):
            top = y + gap
        else:
            top = y - gap - f - 9
        if dx == 0:
            left = x - w / 2
        elif dx == 1:
            left = x + gap + 3
        elif dx == -1:
            left = x - gap - 3 - w
        elif dx > 0:
            left = x - 4
        else:
            left = x + 4 - w
        box = (left, top, left + w, top + f)
        return box, (left, top + f * 0.82, "start")


SIDES = ("below", "above", "right", "left", "below-right", "below-left", "above-right", "above-left")


def _dist(a, b):
    return ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5


def _box_dist(box, point):
    dx = max(box[0] - point[0], 0, point[0] - box[2])
    dy = max(box[1] - point[1], 0, point[1] - box[3])
    return (dx * dx + dy * dy) ** 0.5


def _overlap(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


# The portrait drawing: 360 wide, the map 56..552 tall, panels below it; text 11 px, so that a
# phone showing the mail picture 360 px wide shows it at 11 px (issue 27).
NARROW = Layout("narrow", 360, map_x=24, map_y=80, scale_x=3.5, scale_y=6.1, font=11, panel=(10, 596, 340))
# The landscape drawing: the map on the left (about 800 x 560), panels in a column on the right.
WIDE = Layout("wide", 1160, map_x=40, map_y=90, scale_x=8.8, scale_y=6.6, font=13, panel=(850, 20, 300))


# ---------------------------------------------------------------------------------------------
# drawing
# ---------------------------------------------------------------------------------------------


class Canvas:
    """SVG pieces in order, with the links to wrap targets in."""

    def __init__(self, layout, links, prefix):
        self.layout = layout
        self.links = links or {}
        self.prefix = prefix
        self.parts: list[str] = []

    def add(self, svg: str):
        self.parts.append(svg)

    def text(self, x, y, text, size=None, anchor="start", weight=None, fill="#212121", italic=False):
        size = size or self.layout.font
        extra = f' font-weight="{weight}"' if weight else ""
        extra += ' font-style="italic"' if italic else ""
        self.add(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}" fill="{fill}"{extra}>'
            f"{escape(text)}</text>"
        )

    def target(self, target: str, name: str, inner: str, hit: str) -> str:
        """`inner` as the element `target`; a link with a touch-sized hit area when given one."""
        ident = escape(self.prefix + target)
        if target not in self.links:
            return f'<g id="{ident}">{inner}</g>'
        url = escape(self.links[target])
        return (
            f'<a href="{url}" aria-label="{escape(name)}" class="elf-link"><g id="{ident}">'
            f"<title>{escape(name)}</title>{inner}{hit}</g></a>"
        )


@lru_cache(maxsize=1024)
def hit_circle(x, y, r=HIT) -> str:
    return (
        f'<circle class="elf-hit" cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="#fff" fill-opacity="0" pointer-events="all"/>'
    )


def hit_rect(x, y, w, h) -> str:
    return (
        f'<rect class="elf-hit" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="#fff" '
        f'fill-opacity="0" pointer-events="all"/>'
    )


def draw(v, layout: Layout, links=None, prefix="", standalone=False, css_width=None, players=True) -> str:
    """The whole board of view `v` as one <svg> element (`players`: with the list of players,
    which the mail's picture leaves to the mail's text)."""
    cv = Canvas(layout, links, prefix)
    if not standalone:
        _title(cv, v)
    cv.add(_background(layout))
    for route in B.LAND_ROUTES:
        _route_spot(cv, v, route)
    _towns(cv, v)
    if standalone:
        # The mail's picture draws the title (which changes with every move) after the map,
        # where it does not overlap it: what does not change comes first, the same in every
        # picture, and the rasteriser keeps it drawn (pbem.mail.pictures._Layers).
        _title(cv, v)
    height = _panels(cv, v, players)
    width = layout.width
    ns = ' xmlns="http://www.w3.org/2000/svg"'
    role = 'role="group"' if links else 'role="img"'
    if standalone:
        # The mail's picture: straight shapes drawn without anti-aliasing keep the PNG small (a
        # third fewer bytes); circles and text keep theirs.
        size = css_width or width
        attrs = f'width="{size:g}" height="{size * height / width:.0f}" shape-rendering="crispEdges"'
        cv.parts = [p.replace("<circle ", '<circle shape-rendering="geometricPrecision" ') for p in cv.parts]
    else:
        attrs = f'class="elf-{layout.name}" width="100%" style="height:auto"'
    label = escape(_("Elfenland board"))
    head = f'<svg{ns} {attrs} viewBox="0 0 {width} {height:.0f}" {role} aria-label="{label}" font-family="{FONT}">'
    # The mail's picture: the backdrop taller than any picture (the picture's own height cuts
    # it), the same in every picture whatever its height.
    back = f'<rect width="{width}" height="{max(height, 3 * width) if standalone else height:.0f}" fill="#f4efe1"/>'
    return head + back + "".join(cv.parts) + "</svg>"


def _title(cv, v):
    lay = cv.layout
    phase = _(PHASE_TEXT[phase_key]) if (phase_key := v["phase"]) in PHASE_TEXT else phase_key
    x = 10 if lay.name == "narrow" else 20
    title = _("Round {round} of {rounds} · {phase}").format(round=v["round"], rounds=v["rounds"], phase=phase)
    cv.text(x, 20, title, lay.font + 2, weight="bold")
    if v["waiting"]:
        me = v["seat"]
        others = [s for s in v["waiting"] if s != me]
        mine = me is not None and me in v["waiting"]
        for name in (_seat_name, lambda s: f"P{s + 1}"):  # the colours too, where they fit
            names = ", ".join(name(s) for s in others)
            if mine:
                line = _("Your turn, and {names}").format(names=names) if others else _("Your turn")
            else:
                line = _("Waiting for {names}").format(names=names)
            if text_width(line, lay.font) <= lay.panel[2]:
                break
        cv.text(x, 38, line)
    opts = [_(VARIANTS[k]) if k in VARIANTS else k.replace("_", " ").title() for k, on in v["options"].items() if on]
    if opts:
        variants = _("Variants: {variants}").format(variants=", ".join(opts))
        cv.text(x, 52 if lay.name == "narrow" else 56, variants, italic=True)


def _seat_name(s):
    return f"P{s + 1} {colour(s)}"


def _lakes(cv):
    lay = cv.layout
    for lake, towns in LAKES.items():
        pts = " ".join(f"{lay.xy[t][0]:.1f},{lay.xy[t][1]:.1f}" for t in towns)
        cv.add(f'<polygon points="{pts}" fill="#bbdefb" fill-opacity="0.55" stroke="none"/>')
        cx = sum(lay.xy[t][0] for t in towns) / 3
        cy = sum(lay.xy[t][1] for t in towns) / 3
        cv.text(cx, cy + lay.font * 0.35, lake, anchor="middle", fill="#0d47a1", italic=True)


def _route_path(lay, route):
    r = B.ROUTES[route]
    (x1, y1), (x2, y2) = lay.xy[r["a"]], lay.xy[r["b"]]
    if route in lay.curves:
        cx, cy = lay.curves[route]
        return f"M{x1:.1f},{y1:.1f} Q{cx:.1f},{cy:.1f} {x2:.1f},{y2:.1f}"
    return f"M{x1:.1f},{y1:.1f} L{x2:.1f},{y2:.1f}"


_BACKGROUND: dict[str, str] = {}


def _background(lay) -> str:
    """The lakes and every route with its river arrow: the same in every game, drawn once."""
    if lay.name not in _BACKGROUND:
        cv = Canvas(lay, None, "")
        _lakes(cv)
        for route in B.ROUTE_IDS:
            r = B.ROUTES[route]
            colour, dash, width = ROUTE_STYLE[r["type"]]
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            cv.add(
                f'<path d="{_route_path(lay, route)}" fill="none" stroke="{colour}" stroke-width="{width}"{dash_attr}/>'
            )
            if r["type"] == "river":
                _river_arrow(cv, route)
        _BACKGROUND[lay.name] = "".join(cv.parts)
    return _BACKGROUND[lay.name]


def _river_arrow(cv, route):
    """A small arrowhead in the middle of a river, pointing downstream."""
    lay = cv.layout
    r = B.ROUTES[route]
    down = r["downstream_to"]
    up = r["a"] if down == r["b"] else r["b"]
    mx, my = lay.spots[route]
    (ux, uy), (dx, dy) = lay.xy[up], lay.xy[down]
    tx, ty = dx - ux, dy - uy  # the curve's tangent at its middle is parallel to its chord too
    ln = max((tx * tx + ty * ty) ** 0.5, 1)
    tx, ty = tx / ln, ty / ln
    s = lay.font * 0.7
    tip = (mx + tx * s, my + ty * s)
    left = (mx - tx * s * 0.6 - ty * s * 0.8, my - ty * s * 0.6 + tx * s * 0.8)
    right = (mx - tx * s * 0.6 + ty * s * 0.8, my - ty * s * 0.6 - tx * s * 0.8)
    pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (tip, left, right))
    cv.add(f'<polygon points="{pts}" fill="#0d47a1"/>')


def _route_spot(cv, v, route):
    """The counter on a land route (if any), and the route's target."""
    lay = cv.layout
    counter = v["board"].get(route)
    trouble = route in v["trouble"]
    target = target_of_route(route)
    if target not in cv.links and not counter:  # the spot is still there (an element to point at)
        cv.add(_empty_spot(lay, cv.prefix, route))
        return
    lang = current()
    name = _route_name(route, lang)
    if counter and trouble:
        name = _("{route}, {counter} counter and Trouble").format(route=name, counter=B.long(counter))
    elif counter:
        name = _("{route}, {counter} counter").format(route=name, counter=B.long(counter))
    elif trouble:
        name = _("{route} and Trouble").format(route=name)
    x, y = lay.spots[route]
    cv.add(cv.target(target, name, _spot(lay, route, counter, trouble, lang), hit_circle(x, y)))


@lru_cache(maxsize=2048)
def _spot(lay, route, counter, trouble, _lang) -> str:
    """A counter's chip (Trouble: a red frame and "!"), or for a free route offered for a
    counter a "+" square where to touch."""
    x, y = lay.spots[route]
    if not counter:
        h = lay.font * 1.3
        return (
            f'<rect x="{x - h / 2:.1f}" y="{y - h / 2:.1f}" width="{h:.1f}" height="{h:.1f}" rx="3" '
            f'fill="#e3f2fd" stroke="#0d47a1" stroke-width="1.2"/>'
            f'<text x="{x:.1f}" y="{y + lay.font * 0.36:.1f}" font-size="{lay.font:g}" '
            f'text-anchor="middle" font-weight="bold" fill="#0d47a1">+</text>'
        )
    word = chip_word(counter) + (" !" if trouble else "")
    w = text_width(word, lay.font) + 8
    h = lay.font * 1.5
    stroke = ' stroke="#c62828" stroke-width="2.5"' if trouble else ' stroke="#424242" stroke-width="1"'
    return (
        f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="3" '
        f'fill="{COUNTER_FILL[counter]}"{stroke}/>'
        f'<text x="{x:.1f}" y="{y + lay.font * 0.36:.1f}" font-size="{lay.font:g}" text-anchor="middle">'
        f"{escape(word)}</text>"
    )


@lru_cache(maxsize=512)
def _empty_spot(lay, prefix, route):
    x, y = lay.spots[route]
    return (
        f'<g id="{escape(prefix + target_of_route(route))}"><circle cx="{x:.1f}" cy="{y:.1f}" r="{HIT}" '
        f'fill="#fff" fill-opacity="0"/></g>'
    )


@lru_cache(maxsize=256)
def _route_name(route, _lang):
    r = B.ROUTES[route]
    return f"{B.name(r['a'])}–{B.name(r['b'])} ({B.type_long(r['type'])})"


def _towns(cv, v):
    lay = cv.layout
    elves: dict[str, list[int]] = {}
    for s, st in enumerate(v["seats"]):
        elves.setdefault(st["elf"], []).append(s)
    home = v.get("home")
    reach = set(v.get("reachable") or ())
    for town in B.TOWN_IDS:
        x, y = lay.xy[town]
        r = lay.town_r * (1.25 if town == B.START else 1)
        circle, label = _town_marks(lay, town)
        parts = []
        if town in reach:  # where the seat's cards can take its Elf this turn
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r + 3.5:.1f}" fill="#a5d6a7" stroke="#2e7d32" '
                f'stroke-width="1.5"/>'
            )
        if town == home:
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r + 4:.1f}" fill="none" stroke="#c62828" '
                f'stroke-width="2" stroke-dasharray="3 2"/>'
            )
        parts.append(circle)
        if B.TOWNS[town]["has_town_pieces"]:
            parts.append(_pieces(lay, v, town, x, y, r))
        parts.append(label)
        if town in elves:
            parts.append(_boots(lay, town, tuple(elves[town]), x, y, r))
        name = _("{town} (your City Card)").format(town=B.name(town)) if town == home else B.name(town)
        cv.add(cv.target(f"town-{town}", name, "".join(parts), hit_circle(x, y)))


@lru_cache(maxsize=64)
def _town_marks(lay, town) -> tuple[str, str]:
    """A town's circle and its name, the same in every game."""
    x, y = lay.xy[town]
    start = town == B.START
    r = lay.town_r * (1.25 if start else 1)
    lx, ly, anchor = lay.labels[town]
    return (
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{"#ffe082" if start else "#fffdf5"}" '
        f'stroke="#5d4037" stroke-width="1.6"/>',
        f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="{lay.font:g}" text-anchor="{anchor}" '
        f'font-weight="bold" fill="#3e2723">{escape(B.name(town))}</text>',
    )


def _pieces(lay, v, town, x, y, r):
    """A small square per seat still to collect this town's piece, in that seat's colour."""
    return _squares(lay, town, tuple(s for s, st in enumerate(v["seats"]) if town not in st["towns"]), r)


@lru_cache(maxsize=8192)
def _squares(lay, town, left, r):
    x, y = lay.xy[town]
    size = lay.font * 0.42
    total = len(left) * (size + 1)
    out = []
    for i, s in enumerate(left):
        px = x - total / 2 + i * (size + 1)
        out.append(
            f'<rect x="{px:.1f}" y="{y - r - size - 2:.1f}" width="{size:.1f}" height="{size:.1f}" '
            f'fill="{SEAT_FILL[COLOURS[s]]}"/>'
        )
    return "".join(out)


@lru_cache(maxsize=4096)
def _boots(lay, town, seats, x, y, r):
    """The Elves standing in a town: a disc in the seat's colour with its number. One Elf
    stands on the town; several stand beside it, on the side away from the town's name."""
    out = []
    br = lay.font * 0.62
    lx, _ly, anchor = lay.labels[town]
    name_right = anchor == "start" and lx > x + r  # the name is to the right of the town
    side = -1 if name_right or x + r + 7 * br > lay.map_limit_x() else 1
    for i, s in enumerate(seats):
        if len(seats) == 1:
            bx, by = x, y
        else:  # two rows, level with the town and above it (its name is below or beside it)
            col, row = divmod(i, 2)
            bx = x + side * (r + br + 1 + col * br * 2.1)
            by = y - row * br * 2.1
        fill = SEAT_FILL[COLOURS[s]]
        text = "#212121" if COLOURS[s] == "yellow" else "#fff"
        out.append(
            f'<circle cx="{bx:.1f}" cy="{by:.1f}" r="{br:.1f}" fill="{fill}" stroke="#fff" stroke-width="1"/>'
            f'<text x="{bx:.1f}" y="{by + lay.font * 0.36:.1f}" font-size="{lay.font:g}" '
            f'text-anchor="middle" font-weight="bold" fill="{text}">{s + 1}</text>'
        )
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# panels: players, the seat's hand and counters, the face-up pool, the legend, the result
# ---------------------------------------------------------------------------------------------


def _panels(cv, v, players=True) -> float:
    lay = cv.layout
    x, y, width = lay.panel
    f = lay.font
    line = f * 1.55
    if players:
        y = _players(cv, v, x, y + f, width, line)
    if v["phase"] == "draw":
        y = _pool(cv, v, x, y + f * 0.6, width)
    if v["hand"] is not None:
        y = _hand(cv, v, x, y + f * 0.6, width)
    y = _legend(cv, v, x, y + f * 0.8, width)
    if v["final"]:
        y = _final(cv, v, x, y + f * 0.4, width, line)
    bottom = y + f
    if lay.panel[1] < lay.map_y:  # the panel is a column beside the map
        bottom = max(bottom, lay.map_y + 84 * lay.scale_y)
    return bottom


def _players(cv, v, x, y, width, line):
    f = cv.layout.font
    cv.text(x, y, _("Players"), weight="bold")
    y += line * 0.9
    for s, st in enumerate(v["seats"]):
        me = _(" (you)") if s == v["seat"] else ""
        fill = SEAT_FILL[COLOURS[s]]
        cv.add(f'<circle cx="{x + f * 0.5:.1f}" cy="{y - f * 0.35:.1f}" r="{f * 0.45:.1f}" fill="{fill}"/>')
        first = " ★" if s == v["first"] else ""
        cv.text(x + f * 1.3, y, f"P{s + 1} {colour(s)}{me}{first}", weight="bold" if me else None)
        counters = " ".join(chip_word(c) for c in st["up"])
        if st["down"]:
            counters = (counters + _(" +{n} face down").format(n=st["down"])).strip()
        facts = _("{towns} towns · {cards} cards").format(towns=len(st["towns"]), cards=st["cards"])
        if st["trouble"]:
            facts += " · " + _("Trouble")
        cv.text(x + width, y, facts, anchor="end")
        if counters:
            for part in _fit(_("counters: {counters}").format(counters=counters), width - f * 1.3, f):
                y += line * 0.85
                cv.text(x + f * 1.3, y, part, fill="#4e342e")
        y += line
    cv.text(x, y - line * 0.2, _("★ First Player this round"), fill="#4e342e")
    return y + line * 0.3


def _chip(cv, target, name, x, y, w, h, fill, lines, bold_first=True, stroke="#424242"):
    f = cv.layout.font
    inner = [
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="1"/>'
    ]
    top = y + (h - len(lines) * f * 1.15) / 2 + f * 0.9
    for i, text in enumerate(lines):
        weight = ' font-weight="bold"' if i == 0 and bold_first else ""
        inner.append(
            f'<text x="{x + w / 2:.1f}" y="{top + i * f * 1.15:.1f}" font-size="{f:g}" '
            f'text-anchor="middle"{weight}>{escape(text)}</text>'
        )
    hit = hit_rect(x + min(0, (w - 2 * HIT) / 2), y + min(0, (h - 2 * HIT) / 2), max(w, 2 * HIT), max(h, 2 * HIT))
    cv.add(cv.target(target, name, "".join(inner), hit))


def _chip_row(cv, items, x, y, width, h):
    """Chips side by side, wrapping: items are (target, name, fill, lines)."""
    f = cv.layout.font
    gap = 6
    per_row = max(1, int((width + gap) // (f * 5.2 + gap)))
    w = min(f * 7, (width - gap * (per_row - 1)) / per_row)
    for i, (target, name, fill, lines) in enumerate(items):
        row, col = divmod(i, per_row)
        _chip(cv, target, name, x + col * (w + gap), y + row * (h + gap), w, h, fill, lines)
    rows = (len(items) + per_row - 1) // per_row
    return y + rows * (h + gap)


def _pool(cv, v, x, y, width):
    f = cv.layout.font
    cv.text(x, y + f, _("Face-up counters (take one) or the pile"), weight="bold")
    items = [
        (f"pool-{c}", _("face-up {counter} counter").format(counter=B.long(c)), COUNTER_FILL[c], [chip_word(c)])
        for c in v["pool"]
    ]
    # the same kind twice is one choice: one target per kind
    seen, unique = set(), []
    for item in items:
        if item[0] in seen:
            unique.append((item[0] + "-dup", item[1], item[2], item[3]))
        else:
            seen.add(item[0])
            unique.append(item)
    pile = _("the face-down pile, {n} counters").format(n=v["pile"])
    unique.append(("pile", pile, "#d7ccc8", [_("pile"), _("{n} left").format(n=v["pile"])]))
    return _chip_row(cv, unique, x, y + f * 1.5, width, max(2 * HIT, f * 3.2))


def _hand(cv, v, x, y, width):
    f = cv.layout.font
    held = [(c, k) for c, k in sorted(v["hand"].items()) if k]
    total = sum(k for _, k in held)
    cv.text(x, y + f, _("Your cards ({n})").format(n=total), weight="bold")
    y += f * 1.5
    if held:
        items = [
            (
                f"card-{c}",
                _("your {kind} cards: {n}").format(kind=B.long(c), n=k),
                COUNTER_FILL[c],
                [chip_word(c), f"× {k}"],
            )
            for c, k in held
        ]
        y = _chip_row(cv, items, x, y, width, max(2 * HIT, f * 3.4))
    else:
        cv.text(x, y + f, _("none"))
        y += f * 1.6
    mine = v["seats"][v["seat"]]
    counters = [
        (
            f"counter-{c}",
            _("your face-up {counter} counter").format(counter=B.long(c)),
            COUNTER_FILL[c],
            [chip_word(c), _("face up")],
        )
        for c in mine["up"]
    ]
    counters += [
        (
            f"counter-hidden-{c}",
            _("your face-down {counter} counter").format(counter=B.long(c)),
            "#fff8e1",
            [chip_word(c), _("face down")],
        )
        for c in v["down"] or []
    ]
    cv.text(
        x,
        y + f,
        (_("Your counters") if counters else _("Your counters: none"))
        + (" · " + _("Trouble unused") if mine["trouble"] else ""),
        weight="bold",
    )
    y += f * 1.5
    if counters:
        seen = set()
        items = []
        for target, name, fill, lines in counters:
            items.append((target if target not in seen else target + "-dup", name, fill, lines))
            seen.add(target)
        y = _chip_row(cv, items, x, y, width, max(2 * HIT, f * 3.4))
    if v.get("home"):
        home = _("Your City Card: {town} (dashed ring)").format(town=B.name(v["home"]))
        cv.text(x, y + f, home, weight="bold", fill="#c62828")
        y += f * 1.6
    if v.get("my_keep"):
        k = v["my_keep"]
        if k["counter"] is None:
            kept = _("none")
        elif k["hidden"]:
            kept = _("face-down {counter}").format(counter=B.word(k["counter"]))
        else:
            kept = B.word(k["counter"])
        cv.text(x, y + f, _("You keep: {counter}").format(counter=kept))
        y += f * 1.6
    return y


def _legend(cv, v, x, y, width):
    f = cv.layout.font
    items = [(k, B.type_long(k) if k == "road" else B.type_word(k)) for k in ROUTE_STYLE]
    longest = max(text_width(text, f) for _, text in items) + f * 3.2
    cols = max(1, min(3, int(width // longest)))
    colw = width / cols
    for i, (k, text) in enumerate(items):
        colour, dash, w = ROUTE_STYLE[k]
        row, col = divmod(i, cols)
        lx, ly = x + col * colw, y + row * f * 1.6
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        cv.add(
            f'<line x1="{lx:.1f}" y1="{ly:.1f}" x2="{lx + f * 2.2:.1f}" y2="{ly:.1f}" stroke="{colour}" '
            f'stroke-width="{w}"{dash_attr}/>'
        )
        cv.text(lx + f * 2.7, ly + f * 0.35, text)
    rows = (len(items) + cols - 1) // cols
    y += rows * f * 1.6
    note = _("River arrows point downstream. Squares above a town: who still has its piece there.")
    if v.get("reachable"):
        note += " " + _("Green: where your cards can take your Elf this turn.")
    if any(t.startswith("route-") for t in cv.links):
        note += " " + _("A + marks a free route you can place on.")
    for line in _fit(note, width, f):
        cv.text(x, y, line, fill="#4e342e")
        y += f * 1.35
    return y - f * 0.7


def _fit(text, width, size) -> list[str]:
    """`text` broken between words into lines no wider than `width` (estimated)."""
    out, line = [], ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if line and text_width(candidate, size) > width:
            out.append(line)
            line = word
        else:
            line = candidate
    return out + ([line] if line else [])


def _final(cv, v, x, y, width, line):
    f = v["final"]
    lay = cv.layout
    winners = _(" and ").join(_seat_name(s) for s in f["ranking"][0])
    count = len(f["ranking"][0])
    result = ngettext("Final result: {winners} wins", "Final result: {winners} win", count).format(winners=winners)
    cv.text(x, y + lay.font, result, weight="bold")
    y += lay.font + line
    for s in range(v["players"]):
        if f["distances"] is not None:
            text = _("{seat}: {score} ({towns} towns, −{penalty} ({town} {n} away), {cards} cards)").format(
                seat=_seat_name(s),
                score=f["scores"][s],
                towns=f["collected"][s],
                penalty=f["penalties"][s],
                town=B.name(f["homes"][s]),
                n=f["distances"][s],
                cards=f["cards"][s],
            )
        else:
            text = _("{seat}: {score} ({towns} towns, {cards} cards)").format(
                seat=_seat_name(s), score=f["scores"][s], towns=f["collected"][s], cards=f["cards"][s]
            )
        for part in _fit(text, width, lay.font):
            cv.text(x, y, part)
            y += line * 0.85
        y += line * 0.15
    return y
