"""What players see: view, narrate, render_text (80 columns), render_html (isometric SVG + plan)."""

from __future__ import annotations

from html import escape

from . import rules

LETTERS = "RBYG"
FILL = {"red": "#d23c3c", "blue": "#3c64d2", "yellow": "#e6c832", "green": "#3ca046", None: "#9a9a9a"}
DIR_NAMES = {"e": "east", "w": "west", "n": "north", "s": "south"}


def view(state, seat):
    """Everything in Elven Castle is public: every piece, every hand, every score."""
    n = state["players"]
    res = rules.result(state)
    return {
        "seat": seat,
        "players": n,
        "options": dict(state["options"]),
        "phase": state["phase"],
        "turn": state["turn"],
        "round": rules.round_of(state),
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
        return "grey"
    return names[seat] if seat < len(names) else f"seat {seat}"


def narrate(event, names):
    d = event.data
    t = event.type
    if t == "GameStarted":
        opts = d["options"]
        bits = [f"scoring variant {opts['scoring']}"]
        if opts.get("staircase"):
            bits.append("staircases")
        if opts.get("penalties"):
            bits.append("remaining-piece penalties")
        if opts.get("scenario", "none") != "none":
            bits.append(f"scenario {rules.SCENARIOS[opts['scenario']]['title']}")
        return (f"A game of Elven Castle for {d['players']} players begins ({', '.join(bits)}). "
                f"{_who(names, d['first'])} builds first.")
    if t == "PiecePlaced":
        where = f"{rules.square(d['x'], d['y'])} {DIR_NAMES[d['dir']]} at level {d['z']}"
        text = f"{_who(names, d['seat'])} placed a {d['kind']} at {where}"
        if d["z"] == 0 and not d["on"]:
            text += " on the ground"
        elif d["on"]:
            text += " on " + " and ".join(f"#{p}" for p in d["on"])
        text += f", scoring {d['points']}"
        if len(d["arches"]) > 1:
            text += f" ({' + '.join(str(a) for a in d['arches'])})"
        if d["bonus"]:
            text += f" and {d['bonus']} for a connection between grey blocks"
        if d["offer"]:
            text += "; a staircase score"
        return text + "."
    if t == "StaircaseMade":
        return f"{_who(names, d['seat'])} joined two bridges into a staircase."
    if t == "StaircaseDeclined":
        return f"{_who(names, d['seat'])} made no staircase."
    if t == "GameEnded":
        why = "has no piece left" if d["reason"] == "no pieces" else "has no place left for a piece"
        text = f"{_who(names, d['seat'])} {why}: the game is over."
        for seat, points, detail, label in d["lines"]:
            text += f" {_who(names, seat)} {points:+d} ({label}: {detail})."
        return text
    return t


# ---------------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------------


def _grid(v):
    """Per ground point: (top level, owner of the top piece or None, piece id) or None."""
    tops = {}
    for p in v["pieces"]:
        for dx, dy, dz, _r in rules.SHAPES[p["kind"]][p["dir"]]:
            c = (p["x"] + dx, p["y"] + dy)
            lv = p["z"] + dz + 1
            if c not in tops or tops[c][0] < lv:
                tops[c] = (lv, p["owner"], p["id"])
    return tops


def _letter(owner):
    return "#" if owner is None else LETTERS[owner]


def render_text(v):
    n = v["players"]
    opts = v["options"]
    lines = []
    title = f"Elven Castle - round {v['round']}, variant {opts['scoring']}"
    if opts.get("scenario", "none") != "none":
        title += f", {rules.SCENARIOS[opts['scenario']]['title']}"
    lines.append(title)
    for s in range(n):
        h = v["hands"][s]
        hand = " ".join(f"{h[k]} {k}" for k in rules.KINDS if h.get(k)) or "empty"
        mark = ">" if v["phase"] != "over" and v["turn"] == s else " "
        you = "*" if v["seat"] == s else " "
        lines.append(f"{mark}{LETTERS[s]} {rules.COLOURS[s]:<6}{you}{v['scores'][s]:>4} pts top {v['highest'][s]:>2}"
                     f"  hand {hand}")
    lines.append("Map from above. R3.12 = the top piece here is red piece #12 (# = grey) and its")
    lines.append("top is at level 3: a foot placed here stands at level 3. x = red point.")
    tops = _grid(v)
    red = {tuple(p) for p in v["red"]}
    header = "    " + "".join(f"   {f}   " for f in rules.FILES)
    lines.append(header.rstrip())
    for y in range(rules.D - 1, -1, -1):
        row = f"{y + 1:>2}  "
        for x in range(rules.W):
            if (x, y) in tops:
                lv, owner, pid = tops[(x, y)]
                cell = f"{_letter(owner)}{lv}.{pid}"
            elif (x, y) in red:
                cell = "  x"
            else:
                cell = "  ."
            row += f" {cell:<6}"
        lines.append(row.rstrip())
    lines.append(header.rstrip())
    if v["pieces"]:
        lines.append("Pieces (# number, owner, piece, first cell, direction, level, resting on):")
        for p in v["pieces"]:
            on = "+".join(f"#{q}" for q in p["on"]) if p["on"] else "ground"
            tag = " ALTAR" if v["altar"] == p["id"] else ""
            lines.append(f" #{p['id']:<2} {_letter(p['owner'])} {p['kind']:<9} {rules.square(p['x'], p['y'])} "
                         f"{DIR_NAMES[p['dir']]:<5} level {p['z']} on {on}{tag}")
    if v["phase"] == "over":
        lines.append("Game over. Final scores: " + ", ".join(f"{LETTERS[s]} {v['scores'][s]}" for s in range(n)))
        if v["ranking"]:
            lines.append("Winner: " + " and ".join(rules.COLOURS[s] for s in v["ranking"][0]))
    elif v["phase"] == "staircase":
        lines.append(f"{rules.COLOURS[v['turn']]} may make a staircase: 'make staircase' or 'no staircase'.")
    else:
        lines.append(f"{rules.COLOURS[v['turn']]} to place a piece, e.g. 'place bridge c3 east level 0'.")
    return "\n".join(line[:80] for line in lines)


# ---------------------------------------------------------------------------------------------
# HTML / SVG
# ---------------------------------------------------------------------------------------------

A, B, C = 26.0, 13.0, 22.0  # iso half-width, half-depth, level height


def _iso(x, y, z, ox, oy):
    """Screen point of lattice point (x, y) at height z; the viewer stands south-east."""
    yy = rules.D - y  # distance from the north edge
    return ox + (x - yy) * A, oy + (x + yy) * B - z * C


def _poly(points, fill, stroke="#222", extra=""):
    """A polygon; the default dark outline comes from the enclosing <g>."""
    pts = " ".join(f"{px:.0f},{py:.0f}" for px, py in points)
    line = "" if stroke == "#222" else f' stroke="{stroke}"'
    return f'<polygon points="{pts}" fill="{fill}"{line}{extra}/>'


def _shade(colour, factor):
    r, g, b = int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
    return "#" + "".join(f"{max(0, min(255, int(c * factor))):02x}" for c in (r, g, b))


def _box(x, y, z0, z1, colour, ox, oy, outline="#222", hide=()):
    """An axis-aligned box over ground cell (x, y) from height z0 to z1: its visible faces (top,
    south, east) except those in `hide`, which a neighbouring full box covers."""
    p = lambda px, py, pz: _iso(px, py, pz, ox, oy)  # noqa: E731
    out = []
    if "south" not in hide:
        south = [p(x, y, z0), p(x + 1, y, z0), p(x + 1, y, z1), p(x, y, z1)]
        out.append(_poly(south, _shade(colour, 0.8), outline))
    if "east" not in hide:
        east = [p(x + 1, y, z0), p(x + 1, y + 1, z0), p(x + 1, y + 1, z1), p(x + 1, y, z1)]
        out.append(_poly(east, _shade(colour, 0.62), outline))
    if "top" not in hide:
        top = [p(x, y, z1), p(x + 1, y, z1), p(x + 1, y + 1, z1), p(x, y + 1, z1)]
        out.append(_poly(top, colour, outline))
    return out


def _colour(owner):
    return FILL[rules.COLOURS[owner]] if owner is not None else FILL[None]


def render_html(v):
    views = _iso_svg(v, False) + _iso_svg(v, True)
    return (f'<div class="elven-castle">{_scores_html(v)}<div style="display:flex;flex-wrap:wrap;gap:12px">'
            f'{views}<div>{_plan_svg(v)}</div></div>{_pieces_html(v)}</div>')


def _iso_svg(v, turned):
    """The castle in isometric view from the south-east, or (turned) from the north-west."""
    W, D = rules.W, rules.D

    def turn(x, y):
        return (W - 1 - x, D - 1 - y) if turned else (x, y)

    levels = max([p["z"] + rules.HEIGHT[p["kind"]] for p in v["pieces"]] + [3])
    ox = (D + 1) * A + 10
    oy = levels * C + 20
    width = (W + D + 2) * A + 20
    height = oy + (W + D) * B + 30
    side = "north-west" if turned else "south-east"
    parts = [f'<div><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
             f'width="{width:.0f}" height="{height:.0f}" role="img" '
             f'aria-label="Elven Castle seen from the {side}">',
             f'<text x="8" y="16" font-size="12" fill="#555">seen from the {side}</text>',
             '<g stroke="#222" stroke-width="0.8">']
    red = {turn(*p) for p in v["red"]}
    for y in range(D):
        for x in range(W):
            corners = [_iso(x, y, 0, ox, oy), _iso(x + 1, y, 0, ox, oy), _iso(x + 1, y + 1, 0, ox, oy),
                       _iso(x, y + 1, 0, ox, oy)]
            fill = "#f3c9c9" if (x, y) in red else ("#e9e4d4" if (x + y) % 2 else "#f4f0e4")
            parts.append(_poly(corners, fill, "#b8b0a0"))
            if (x, y) in red:
                cx, cy = _iso(x + 0.5, y + 0.5, 0, ox, oy)
                parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="#d00"/>')
    for x in range(W):  # files along the near-left edge, ranks along the near-right edge
        tx, _ = turn(x, 0)
        lx, ly = _iso(tx + 0.5, -0.45, 0, ox, oy)
        parts.append(f'<text x="{lx:.1f}" y="{ly + 4:.1f}" font-size="11" stroke="none" text-anchor="middle">{rules.FILES[x]}</text>')
    for y in range(D):
        _, ty = turn(0, y)
        lx, ly = _iso(W + 0.45, ty + 0.5, 0, ox, oy)
        parts.append(f'<text x="{lx + 4:.1f}" y="{ly + 4:.1f}" font-size="11" stroke="none" text-anchor="middle">{y + 1}</text>')
    boxes = []
    full = set()
    for p in v["pieces"]:
        colour = _shade(_colour(p["owner"]), (1.0, 0.86, 1.12)[p["id"] % 3])  # neighbours told apart
        cells = rules.SHAPES[p["kind"]][p["dir"]]
        column_top = {}
        for dx, dy, dz, _r in cells:
            column_top[(dx, dy)] = max(dz, column_top.get((dx, dy), dz))
        outline = "#e00000" if v["altar"] == p["id"] else "#222"
        for dx, dy, dz, role in cells:
            cx, cy = turn(p["x"] + dx, p["y"] + dy)
            cz = p["z"] + dz
            if role in ("foot", "body"):
                z0, z1 = cz, cz + 1
                full.add((cx, cy, cz, p["id"]))
            elif dz == column_top[(dx, dy)]:
                z0, z1 = cz + 0.62, cz + 1  # the deck over an opening, or a cantilever
            else:
                continue
            boxes.append((cx + (D - cy), z0, cx, cy, z1, colour, outline, p["id"]))
    solid = {(x, y, z) for x, y, z, _pid in full}
    same = {(x, y, z): pid for x, y, z, pid in full}
    boxes.sort(key=lambda b: (b[0], b[1], b[2]))
    for _depth, z0, cx, cy, z1, colour, outline, pid in boxes:
        hide = []
        if z1 - z0 == 1:  # a full cell: faces against another full cell of the same piece vanish
            cz = int(z0)
            if same.get((cx, cy - 1, cz)) == pid:
                hide.append("south")
            if same.get((cx + 1, cy, cz)) == pid:
                hide.append("east")
            if (cx, cy, cz + 1) in solid:
                hide.append("top")
        parts.extend(_box(cx, cy, z0, z1, colour, ox, oy, outline, hide))
    parts.append("</g></svg></div>")
    return "".join(parts)


def _plan_svg(v):
    """Plan from above: each ground point with the level of its top and the top piece's colour."""
    s = 34
    tops = _grid(v)
    red = {tuple(p) for p in v["red"]}
    w = (rules.W + 1) * s + 10
    h = (rules.D + 1) * s + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
           f'role="img" aria-label="Elven Castle, plan with levels">']
    for y in range(rules.D):
        for x in range(rules.W):
            px, py = s + x * s, (rules.D - 1 - y) * s + 5
            if (x, y) in tops:
                lv, owner, pid = tops[(x, y)]
                fill = _colour(owner)
                stroke = "#e00000" if v["altar"] == pid else "#333"
                out.append(f'<rect x="{px}" y="{py}" width="{s - 2}" height="{s - 2}" fill="{fill}" '
                           f'stroke="{stroke}" stroke-width="1.5"/>')
                out.append(f'<rect x="{px + s / 2 - 8}" y="{py + s / 2 - 9}" width="14" height="16" rx="3" '
                           f'fill="#fff" opacity="0.85"/>')
                out.append(f'<text x="{px + s / 2 - 1}" y="{py + s / 2 + 4}" font-size="13" font-weight="bold" '
                           f'text-anchor="middle" fill="#000">{lv}</text>')
            else:
                fill = "#f3c9c9" if (x, y) in red else "#f4f0e4"
                out.append(f'<rect x="{px}" y="{py}" width="{s - 2}" height="{s - 2}" fill="{fill}" stroke="#bbb"/>')
                if (x, y) in red:
                    out.append(f'<circle cx="{px + s / 2 - 1}" cy="{py + s / 2 - 1}" r="4" fill="#d00"/>')
        out.append(f'<text x="{s / 2}" y="{(rules.D - 1 - y) * s + 5 + s / 2 + 4}" font-size="12" '
                   f'text-anchor="middle">{y + 1}</text>')
    for x in range(rules.W):
        out.append(f'<text x="{s + x * s + s / 2 - 1}" y="{rules.D * s + 22}" font-size="12" '
                   f'text-anchor="middle">{rules.FILES[x]}</text>')
    out.append("</svg>")
    return "".join(out)


