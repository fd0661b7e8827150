"""The board as pictures: `render_html` for the web page and `render_svg` for the mail.

Both are built from the same panels, each 300 units wide: the forest (the face-up pieces in
resolution order, their curves and spaces) and one concoction table per seat. On the web page
every panel is its own <svg>, in a flex row that wraps: one column at phone width (a 358 px
board shows a panel at about 1.2 units per pixel, so the smallest text, 10 units, renders at
about 12 px), three columns on a desktop. The mail picture is the phone's column: the forest,
the reader's own table and a short line per other seat, one under the other, in one standalone
SVG drawn 600 px wide.

Every element a move is made on has an id (`target_*` below, the `target` of the chooser's
choices); with `links` the element is wrapped in <a href> over a hit area of at least 40 by 40
units (about 48 px on a phone), focusable by keyboard, named by its aria-label.
"""

from __future__ import annotations

import textwrap
from html import escape

from . import words as WORDS
from .data_model import CRYSTAL, FLASKS, INGREDIENTS, PIECE_BY_EFFECT, PIECES, TABLES
from .lang import N_, _
from .rules import SEAT_COLOURS

W = 300  # a panel's width in drawing units
FONT = 'font-family="DejaVu Sans, sans-serif"'
FILL = {"red": "#d33", "orange": "#f90", "yellow": "#ec2", "green": "#3a3", "blue": "#36c", "purple": "#94c"}
INK = {"yellow": "#222", "orange": "#222"}
SEAT_FILL = {"white": "#fff", "black": "#222", "pink": "#f8c", "brown": "#852", "grey": "#999"}
STAGE = {
    "place": N_("A: placing apprentices"),
    "collect": N_("B: collecting"),
    "brew": N_("C: concocting"),
    "reveal": N_("C: concocting"),
    "over": N_("game over"),
    "setup": N_("setting up"),
}
EFFECT_SHORT = {
    "steal": N_("take 1 another collected"),
    "swap": N_("swap 1 with the forest"),
    "draw": N_("draw 3, keep 1 or 2"),
    "replace": N_("renew 1-2 on another piece"),
    "dance": N_("swap 2 apprentices elsewhere"),
    "collect": N_("take the basket tile"),
}
LEGEND = (N_("ro root, st stem, le leaf, bl blossom,"), N_("be berry, se seed; the digit is the value"))
# A variety in two letters, on a token (the legend says them).
SHORT = {"root": N_("ro"), "stem": N_("st"), "leaf": N_("le"), "blossom": N_("bl"), "berry": N_("be"), "seed": N_("se")}


# ---------------------------------------------------------------------------------------------
# Target ids: where on the board a move is made (shared with the chooser)
# ---------------------------------------------------------------------------------------------


def target_space(piece, space):
    return f"space-{piece}-{space}"


def target_curve(piece, curve):
    return f"curve-{piece}-{curve}"


def target_flask(seat, dest):
    """dest: a flask, "book", "bowl" or "poison" of the seat's table."""
    return f"{dest}-{seat}"


def target_front(seat, index):
    return f"front-{seat}-{index}"


def target_drawn(index):
    return f"drawn-{index}"


TARGET_BASKET = "basket"


# ---------------------------------------------------------------------------------------------
# Small drawing helpers
# ---------------------------------------------------------------------------------------------


def _label(tok):
    if tok == CRYSTAL:
        return _("cr")
    _colour, variety, value = INGREDIENTS[tok]
    return _(SHORT[variety]) + str(value)


