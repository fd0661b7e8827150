"""What players see: view, narrate, render_text (80 columns), render_html (the web page's board:
a plan to touch and two isometric views) and render_svg (the picture in a turn notice).

The drawings share one reading of the castle, `columns(view)`: for each ground point the piece
on top, the level a foot placed there stands at, and the arch (free spans) right under that
piece, since a placement scores the arch under its opening."""

from __future__ import annotations

import functools
import textwrap
from html import escape

from . import rules
from .lang import _
from .words import colour, direction, piece, scenario_title, sheet_detail

LETTERS = "RBYG"
FILL = {"red": "#d23c3c", "blue": "#3c64d2", "yellow": "#e6c832", "green": "#3ca046", None: "#9a9a9a"}
DIR_NAMES = {"e": "east", "w": "west", "n": "north", "s": "south"}
# Lighter fills for the plan, so its black labels read on every colour.
TINT = {"red": "#f2aaaa", "blue": "#b4c4f2", "yellow": "#f5e69a", "green": "#b2dcb6", None: "#d0d0d0"}
ARCH = "\u2229"  # the arch sign of the drawings, "∩2": an arch two spans high


def view(state, seat):
    """Everything in Elven Castle is public: every piece, every hand, every score."""
    n = state["players"]
    res = rules.result(state)
    return {
        "seat": seat,
        "players": n,
        "options": dict(state["options"]),
        "rules": rules.rules_version(state),
        "phase": state["phase"],
        "turn": state["turn"],
        "round": rules.current_round(state),
        "scores": list(state["scores"]),
        "hands": [dict(h) for h in state["hands"]],
        "pieces": [dict(p, on=list(p["on"])) for p in state["pieces"]],
        "red": [list(p) for p in state["red"]],
        "altar": state["altar"],
        "connections": state["connections"],
        "highest": [rules.highest(state, s) for s in range(n)],
        "end": dict(state["end"]) if state["end"] else None,
        "ranking": res.ranking() if res else None,
    }


def _who(names, seat):
    if seat is None:
        return _("grey")
    return names[seat] if seat < len(names) else _("seat {n}").format(n=seat)


def narrate(event, names):
    narrator = NARRATORS.get(event.type)
    return narrator(event.data, names) if narrator else event.type


def _n_game_started(d, names):
    opts = d["options"]
    bits = [_("scoring variant {variant}").format(variant=opts["scoring"])]
    if opts.get("staircase"):
        bits.append(_("staircases"))
    if opts.get("penalties"):
        bits.append(_("remaining-piece penalties"))
    if opts.get("scenario", "none") != "none":
        bits.append(_("scenario {title}").format(title=scenario_title(opts["scenario"])))
    text = _("A game of Elven Castle for {n} players begins ({options}). {first} builds first.")
    return text.format(n=d["players"], options=", ".join(bits), first=_who(names, d["first"]))


def _n_piece_placed(d, names):
    where = _("{square} {direction} at level {z}").format(
        square=rules.square(d["x"], d["y"]), direction=direction(d["dir"]), z=d["z"]
    )
    if d["z"] == 0 and not d["on"]:
        text = _("{who} placed a {piece} at {where} on the ground")
    elif d["on"]:
        text = _("{who} placed a {piece} at {where} on {on}")
    else:
        text = _("{who} placed a {piece} at {where}")
    on = _(" and ").join(f"#{p}" for p in d["on"])
    text = text.format(who=_who(names, d["seat"]), piece=piece(d["kind"]), where=where, on=on)
    text += _(", scoring {points}").format(points=d["points"])
    if len(d["arches"]) > 1:
        text += f" ({' + '.join(str(a) for a in d['arches'])})"
    if d["bonus"]:
        text += _(" and {bonus} for a connection between grey blocks").format(bonus=d["bonus"])
    if d["offer"]:
        text += _("; a staircase score")
    return text + "."


def _n_staircase_made(d, names):
    return _("{who} joined two bridges into a staircase.").format(who=_who(names, d["seat"]))


