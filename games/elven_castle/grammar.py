"""The text commands of Elven Castle: parse, describe, help.

place bridge c3 east level 1     (verb, piece, square, direction, level)
bridge c3 e                      (the verb and the level may be left out: the only level
                                  where that footprint fits is taken)
make staircase / no staircase    (after reaching 8, 16, 24, 32 or 40 points)
"""

from __future__ import annotations

import difflib
import re
from functools import cache

from games.base import Choice, ParseError, key, match_name, normalize

from . import rules, standin
from . import words as W
from .lang import CATALOGUE, N_, _

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
    # German and French ("o" is the German Ost: a French player writes "ouest" in full)
    "osten": "e",
    "westen": "w",
    "nord": "n",
    "norden": "n",
    "sud": "s",
    "sueden": "s",
    "suden": "s",
    "est": "e",
    "ouest": "w",
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
    # German and French beside the catalogue's names (added in _piece_words)
    "bruecke": "bridge",
    "bogen": "bridge",
    "tor": "portal",
    "treppen": "staircase",
    "arche": "bridge",
    "arc": "bridge",
    "escaliers": "staircase",
}
PLACE_VERBS = {"place", "put", "build", "play", "lege", "setze", "baue", "pose", "poser", "construis", "joue"}
MAKE_WORDS = {"make", "yes", "join", "create", "mache", "ja", "verbinde", "fais", "oui", "cree", "faire"}
DECLINE_WORDS = {"no", "decline", "skip", "pass", "nostaircase", "nein", "keine", "passe", "non", "pas", "aucun"}
DECLINE_WORDS |= {"keinetreppe", "pasdescalier"}
LEVEL_WORDS = {"level", "lvl", "lv", "at", "on", "z", "height", "ebene", "hohe", "auf", "niveau", "sur", "hauteur"}
SQUARE = re.compile(r"^([a-i])([1-9])([ewns]?)$")
LEVEL = re.compile(r"^(?:level|lvl|lv|l|z|@)?(\d{1,2})$")


@cache
def _piece_words() -> dict[str, str]:
    """Every name of a piece in every language ("Brücke", "pont", "bridges") -> the piece."""
    words = dict(PIECE_WORDS)
    for kind, name in W.PIECES.items():
        for said in CATALOGUE.every_language(name):
            words[key(said)] = kind
    return words


@cache
def _vocabulary() -> list[str]:
    return sorted(set(_piece_words()) | PLACE_VERBS | MAKE_WORDS | DECLINE_WORDS)


def _meaning(word: str, pieces: dict[str, str]) -> str:
    if word in pieces:
        return pieces[word]
    return "place" if word in PLACE_VERBS else "make" if word in MAKE_WORDS else "decline"


def _prefix_of_one_meaning(head: str, pieces: dict[str, str]) -> str | None:
    """The first word `head` begins when every word it begins means the same ("por": portal and
    portail are both the portal), so another language's word does not make an abbreviation
    ambiguous; None otherwise (match_name then says what is wrong)."""
    begun = [w for w in _vocabulary() if w.startswith(head)] if head else []
    if begun and len({_meaning(w, pieces) for w in begun}) == 1:
        return next((w for w in begun if w == head), begun[0])
    return None


def _singular(word: str, pieces: dict[str, str]) -> str:
    """ "windows" -> "window", "ponts" -> "pont": a plural names its piece."""
    return word[:-1] if word not in pieces and word.endswith("s") and word[:-1] in pieces else word


def parse(text, state, seat):
    words = normalize(text.replace(",", " ").replace("/", " ")).split()
    if not words:
        raise ParseError(_("Empty command. Try 'help'."))
    if words[0] in PLACE_VERBS:
        words = words[1:]
        if not words:
            raise ParseError(_("Place what? e.g. 'place bridge c3 east level 0'."))
    head = words[0]
    if head in DECLINE_WORDS:
        return {"type": "decline"}
    if head in MAKE_WORDS:
        return {"type": "staircase"}
    pieces = _piece_words()
    head = _singular(head, pieces)
    word = _prefix_of_one_meaning(head, pieces) or match_name(head, _vocabulary(), _("command or piece"))
    if word in DECLINE_WORDS:
        return {"type": "decline"}
    if word in MAKE_WORDS:
        return {"type": "staircase"}
    if word in PLACE_VERBS:
        raise ParseError(_("Put the piece after '{word}': 'place bridge c3 east'.").format(word=word))
    piece = pieces[word]
    rest = words[1:]
    if piece == "staircase" and not rest:
        return {"type": "staircase"}
    x, y, z, d = _where(rest, text)
    if x is None:
        text = _("Say where the {piece} goes: a square a1..i9, e.g. '{example}'.")
        raise ParseError(text.format(piece=W.piece(piece), example=_example(piece, 2, 2, "e", None)))
    if d is None:
        text = _("Say which way the {piece} runs from {square}: east, west, north or south.")
        raise ParseError(text.format(piece=W.piece(piece), square=rules.square(x, y)))
    x, y, d = rules.canonical_place(piece, x, y, d)
    if z is None:
        z = _infer_level(state, seat, piece, x, y, d)
    return {"type": "place", "piece": piece, "x": x, "y": y, "z": z, "dir": d}