def _token(tok, x, y, r=12):
    """An ingredient: a disc in its colour with its variety and value; a crystal: a pale diamond."""
    if tok is None:
        return f'<circle cx="{x}" cy="{y}" r="{r}" fill="none" stroke="#bbb" stroke-dasharray="2,2"/>'
    if tok == CRYSTAL:
        return (
            f'<g><title>{escape(WORDS.ingredient(CRYSTAL))}</title><polygon points="{x},{y - r} {x + r},{y} '
            f'{x},{y + r} {x - r},{y}" fill="#bef" stroke="#333"/><text x="{x}" y="{y + 3.5}" font-size="10" '
            f'text-anchor="middle">{_label(tok)}</text></g>'
        )
    colour = INGREDIENTS[tok][0]
    return (
        f'<g><title>{escape(WORDS.ingredient(tok))}</title><circle cx="{x}" cy="{y}" r="{r}" fill="{FILL[colour]}" stroke="#333"/>'
        f'<text x="{x}" y="{y + 3.5}" font-size="10" text-anchor="middle" fill="{INK.get(colour, "#fff")}">'
        f"{_label(tok)}</text></g>"
    )


def _text(x, y, text, size=10, anchor="start", weight="", fill=""):
    extra = (f' font-weight="{weight}"' if weight else "") + (f' fill="{fill}"' if fill else "")
    anchor_attr = f' text-anchor="{anchor}"' if anchor != "start" else ""
    return f'<text x="{x}" y="{y}" font-size="{size}"{anchor_attr}{extra}>{escape(str(text))}</text>'


class Canvas:
    """Collects a panel's elements; `spot` wraps a target in a link when there is one."""

    def __init__(self, links=None):
        self.links = links or {}
        self.parts: list[str] = []

    def add(self, *parts):
        self.parts.extend(parts)

    def spot(self, target, name, x, y, w, h, inner):
        """An element where a move is made, with its hit area (x, y, w, h)."""
        url = self.links.get(target)
        if url is None:
            self.add(f'<g id="{target}">{inner}</g>')
            return
        self.add(
            f'<a id="{target}" href="{escape(url)}" aria-label="{escape(name)}"><title>{escape(name)}</title>'
            f'<rect class="hit" x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="#fff" fill-opacity="0" '
            f'stroke="#06c" stroke-opacity="0.35"/>{inner}</a>'
        )

    def svg(self):
        return "".join(self.parts)


# ---------------------------------------------------------------------------------------------
# The forest panel
# ---------------------------------------------------------------------------------------------

PIECE_H = 100


def forest_height(v):
    return 58 + PIECE_H * len(v["order"]) + 44


def _forest(v, c: Canvas):
    basket = _("centre") if v["basket"] is None else WORDS.seat(SEAT_COLOURS[v["basket"]])
    c.add(f'<rect x="1" y="1" width="{W - 2}" height="{forest_height(v) - 2}" rx="8" fill="#eef6e8" stroke="#575"/>')
    phase = v["phase"]
    stage = _(STAGE[phase]) if phase in STAGE else phase
    c.add(_text(8, 18, _("Round {round} - stage {stage}").format(round=v["round"], stage=stage), 12, weight="bold"))
    start = WORDS.seat(SEAT_COLOURS[v["start"]])
    c.add(_text(8, 34, _("bag {bag}, box {box}, start: {start}").format(bag=v["bag"], box=v["box"], start=start)))
    if v["waiting"]:
        seats = ", ".join(WORDS.seat(SEAT_COLOURS[s]) for s in v["waiting"])
        c.add(_text(8, 48, _("awaiting: {seats}").format(seats=seats)))
    spot_basket = (
        f'<rect x="{W - 70}" y="22" width="62" height="30" rx="5" fill="#f3e2b8" stroke="#864"/>'
        + _text(W - 39, 36, _("basket"), anchor="middle")
        + _text(W - 39, 48, basket, anchor="middle")
    )
    c.spot(TARGET_BASKET, _("basket tile ({holder})").format(holder=basket), W - 74, 14, 70, 44, spot_basket)
    cur = v["current"]
    y = 58
    for i, pos in enumerate(v["order"]):
        _piece(v, c, v["forest"][pos], i + 1, y, cur)
        y += PIECE_H
    down = [WORDS.effect(f["piece"]) if f["piece"] else "?" for f in v["forest"] if not f["up"]]
    if down:
        c.add(_text(8, y + 12, _("face down: {pieces}").format(pieces=", ".join(down))))
    c.add(_text(8, y + 28, _(LEGEND[0])), _text(8, y + 40, _(LEGEND[1])))