def _n_staircase_declined(d, names):
    return _("{who} made no staircase.").format(who=_who(names, d["seat"]))


def _n_game_ended(d, names):
    if d["reason"] == "no pieces":
        text = _("{who} has no piece left: the game is over.")
    else:
        text = _("{who} has no place left for a piece: the game is over.")
    text = text.format(who=_who(names, d["seat"]))
    for seat, points, detail, label in d["lines"]:
        line = _("{who} {points} ({label}: {detail}).")
        text += " " + line.format(
            who=_who(names, seat), points=f"{points:+d}", label=_(label), detail=sheet_detail(detail)
        )
    return text


NARRATORS = {
    "GameStarted": _n_game_started,
    "PiecePlaced": _n_piece_placed,
    "StaircaseMade": _n_staircase_made,
    "StaircaseDeclined": _n_staircase_declined,
    "GameEnded": _n_game_ended,
}


# ---------------------------------------------------------------------------------------------
# The castle per ground point
# ---------------------------------------------------------------------------------------------


def _cells(v):
    """{(x, y): {level: piece id}} of every occupied cell."""
    cells: dict[tuple, dict] = {}
    for p in v["pieces"]:
        for dx, dy, dz, _r in rules.SHAPES[p["kind"]][p["dir"]]:
            cells.setdefault((p["x"] + dx, p["y"] + dy), {})[p["z"] + dz] = p["id"]
    return cells


def _free_below(levels, level):
    """Free levels directly under `level` in a column, down to a piece or the board."""
    gap = 0
    level -= 1
    while level >= 0 and level not in levels:
        gap += 1
        level -= 1
    return gap


def columns(v, cells=None):
    """Per ground point (x, y): (top, owner, piece id, arch) of the piece on top: `top` is the
    level a foot placed there stands at, `arch` the free spans right under that piece here."""
    cells = _cells(v) if cells is None else cells
    pieces = v["pieces"]
    out = {}
    for point, levels in cells.items():
        high = max(levels)
        pid = levels[high]
        low = high
        while levels.get(low - 1) == pid:
            low -= 1
        out[point] = (high + 1, pieces[pid]["owner"], pid, _free_below(levels, low))
    return out


def arches(v, p, cells):
    """The free spans under each opening of piece `p` now (an arch per opening)."""
    out = []
    for arch in rules.ARCHES[p["kind"]][p["dir"]]:
        out.append(min(_free_below(cells[(p["x"] + dx, p["y"] + dy)], p["z"] + dz) for dx, dy, dz in arch))
    return out


def last_piece(v):
    """The id of the piece placed last (grey pieces are set up, not placed), or None."""
    return next((p["id"] for p in reversed(v["pieces"]) if p["owner"] is not None), None)


def _owner_name(owner):
    return colour(owner)


# ---------------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------------


def _letter(owner):
    return "#" if owner is None else LETTERS[owner]


def _wrapped(line):
    """A line of at most 80 columns, or several: nothing is cut off."""
    if len(line) <= 80:
        return [line]
    return textwrap.wrap(line, 80, subsequent_indent="      ", break_long_words=True)


