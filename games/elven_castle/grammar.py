"""The text commands of Elven Castle: parse, describe, help.

place bridge c3 east level 1     (verb, piece, square, direction, level)
bridge c3 e                      (the verb and the level may be left out: the only level
                                  where that footprint fits is taken)
make staircase / no staircase    (after reaching 8, 16, 24, 32 or 40 points)
"""

from __future__ import annotations

import difflib
import re

from games.base import MAX_FEATURED, Choice, ParseError, match_name, normalize

from . import rules, standin

DIR_WORDS = {
    "e": "e",
    "east": "e",
    "w": "w",
    "west": "w",
    "n": "n",
    "north": "n",
    "s": "s",
    "south": "s",
    "o": "e",
    "ost": "e",
}
DIR_NAMES = {"e": "east", "w": "west", "n": "north", "s": "south"}
PIECE_WORDS = {
    "bridge": "bridge",
    "window": "window",
    "portal": "portal",
    "balcony": "balcony",
    "staircase": "staircase",
    "stairs": "staircase",
    "stair": "staircase",
    "arch": "bridge",
    "gate": "portal",
}
PLACE_VERBS = {"place", "put", "build", "play"}
MAKE_WORDS = {"make", "yes", "join", "create"}
DECLINE_WORDS = {"no", "decline", "skip", "pass", "nostaircase"}
LEVEL_WORDS = {"level", "lvl", "lv", "at", "on", "z", "height"}
SQUARE = re.compile(r"^([a-i])([1-9])([ewns]?)$")
LEVEL = re.compile(r"^(?:level|lvl|lv|l|z|@)?(\d{1,2})$")


def parse(text, state, seat):
    words = normalize(text.replace(",", " ").replace("/", " ")).split()
    if not words:
        raise ParseError("Empty command. Try 'help'.")
    if words[0] in PLACE_VERBS:
        words = words[1:]
        if not words:
            raise ParseError("Place what? e.g. 'place bridge c3 east level 0'.")
    head = words[0]
    if head in DECLINE_WORDS:
        return {"type": "decline"}
    if head in MAKE_WORDS:
        return {"type": "staircase"}
    vocab = sorted(set(PIECE_WORDS) | PLACE_VERBS | MAKE_WORDS | DECLINE_WORDS)
    word = match_name(head, vocab, "command or piece")
    if word in DECLINE_WORDS:
        return {"type": "decline"}
    if word in MAKE_WORDS:
        return {"type": "staircase"}
    if word in PLACE_VERBS:
        raise ParseError(f"Put the piece after '{word}': 'place bridge c3 east'.")
    piece = PIECE_WORDS[word]
    rest = words[1:]
    if piece == "staircase" and not rest:
        return {"type": "staircase"}
    x = y = z = d = None
    i = 0
    while i < len(rest):
        tok = rest[i]
        m = SQUARE.match(tok)
        if m and x is None:
            x, y = rules.FILES.index(m.group(1)), int(m.group(2)) - 1
            if m.group(3):
                d = m.group(3)
        elif tok in DIR_WORDS and d is None:
            d = DIR_WORDS[tok]
        elif tok in LEVEL_WORDS and i + 1 < len(rest) and rest[i + 1].isdigit():
            z = int(rest[i + 1])
            i += 1
        elif LEVEL.match(tok) and z is None:
            z = int(LEVEL.match(tok).group(1))
        elif re.match(r"^[a-z]\d+$", tok):
            raise ParseError(f"There is no square '{tok}': squares run from a1 to i9.")
        else:
            close = difflib.get_close_matches(tok, list(DIR_NAMES.values()) + ["level"], n=2, cutoff=0.6)
            raise ParseError(f"I do not understand '{tok}' in '{text.strip()}'.", close)
        i += 1
    if x is None:
        raise ParseError(f"Say where the {piece} goes: a square a1..i9, e.g. 'place {piece} c3 east'.")
    if d is None:
        raise ParseError(f"Say which way the {piece} runs from {rules.square(x, y)}: east, west, north or south.")
    x, y, d = rules.canonical_place(piece, x, y, d)
    if z is None:
        z = _infer_level(state, seat, piece, x, y, d)
    return {"type": "place", "piece": piece, "x": x, "y": y, "z": z, "dir": d}