def _piece(v, c: Canvas, f, number, y, cur):
    piece = f["piece"]
    name = WORDS.effect(piece) if piece else "?"
    sign = "\u27a4 " if f["signpost"] else ""
    c.add(f'<line x1="6" y1="{y - 2}" x2="{W - 6}" y2="{y - 2}" stroke="#9b9"/>')
    c.add(_text(8, y + 13, f"{number}. {sign}{name}", 12, weight="bold"))
    if piece:
        c.add(_text(112, y + 13, _(EFFECT_SHORT[piece]), fill="#454"))
    for i, tok in enumerate(f["curves"]):
        x = 8 + i * 71
        inner = _token(tok, x + 30, y + 38, 13) + (
            _text(x + 58, y + 42, _("+bag"), 10, anchor="middle") if i == 0 else ""
        )
        what = WORDS.ingredient(tok) if tok else _("empty")
        label = _("{piece} curve {curve}: {what}").format(piece=name, curve=i + 1, what=what)
        c.spot(target_curve(piece, i + 1), label, x, y + 18, 70, 40, inner)
    baskets = PIECES[PIECE_BY_EFFECT[piece]]["baskets"] if piece else [1, 2, 1]
    for i, (b, s) in enumerate(zip(baskets, f["spaces"])):
        x = 8 + i * 96
        resolving = cur is not None and cur["pos"] == f["pos"] and cur["space"] == i
        stroke = ' stroke="#e60" stroke-width="3"' if resolving else ' stroke="#888"'
        who = WORDS.seat(SEAT_COLOURS[s]) if s is not None else _("free")
        dot = SEAT_FILL[SEAT_COLOURS[s]] if s is not None else "none"
        gets = _("{baskets}+effect").format(baskets=b) if i == 2 else _("take {baskets}").format(baskets=b)
        inner = (
            f'<rect x="{x + 2}" y="{y + 62}" width="90" height="34" rx="5" fill="#fff"{stroke}/>'
            f'<circle cx="{x + 13}" cy="{y + 79}" r="7" fill="{dot}" stroke="#333"/>'
            + _text(x + 24, y + 75, f"{i + 1}: {gets}")
            + _text(x + 24, y + 89, who, weight="bold")
        )
        label = _("{piece} space {space} ({gets}): {who}").format(piece=name, space=i + 1, gets=gets, who=who)
        c.spot(target_space(piece, i + 1), label, x, y + 58, 94, 40, inner)


# ---------------------------------------------------------------------------------------------
# A concoction table panel
# ---------------------------------------------------------------------------------------------

FLASK_STEP = 26