def render_text(v):
    n = v["players"]
    opts = v["options"]
    out = []
    title = _("Elven Castle - round {round}, variant {variant}").format(round=v["round"], variant=opts["scoring"])
    if opts.get("scenario", "none") != "none":
        title += f", {scenario_title(opts['scenario'])}"
    out += _wrapped(title)
    for s in range(n):
        h = v["hands"][s]
        hand = " ".join(f"{h[k]} {piece(k)}" for k in rules.KINDS if h.get(k)) or _("empty")
        mark = ">" if v["phase"] != "over" and v["turn"] == s else " "
        you = "*" if v["seat"] == s else " "
        line = _("{score:>4} pts top {top:>2}  hand {hand}").format(
            score=v["scores"][s], top=v["highest"][s], hand=hand
        )
        out += _wrapped(f"{mark}{LETTERS[s]} {colour(s):<6}{you}{line}")
    cells = _cells(v)
    out += _map_lines(v, columns(v, cells))
    if v["pieces"]:
        out.append(_("Pieces (# number, owner, piece, first cell, direction, level, resting on):"))
        for p in v["pieces"]:
            out += _wrapped(_piece_line(v, p, cells))
    if v["phase"] == "over":
        scores = ", ".join(f"{LETTERS[s]} {v['scores'][s]}" for s in range(n))
        out += _wrapped(_("Game over. Final scores: {scores}").format(scores=scores))
        if v["ranking"]:
            out += _wrapped(_("Winner: {winners}").format(winners=_(" and ").join(colour(s) for s in v["ranking"][0])))
    elif v["phase"] == "staircase":
        text = _("{colour} may make a staircase: 'make staircase' or 'no staircase'.")
        out += _wrapped(text.format(colour=colour(v["turn"])))
    else:
        text = _("{colour} to place a piece, e.g. 'place bridge c3 east level 0'.")
        out += _wrapped(text.format(colour=colour(v["turn"])))
    return "\n".join(out)


def _piece_line(v, p, cells) -> str:
    on = "+".join(f"#{q}" for q in p["on"]) if p["on"] else _("ground")
    spans = arches(v, p, cells)
    arch = ""
    if any(spans):
        arch = " " + (_("arches {spans}") if len(spans) > 1 else _("arch {spans}")).format(
            spans="+".join(map(str, spans))
        )
    tag = " " + _("ALTAR") if v["altar"] == p["id"] else ""
    text = _("level {z} on {on}").format(z=p["z"], on=on)
    return (
        f" #{p['id']:<2} {_letter(p['owner'])} {piece(p['kind']):<9} {rules.square(p['x'], p['y'])} "
        f"{direction(p['dir']):<5} {text}{arch}{tag}"
    )


def map_legend() -> list[str]:
    return [
        _("Map from above. R3.12 = the top piece here is red piece #12 (# = grey) and its"),
        _("top is at level 3: a foot placed here stands at level 3. ^2 = an arch 2 spans"),
        _("high right under that piece (the {arch}2 of the picture). x = red point.").format(arch=ARCH),
    ]


def _map_cell(top):
    level, owner, pid, arch = top
    return f"{_letter(owner)}{level}.{pid}" + (f"^{arch}" if arch else "")


def _map_lines(v, tops):
    """The plan as text: 9 files of cells; in two halves if a cell is ever too wide for one."""
    red = {tuple(p) for p in v["red"]}
    text = {}
    for y in range(rules.D):
        for x in range(rules.W):
            text[(x, y)] = _map_cell(tops[(x, y)]) if (x, y) in tops else ("x" if (x, y) in red else ".")
    width = max(5, max(len(t) for t in text.values()))
    files = list(range(rules.W))
    halves = [files] if 3 + len(files) * (width + 1) <= 80 else [files[:5], files[5:]]
    lines = map_legend()
    for half in halves:
        header = "   " + "".join(f" {rules.FILES[x]:<{width}}" for x in half)
        lines.append(header.rstrip())
        for y in range(rules.D - 1, -1, -1):
            lines.append((f"{y + 1:>2} " + "".join(f" {text[(x, y)]:<{width}}" for x in half)).rstrip())
    return lines


# ---------------------------------------------------------------------------------------------
# Drawings: an isometric view (from the south-east or, turned, the north-west) and the plan
# ---------------------------------------------------------------------------------------------

A, B, C = 26, 13, 22  # iso half-width, half-depth, level height (whole pixels: integer points)
ISO_WIDTH = (rules.W + rules.D + 2) * A + 20  # 540 user units
FONT = 'font-family="DejaVu Sans,sans-serif"'
DECK = 14  # a deck or a cantilever is drawn as the top 8 of a cell's 22 units of height


@functools.cache
def _shade(colour, factor):
    r, g, b = int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
    return "#" + "".join(f"{max(0, min(255, int(c * factor))):02x}" for c in (r, g, b))