def _where(rest, text):
    """(x, y, z, dir) read from the words after the piece; None for what they do not say."""
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
            raise ParseError(_("There is no square '{square}': squares run from a1 to i9.").format(square=tok))
        else:
            words = [W.direction(k) for k in DIR_NAMES] + [_("level")]
            close = difflib.get_close_matches(tok, [normalize(w) for w in words], n=2, cutoff=0.6)
            raise ParseError(_("I do not understand '{word}' in '{text}'.").format(word=tok, text=text.strip()), close)
        i += 1
    return x, y, z, d


def _example(piece, x, y, d, z) -> str:
    """A place command in the reader's language ("place bridge c3 east", "lege Brücke c3 Ost")."""
    if z is None:
        return _("place {piece} {square} {direction}").format(
            piece=W.piece(piece), square=rules.square(x, y), direction=W.direction(d)
        )
    return describe({"type": "place", "piece": piece, "x": x, "y": y, "z": z, "dir": d})


def _infer_level(state, seat, piece, x, y, d):
    if state is None or seat is None or not (0 <= x < rules.W and 0 <= y < rules.D):
        return 0
    if not (0 <= seat < state["players"]):
        return 0
    levels = sorted({p[3] for p in rules.placements_for(state, seat, piece, x, y, d)})
    if len(levels) == 1:
        return levels[0]
    if len(levels) > 1:
        opts = _(" or ").join(str(v) for v in levels)
        text = _("The {piece} fits at {square} at level {levels}: say which, e.g. '{example}'.")
        example = _example(piece, x, y, d, levels[-1])
        raise ParseError(text.format(piece=W.piece(piece), square=rules.square(x, y), levels=opts, example=example))
    # Nowhere legal: take the highest surface under its first foot, so the rejection explains why.
    tops = rules._tops(state)[y * rules.W + x] if state.get("occ") is not None else []
    return max(tops) if tops else 0


def describe(command):
    t = command["type"]
    if t == "place":
        sq = rules.square(command["x"], command["y"])
        return _("place {piece} {square} {direction} level {z}").format(
            piece=W.piece(command["piece"]), square=sq, direction=W.direction(command["dir"]), z=command["z"]
        )
    if t == "staircase":
        return _("make staircase")
    if t == "decline":
        return _("no staircase")
    return t


def help(state, seat):
    lines = []
    if state is None or state["phase"] == "over":
        return _("The game is over; no commands.")
    if state["phase"] == "staircase":
        lines += [
            _("You reached a staircase score. Join two of your bridges into a staircase?"),
            _("  make staircase     (2 bridges from your hand become 1 staircase)"),
            "  " + _("no staircase"),
        ]
        return "\n".join(lines)
    lines += [
        _("Place one of your pieces on the board (level 0) or on top of two pieces:"),
        _("  place PIECE SQUARE DIRECTION [level N]"),
        _("  PIECE: bridge, window, portal, balcony, staircase"),
        _("  SQUARE: where the piece's first cell goes (a1..i9); DIRECTION: which way it"),
        _("  runs from there (east, west, north, south; e w n s); level: height of its"),
        _("  underside (0 = on the board; the map shows the level of each top)."),
        _("  The level may be left out when the piece fits at only one level there."),
        _("Examples:"),
        "  " + describe({"type": "place", "piece": "bridge", "x": 2, "y": 2, "z": 0, "dir": "e"}),
        _("  bridge d4 n 1"),
    ]
    if seat is not None and seat in rules.waiting_for(state):
        options = rules.placements(state, seat)
        raised = [p for p in options if p[3] > 0]
        pick = (sorted(raised, key=lambda p: -p[3])[:4] + options[:2])[:6]
        if pick:
            lines.append(_("Some of your {n} possible placements now:").format(n=len(options)))
            for kind, x, y, z, d in pick:
                lines.append("  " + describe({"type": "place", "piece": kind, "x": x, "y": y, "z": z, "dir": d}))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The chooser: every legal move once, the ones that matter first
