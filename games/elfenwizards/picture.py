"""The board drawn as SVG: the pyramid of titles as a tree, the spell spaces, the players.

- render_svg(view): one standalone SVG document (width, height and viewBox set), for the picture
  in a turn notice (rasterised to PNG by the mail).
- drawing(view, links): the same drawing for the web page, scaled to the page's width; with
  `links` (a chooser target -> URL) each wizard and space that is a target is wrapped in <a>.

Element ids are the chooser's targets: `wizard-red3` for a wizard's token, `space-N4`,
`space-MAJOR_D`, `space-MINOR`, `space-GRAY` for the spaces (see chooser.py). Everything in
Elfenwizards is public, so the picture of a seat's view shows what a spectator's shows, plus the
line naming the reader's colour. Only the fonts "DejaVu Sans" / sans-serif; no text under 10 px.
"""

from __future__ import annotations

import html

from . import words as W
from .board import (
    CONTESTS,
    LEVELS,
    MAJOR_LEVELS,
    POINTS,
    ROUT_OF,
    TITLES_BY_LEVEL,
    WIZARD_SPACES,
)
from .lang import _

FONT = "DejaVu Sans, sans-serif"
FILL = {"red": "#c0392b", "green": "#27ae60", "blue": "#2c6fbb", "yellow": "#e1b12c", "black": "#222222"}
INK = {"yellow": "#000000"}  # text on a token of this colour (white otherwise)
MARGIN = 8
LABEL_W = 100  # the level names on the left
BOX_W, PITCH = 60, 64  # a Necromancer space and the step between two (the tree's finest level)
WIDTH = LABEL_W + 8 * PITCH + MARGIN
PILL_W, PILL_H = 54, 18
TEXT, SMALL, TITLE = 12, 11, 15


def _e(text) -> str:
    return html.escape(str(text))


class Canvas:
    def __init__(self, links, suffix="", tiny=10):
        self.links = links or {}
        self.suffix = suffix  # appended to every element id (two drawings in one page)
        self.tiny = tiny  # the smallest text: a space's name, a wizard's gray magic and points
        self.parts: list[str] = []

    def add(self, part: str):
        self.parts.append(part)

    def text(self, x, y, content, size=TEXT, bold=False, fill="#222222", anchor="start"):
        weight = ' font-weight="bold"' if bold else ""
        end = f' text-anchor="{anchor}"' if anchor != "start" else ""
        self.add(f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}"{weight}{end} fill="{fill}">{_e(content)}</text>')

    def target(self, target: str, name: str, body: list[str]):
        inner = f'<g id="{_e(target + self.suffix)}">' + "".join(body) + "</g>"
        url = self.links.get(target)
        if url is None:
            self.add(inner)
        else:
            self.add(f'<a href="{_e(url)}" aria-label="{_e(name)}"><title>{_e(name)}</title>{inner}</a>')


def _space_x() -> dict:
    """Left edge and width of every title and Wizard space: each title centred over the two
    spaces whose candidates contest it (the tree), each Wizard space under its two Necromancer
    titles."""
    boxes: dict[str, tuple[float, float]] = {}
    for i, sp in enumerate(TITLES_BY_LEVEL["necromancer"]):
        boxes[sp] = (LABEL_W + i * PITCH, BOX_W)
    for contest in reversed(CONTESTS):  # from the bottom up: a title over its candidate spaces
        below = [boxes[s] for s in contest["from"] if s in boxes]
        if below and len(contest["titles"]) == 1:
            left = min(x for x, _w in below)
            right = max(x + w for x, w in below)
            centre = (left + right) / 2
            boxes[contest["titles"][0]] = (centre - BOX_W / 2, BOX_W)
    for contest in CONTESTS:
        if len(contest["titles"]) == 2:  # a Wizard space under its two Necromancer titles
            (x1, _), (x2, w2) = boxes[contest["titles"][0]], boxes[contest["titles"][1]]
            for s in contest["from"]:
                boxes[s] = (x1, x2 + w2 - x1)
    return boxes


BOXES = _space_x()