def _colour(owner):
    return FILL[rules.COLOURS[owner]] if owner is not None else FILL[None]


def _box_faces(height):
    """The south, east and top faces of a box one cell wide, `height` units tall, relative to
    the screen point of its south-west bottom corner (every box is the same shape moved)."""
    south = [(0, 0), (A, B), (A, B - height), (0, -height)]
    east = [(A, B), (2 * A, 0), (2 * A, -height), (A, B - height)]
    top = [(0, -height), (A, B - height), (2 * A, -height), (A, -B - height)]
    return [" ".join(f"{x},{y}" for x, y in face) for face in (south, east, top)]


CUBE, SLAB = _box_faces(C), _box_faces(C - DECK)


def _drawn_cells(kind, d):
    """The boxes drawn for a piece: (dx, dy, height of the box's bottom in units, "k" a full
    cube for a foot or body cell, "s" a slab for the deck over an opening or a cantilever)."""
    cells = rules.SHAPES[kind][d]
    column_top = {}
    for dx, dy, dz, _r in cells:
        column_top[(dx, dy)] = max(dz, column_top.get((dx, dy), dz))
    out = []
    for dx, dy, dz, role in cells:
        if role in ("foot", "body"):
            out.append((dx, dy, dz * C, "k"))
        elif dz == column_top[(dx, dy)]:
            out.append((dx, dy, dz * C + DECK, "s"))
    return out


DRAWN = {(k, d): _drawn_cells(k, d) for k in rules.KINDS for d in rules.DIRS}


def _box_def(key, shape, colour, altar):
    faces = CUBE if shape == "k" else SLAB
    stroke = ' stroke="#e00000" stroke-width="2"' if altar else ""
    return (
        f'<g id="{key}"{stroke}><polygon points="{faces[0]}" fill="{_shade(colour, 0.8)}"/>'
        f'<polygon points="{faces[1]}" fill="{_shade(colour, 0.62)}"/>'
        f'<polygon points="{faces[2]}" fill="{colour}"/></g>'
    )


