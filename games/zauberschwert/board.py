"""The board drawn as SVG: one layout for any width, used three times.

- render_html(view, links): the web page's board. Two drawings in one fragment, chosen by a CSS
  media query: 640 px wide (cards side by side), and on a phone a 358 px one (cards stacked,
  text wrapped to the width, so it is drawn at about its own size: no text below 11 px).
  With `links` (target -> URL) each target (a display card, a hand card, a player) is wrapped in
  an <a> that is its whole card or panel: at least 44 px high, focusable, with a name.
- render_svg(view): a standalone 600 px picture for the turn notice (rasterised to PNG).

Element ids: the web drawing's targets carry the chooser's target ids (`zs-card-1`,
`zs-hand-ART16`, `zs-player-blue`, see grammar.choices); the phone drawing's the same with
`-phone` appended (an id is unique in a page). Only the fonts "DejaVu Sans" / sans-serif.
Text is wrapped by an estimate of DejaVu Sans' advance widths (wide among sans fonts, so the
narrower fallbacks fit too).
"""

from __future__ import annotations

import functools
import html

from . import words as W
from .grammar import card_target, hand_target, player_target
from .lang import _, ngettext
from .rules import ADV, ART, ARTIFACTS, PHASE_OF_STEP, artifacts_of

FONT = "DejaVu Sans, sans-serif"
FILL = {"red": "#c0392b", "blue": "#2e6db4", "green": "#2e8b57", "yellow": "#d4ac0d"}
TYPE_FILL = {"creature": "#f6e0d8", "spell": "#e6ddf5", "energy_orb": "#dcefff", "holy_site": "#fff3c4"}
WEB_WIDTH, PHONE_WIDTH, PICTURE_WIDTH = 640, 358, 600
# The mail picture is the phone drawing (laid out 358 px wide, no text under 12 px) drawn 600 px
# wide: a phone shows it about 360 px wide, its smallest text at 12 px (issue 27).
# Below this viewport width the phone drawing is shown (the web drawing would shrink its text).
PHONE_BELOW = 660
TEXT, SMALL, TITLE = 13, 12, 15
MARGIN, PAD = 8, 8
MIN_HIT = 44  # px: a target is at least this high (a finger's width)

# Advance widths of DejaVu Sans in em, by kind of character (rounded up).
_NARROW = set("iljtfr.,:;'|!()[]ı ")
_WIDE = set("mwMWOQGCDHNU@%&")


def text_width(text: str, size: float, bold: bool = False) -> float:
    width = 0.0
    for ch in text:
        if ch in _NARROW:
            width += 0.36
        elif ch in _WIDE:
            width += 0.88
        elif ch.isupper() or ch.isdigit():
            width += 0.7
        else:
            width += 0.62
    return width * size * (1.08 if bold else 1.0)


@functools.lru_cache(maxsize=4096)
def wrap(text: str, room: float, size: float, bold: bool = False) -> tuple[str, ...]:
    """Lines of `text` none wider than `room` px (a word too long for a line gets one alone).
    Cached: the same card, artifact and player lines come back in view after view."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and text_width(candidate, size, bold) > room:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return tuple(lines or [""])


class Drawing:
    """SVG elements laid out top to bottom in a drawing `width` px wide."""

    def __init__(self, width: int, links: dict | None, suffix: str):
        self.width = width
        self.links = links or {}
        self.suffix = suffix
        self.parts: list[str] = []
        self.y = MARGIN

    def text(self, x, y, content, size=TEXT, bold=False, fill="#222", italic=False):
        weight = ' font-weight="bold"' if bold else ""
        style = ' font-style="italic"' if italic else ""
        self.parts.append(
            f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}"{weight}{style} fill="{fill}">'
            f"{html.escape(content)}</text>"
        )

    def lines(self, x, lines, size=TEXT, bold=False, fill="#222", italic=False, y=None, gap=None):
        """Writes `lines` from baseline `y` (default: the cursor); returns the y below them."""
        step = gap or round(size * 1.3)
        y = (self.y if y is None else y) + size
        for line in lines:
            self.text(x, y, line, size, bold, fill, italic)
            y += step
        return y - size

    def target(self, target: str, name: str, body: list[str]):
        """A target's elements, in a group with its id, wrapped in a link when one is given."""
        element_id = target + self.suffix
        inner = f'<g id="{element_id}">' + "".join(body) + "</g>"
        url = self.links.get(target)
        if url is None:
            self.parts.append(inner)
            return
        self.parts.append(
            f'<a href="{html.escape(url)}" aria-label="{html.escape(name)}" tabindex="0">'
            f"<title>{html.escape(name)}</title>{inner}</a>"
        )

    def capture(self):
        """Collects the elements drawn from now on (for a target's group)."""
        mark = len(self.parts)

        def done():
            body = self.parts[mark:]
            del self.parts[mark:]
            return body

        return done