def _pill(c: Canvas, x, y, wizard, points, cast_here):
    """A wizard's token: its name on its colour, its gray magic tokens and the points cast for it."""
    colour = wizard["colour"]
    body = [
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{PILL_W}" height="{PILL_H}" rx="9" fill="{FILL.get(colour, "#888")}" '
        f'stroke="#000000" stroke-width="0.8"/>',
        f'<text x="{x + PILL_W / 2:.0f}" y="{y + 13:.0f}" font-size="{SMALL}" text-anchor="middle" '
        f'fill="{INK.get(colour, "#ffffff")}">{_e(wizard["name"])}</text>',
    ]
    extra = []
    if wizard["gray"]:
        extra.append(_("gray {n}").format(n=wizard["gray"]))
    if cast_here:
        extra.append(_("{n} pts").format(n=points))
    if extra:
        body.append(
            f'<text x="{x + PILL_W / 2:.0f}" y="{y + PILL_H + 11:.0f}" font-size="{c.tiny}" text-anchor="middle" '
            f'fill="#333333" font-weight="bold">{_e(", ".join(extra))}</text>'
        )
    name = f"{wizard['name']}" + (_(", {n} gray magic").format(n=wizard["gray"]) if wizard["gray"] else "")
    c.target(f"wizard-{wizard['name']}", name, body)


