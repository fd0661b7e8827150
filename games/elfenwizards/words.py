"""Elfenwizards' words in the reader's language: levels, spaces, colours, phases, the end, and the
Master of Seals' lines (kept in English in the log and the sheet, said again here)."""

from __future__ import annotations

import re

from .lang import N_, _

LEVELS = {
    "grand_druid": N_("Grand Druid"),
    "druid": N_("Druid"),
    "sorcerer": N_("Sorcerer"),
    "necromancer": N_("Necromancer"),
    "wizard": N_("Wizard"),
}
COLOURS = {"red": N_("red"), "green": N_("green"), "blue": N_("blue"), "yellow": N_("yellow"), "black": N_("black")}
PHASES = {
    "retire": N_("retirement of the Grand Druid"),
    "cast1": N_("casting and allocation of major spells"),
    "cast2": N_("casting and allocation of remaining major spells"),
    "recover4": N_("recovery of minor spells"),
    "compete": N_("competition for titles"),
    "awarded": N_("award of titles"),
    "recover6": N_("recovery of minor spells"),
    "vacant": N_("award of vacant titles"),
    "demote": N_("demotion of remaining wizards"),
    "gray9": N_("removal of gray magic tokens"),
    "scored": N_("scoring"),
    "begin": N_("start of the turn"),
    "retired": N_("retirement of the Grand Druid"),
    "over": N_("game over"),
}
END = {
    "fourth_turn": N_("the fourth turn is over"),
    "second_grand_druid": N_("a player became Grand Druid for the second time"),
    "no_grand_druid_twice": N_("for the second time no one became Grand Druid"),
}
# The names a command uses for the six spaces where dice go, and the sources of a retirement.
SPACES = {
    "druid": N_("druid"),
    "sorcerer": N_("sorcerer"),
    "necromancer": N_("necromancer"),
    "wizard": N_("wizard"),
    "minor": N_("minor"),
    "gray": N_("gray"),
}
SOURCES = {"supply": N_("supply"), "space": N_("space")}

LEVEL_COUNT = re.compile(r"^(.+?) (\d+)x(\d+)$")
DETAIL = re.compile(r"^titles (\d+) \((.*)\)(?:, gray magic -(\d+))?$")
FINAL_LABEL = "Final: minor spells"
TURN_LABEL = re.compile(r"^Turn (\d+): (titles|gray magic)$")
BY_NAME = {english: key for key, english in LEVELS.items()}


def level(key: str) -> str:
    return _(LEVELS[key]) if key in LEVELS else key


def colour(name: str) -> str:
    return _(COLOURS[name]) if name in COLOURS else name


def colours(names) -> str:
    return ", ".join(colour(c) for c in names)


def phase(key: str) -> str:
    return _(PHASES[key]) if key in PHASES else key


def end(reason: str) -> str:
    return _(END[reason]) if reason in END else reason


def space(key: str) -> str:
    return _(SPACES[key]) if key in SPACES else key


def source(key: str) -> str:
    return _(SOURCES[key]) if key in SOURCES else key


def _levels(parts: str) -> str:
    """ "Druid 1x4, Wizard 2x1" in the reader's language."""
    out = []
    for part in parts.split(", ") if parts else []:
        m = LEVEL_COUNT.match(part)
        out.append(f"{level(BY_NAME.get(m.group(1), m.group(1)))} {m.group(2)}x{m.group(3)}" if m else part)
    return ", ".join(out)


def detail(text: str) -> str:
    """A turn's scoring detail ("titles 5 (Druid 1x4, Wizard 1x1), gray magic -1")."""
    m = DETAIL.match(text)
    if not m:
        return sheet_detail(text)
    said = _("titles {points} ({levels})").format(points=m.group(1), levels=_levels(m.group(2)))
    return said + (_(", gray magic -{n}").format(n=m.group(3)) if m.group(3) else "")


def sheet_detail(text: str) -> str:
    """A Master of Seals' row's detail, as rules.sheet_rows writes it."""
    if m := re.match(r"^(\d+) minor spell\(s\) in front$", text):
        return _("{n} minor spell(s) in front").format(n=m.group(1))
    if m := re.match(r"^(-?\d+) token\(s\)$", text):
        return _("{n} token(s)").format(n=m.group(1))
    if text == "none":
        return _("none")
    return _levels(text)


def sheet_label(text: str) -> str:
    if text == FINAL_LABEL:
        return _("Final: minor spells")
    if m := TURN_LABEL.match(text):
        what = _("titles") if m.group(2) == "titles" else _("gray magic")
        return _("Turn {n}: {what}").format(n=m.group(1), what=what)
    return text