def _names(v):
    return [W.player(x) for x in range(len(v["colours"]))]


def _reward(reward):
    parts = []
    if reward["power_stones"]:
        n = reward["power_stones"]
        parts.append(ngettext("{n} stone", "{n} stones", n).format(n=n))
    if reward["artifacts"]:
        n = reward["artifacts"]
        parts.append(ngettext("{n} artifact", "{n} artifacts", n).format(n=n))
    return " + ".join(parts) or _("nothing")


def card_lines(cid):
    """The card's title and text (what is printed on it)."""
    c = ADV[cid]
    if c["type"] == "creature":
        title = _("{creature} — strength {strength}, {symbol}").format(
            creature=W.adventure(cid), strength=c["strength"], symbol=W.symbol(c["symbol"])
        )
        return (
            title,
            [
                _("Alone: {reward}").format(reward=_reward(c["reward_one_wizard"])),
                _("Shared: {reward} each").format(reward=_reward(c["reward_two_wizards_each"])),
            ],
        )
    if c["type"] == "energy_orb":
        n = c["reward_each_attached_wizard"]["magic_points"]
        return W.adventure(cid), [_("+{n} magic for each wizard").format(n=n)]
    if c["type"] == "holy_site":
        return W.adventure(cid), [
            _("{reward} for each wizard").format(reward=_reward(c["reward_each_attached_wizard"]))
        ]
    return _("Spell: {spell}").format(spell=c["name"]), [W.spell_effect(cid)]


def artifact_text(key):
    a = ARTIFACTS[key]
    b = a["bonus"]
    return f"{W.artifact(key)} ({W.symbols(a['symbols'])}, +{b['amount']} {W.bonus_words(b['type'])})"


def _status(v, names):
    from .view import offer_line

    lines = []
    if v["auction"]:
        a = v["auction"]
        if a["high"] is not None:
            high = _("high bid {n} by {who}").format(n=a["high"], who=names[a["bidder"]])
        else:
            high = _("no bid yet (lowest {n})").format(n=a["min"])
        if a["passed"]:
            text = _("Auction for {card}: {high}; passed: {passed}.")
            passed = ", ".join(names[x] for x in a["passed"])
            lines.append(text.format(card=W.adventure(a["card"]), high=high, passed=passed))
        else:
            lines.append(_("Auction for {card}: {high}.").format(card=W.adventure(a["card"]), high=high))
    elif v["fight"]:
        f = v["fight"]
        text = _("Fight: {creature}, strength {strength}, against {who}.")
        who = ", ".join(names[x] for x in f["seats"])
        lines.append(text.format(creature=W.adventure(f["card"]), strength=f["strength"], who=who))
    if v["choices"]:
        seat, art = v["choices"][0]
        text = _("{who} takes the {artifact}'s bonus as stones or magic.")
        lines.append(text.format(who=names[seat], artifact=W.artifact(art)))
    for o in v["offers"]:
        lines.append(offer_line(o, names))
    if v["step"] == "over":
        lines.append(_game_over(v, names))
    elif v["waiting_for"]:
        lines.append(_("Waiting for {who}.").format(who=", ".join(names[x] for x in v["waiting_for"])))
    return lines