def _space(c: Canvas, v, space, x, y, w, h, label, points, fill="#f4f1ea"):
    here = v["board"].get(space, [])
    body = [
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h}" rx="5" fill="{fill}" stroke="#8a7f6b"/>',
        f'<text x="{x + 4:.0f}" y="{y + 12:.0f}" font-size="{c.tiny}" fill="#555555">{_e(label)}</text>',
    ]
    c.target(f"space-{space}", label, body)
    per_row = max(1, int((w - 4) // (PILL_W + 4)))
    for k, wizard in enumerate(here):
        px = x + 3 + (k % per_row) * (PILL_W + 4)
        py = y + 16 + (k // per_row) * (PILL_H + 14)
        _pill(c, px, py, wizard, points.get(wizard["name"], 0), wizard["name"] in points)


def _rows_needed(v, space, w) -> int:
    per_row = max(1, int((w - 4) // (PILL_W + 4)))
    return max(1, -(-len(v["board"].get(space, [])) // per_row))


def drawing(v, links=None, standalone=True) -> str:
    c = Canvas(links)
    y = _heading(c, v)
    points = {s["wizard"]: s["points"] for s in v["spells_cast"]}
    y = _title_tree(c, v, y, points)
    y = _rout_spaces(c, v, y, points)
    y = _spell_spaces(c, v, y)
    y = _players(c, v, y)
    return _svg(c, v, y, links, standalone)


def _heading(c: Canvas, v) -> float:
    """The title, the phase, the dragon and turn order, and who is awaited (or the result)."""
    colours = v["colours"]
    y: float = MARGIN + TITLE
    c.text(MARGIN, y, _title(v), TITLE, bold=True)
    y += 17
    c.text(MARGIN, y, _phase(v), TEXT)
    y += 16
    text = _("Dragon: {colour}. Turn order: {order}.").format(colour=W.colour(v["dragon"]), order=W.colours(v["order"]))
    c.text(MARGIN, y, text, TEXT)
    if v.get("you"):
        you = _e(_("You are {colour}").format(colour=W.colour(v["you"])))
        c.add(
            f'<text x="{WIDTH - MARGIN}" y="{y}" font-size="{TEXT}" text-anchor="end" font-weight="bold" '
            f'class="you" fill="{FILL.get(v["you"], "#222222")}">{you}</text>'
        )
    y += 16
    if v["end_reason"]:
        scores = v["scores"]
        top = max(scores)
        won = [colours[i] for i, s in enumerate(scores) if s == top]
        text = _("Game over: {reason}.").format(reason=W.end(v["end_reason"])) + " " + _won(won, top)
        c.text(MARGIN, y, text, TEXT, bold=True)
    elif v["waiting_for"]:
        c.text(MARGIN, y, _("Waiting for: {colours}").format(colours=W.colours(v["waiting_for"])), TEXT, bold=True)
    y += 10
    return y


def _title_tree(c: Canvas, v, y: float, points) -> float:
    """The levels as a tree: each title over the two spaces that contest it."""
    # contest lines, drawn first (behind the spaces)
    row_y: dict[str, tuple[float, float]] = {}
    heights = {}
    for lv in LEVELS:
        spaces = TITLES_BY_LEVEL[lv] or WIZARD_SPACES
        rows = max(_rows_needed(v, sp, BOXES[sp][1]) for sp in spaces)
        heights[lv] = 20 + rows * (PILL_H + 14)
    for lv in LEVELS:
        row_y[lv] = (y, heights[lv])
        y += heights[lv] + 14
    level_of_space = {}
    for lv in LEVELS:
        for sp in TITLES_BY_LEVEL[lv] or WIZARD_SPACES:
            level_of_space[sp] = lv
    for contest in CONTESTS:
        for title in contest["titles"]:
            tx, tw = BOXES[title]
            ty, th = row_y[level_of_space[title]]
            for sp in contest["from"]:
                sx, sw = BOXES[sp]
                sy, _sh = row_y[level_of_space[sp]]
                c.add(
                    f'<line x1="{tx + tw / 2:.0f}" y1="{ty + th:.0f}" x2="{sx + sw / 2:.0f}" y2="{sy:.0f}" '
                    f'stroke="#b8ad98" stroke-width="1.5"/>'
                )
    for lv in LEVELS:
        ly, lh = row_y[lv]
        c.text(MARGIN, ly + 14, W.level(lv), TEXT, bold=True)
        c.text(MARGIN, ly + 28, _("{n} points").format(n=POINTS[lv]), SMALL, fill="#555555")
        spaces = TITLES_BY_LEVEL[lv] or WIZARD_SPACES
        for sp in spaces:
            x, w = BOXES[sp]
            fill = "#fff6d6" if lv == LEVELS[0] else "#f4f1ea"
            _space(c, v, sp, x, ly, w, lh, sp, points, fill)
    return y


def _rout_spaces(c: Canvas, v, y: float, points) -> float:
    # the Rout spaces of the Druid, Sorcerer and Necromancer levels, side by side below the tree
    routs = [lv for lv in LEVELS if lv in ROUT_OF]
    c.text(MARGIN, y + 14, _("Rout"), TEXT, bold=True)
    w = (WIDTH - MARGIN - LABEL_W - (len(routs) - 1) * 6) / len(routs)
    rows = max(_rows_needed(v, ROUT_OF[lv], w) for lv in routs)
    h = 20 + rows * (PILL_H + 14)
    for i, lv in enumerate(routs):
        if lv != "necromancer":
            label = _("{level} rout, gray magic").format(level=W.level(lv))
        else:
            label = _("{level} rout").format(level=W.level(lv))
        _space(c, v, ROUT_OF[lv], LABEL_W + i * (w + 6), y, w, h, label, points, "#f3e9f7")
    y += h + 10
    return y


def _svg(c: Canvas, v, y: float, links, standalone) -> str:
    height = int(y + MARGIN)
    size = (
        f'width="{WIDTH}" height="{height}"'
        if standalone
        else f'width="{WIDTH}" height="{height}" style="max-width:100%;height:auto"'
    )
    role = 'role="group"' if links else 'role="img"'
    label = _board_label(v)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" {size} font-family="{FONT}" '
        f'{role} aria-label="{_e(label)}"><rect width="{WIDTH}" height="{height}" fill="#ffffff"/>'
        + "".join(c.parts)
        + "</svg>"
    )


def _dice_box(c: Canvas, x, y, w, h, label, dice, target):
    body = [
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h}" rx="5" fill="#eef2f7" stroke="#8a8fa0"/>',
        f'<text x="{x + 4:.0f}" y="{y + 13:.0f}" font-size="{SMALL}" fill="#333333">{_e(label)}</text>',
    ]
    c.target(target, label, body)
    per_row = max(1, int((w - 6) // 21))
    for k, (colour, value) in enumerate(dice):
        dx = x + 4 + (k % per_row) * 21
        dy = y + 19 + (k // per_row) * 21
        c.add(
            f'<rect x="{dx:.0f}" y="{dy:.0f}" width="18" height="18" rx="3" fill="{FILL.get(colour, "#888888")}" '
            f'stroke="#000000" stroke-width="0.6"/><text x="{dx + 9:.0f}" y="{dy + 13:.0f}" font-size="{TEXT}" '
            f'text-anchor="middle" fill="{INK.get(colour, "#ffffff")}">{value}</text>'
        )


def _spell_spaces(c: Canvas, v, y, width=WIDTH, columns=3) -> float:
    major = _("Major: {level}")
    boxes = [(major.format(level=W.level(lv)), v["major"][lv], f"space-MAJOR_{lv[0].upper()}") for lv in MAJOR_LEVELS]
    boxes.append((_("Minor Spells"), v["minor_dice"], "space-MINOR"))
    boxes.append((_("Gray Magic ({n} left)").format(n=v["gray_supply"]), v["gray_dice"], "space-GRAY"))
    w = (width - 2 * MARGIN - (columns - 1) * 6) / columns
    per_row = max(1, int((w - 6) // 21))
    for row in range(0, len(boxes), columns):
        part = boxes[row : row + columns]
        rows = max([1] + [-(-len(d) // per_row) for _l, d, _t in part])
        h = 24 + rows * 21
        for i, (label, dice, target) in enumerate(part):
            _dice_box(c, MARGIN + i * (w + 6), y, w, h, label, dice, target)
        y += h + 6
    if v["rolled"]:
        r = v["rolled"]
        rolled = _("Rolled by {colour} (rerolled):") if r["rerolled"] else _("Rolled by {colour}:")
        c.text(MARGIN, y + 14, rolled.format(colour=W.colour(r["by"])), TEXT, bold=True)
        x = MARGIN + 150
        for value in r["dice"]:
            c.add(
                f'<rect x="{x}" y="{y + 1:.0f}" width="18" height="18" rx="3" fill="{FILL.get(r["by"], "#888888")}" '
                f'stroke="#000000" stroke-width="0.6"/><text x="{x + 9}" y="{y + 14:.0f}" font-size="{TEXT}" '
                f'text-anchor="middle" fill="{INK.get(r["by"], "#ffffff")}">{value}</text>'
            )
            x += 22
        y += 24
    if v["vacancies"]:
        text = _("Routed wizard {wizard} may take: {spaces}")
        c.text(MARGIN, y + 14, text.format(wizard=v["routed_next"], spaces=", ".join(v["vacancies"])), TEXT)
        y += 20
    elif v["routed_next"]:
        c.text(MARGIN, y + 14, _("Next wizard to demote: {wizard}").format(wizard=v["routed_next"]), TEXT)
        y += 20
    if v["turn_counter"]:
        turn = _("turn {n}: {colour}")
        counter = ", ".join(turn.format(n=t, colour=W.colour(col)) for t, col in v["turn_counter"])
        c.text(MARGIN, y + 14, _("Turn counter: {counter}").format(counter=counter), TEXT)
        y += 20
    return y + 4


def _players(c: Canvas, v, y, compact=False) -> float:
    names = (_("player"), _("score"), _("dice"), _("minor"), _("spent"), _("gray"), _("notes"))
    columns = list(zip(names, (MARGIN, 110, 170, 220, 280, 340, 390), strict=True))
    if compact:  # the phone drawing: notes on a line of their own
        columns = list(zip(names[:6], (MARGIN, 92, 148, 196, 250, 304), strict=True))
    y += 14
    for name, x in columns:
        c.text(x, y, name, SMALL, bold=True, fill="#555555")
    for p in v["player_info"]:
        y += 18
        notes = [n for n, on in ((_("dragon"), p["dragon"]), (_("passed"), p["passed"])) if on]
        if p["grand_druid_awards"]:
            notes.append(_("Grand Druid x{n}").format(n=p["grand_druid_awards"]))
        c.add(f'<rect x="{MARGIN}" y="{y - 10}" width="10" height="10" fill="{FILL.get(p["colour"], "#888888")}"/>')
        cells = [
            W.colour(p["colour"]),
            p["score"],
            p["dice_in_front"],
            p["minor_supply"],
            p["minor_in_space"],
            p["gray"],
            ", ".join(notes),
        ]
        for (_name, x), value in zip(columns, cells):
            c.text(x + (14 if x == MARGIN else 0), y, value, TEXT)
        if compact and notes:
            y += 16
            c.text(MARGIN + 14, y, ", ".join(notes), SMALL, fill="#555555")
    return y + 6


PHONE_WIDTH = 358
# The mail picture: the phone drawing drawn this wide (sharp on a phone's screen, which shows it
# about 360 px wide: its smallest text, 11 px in the drawing, at 11 px or more).
PICTURE_WIDTH = 600
# Below this viewport width the web page shows the phone drawing (the tree would shrink its text).
PHONE_BELOW = 660


def phone_drawing(v, links=None, suffix="-phone", shown=None) -> str:
    """The board 358 px wide for a phone: the levels one under the other, their spaces two to a
    row (no text under 11 px at that width), the same targets (ids with `suffix` appended).
    `shown`: the width it is drawn at (a standalone picture), the drawing's own by default."""
    c = Canvas(links, suffix, tiny=11)
    width = PHONE_WIDTH
    y: float = MARGIN + TITLE
    c.text(MARGIN, y, _title(v), TITLE, bold=True)
    lines = [
        _phase(v),
        _("Dragon: {colour}.").format(colour=W.colour(v["dragon"])),
        _("Turn order: {order}.").format(order=W.colours(v["order"])),
    ]
    if v["end_reason"]:
        top = max(v["scores"])
        won = [v["colours"][i] for i, x in enumerate(v["scores"]) if x == top]
        lines.append(_("Game over:") + " " + _won(won, top))
    elif v["waiting_for"]:
        lines.append(_("Waiting for: {colours}").format(colours=W.colours(v["waiting_for"])))
    for line in lines:
        for part in _wrap_px(line, width - 2 * MARGIN, TEXT):
            y += 16
            c.text(MARGIN, y, part, TEXT)
    y += 16  # the one line a seat's drawing has that a spectator's has not (kept blank there)
    if v.get("you"):
        you = _e(_("You are {colour}.").format(colour=W.colour(v["you"])))
        c.add(
            f'<text x="{MARGIN}" y="{y}" font-size="{TEXT}" font-weight="bold" class="you" '
            f'fill="{FILL.get(v["you"], "#222222")}">{you}</text>'
        )
    y += 10
    points = {s["wizard"]: s["points"] for s in v["spells_cast"]}
    cell_w = (width - 2 * MARGIN - 6) / 2
    for lv in LEVELS:
        spaces = list(TITLES_BY_LEVEL[lv] or WIZARD_SPACES)
        if lv in ROUT_OF:
            spaces.append(ROUT_OF[lv])
        y += 14
        c.text(MARGIN, y, _("{level} - {n} points").format(level=W.level(lv), n=POINTS[lv]), TEXT, bold=True)
        y += 4
        for row in range(0, len(spaces), 2):
            pair = spaces[row : row + 2]
            h = 20 + max(_rows_needed(v, sp, cell_w) for sp in pair) * (PILL_H + 14)
            for i, sp in enumerate(pair):
                rout = sp in ROUT_OF.values()
                label = (_("Rout, gray magic") if lv != "necromancer" else _("Rout")) if rout else sp
                fill = "#f3e9f7" if rout else "#fff6d6" if lv == LEVELS[0] else "#f4f1ea"
                _space(c, v, sp, MARGIN + i * (cell_w + 6), y, cell_w, h, label, points, fill)
            y += h + 6
    y = _spell_spaces(c, v, y + 4, width, columns=2)
    y = _players(c, v, y, compact=True)
    height = int(y + MARGIN)
    role = 'role="group"' if links else 'role="img"'
    label = _board_label(v)
    shown = shown or width
    size = (
        f'width="{width}" height="{height}" style="max-width:100%;height:auto"'
        if shown == width
        else f'width="{shown}" height="{round(height * shown / width)}"'
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" {size} font-family="{FONT}" {role} '
        f'aria-label="{_e(label)}"><rect width="{width}" height="{height}" fill="#ffffff"/>'
        + "".join(c.parts)
        + "</svg>"
    )


def _wrap_px(text: str, room: float, size: float) -> list[str]:
    """Lines of `text` about `room` px wide at `size` (DejaVu Sans averages 0.62 em a character)."""
    per_line = max(10, int(room / (0.62 * size)))
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > per_line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line] if line else lines


STYLE = (
    f"<style>.elfenwizards .ew-phone{{display:none}}"
    f"@media (max-width:{PHONE_BELOW - 1}px){{.elfenwizards .ew-web{{display:none}}"
    ".elfenwizards .ew-phone{display:block}}"
    ".elfenwizards svg{max-width:100%;height:auto}</style>"
)


def web_drawings(v, links=None) -> str:
    """The web page's board: the tree, or on a narrow screen the phone drawing (a CSS media query)."""
    web = drawing(v, links, standalone=False).replace("<svg ", '<svg class="ew-web" ', 1)
    phone = phone_drawing(v, links).replace("<svg ", '<svg class="ew-phone" ', 1)
    return STYLE + web + phone


def render_svg(v):
    """The board as one standalone SVG document, for the picture in a turn notice: the phone
    drawing (the levels one under the other, text at least 11 px at 358 px), drawn 600 px wide.
    The tree (`drawing`) is 620 px wide: a phone showed its 10 px text at 6 px (issue 27)."""
    return phone_drawing(v, suffix="", shown=PICTURE_WIDTH)


def _title(v) -> str:
    return _("Elfenwizards - turn {turn} of {turns}").format(turn=v["turn"], turns=v["turns"])


def _phase(v) -> str:
    return _("Phase {number}: {title}").format(number=v["phase_number"], title=W.phase(v["phase"]))


def _won(won, top) -> str:
    winners = _(" and ").join(W.colour(c) for c in won)
    if len(won) == 1:
        return _("{winners} wins with {n}.").format(winners=winners, n=top)
    return _("{winners} share the victory with {n}.").format(winners=winners, n=top)


def _board_label(v) -> str:
    return _("Elfenwizards board, turn {turn}, phase {number}").format(turn=v["turn"], number=v["phase_number"])
