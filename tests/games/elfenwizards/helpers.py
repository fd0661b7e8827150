"""Building positions for rule tests: a Table whose state is set to a chosen moment of a turn.

With three players the positions are those of the placement table's data version 1 (the ones the
rule tests describe: red D1 S3 N2 N7 W1 W2 W3, green D2 S2 N3 N6 W1 W2 W3, blue S1 S4 N1 N4 N5 N8
W2), unless `data=2` asks for today's (RULINGS.md, "Data version 2")."""

from __future__ import annotations

from games.base import Rng
from games.elfenwizards import GAME
from games.elfenwizards.board import MAJOR_LEVELS, placement
from games.elfenwizards.rules import PEND_PHASES, _phase, gray_of, run_auto
from games.testing import Table

RED, GREEN, BLUE, YELLOW, BLACK = range(5)


def stage(
    phase,
    players=3,
    *,
    dragon=0,
    layout=None,
    major=None,
    mdice=None,
    gdice=None,
    supply=None,
    mspace=None,
    gray=None,
    rolled=None,
    turn=1,
    options=None,
    front=None,
    cur=0,
    passed=None,
    settle=False,
    data=1,
    rules=2,
):
    """A table in `phase` with the given pieces. Dice on spaces are taken from the owners' fronts.

    layout: {wizard name: space}; major: {level: [[seat, value], ...]}; gray: {wizard name: tokens};
    rolled: dice of the current player (cast phases). rules: the rules version (RULINGS.md, "Rules
    version 2"); 1 stands for a game started before it (its GameStarted had no "rules").
    """
    t = classic(Table(GAME, players, options)) if data == 1 else Table(GAME, players, options)
    s = t.state
    n = players
    if rules == 1:
        s.pop("rules")
    else:
        s["rules"] = rules
    s["turn"] = turn
    s["dragon"] = dragon
    for name, space in (layout or {}).items():
        s["wiz"][s["names"].index(name)][1] = space
    for name, tokens in (gray or {}).items():
        s["wiz"][s["names"].index(name)][2] = tokens
        s["gsupply"] -= tokens
    s["major"] = {lv: [list(p) for p in (major or {}).get(lv, [])] for lv in MAJOR_LEVELS}
    s["mdice"] = [list(p) for p in (mdice or [])]
    s["gdice"] = [list(p) for p in (gdice or [])]
    s["front"] = list(front) if front else [7] * n
    for pairs in [*s["major"].values(), s["mdice"], s["gdice"]]:
        for seat, _v in pairs:
            s["front"][seat] -= 1
    s["supply"] = list(supply) if supply else [7] * n
    s["mspace"] = list(mspace) if mspace else [0] * n
    for seat in range(n):
        s["supply"][seat] = min(s["supply"][seat], 7 - s["mspace"][seat])
    s["phase"] = phase
    s["cur"] = cur
    s["rolled"] = None
    s["rerolled"] = False
    s["placed"] = False
    s["in_turn"] = 0
    s["cast"] = []
    s["passed"] = list(passed) if passed else [False] * n
    s["pend"] = [None] * n
    if rolled is not None:
        seat = (dragon + cur) % n
        s["rolled"] = list(rolled)
        s["front"][seat] -= len(rolled)
    if phase in PEND_PHASES:
        s["pend"] = list(_phase(phase, s).data["pend"])
    t.settled = []
    if settle:  # the automatic steps the rules take from here (as decide would)
        run_auto(s, Rng(b"stage", 999), t.settled)
    return t


def classic(t):
    """The table's wizards moved to the placement of data version 1 (version 2 changed the
    3-player row, version 3 the 5-player row; the 4-player row never changed). Wizards are named
    colour + number in placement order."""
    s = t.state
    for colour, spaces in placement(t.players, version=1)["positions"].items():
        for i, space in enumerate(spaces):
            s["wiz"][s["names"].index(f"{colour}{i + 1}")][1] = space
    return t


def seat_tokens(t, seat):
    return gray_of(t.state, seat)


def where(t, name):
    s = t.state
    return s["wiz"][s["names"].index(name)][1]


def types(events):
    return [e.type for e in events]


def first(events, kind):
    return next(e for e in events if e.type == kind)