def _infer_level(state, seat, piece, x, y, d):
    if state is None or seat is None or not (0 <= x < rules.W and 0 <= y < rules.D):
        return 0
    if not (0 <= seat < state["players"]):
        return 0
    levels = sorted({p[3] for p in rules.placements_for(state, seat, piece, x, y, d)})
    if len(levels) == 1:
        return levels[0]
    if len(levels) > 1:
        opts = " or ".join(str(v) for v in levels)
        raise ParseError(
            f"The {piece} fits at {rules.square(x, y)} at level {opts}: say which, e.g. "
            f"'place {piece} {rules.square(x, y)} {DIR_NAMES[d]} level {levels[-1]}'."
        )
    # Nowhere legal: take the highest surface under its first foot, so the rejection explains why.
    tops = rules._tops(state)[y * rules.W + x] if state.get("occ") is not None else []
    return max(tops) if tops else 0


def describe(command):
    t = command["type"]
    if t == "place":
        sq = rules.square(command["x"], command["y"])
        return f"place {command['piece']} {sq} {DIR_NAMES[command['dir']]} level {command['z']}"
    if t == "staircase":
        return "make staircase"
    if t == "decline":
        return "no staircase"
    return t


def help(state, seat):
    lines = []
    if state is None or state["phase"] == "over":
        return "The game is over; no commands."
    if state["phase"] == "staircase":
        lines += [
            "You reached a staircase score. Join two of your bridges into a staircase?",
            "  make staircase     (2 bridges from your hand become 1 staircase)",
            "  no staircase",
        ]
        return "\n".join(lines)
    lines += [
        "Place one of your pieces on the board (level 0) or on top of two pieces:",
        "  place PIECE SQUARE DIRECTION [level N]",
        "  PIECE: bridge, window, portal, balcony, staircase",
        "  SQUARE: where the piece's first cell goes (a1..i9); DIRECTION: which way it",
        "  runs from there (east, west, north, south; e w n s); level: height of its",
        "  underside (0 = on the board; the map shows the level of each top).",
        "  The level may be left out when the piece fits at only one level there.",
        "Examples:",
        "  place bridge c3 east level 0",
        "  bridge d4 n 1",
    ]
    if seat is not None and seat in rules.waiting_for(state):
        options = rules.placements(state, seat)
        raised = [p for p in options if p[3] > 0]
        pick = (sorted(raised, key=lambda p: -p[3])[:4] + options[:2])[:6]
        if pick:
            lines.append(f"Some of your {len(options)} possible placements now:")
            for kind, x, y, z, d in pick:
                lines.append("  " + describe({"type": "place", "piece": kind, "x": x, "y": y, "z": z, "dir": d}))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The chooser: every legal move once, the ones that matter first
# ---------------------------------------------------------------------------------------------

# Every scoring placement is featured (a numbered code), most points first, up to this many (each
# piece type's best always among them), leaving a place for the careful pick: the contract's cap
# on a notice's codes (games.base.MAX_FEATURED). In stand-in games of rules version 2 a turn has
# at most 28 (median 2, 9 in one turn out of ten): in a rare turn with more, the lowest-scoring
# ones are two steps away in the web chooser (piece, then where) or typed.
FEATURED_MOST = MAX_FEATURED - 1