def _scores_html(v):
    rows = []
    for s in range(v["players"]):
        h = v["hands"][s]
        hand = ", ".join(f"{h[k]} {k}" for k in rules.KINDS if h.get(k) or k != "staircase")
        turn = " &#9664;" if v["phase"] != "over" and v["turn"] == s else ""
        colour = rules.COLOURS[s]
        rows.append(f'<tr><td><span style="color:{FILL[colour]}">&#9632;</span> {escape(colour)}{turn}</td>'
                    f'<td>{v["scores"][s]}</td><td>{escape(hand)}</td><td>{v["highest"][s]}</td></tr>')
    opts = v["options"]
    caption = f"Scoring variant {opts['scoring']}"
    if opts.get("scenario", "none") != "none":
        caption += f", scenario {escape(rules.SCENARIOS[opts['scenario']]['title'])}"
    if v["phase"] == "over":
        caption += ", game over"
    return (f'<table class="scores"><caption>{caption}</caption><tr><th>player</th><th>points</th>'
            f'<th>in hand</th><th>highest top</th></tr>{"".join(rows)}</table>')


def _pieces_html(v):
    if not v["pieces"]:
        return ""
    items = []
    for p in v["pieces"]:
        owner = "grey" if p["owner"] is None else rules.COLOURS[p["owner"]]
        on = " + ".join(f"#{q}" for q in p["on"]) if p["on"] else "ground"
        tag = " (altar)" if v["altar"] == p["id"] else ""
        items.append(f"<li>#{p['id']} {owner} {p['kind']} {rules.square(p['x'], p['y'])} {DIR_NAMES[p['dir']]} "
                     f"level {p['z']}, on {on}{tag}</li>")
    return f'<details><summary>Pieces</summary><ul>{"".join(items)}</ul></details>'
