"""Elven Castle's words in the reader's language: pieces, directions, colours, scenarios, and the
end-of-game score lines (stored in English in the log, as GameEnded's and the sheet's data, and
said again in the reader's language here)."""

from __future__ import annotations

import re

from . import rules
from .lang import N_, _

PIECES = {
    "bridge": N_("bridge"),
    "window": N_("window"),
    "portal": N_("portal"),
    "balcony": N_("balcony"),
    "staircase": N_("staircase"),
}
DIRECTIONS = {"e": N_("east"), "w": N_("west"), "n": N_("north"), "s": N_("south")}
COLOURS = {"red": N_("red"), "blue": N_("blue"), "yellow": N_("yellow"), "green": N_("green"), "grey": N_("grey")}
SCENARIOS = {
    "altar": N_("Altar"),
    "catacombs": N_("Catacombs"),
    "legacy": N_("Legacy of the Ancients"),
    "library": N_("Library"),
    "royal-gates": N_("Royal Gates"),
}
# The labels and details of the end-of-game lines, as rules.final_lines writes them.
LABELS = (N_("Altar"), N_("Penalty"), N_("Library"))
CONNECTION = N_("connection between grey blocks")
PLACED = re.compile(r"^(\w+) ([a-i]\d) ([ewns]) level (\d+)(?:: arches ([\d+]+))?$")
TOPMOST = re.compile(r"^topmost piece at level (\d+)$")
IN_HAND = re.compile(r"^left in hand: (.*)$")
ALONE = re.compile(r"^(\w+) #(\d+) at ([a-i]\d) alone on the ground$")


def piece(kind: str) -> str:
    return _(PIECES[kind]) if kind in PIECES else kind


def direction(d: str) -> str:
    return _(DIRECTIONS[d]) if d in DIRECTIONS else d


def colour(seat_or_owner) -> str:
    """A seat's colour by name (None: grey, the scenarios' pieces)."""
    name = "grey" if seat_or_owner is None else rules.COLOURS[seat_or_owner]
    return _(COLOURS[name])


def scenario_title(key: str) -> str:
    return _(SCENARIOS[key]) if key in SCENARIOS else rules.SCENARIOS[key]["title"]


def sheet_detail(detail: str) -> str:
    """An end-of-game line's detail in the reader's language (the log keeps the English)."""
    if m := PLACED.match(detail):
        where = _("{piece} {square} {direction} level {z}").format(
            piece=piece(m.group(1)), square=m.group(2), direction=direction(m.group(3)), z=m.group(4)
        )
        return _("{where}: arches {spans}").format(where=where, spans=m.group(5)) if m.group(5) else where
    if detail == CONNECTION:
        return _(CONNECTION)
    if m := TOPMOST.match(detail):
        return _("topmost piece at level {n}").format(n=m.group(1))
    if m := IN_HAND.match(detail):
        counted = [part.split(" ", 1) for part in m.group(1).split(", ")]
        names = ", ".join(f"{n} {piece(kind)}" for n, kind in counted)
        return _("left in hand: {pieces}").format(pieces=names)
    if m := ALONE.match(detail):
        text = _("{piece} #{number} at {square} alone on the ground")
        return text.format(piece=piece(m.group(1)), number=m.group(2), square=m.group(3))
    return detail