def _game_over(v, names):
    best = max(v["players_info"], key=lambda p: (p["power"], p["magic"], len(p["laid"])))
    tied = [
        p
        for p in v["players_info"]
        if (p["power"], p["magic"], len(p["laid"])) == (best["power"], best["magic"], len(best["laid"]))
    ]
    who = W.who(names, [p["seat"] for p in tied])
    if v["ended"] == "stall":
        if len(tied) > 1:
            text = _("Game over (a long stalemate): {who} win with {n} power stones.")
        else:
            text = _("Game over (a long stalemate): {who} wins with {n} power stones.")
    elif len(tied) > 1:
        text = _("Game over (the display could not be refilled): {who} win with {n} power stones.")
    else:
        text = _("Game over (the display could not be refilled): {who} wins with {n} power stones.")
    return text.format(who=who, n=best["power"])


def draw(v, width, links=None, suffix="", standalone=False, shown=None):
    """The board `width` px wide: header, the display, the situation, the players, the hand."""
    d = Drawing(width, links, suffix)
    names = _names(v)
    room = width - 2 * MARGIN
    phase = PHASE_OF_STEP.get(v["step"], v["step"])
    d.y = d.lines(MARGIN, ["Zauberschwert & Drachenei"], TITLE, bold=True)
    if v["step"] == "over":
        head = _("Game over after round {round}").format(round=v["round"])
    else:
        head = _("Round {round}, phase {phase}: {step}").format(round=v["round"], phase=phase, step=W.step(v["step"]))
    deck = _("Adventure deck {n}").format(n=v["adventure_deck"])
    if v["next_letter"]:
        deck += " " + _("(next: {letter})").format(letter=v["next_letter"])
    decks = _("Start player {start} · {deck} · artifact deck {n}")
    info = [head, decks.format(start=names[v["start"]], deck=deck, n=v["artifact_deck"])]
    d.y = d.lines(MARGIN, [ln for part in info for ln in wrap(part, room, SMALL)], SMALL) + 6
    _draw_display(d, v, names, room)
    status = [ln for part in _status(v, names) for ln in wrap(part, room, SMALL, True)]
    d.y = d.lines(MARGIN, status, SMALL, bold=True, fill="#333") + 6
    for p in v["players_info"]:
        _draw_player(d, v, p, names, room)
    if v["hand"] is not None:
        _draw_hand(d, v, names, room)
    height = d.y + MARGIN
    label = _("Zauberschwert board, round {round}").format(round=v["round"])
    role = 'role="group"' if links else 'role="img"'
    shown = shown or width
    shown_h = round(height * shown / width)
    size = (
        f'width="{shown}" height="{shown_h}"'
        if standalone
        else f'width="{shown}" height="{shown_h}" style="max-width:100%;height:auto"'
    )
    back = f'<rect width="{width}" height="{height}" fill="#ffffff"/>'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" {size} '
        f'font-family="{FONT}" {role} aria-label="{html.escape(label)}">' + back + "".join(d.parts) + "</svg>"
    )