def _rows(count, per_row):
    return max(1, -(-count // per_row))


def table_height(v, s):
    tab, shown = _shown(v, s)
    h = 306
    h += 26 * _rows(len(shown["poison"]), 9)
    h += 40 * _rows(len(shown["front"]), 7) + 24
    if s == v["seat"] and v["looking"]:
        h += 44
    return h


def _shown(v, s):
    tab = v["tables"][s]
    if s == v["seat"] and v["mine"] is not None:
        return tab, v["mine"]
    return tab, tab


def _table_heading(v, s, c: Canvas, tab):
    """A table panel's frame, its seat, score and status."""
    colour = SEAT_COLOURS[s]
    you = _(" (you)") if s == v["seat"] else ""
    total = sum(tab["score"])
    h = table_height(v, s)
    c.add(f'<rect x="1" y="1" width="{W - 2}" height="{h - 2}" rx="8" fill="#f6efe4" stroke="#864"/>')
    c.add(f'<circle cx="16" cy="16" r="8" fill="{SEAT_FILL[colour]}" stroke="#333"/>')
    status = ""
    if v["phase"] == "brew":
        status = _(", done") if tab["done"] else _(", concocting")
    elif v["phase"] == "place":
        status = _(", {left} to place").format(left=tab["left"])
    heading = _("{seat}{you}: {total} points").format(seat=WORDS.seat(colour), you=you, total=total)
    c.add(_text(30, 20, heading, 12, weight="bold"))
    c.add(_text(W - 8, 20, _("table {table}{status}").format(table=tab["table"], status=status), anchor="end"))


def _table(v, s, c: Canvas):
    tab, shown = _shown(v, s)
    spec = TABLES[tab["table"]]
    _table_heading(v, s, c, tab)
    a, b, book, ench, curse, toxic = tab["score"]
    c.add(_text(8, 36, _("flasks {a}, corks {b}, recipe book {book},").format(a=a, b=b, book=book)))
    c.add(
        _text(
            8,
            50,
            _("enchanted {ench}, cursed {curse}, poison {toxic}").format(
                ench=f"{ench:+d}", curse=f"{curse:+d}", toxic=f"{toxic:+d}"
            ),
        )
    )
    if s == v["seat"] and v["mine"] is not None:
        c.add(_text(8, 64, _("your concocting this round is hidden from the others"), fill="#864"))
    base = 258
    for i, f in enumerate(FLASKS):
        _flask(c, s, f, spec["flasks"][f], shown["flasks"][f], tab["corks"].get(f), 8 + i * 57, base)
    y = base + 18
    # recipe book, enchanted and cursed
    specials = spec["special"]
    inner = _text(8, y + 14, _("book")) + "".join(
        _token(shown["book"][i], 56 + i * 34, y + 10)
        if shown["book"][i]
        else f'<circle cx="{56 + i * 34}" cy="{y + 10}" r="11" fill="#fff" stroke="{FILL[cl]}" stroke-width="3"/>'
        + _text(56 + i * 34, y + 13.5, _(SHORT[vr]), anchor="middle")
        for i, (cl, vr) in enumerate(specials)
    )
    book_name = _("recipe book: {specials}").format(specials=_(" and ").join(WORDS.kind(cl, vr) for cl, vr in specials))
    c.spot(target_flask(s, "book"), book_name, 4, y - 10, 106, 40, inner)
    ench_word, curse_word = WORDS.trait(spec["enchanted"]), WORDS.trait(spec["cursed"])
    c.add(_text(118, y + 8, f"+1 {ench_word}"), _text(118, y + 21, f"-1 {curse_word}"))
    bowl = shown["bowl"]
    c.spot(
        target_flask(s, "bowl"),
        _("bowl: {ing}").format(ing=WORDS.ingredient(bowl) if bowl else _("empty")),
        196,
        y - 10,
        100,
        40,
        _text(200, y + 14, _("bowl")) + _token(bowl, 252, y + 10),
    )
    y += 36
    toxic = sum(INGREDIENTS[t][2] for t in shown["poison"])
    rows = _rows(len(shown["poison"]), 9)
    inner = _text(8, y + 13, _("poison {points}").format(points=-toxic)) + "".join(
        _token(t, 82 + (i % 9) * 24, y + 9 + 26 * (i // 9), 10) for i, t in enumerate(shown["poison"])
    )
    c.spot(
        target_flask(s, "poison"),
        _("poison flask: -{toxic}").format(toxic=toxic),
        4,
        y - 6,
        W - 8,
        max(40, 26 * rows + 6),
        inner,
    )
    y += 26 * rows + 8
    _collected(v, s, c, shown, y)


def _collected(v, s, c: Canvas, shown, y):
    """What a seat collected this round, and what its reader drew (only they see it)."""
    colour = SEAT_COLOURS[s]
    c.add(_text(8, y + 8, _("collected this round:") if shown["front"] else _("collected this round: nothing")))
    y += 14
    for i, tok in enumerate(shown["front"]):
        x = 8 + (i % 7) * 41
        yy = y + 40 * (i // 7)
        label = _("{seat} collected {ing}").format(seat=WORDS.seat(colour), ing=WORDS.ingredient(tok))
        c.spot(target_front(s, i), label, x, yy - 4, 40, 40, _token(tok, x + 20, yy + 16))
    y += 40 * _rows(len(shown["front"]), 7)
    if s == v["seat"] and v["looking"]:
        c.add(_text(8, y + 14, _("you drew (only you see them):")))
        for i, tok in enumerate(v["looking"]):
            x = 170 + i * 42
            c.spot(
                target_drawn(i),
                _("drawn {ing}").format(ing=WORDS.ingredient(tok)),
                x,
                y - 2,
                40,
                40,
                _token(tok, x + 20, y + 18),
            )


def _flask(c: Canvas, s, f, req, filled, cork, x, base):
    """A flask as a column 56 wide: its spaces from the bottom, the cork on top, its name below."""
    cx = x + 26
    top = base - 14 - FLASK_STEP * len(req)
    inner = [
        f'<rect x="{x + 8}" y="{top}" width="36" height="{base - 8 - top}" rx="14" fill="#fff" '
        f'fill-opacity="0.6" stroke="#a98"/>'
    ]
    for j, r in enumerate(req):
        yy = base - 26 - FLASK_STEP * j
        tok = filled[j] if j < len(filled) else None
        if tok is not None:
            inner.append(_token(tok, cx, yy))
        elif r[0] == "colour":
            inner.append(
                f'<circle cx="{cx}" cy="{yy}" r="10" fill="#fff" stroke="{FILL[r[1]]}" stroke-width="4">'
                f"<title>{escape(WORDS.trait(r))}</title></circle>"
            )
        else:
            inner.append(
                f'<circle cx="{cx}" cy="{yy}" r="11" fill="#fff" stroke="#999"><title>{escape(WORDS.trait(r))}</title></circle>'
                + _text(cx, yy + 3.5, r[1][:2], anchor="middle", fill="#555")
            )
    if cork is not None:
        inner.append(
            f'<rect x="{cx - 13}" y="{top - 14}" width="26" height="14" rx="3" fill="#a76"/>'
            + _text(cx, top - 3, cork, anchor="middle", fill="#fff", weight="bold")
        )
    inner.append(_text(cx, base + 2, WORDS.place(f), anchor="middle"))
    nxt = req[len(filled)] if len(filled) < len(req) else None
    name = _("{flask} flask, {filled} of {size}").format(flask=WORDS.place(f), filled=len(filled), size=len(req)) + (
        _(", next {need}").format(need=WORDS.trait(nxt)) if nxt else _(", sealed")
    )
    c.spot(target_flask(s, f), name, x, top - 16, 56, base + 6 - top + 16, "".join(inner))


# ---------------------------------------------------------------------------------------------
# Others at a glance (the mail picture)
# ---------------------------------------------------------------------------------------------


def _others_height(v):
    return 24 + 30 * (len(v["tables"]) - (1 if v["seat"] is not None else 0))


def _others(v, c: Canvas):
    c.add(f'<rect x="1" y="1" width="{W - 2}" height="{_others_height(v) - 2}" rx="8" fill="#f6efe4" stroke="#864"/>')
    c.add(_text(8, 17, _("the others") if v["seat"] is not None else _("the tables"), 12, weight="bold"))
    y = 24
    for s, tab in enumerate(v["tables"]):
        if s == v["seat"]:
            continue
        colour = SEAT_COLOURS[s]
        c.add(f'<circle cx="16" cy="{y + 12}" r="7" fill="{SEAT_FILL[colour]}" stroke="#333"/>')
        line = _("{seat}: {points} pts, {corks} corks").format(
            seat=WORDS.seat(colour), points=sum(tab["score"]), corks=len(tab["corks"])
        )
        c.add(_text(28, y + 16, line, 11))
        spec = TABLES[tab["table"]]
        for i, f in enumerate(FLASKS):
            size = len(spec["flasks"][f])
            k = len(tab["flasks"][f])
            x = 186 + i * 22
            c.add(f'<rect x="{x}" y="{y + 4}" width="16" height="18" fill="#fff" stroke="#a98"/>')
            h = 18 * k / size
            fill = "#a76" if f in tab["corks"] else "#7a5"
            c.add(f'<rect x="{x}" y="{y + 22 - h:.1f}" width="16" height="{h:.1f}" fill="{fill}"/>')
        y += 30


def _final(v):
    if not v["ranking"]:
        return ""
    why = WORDS.ending(v["end"])
    places = "; ".join(
        f"{i}. " + ", ".join(f"{WORDS.seat(SEAT_COLOURS[s])} {sum(v['tables'][s]['score'])}" for s in seats)
        for i, seats in enumerate(v["ranking"], start=1)
    )
    return _("Game over ({why}): {places}").format(why=why, places=places)


# ---------------------------------------------------------------------------------------------
# The two renders
# ---------------------------------------------------------------------------------------------

STYLE = (
    "<style>.elixirus{display:flex;flex-wrap:wrap;gap:6px;align-items:flex-start}"
    ".elixirus>svg{flex:1 1 300px;max-width:440px;min-width:0;height:auto}"
    ".elixirus>p{flex:1 1 100%;margin:0;font:14px sans-serif}"
    ".elixirus a:focus{outline:none}.elixirus a:focus>rect.hit{stroke-opacity:1;stroke-width:4}"
    ".elixirus a:hover>rect.hit{stroke-opacity:1}</style>"
)


def _panel_svg(body, height, label):
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" width="{W}" height="{height}" '
        f'{FONT} role="img" aria-label="{escape(label)}">{body}</svg>'
    )


def render_html(v, links=None):
    """The board for the web page: the forest, then the reader's own table, then the others."""
    parts = [STYLE]
    final = _final(v)
    if final:
        parts.append(f"<p>{escape(final)}</p>")
    c = Canvas(links)
    _forest(v, c)
    parts.append(_panel_svg(c.svg(), forest_height(v), _("the forest")))
    seats = list(range(len(v["tables"])))
    if v["seat"] is not None:
        seats.remove(v["seat"])
        seats.insert(0, v["seat"])
    for s in seats:
        c = Canvas(links)
        _table(v, s, c)
        label = _("{seat}'s concoction table").format(seat=WORDS.seat(SEAT_COLOURS[s]))
        parts.append(_panel_svg(c.svg(), table_height(v, s), label))
    return '<div class="elixirus">' + "".join(parts) + "</div>"


PICTURE_WIDTH = 600  # the mail picture's drawn width: two pixels a unit, sharp on a phone


def render_svg(v):
    """The mail picture, for a phone first: the panels one under the other, 300 units wide (as
    the web page shows them on a phone): the forest, the reader's own table, the others at a
    glance. No text under 10 units, so a phone showing the picture 360 px wide shows it at 12 px
    (the forest beside the table, 606 units wide, showed 9 units at 5 px: issue 27). Drawn
    600 px wide."""
    body = []
    y = 0
    final = _final(v)
    if final:
        for line in textwrap.wrap(final, 38):
            y += 16
            body.append(_text(4, y, line, 12, weight="bold"))
        y += 6
    panels = []
    c = Canvas()
    _forest(v, c)
    panels.append((c, forest_height(v)))
    if v["seat"] is not None:
        c = Canvas()
        _table(v, v["seat"], c)
        panels.append((c, table_height(v, v["seat"])))
    c = Canvas()
    _others(v, c)
    panels.append((c, _others_height(v)))
    for canvas, height in panels:
        body.append(f'<g transform="translate(0,{y})">{canvas.svg()}</g>')
        y += height + 6
    height = y - 6
    shown_h = round(height * PICTURE_WIDTH / W)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PICTURE_WIDTH}" height="{shown_h}" '
        f'viewBox="0 0 {W} {height}" {FONT}><rect width="{W}" height="{height}" fill="#fff"/>'
        + "".join(body)
        + "</svg>"
    )