# ---------------------------------------------------------------------------------------------

# Every scoring placement is featured (a numbered code), most points first, however many: the
# spec lifts the platform's cap of MAX_FEATURED codes a notice (`max_featured=None`). Stand-ins
# leave at most 28 in a turn (median 2), random play up to 50 (one turn in ten more than 19), a
# castle built as a grid of bridges hundreds: under a cap of 20 a player who left many arches
# open could not make every scoring move by code (issue 29, RULINGS §10). A notice gives the
# first 20 codes a tap button and lists the rest as plain numbered lines, so it stays light.


def choices(state, seat):
    """The legal moves for a two-step chooser (piece, then where). Featured: every scoring
    placement, most points first; and the careful placement the stand-in would make (it may
    score less but leave the next player less), so a game can be played with the numbered codes
    alone. With nothing scoring, the careful placement of each piece type. The rest follow per
    piece type, best first."""
    legal = rules.legal(state, seat)
    if not legal:
        return []
    if state["phase"] == "staircase":
        return [
            Choice(
                {"type": "staircase"},
                _("Staircase"),
                _("make a staircase (2 of your bridges become 1 staircase)"),
                featured=True,
                note=_("it scores every arch it forms"),
            ),
            Choice({"type": "decline"}, _("Staircase"), _("no staircase (keep the bridges)"), featured=True),
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
        _("careful: leaves the next player at most {n}").format(n=left)
        if left
        else _("careful: leaves the next player nothing")
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
                _group(kind),
                _place_label(sq, d, z, on(kind, x, y, z, d)),
                False,
                f"ec-{sq}",
                _("scores {n}").format(n=gains[i]) if gains[i] else "",
            )
        )
    return out


def _featured(places, judged):
    """The indices of the featured placements (without the careful pick): every scoring one, most
    points first; with none, the careful placement of each piece type."""
    gains = judged.gains
    scoring = sorted((i for i in range(len(places)) if gains[i] > 0), key=lambda i: (-gains[i], i))
    if scoring:
        return scoring
    by_kind: dict[str, list[int]] = {}
    for i, p in enumerate(places):
        by_kind.setdefault(p[0], []).append(i)
    return sorted({judged.best(idx) for idx in by_kind.values()}, key=lambda i: (-judged.value(i), i))


def _resting_on(state):
    """A function giving the words for what a placement's feet stand on (cheaply: the chooser
    labels every placement)."""
    occ = state["occ"]
    top = len(occ)
    plane, w = rules.PLANE, rules.W
    ground, and_ = _("the ground"), _(" and ")

    def on(kind, x, y, z, d):
        if z == 0 and kind != "staircase":
            return ground
        below = []
        for dx, dy, dz in rules.FEET[kind][d]:
            level = z + dz
            i = (level - 1) * plane + (y + dy) * w + x + dx
            what = ground if level == 0 else (f"#{occ[i]}" if i < top else "?")
            if what not in below:
                below.append(what)
        return and_.join(below)

    return on


GROUPS = {
    "bridge": N_("Bridge"),
    "window": N_("Window"),
    "portal": N_("Portal"),
    "balcony": N_("Balcony"),
    "staircase": N_("Staircase"),
}


def _group(kind) -> str:
    return _(GROUPS[kind])


def _place_label(sq, d, z, on) -> str:
    return _("{square} {direction}, level {z}, on {on}").format(square=sq, direction=W.direction(d), z=z, on=on)


KIND_ORDER = {k: n for n, k in enumerate(rules.KINDS)}
SQUARES = [[rules.square(x, y) for y in range(rules.D)] for x in range(rules.W)]


def _choice(command, place, gain, on, featured, extra):
    kind, x, y, z, d = place
    sq = SQUARES[x][y]
    note = _("scores {n}").format(n=gain) if gain else ""
    if extra:
        note = f"{note}; {extra}" if note else extra
    return Choice(command, _group(kind), _place_label(sq, d, z, on(kind, x, y, z, d)), featured, f"ec-{sq}", note)