def iso_parts(v, turned, prefix, label=15):
    """(width, height, markup) of an isometric view, without the enclosing <svg>: boxes drawn
    far to near, each a <use> of one box per colour (defined once in <defs>); its text `label`
    units high."""
    W, D = rules.W, rules.D
    side = _("seen from the north-west") if turned else _("seen from the south-east")
    boxes, defs = [], {}
    highest = 0  # how far above the board's far corner the drawing reaches, in units
    for p in v["pieces"]:
        colour = _shade(_colour(p["owner"]), (1.0, 0.86, 1.12)[p["id"] % 3])  # neighbours told apart
        altar = v["altar"] == p["id"]
        base = p["z"] * C
        for dx, dy, lift, shape in DRAWN[(p["kind"], p["dir"])]:
            cx, cy = p["x"] + dx, p["y"] + dy
            if turned:
                cx, cy = W - 1 - cx, D - 1 - cy
            key = f"{prefix}{shape}{colour[1:]}{'a' if altar else ''}"
            if key not in defs:
                defs[key] = _box_def(key, shape, colour, altar)
            near = cx + D - cy  # towards the viewer, in steps of B down the screen
            z0 = base + lift
            boxes.append((near, z0, cx, cy, key))
            highest = max(highest, z0 + (C if shape == "k" else C - DECK) - (near - 1) * B)
    boxes.sort()
    ox, oy = (D + 1) * A + 10, 30 + highest
    height = oy + (W + D) * B + 34

    def iso(x, y, z):
        yy = D - y
        return ox + (x - yy) * A, oy + (x + yy) * B - z * C

    parts = [
        f"<defs>{''.join(defs.values())}</defs>" if defs else "",
        f'<text x="8" y="20" font-size="{label}" fill="#444" {FONT}>{escape(side)}</text>',
    ]
    corners = [iso(0, 0, 0), iso(W, 0, 0), iso(W, D, 0), iso(0, D, 0)]
    parts.append(f'<polygon points="{" ".join(f"{x},{y}" for x, y in corners)}" fill="#f1ecdc" stroke="#b8b0a0"/>')
    grid = [f"M{iso(i, 0, 0)[0]} {iso(i, 0, 0)[1]}L{iso(i, D, 0)[0]} {iso(i, D, 0)[1]}" for i in range(1, W)]
    grid += [f"M{iso(0, j, 0)[0]} {iso(0, j, 0)[1]}L{iso(W, j, 0)[0]} {iso(W, j, 0)[1]}" for j in range(1, D)]
    parts.append(f'<path d="{"".join(grid)}" stroke="#cfc6b0" fill="none"/>')
    for rx, ry in v["red"]:
        tx, ty = (W - 1 - rx, D - 1 - ry) if turned else (rx, ry)
        pts = [
            iso(tx + 0.2, ty + 0.2, 0),
            iso(tx + 0.8, ty + 0.2, 0),
            iso(tx + 0.8, ty + 0.8, 0),
            iso(tx + 0.2, ty + 0.8, 0),
        ]
        parts.append(f'<polygon points="{" ".join(f"{x:.0f},{y:.0f}" for x, y in pts)}" fill="#e04848"/>')
    labels = []
    for x in range(W):  # files along the near-left edge, ranks along the near-right edge
        tx = W - 1 - x if turned else x
        lx, ly = iso(tx + 0.5, -0.6, 0)
        labels.append(f'<text x="{lx - 4:.0f}" y="{ly + 8:.0f}">{rules.FILES[x]}</text>')
    for y in range(D):
        ty = D - 1 - y if turned else y
        lx, ly = iso(W + 0.6, ty + 0.5, 0)
        labels.append(f'<text x="{lx + 6:.0f}" y="{ly + 8:.0f}">{y + 1}</text>')
    parts.append(f'<g font-size="{label}" text-anchor="middle" fill="#333" {FONT}>{"".join(labels)}</g>')
    uses = []
    for near, z0, cx, _cy, key in boxes:
        uses.append(f'<use href="#{key}" x="{ox + (cx - (D - _cy)) * A}" y="{oy + near * B - z0}"/>')
    parts.append(f'<g stroke="#222" stroke-width="0.8" stroke-linejoin="round">{"".join(uses)}</g>')
    return ISO_WIDTH, height, "".join(parts)


def _iso_svg(v, turned):
    width, height, inner = iso_parts(v, turned, "ec-nw-" if turned else "ec-se-")
    label = escape(_("The castle seen from the north-west") if turned else _("The castle seen from the south-east"))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" '
        f'aria-label="{label}">{inner}</svg>'
    )


# The plan's cells: 38 x 44 units, shown 1:1 at phone width (358 px), so each square is a
# touch target about 44 px high; the rank labels take the 18 units on the left.
PLAN_LEFT, PLAN_TOP = 18, 4