def _draw_display(d, v, names, room):
    two_columns = d.width >= 460
    card_w = (room - MARGIN) / 2 if two_columns else room
    boxes = []
    for i, cid in enumerate(v["display"]):
        x = MARGIN + (i * (card_w + MARGIN) if two_columns else 0)
        if cid is None:
            boxes.append((x, [_("(no card)")], [], None))
            continue
        title, body = card_lines(cid)
        title_lines = wrap(f"{i + 1}) {title}", card_w - 2 * PAD, TEXT, True)
        body_lines = [ln for part in body for ln in wrap(part, card_w - 2 * PAD, SMALL)]
        boxes.append((x, title_lines, body_lines, cid))
    heights = [_card_height(t, b) if cid else MIN_HIT for _, t, b, cid in boxes]
    current = (v["fight"] or v["auction"] or {}).get("slot")  # the card being resolved: a bold frame
    top = d.y
    for i, (x, title_lines, body_lines, cid) in enumerate(boxes):
        y = top if two_columns else d.y
        h = max(heights) if two_columns else heights[i]
        done = d.capture()
        if cid is None:
            d.parts.append(
                f'<rect class="zs-hit" x="{x:.0f}" y="{y:.0f}" width="{card_w:.0f}" height="{h}" '
                'fill="#fff" stroke="#999" stroke-dasharray="4"/>'
            )
            d.lines(x + PAD, title_lines, SMALL, fill="#555", y=y + PAD)
            d.target(card_target(i), _("Card {n}: none").format(n=i + 1), done())
        else:
            kind = ADV[cid]["type"]
            frame = 'stroke="#000" stroke-width="3"' if i == current else 'stroke="#555"'
            d.parts.append(
                f'<rect class="zs-hit" x="{x:.0f}" y="{y:.0f}" width="{card_w:.0f}" height="{h}" rx="8" '
                f'fill="{TYPE_FILL[kind]}" {frame}/>'
            )
            below = d.lines(x + PAD, title_lines, TEXT, bold=True, y=y + PAD)
            below = d.lines(x + PAD, body_lines, SMALL, y=below + 2)
            _draw_wizards(d, v, names, i, x + PAD, y + h - PAD - 20)
            d.target(card_target(i), _("Card {n}: {title}").format(n=i + 1, title=card_lines(cid)[0]), done())
        if not two_columns:
            d.y += h + MARGIN
    if two_columns:
        d.y = top + max(heights) + MARGIN


def _card_height(title_lines, body_lines):
    wizards = 28
    return max(MIN_HIT, PAD + len(title_lines) * 17 + 2 + len(body_lines) * 16 + wizards + PAD)


def _draw_wizards(d, v, names, slot, x, y):
    """A chip with the colour's name for every wizard on the card."""
    for p in v["players_info"]:
        if p["wizard"] != slot:
            continue
        label = names[p["seat"]]
        w = text_width(label, SMALL, True) + 14
        ink = "#222" if p["colour"] == "yellow" else "#fff"
        d.parts.append(
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="20" rx="10" fill="{FILL[p["colour"]]}"/>'
        )
        d.text(x + 7, y + 15, label, SMALL, bold=True, fill=ink)
        x += w + 6


def _draw_player(d, v, p, names, room):
    x0 = MARGIN
    seat = p["seat"]
    inner = room - 2 * PAD - 8
    head = names[seat]
    if seat == v["start"]:
        head += " " + _("(start player)")
    if seat == v["seat"]:
        head += " " + _("(you)")
    facts = _("magic {magic} · power stones {power} · hand {hand}").format(
        magic=p["magic"], power=p["power"], hand=p["hand_count"]
    )
    if p["wizard"] == -1:
        facts += " · " + _("passed")
    elif p["wizard"] is not None:
        facts += " · " + _("wizard on card {n}").format(n=p["wizard"] + 1)
    used = " " + _("(used)")
    spells = ", ".join(ADV[c]["name"] + (used if c in p["used"] else "") for c in p["spells"]) or _("none")
    laid = W.semicolon().join(artifact_text(k) for k in artifacts_of(p["laid"])) or _("none")
    body = [
        *wrap(facts, inner, SMALL),
        *wrap(_("Spells: {spells}").format(spells=spells), inner, SMALL),
        *wrap(_("Laid out: {artifacts}").format(artifacts=laid), inner, SMALL),
    ]
    if p.get("hand") is not None and seat != v["seat"]:  # the hands shown at the end of the game
        hand = W.cards(p["hand"]) or _("empty")
        body += wrap(_("Hand: {cards}").format(cards=hand), inner, SMALL)
    h = max(MIN_HIT, PAD + 17 + len(body) * 16 + PAD - 2)
    y = d.y
    done = d.capture()
    d.parts.append(
        f'<rect class="zs-hit" x="{x0}" y="{y:.0f}" width="{room}" height="{h}" rx="6" fill="#fafafa" '
        f'stroke="{FILL[p["colour"]]}" stroke-width="2"/>'
    )
    d.parts.append(f'<rect x="{x0}" y="{y:.0f}" width="8" height="{h}" rx="3" fill="{FILL[p["colour"]]}"/>')
    below = d.lines(x0 + 8 + PAD, wrap(head, inner, TEXT, True), TEXT, bold=True, y=y + PAD - 1)
    d.lines(x0 + 8 + PAD, body, SMALL, y=below + 1, gap=16)
    name = _("{who}: {power} power stones, {magic} magic").format(who=names[seat], power=p["power"], magic=p["magic"])
    d.target(player_target(seat), name, done())
    d.y = y + h + 6