def choices(state, seat):
    """The legal moves for a two-step chooser (piece, then where). Featured: every scoring
    placement (at most FEATURED_MOST), most points first, each type's best always; and the
    careful placement the stand-in would make (it may score less but leave the next player
    less), so a game can be played with the numbered codes alone. With nothing scoring, the
    careful placement of each piece type. The rest follow per piece type, best first."""
    legal = rules.legal(state, seat)
    if not legal:
        return []
    if state["phase"] == "staircase":
        return [
            Choice(
                {"type": "staircase"},
                "Staircase",
                "make a staircase (2 of your bridges become 1 staircase)",
                featured=True,
                note="it scores every arch it forms",
            ),
            Choice({"type": "decline"}, "Staircase", "no staircase (keep the bridges)", featured=True),
        ]
    places = [standin.place_of(c) for c in legal]
    judged = standin.Evaluation(state, seat, places)
    gains = judged.gains
    featured, notes = _featured(places, judged), {}
    pick = judged.best()
    if pick not in featured:
        featured.append(pick)
    left = judged.reply(pick)
    notes[pick] = (
        f"careful: leaves the next player at most {left}" if left else "careful: leaves the next player nothing"
    )
    chosen = set(featured)
    # legal() lists the placements piece type by piece type: within each, the scoring ones first
    rest = sorted(
        (i for i in range(len(places)) if i not in chosen), key=lambda i: (KIND_ORDER[places[i][0]], -gains[i], i)
    )
    on = _resting_on(state)
    out = [_choice(legal[i], places[i], gains[i], on, True, notes.get(i, "")) for i in featured]
    for i in rest:
        kind, x, y, z, d = places[i]
        sq = SQUARES[x][y]
        out.append(
            Choice(
                legal[i],
                GROUPS[kind],
                f"{sq} {DIR_NAMES[d]}, level {z}, on {on(kind, x, y, z, d)}",
                False,
                f"ec-{sq}",
                f"scores {gains[i]}" if gains[i] else "",
            )
        )
    return out


def _featured(places, judged):
    """The indices of the featured placements (without the careful pick)."""
    gains = judged.gains
    by_kind: dict[str, list[int]] = {}
    for i, p in enumerate(places):
        by_kind.setdefault(p[0], []).append(i)
    scoring = {k: sorted((i for i in idx if gains[i] > 0), key=lambda i: (-gains[i], i)) for k, idx in by_kind.items()}
    if not any(scoring.values()):
        return sorted({judged.best(idx) for idx in by_kind.values()}, key=lambda i: (-judged.value(i), i))
    firsts = [best[0] for best in scoring.values() if best]
    others = sorted((i for best in scoring.values() for i in best[1:]), key=lambda i: (-gains[i], i))
    return sorted(firsts + others[: max(0, FEATURED_MOST - len(firsts))], key=lambda i: (-gains[i], i))


def _resting_on(state):
    """A function giving the words for what a placement's feet stand on (cheaply: the chooser
    labels every placement)."""
    occ = state["occ"]
    top = len(occ)
    plane, w = rules.PLANE, rules.W

    def on(kind, x, y, z, d):
        if z == 0 and kind != "staircase":
            return "the ground"
        below = []
        for dx, dy, dz in rules.FEET[kind][d]:
            level = z + dz
            i = (level - 1) * plane + (y + dy) * w + x + dx
            what = "the ground" if level == 0 else (f"#{occ[i]}" if i < top else "?")
            if what not in below:
                below.append(what)
        return " and ".join(below)

    return on


GROUPS = {k: k.capitalize() for k in rules.KINDS}
KIND_ORDER = {k: n for n, k in enumerate(rules.KINDS)}
SQUARES = [[rules.square(x, y) for y in range(rules.D)] for x in range(rules.W)]


def _choice(command, place, gain, on, featured, extra):
    kind, x, y, z, d = place
    sq = SQUARES[x][y]
    note = f"scores {gain}" if gain else ""
    if extra:
        note = f"{note}; {extra}" if note else extra
    return Choice(
        command, GROUPS[kind], f"{sq} {DIR_NAMES[d]}, level {z}, on {on(kind, x, y, z, d)}", featured, f"ec-{sq}", note
    )