def plan_parts(v, links=None, cw=38, ch=44, scale=1.0):
    """(width, height, markup) of the plan from above: each ground point with the level of its
    top, the arch under it and the top piece's number; a square in `links` is a link. Cells
    are cw x ch units; `scale` sizes the text and margins (the picture draws it 1:1 in pixels,
    so the grid's lines fall on whole pixels). Drawn in layers, each sharing its attributes:
    the squares (the links, the targets `ec-<square>`), the frames, the red points, the texts
    (which let a touch through to the square under them)."""
    tops = columns(v)
    red = {tuple(p) for p in v["red"]}
    last = last_piece(v)
    left, top = round(PLAN_LEFT * scale), round(PLAN_TOP * scale)
    squares, frames, dots, levels, numbers = [], [], [], [], []
    for y in range(rules.D - 1, -1, -1):
        for x in range(rules.W):
            px, py = left + x * cw, top + (rules.D - 1 - y) * ch
            sq = rules.square(x, y)
            here = tops.get((x, y))
            if here is None:
                fill = "#f4f0e4"
                if (x, y) in red:
                    dots.append(f'<circle cx="{px + cw // 2}" cy="{py + ch // 2}" r="{cw // 7}"/>')
            else:
                level, owner, pid, arch = here
                fill = TINT[rules.COLOURS[owner]] if owner is not None else TINT[None]
                if arch:
                    levels.append(
                        f'<text x="{px + cw // 2}" y="{py + ch // 2}">{level}<tspan font-size="'
                        f'{round(12 * scale)}" font-weight="normal">{ARCH}{arch}</tspan></text>'
                    )
                else:
                    levels.append(f'<text x="{px + cw // 2}" y="{py + ch // 2}">{level}</text>')
                numbers.append(f'<text x="{px + cw // 2}" y="{py + round(ch * 0.86)}">#{pid}</text>')
                frame = "#e00000" if v["altar"] == pid else ("#000" if pid == last else None)
                if frame:
                    frames.append(
                        f'<rect x="{px + 1.5}" y="{py + 1.5}" width="{cw - 3}" height="{ch - 3}" stroke="{frame}"/>'
                    )
            rect = f'<rect id="ec-{sq}" x="{px}" y="{py}" width="{cw}" height="{ch}" fill="{fill}"/>'
            target = f"ec-{sq}"
            if links and target in links:
                name = escape(_square_name(v, here, (x, y) in red))
                rect = f'<a href="{escape(links[target], quote=True)}" aria-label="{sq}: {name}">{rect}</a>'
            squares.append(rect)
    labels = []
    for y in range(rules.D):
        labels.append(
            f'<text x="{left // 2}" y="{top + (rules.D - 1 - y) * ch + ch // 2 + round(5 * scale)}">{y + 1}</text>'
        )
    base = top + rules.D * ch
    for x in range(rules.W):
        labels.append(f'<text x="{left + x * cw + cw // 2}" y="{base + round(17 * scale)}">{rules.FILES[x]}</text>')
    width = left + rules.W * cw + round(2 * scale)
    height = base + round(22 * scale)
    markup = (
        f'<g stroke="#8a8478" shape-rendering="crispEdges">{"".join(squares)}</g>'
        f'<g fill="none" stroke-width="3">{"".join(frames)}</g><g fill="#d00">{"".join(dots)}</g>'
        f'<g {FONT} text-anchor="middle" pointer-events="none">'
        f'<g font-size="{round(18 * scale)}" font-weight="bold">{"".join(levels)}</g>'
        f'<g font-size="{round(11 * scale)}">{"".join(numbers)}</g>'
        f'<g font-size="{round(14 * scale)}" fill="#333">{"".join(labels)}</g></g>'
    )
    return width, height, markup


def _square_name(v, here, red_point):
    """A square of the plan as a link names it (`here`: its column's top, as `columns` has it);
    worked out for the linked squares alone (the picture links none)."""
    if here is None:
        return _("red point, free ground") if red_point else _("free ground")
    level, owner, pid, arch = here
    name = _("level {level}, {owner} {piece} #{number}").format(
        level=level, owner=_owner_name(owner), piece=piece(v["pieces"][pid]["kind"]), number=pid
    )
    if arch:
        name += _(", arch {n} high").format(n=arch)
    return name


def _plan_svg(v, links=None):
    width, height, inner = plan_parts(v, links)
    role = 'role="group"' if links else 'role="img"'
    label = escape(_("Plan of the castle: the level of each top"))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" {role} aria-label="{label}">{inner}</svg>'
    )


# ---------------------------------------------------------------------------------------------
# The web page's board
# ---------------------------------------------------------------------------------------------