def _draw_hand(d, v, names, room):
    hand = v["hand"]
    d.y = (
        d.lines(
            MARGIN,
            [
                ngettext("Your hand ({who}): {n} card", "Your hand ({who}): {n} cards", len(hand)).format(
                    who=names[v["seat"]], n=len(hand)
                )
            ],
            TEXT,
            bold=True,
        )
        + 4
    )
    columns = 3 if d.width >= 460 else 2
    tile_w = (room - (columns - 1) * 6) / columns
    tiles = []
    for cid in hand:
        card = ART[cid]
        bonus = card["bonus"]
        what = W.bonus_words(bonus["type"])
        tiles.append(
            (
                cid,
                wrap(W.card(cid), tile_w - 2 * PAD, SMALL, True),
                wrap(f"{W.symbols(card['symbols'])} · +{bonus['amount']} {what}", tile_w - 2 * PAD, SMALL),
            )
        )
    tile_h = max([MIN_HIT + 4] + [PAD + 16 * (len(t) + len(b)) + PAD for _, t, b in tiles])
    for i, (cid, title, body) in enumerate(tiles):
        col, row = i % columns, i // columns
        x = MARGIN + col * (tile_w + 6)
        y = d.y + row * (tile_h + 6)
        done = d.capture()
        d.parts.append(
            f'<rect class="zs-hit" x="{x:.0f}" y="{y:.0f}" width="{tile_w:.0f}" height="{tile_h}" rx="6" '
            'fill="#eef3ea" stroke="#6b8e23"/>'
        )
        below = d.lines(x + PAD, title, SMALL, bold=True, y=y + 5, gap=16)
        d.lines(x + PAD, body, SMALL, y=below + 3, gap=16)
        d.target(hand_target(cid), _("Your card {card}").format(card=W.card(cid)), done())
    rows = -(-len(hand) // columns)
    d.y += rows * (tile_h + 6)


STYLE = (
    f"<style>.zauberschwert .zs-phone{{display:none}}"
    f"@media (max-width:{PHONE_BELOW - 1}px){{.zauberschwert .zs-web{{display:none}}"
    ".zauberschwert .zs-phone{display:block}}"
    ".zauberschwert svg{max-width:100%;height:auto}"
    ".zauberschwert a:focus .zs-hit,.zauberschwert a:hover .zs-hit{stroke:#000;stroke-width:3}"
    ".zauberschwert a:focus{outline:none}</style>"
)


def render_html(v, links=None):
    """The web board: the 640 px drawing, or at phone width the 358 px one (CSS media query)."""
    web = draw(v, WEB_WIDTH, links).replace("<svg ", '<svg class="zs-web" ', 1)
    phone = draw(v, PHONE_WIDTH, links, "-phone").replace("<svg ", '<svg class="zs-phone" ', 1)
    return f'<div class="zauberschwert">{STYLE}{web}{phone}</div>'


def render_svg(v):
    """The board as one standalone SVG document for the picture in a turn notice: the phone
    layout (358 px, text at least 12 px), drawn 600 px wide for a sharp picture."""
    return draw(v, PHONE_WIDTH, standalone=True, shown=PICTURE_WIDTH)