# One layout for every width: the drawings scale to their box (width:100%), the boxes wrap, so at
# 358 px each drawing takes the full width (plan 1:1, isometric views at 0.66 with 15-unit
# labels, 9.9 px) and at 1200 px the plan and a view sit side by side.
STYLE = (
    "<style>.ec-board{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start}"
    ".ec-plan{flex:1 1 360px;max-width:420px}.ec-iso{flex:1 1 440px;max-width:600px}"
    ".ec-board svg{display:block;width:100%;height:auto}"
    ".ec-board a:focus rect,.ec-board a:hover rect{stroke:#1a5fd0;stroke-width:4}"
    ".ec-legend{font-size:14px;margin:4px 0}</style>"
)


def render_html(v, links=None):
    """The board for the web page; with `links` (target -> URL, the targets of `choices`) each
    of those squares of the plan is a link, a touch target about 38 x 44 px at phone width."""
    return (
        f'<div class="elven-castle">{STYLE}{_scores_html(v)}<div class="ec-board">'
        f'<div class="ec-plan">{_plan_svg(v, links)}</div>'
        f'<div class="ec-iso">{_iso_svg(v, False)}</div><div class="ec-iso">{_iso_svg(v, True)}</div></div>'
        f'<p class="ec-legend">{escape(_legend(v))}</p>{_pieces_html(v)}</div>'
    )


def _legend(v):
    text = _(
        "Plan: the number is the level of the top (a foot placed there stands at it), {arch}n an arch "
        "n spans high under it, #n the piece on top."
    ).format(arch=ARCH)
    last = last_piece(v)
    if last is not None:
        p = v["pieces"][last]
        text += " " + _(
            "Last placed (black frame): {owner} {piece} #{number} at {square} {direction}, level {z}."
        ).format(
            owner=_owner_name(p["owner"]),
            piece=piece(p["kind"]),
            number=last,
            square=rules.square(p["x"], p["y"]),
            direction=direction(p["dir"]),
            z=p["z"],
        )
    return text


def _scores_html(v):
    rows = []
    for s in range(v["players"]):
        h = v["hands"][s]
        hand = ", ".join(f"{h[k]} {piece(k)}" for k in rules.KINDS if h.get(k)) or _("nothing")
        turn = " &#9664;" if v["phase"] != "over" and v["turn"] == s else ""
        fill = FILL[rules.COLOURS[s]]
        rows.append(
            f'<tr><td><span style="color:{fill}">&#9632;</span> {escape(colour(s))}{turn}</td>'
            f"<td>{v['scores'][s]}</td><td>{escape(hand)}</td><td>{v['highest'][s]}</td></tr>"
        )
    opts = v["options"]
    caption = _("Round {round}, scoring variant {variant}").format(round=v["round"], variant=opts["scoring"])
    if opts.get("scenario", "none") != "none":
        caption += ", " + _("scenario {title}").format(title=scenario_title(opts["scenario"]))
    if v["phase"] == "over":
        caption += _(", game over")
    head = "".join(f"<th>{escape(h)}</th>" for h in (_("player"), _("points"), _("in hand"), _("highest top")))
    return f'<table class="scores"><caption>{escape(caption)}</caption><tr>{head}</tr>{"".join(rows)}</table>'


def _pieces_html(v):
    if not v["pieces"]:
        return ""
    items = []
    for p in v["pieces"]:
        on = " + ".join(f"#{q}" for q in p["on"]) if p["on"] else _("ground")
        tag = " " + _("(altar)") if v["altar"] == p["id"] else ""
        where = _("level {z}, on {on}").format(z=p["z"], on=on)
        items.append(
            f"<li>#{p['id']} {escape(_owner_name(p['owner']))} {escape(piece(p['kind']))} "
            f"{rules.square(p['x'], p['y'])} {escape(direction(p['dir']))} {escape(where)}{escape(tag)}</li>"
        )
    summary = escape(_("Pieces"))
    return f"<details><summary>{summary}</summary><ul>{''.join(items)}</ul></details>"


# ---------------------------------------------------------------------------------------------
# The picture in a turn notice
# ---------------------------------------------------------------------------------------------

PICTURE_WIDTH = 600  # px: the width the picture is drawn at (sharp on a phone's screen)
PICTURE_UNITS = 360  # its layout's width: what a phone shows about 1:1
PICTURE_TEXT = 12  # units: the smallest text, 12 px when a phone shows the picture 360 px wide
PICTURE_CELL = 37  # units: the plan's cells (9 of them and the rank labels in 360)
PICTURE_ISO_LABEL = 18  # units: the isometric view's labels, drawn at 2/3 (12 units)


def render_svg(v):
    """The board as one SVG document for a mail, laid out for a phone (360 units wide, drawn
    600 px wide; rasterised to PNG by the platform): the scores, the castle from the south-east
    and the plan with square cells, one under the other. Text is at least 12 units, so it
    reads at 12 px when a phone shows the picture 360 px wide (the 600-unit layout before
    showed its 15-unit text at 9 px: issue 27)."""
    width = PICTURE_UNITS
    parts = []
    y = _picture_header(v, parts, width)
    iso_w, iso_h, iso = iso_parts(v, False, "m-", label=PICTURE_ISO_LABEL)
    k = width / iso_w
    parts.append(f'<g transform="translate(0 {y}) scale({k:.4f})">{iso}</g>')
    y += round(iso_h * k)
    plan_w, plan_h, plan = plan_parts(v, cw=PICTURE_CELL, ch=PICTURE_CELL + 3, scale=1.1)
    parts.append(f'<g transform="translate({(width - plan_w) // 2} {y})">{plan}</g>')
    y += plan_h
    for line in textwrap.wrap(_legend(v), 46):
        y += 16
        parts.append(f'<text x="6" y="{y}" font-size="{PICTURE_TEXT}" fill="#333" {FONT}>{escape(line)}</text>')
    height = y + 10
    shown_h = round(height * PICTURE_WIDTH / width)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PICTURE_WIDTH}" height="{shown_h}" '
        f'viewBox="0 0 {width} {height}"><rect width="{width}" height="{height}" fill="#fff"/>'
        f"{''.join(parts)}</svg>"
    )


# What render_svg does not read of the view: every seat's picture of a version is the same one
# (everything is public), found by the sender without drawing it again for each seat
# (pbem.mail.pictures.view_digest; tests/games/elven_castle/test_pictures.py draws it).
render_svg.picture_ignores = ("seat",)  # type: ignore[attr-defined]


def _picture_header(v, parts, width):
    """Title, the scenario or the result, and the scores at the top, in `width` units (the scores
    wrap); returns the height used."""
    opts = v["options"]
    title = _("Elven Castle \u00b7 round {round} \u00b7 variant {variant}").format(
        round=v["round"], variant=opts["scoring"]
    )
    parts.append(f'<text x="6" y="20" font-size="17" font-weight="bold" {FONT}>{escape(title)}</text>')
    y = 20
    notes = []
    if opts.get("scenario", "none") != "none":
        notes.append(_("scenario {title}").format(title=scenario_title(opts["scenario"])))
    if v["phase"] == "over":
        winners = _(" and ").join(colour(s) for s in (v["ranking"] or [[]])[0])
        notes.append(_("game over, won by {winners}").format(winners=winners))
    for line in textwrap.wrap("; ".join(notes), 44):
        y += 18
        parts.append(f'<text x="6" y="{y}" font-size="14" fill="#333" {FONT}>{escape(line)}</text>')
    x, row = 6, y
    for s in range(v["players"]):
        fill = FILL[rules.COLOURS[s]]
        turn = " \u25c0" if v["phase"] != "over" and v["turn"] == s else ""
        label = f"{colour(s)} {v['scores'][s]}{turn}"
        room = 20 + round(9 * len(label)) + 12
        if x > 6 and x + room > width:
            x, row = 6, row + 22
        parts.append(
            f'<rect x="{x}" y="{row + 8}" width="14" height="14" fill="{fill}"/>'
            f'<text x="{x + 20}" y="{row + 20}" font-size="15" {FONT}>{escape(label)}</text>'
        )
        x += room
    return row + 30
