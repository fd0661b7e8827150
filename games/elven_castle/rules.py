"""Elven Castle: state, geometry, decide and evolve.

The geometry (a proposal, see RULINGS.md): the board is a square lattice of 9 x 9 ground points
(a1..i9). A piece is a row of unit cells along one direction (e, w, n, s) from its anchor, each
cell with a level offset and a role (foot, open, body, overhang). A piece at level z occupies its
cells; a foot needs the board (level 0) or an occupied cell directly below it; a piece off the
board rests on at least two different things (two pieces, or the ground and a piece for the
staircase). The arch of a piece is the space under its opening; its height in spans is counted
down to the first piece below (variant A) or to the ground (variant B).
"""

from __future__ import annotations

import json
from pathlib import Path

from games.base import Event, Rejected, Result, ScoreLine

from .lang import N_, _

DATA = json.loads((Path(__file__).parent / "data" / "pieces.json").read_text(encoding="utf-8"))
W, D = DATA["board"]["size"]
PLANE = W * D
FILES = DATA["board"]["files"]
DIRS = {k: tuple(v) for k, v in DATA["directions"].items()}
OPPOSITE = {"e": "w", "w": "e", "n": "s", "s": "n"}
KINDS = list(DATA["piece_types"])  # bridge, window, portal, balcony, staircase
SPECIAL = set(DATA["special_pieces"])
THRESHOLDS = set(DATA["staircase_thresholds"])
SCENARIOS = DATA["scenarios"]
SYMMETRIC = {k: v["symmetric"] for k, v in DATA["piece_types"].items()}
COLOURS = ("red", "blue", "yellow", "green")

# The rules a new game is played by (RULINGS.md, "Rules version 2"), recorded in GameStarted:
# a piece is an arch one span tall, so a piece raised on two others scores its own span besides
# the free levels under it (variant A) and its deck's height (variant B); and a staircase, like
# every piece, rests on two placed pieces (the ground is not one). A log without it keeps version 1.
RULES_VERSION = 2


def rules_version(state) -> int:
    return state.get("rules", 1)


def _shape(kind: str, d: str):
    """[(dx, dy, dz, role)] for a piece of `kind` laid in direction `d` from its anchor."""
    ux, uy = DIRS[d]
    return [(i * ux, i * uy, dz, role) for i, dz, role in DATA["piece_types"][kind]["cells"]]


def _arches(kind: str, d: str):
    """The piece's arches: each a list of (dx, dy, dz) of the lowest deck cell of an opening
    column; neighbouring opening columns form one arch (the portal's two columns)."""
    ux, uy = DIRS[d]
    lowest: dict[int, int] = {}
    for i, dz, role in DATA["piece_types"][kind]["cells"]:
        if role == "open":
            lowest[i] = min(dz, lowest.get(i, dz))
    arches: list[list[tuple]] = []
    prev = None
    for i in sorted(lowest):
        cell = (i * ux, i * uy, lowest[i])
        if prev is not None and i == prev + 1:
            arches[-1].append(cell)
        else:
            arches.append([cell])
        prev = i
    return arches


SHAPES = {k: {d: _shape(k, d) for d in DIRS} for k in KINDS}
# The height of the piece's own opening in each column along it (a bridge's 1, a window's 2).
OPEN_HEIGHT = {
    k: [sum(1 for i, _dz, r in cells if i == n and r == "open") for n in range(1 + max(c[0] for c in cells))]
    for k, cells in ((k, DATA["piece_types"][k]["cells"]) for k in KINDS)
}
FEET = {k: {d: [(dx, dy, dz) for dx, dy, dz, r in SHAPES[k][d] if r == "foot"] for d in DIRS} for k in KINDS}
ARCHES = {k: {d: _arches(k, d) for d in DIRS} for k in KINDS}
LENGTH = {k: 1 + max(c[0] for c in DATA["piece_types"][k]["cells"]) for k in KINDS}
HEIGHT = {k: 1 + max(c[1] for c in DATA["piece_types"][k]["cells"]) for k in KINDS}
PLACE_DIRS = {k: (("e", "n") if SYMMETRIC[k] else ("e", "w", "n", "s")) for k in KINDS}


def square(x: int, y: int) -> str:
    return f"{FILES[x]}{y + 1}"


def canonical_place(kind: str, x: int, y: int, d: str):
    """A symmetric piece laid west or south is the same piece laid east or north from its far end."""
    if SYMMETRIC[kind] and d in ("w", "s"):
        ux, uy = DIRS[d]
        n = LENGTH[kind] - 1
        return x + n * ux, y + n * uy, OPPOSITE[d]
    return x, y, d


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


def _new_state(d):
    n = d["players"]
    state = {
        "players": n,
        "options": dict(d["options"]),
        "turn": d["first"],
        "first": d["first"],
        "phase": "place",
        "moves": 0,
        "hands": [dict(d["hand"]) for _ in range(n)],
        "scores": [0] * n,
        "sheet": [],
        "pieces": [],
        "occ": [],
        "red": [list(p) for p in d["red"]],
        "altar": d["altar"],
        "connections": 0,
        "end": None,
    }
    if "rules" in d:  # absent from a log written before rules version 2: its state stays as it was
        state["rules"] = d["rules"]
    for g in d["grey"]:
        _put(state, None, g["kind"], g["x"], g["y"], g["z"], g["dir"], list(g["on"]))
    return state


def _put(state, owner, kind, x, y, z, d, on):
    pid = len(state["pieces"])
    state["pieces"].append({"id": pid, "owner": owner, "kind": kind, "x": x, "y": y, "z": z, "dir": d, "on": on})
    occ = state["occ"]
    for dx, dy, dz, _role in SHAPES[kind][d]:
        i = (z + dz) * PLANE + (y + dy) * W + x + dx
        while len(occ) <= i:
            occ.extend([-1] * PLANE)
        occ[i] = pid
    return pid


def round_of(state) -> int:
    """The round of the next placement (what the score sheet records for a line)."""
    return state["moves"] // state["players"] + 1


def current_round(state) -> int:
    """The round shown to players: the round in progress, or, once the game is over, the last
    round in which a piece was placed (a 2-player game of 17 placements each lasts 17 rounds,
    although the turn that found no piece to place would have begun round 18)."""
    if state["phase"] == "over":
        return max(1, (state["moves"] - 1) // state["players"] + 1)
    return round_of(state)


def evolve(state, event):
    # an event type this reducer does not know changes nothing
    return EVOLVERS.get(event.type, _unchanged)(state, event.data)


def _game_started(_state, d):
    return _new_state(d)


def _piece_placed(state, d):
    seat = d["seat"]
    _put(state, seat, d["kind"], d["x"], d["y"], d["z"], d["dir"], list(d["on"]))
    state["hands"][seat][d["kind"]] -= 1
    gained = d["points"] + d["bonus"]
    state["scores"][seat] += gained
    state["connections"] += d["connections"]
    state["sheet"].append([round_of(state), seat, d["points"], _place_detail(d), ""])
    if d["bonus"]:
        state["sheet"].append([round_of(state), seat, d["bonus"], "connection between grey blocks", "Library"])
    if d["offer"]:
        state["phase"] = "staircase"
    else:
        _next_turn(state)
    return state


def _staircase_made(state, d):
    hand = state["hands"][d["seat"]]
    hand["bridge"] -= 2
    hand["staircase"] += 1
    _next_turn(state)
    return state


def _staircase_declined(state, _d):
    _next_turn(state)
    return state


def _game_ended(state, d):
    state["phase"] = "over"
    state["end"] = {"reason": d["reason"], "seat": d["seat"]}
    for line in d["lines"]:
        seat, points, detail, label = line
        state["scores"][seat] += points
        state["sheet"].append([round_of(state), seat, points, detail, label])
    return state


def _unchanged(state, _d):
    return state


# One small function per event type: evolve(state, event) -> state (it may mutate its input).
EVOLVERS = {
    "GameStarted": _game_started,
    "PiecePlaced": _piece_placed,
    "StaircaseMade": _staircase_made,
    "StaircaseDeclined": _staircase_declined,
    "GameEnded": _game_ended,
}


def _place_detail(d) -> str:
    where = f"{d['kind']} {square(d['x'], d['y'])} {d['dir']} level {d['z']}"
    if d["arches"]:
        return f"{where}: arches {'+'.join(str(a) for a in d['arches'])}"
    return where


def _next_turn(state):
    state["moves"] += 1
    state["turn"] = (state["turn"] + 1) % state["players"]
    state["phase"] = "place"


# ---------------------------------------------------------------------------------------------
# Geometry checks
# ---------------------------------------------------------------------------------------------


def _grey_ids(state):
    return {p["id"] for p in state["pieces"] if p["owner"] is None}


def check_place(state, seat, kind, x, y, z, d, full=True):
    """(None, info) when the placement is legal, else (reason, None).

    info: {"on": [piece ids], "arches": [spans per arch], "points": int}.
    With full=False the points are not computed (for enumeration).
    """
    if kind not in SHAPES:
        return _("There is no piece '{piece}'.").format(piece=kind), None
    if d not in DIRS:
        return _("There is no direction '{direction}' (e, w, n or s).").format(direction=d), None
    if state["hands"][seat].get(kind, 0) <= 0:
        return _("You have no {piece} left.").format(piece=_(PIECE_NAMES[kind])), None
    if z < 0:
        return _("Levels start at 0 (the board)."), None
    occ = state["occ"]
    top = len(occ)
    for dx, dy, dz, _role in SHAPES[kind][d]:
        cx, cy = x + dx, y + dy
        if not (0 <= cx < W and 0 <= cy < D):
            return _("The {piece} would stick out of the board.").format(piece=_(PIECE_NAMES[kind])), None
        i = (z + dz) * PLANE + cy * W + cx
        if i < top and occ[i] >= 0:
            text = _("The {piece} would run into piece #{number} at {square} level {z}.")
            return text.format(piece=_(PIECE_NAMES[kind]), number=occ[i], square=square(cx, cy), z=z + dz), None
    on = []
    ground = 0
    red = state["red"]
    for dx, dy, dz in FEET[kind][d]:
        cx, cy, cz = x + dx, y + dy, z + dz
        if cz == 0:
            if red and [cx, cy] in red:
                return _("No piece may stand on the ground at {square} (marked in red).").format(
                    square=square(cx, cy)
                ), None
            ground += 1
            continue
        i = (cz - 1) * PLANE + cy * W + cx
        below = occ[i] if i < top else -1
        if below < 0:
            text = _("That would leave a hanging column at {square} (nothing under level {z}).")
            return text.format(square=square(cx, cy), z=cz), None
        if below not in on:
            on.append(below)
    if on:
        if ground and rules_version(state) >= 2:
            return _("A piece may not rest on only one piece (#{number}); the ground is not a piece.").format(
                number=on[0]
            ), None
        if len(on) + (1 if ground else 0) < 2:
            return _("A piece may not rest on only one piece (#{number}).").format(number=on[0]), None
        if state["altar"] is not None and state["altar"] in on:
            return _("No piece may be placed on the altar (the grey piece in the red frame)."), None
        scen = SCENARIOS.get(state["options"]["scenario"])
        if scen and kind in scen.get("no_special_on_grey", ()):
            pieces = state["pieces"]
            for pid in on:
                if pieces[pid]["owner"] is None:
                    text = _("In {scenario} a {piece} may not be placed on grey pieces.")
                    return text.format(scenario=_scenario(scen), piece=_(PIECE_NAMES[kind])), None
    on.sort()
    if not full:
        return None, {"on": on}
    return None, {"on": on, "arches": arch_spans(state, kind, x, y, z, d)}


def arch_spans(state, kind, x, y, z, d):
    """Spans of each arch the piece forms (variant A: down to the piece beneath; B: to the ground).

    Version 1: the spans under the piece's opening (its deck fills its own level). Version 2: the
    piece is an arch, so its own opening (one span, a window's or portal's two) counts too, and a
    piece placed on the ground with every foot scores 0 (the rulebook says so)."""
    occ = state["occ"]
    top = len(occ)
    variant = state["options"]["scoring"]
    own = rules_version(state) >= 2
    if own and z == 0 and all(dz == 0 for _dx, _dy, dz in FEET[kind][d]):
        return [0] * len(ARCHES[kind][d])
    out = []
    for arch in ARCHES[kind][d]:
        best = None
        for dx, dy, dz in arch:
            b = z + dz
            if variant == "B":
                spans = b
            else:
                spans = 0
                col = (y + dy) * W + x + dx
                level = b - 1
                while level >= 0:
                    i = level * PLANE + col
                    if i < top and occ[i] >= 0:
                        break
                    spans += 1
                    level -= 1
            if own:
                spans += OPEN_HEIGHT[kind][abs(dx) + abs(dy)]
            best = spans if best is None else min(best, spans)
        out.append(best)
    return out


def _tops(state):
    """For each ground point, the levels > 0 where a foot could stand (occupied below, free at)."""
    occ = state["occ"]
    tops = [[] for _ in range(PLANE)]
    above = occ[PLANE:] + [-1] * PLANE
    for i in [i for i, v, w in zip(range(len(occ)), occ, above) if v >= 0 > w]:
        tops[i % PLANE].append(i // PLANE + 1)
    return tops


def _anchors(kind, d):
    """For every anchor keeping the piece on the board: (x, y, cells, feet, low, high) with
    cells the flat offsets dz * PLANE + col, feet [(dz, col)], low the columns of the feet at
    the piece's own level, high [(dz, col)] of the feet above it (the staircase's)."""
    out = []
    shape = SHAPES[kind][d]
    for y in range(D):
        for x in range(W):
            if not all(0 <= x + dx < W and 0 <= y + dy < D for dx, dy, _dz, _r in shape):
                continue
            cells = tuple(dz * PLANE + (y + dy) * W + x + dx for dx, dy, dz, _r in shape)
            feet = tuple((dz, (y + dy) * W + x + dx) for dx, dy, dz in FEET[kind][d])
            low = tuple(col for dz, col in feet if dz == 0)
            high = tuple((dz, col) for dz, col in feet if dz > 0)
            out.append((x, y, cells, feet, low, high))
    return out


ANCHORS = {(k, d): _anchors(k, d) for k in KINDS for d in DIRS}


def _index(kind, d):
    """Lookups for the enumeration: which anchors a ground-level cell or a red column blocks, and
    the anchor (if any) whose first foot stands on each column."""
    uses: dict[int, set] = {}
    red_uses: dict[int, set] = {}
    by_foot = {}
    for n, (_x, _y, cells, feet, low, _high) in enumerate(ANCHORS[(kind, d)]):
        for c in cells:
            uses.setdefault(c, set()).add(n)
        for c in low:
            red_uses.setdefault(c, set()).add(n)
        by_foot[feet[0][1]] = n
    return uses, red_uses, by_foot


INDEX = {(k, d): _index(k, d) for k in KINDS for d in DIRS}


def placements(state, seat, first_only=False):
    """Every legal (kind, x, y, z, dir) for `seat`, in a fixed order (the fast twin of check_place)."""
    if first_only:
        found = _placements(state, seat, True, [[] for _ in range(PLANE)])  # on the ground: cheap
        if found:
            return found
    return _placements(state, seat, first_only, _tops(state))


def _high_feet_on(occ, top, high):
    """The pieces under a staircase's high feet laid on the ground, or None if one hangs."""
    on = []
    for dz, col in high:
        i = (dz - 1) * PLANE + col
        b = occ[i] if i < top else -1
        if b < 0:
            return None
        if b not in on:
            on.append(b)
    return on


def _placements(state, seat, first_only, tops):
    hand = state["hands"][seat]
    occ = state["occ"]
    top = len(occ)
    low_cells = [i for i, v in enumerate(occ[: 2 * PLANE]) if v >= 0]
    red = [y * W + x for x, y in state["red"]]
    altar = state["altar"]
    scen = SCENARIOS.get(state["options"]["scenario"])
    no_grey = scen.get("no_special_on_grey", ()) if scen else ()
    grey = _grey_ids(state) if no_grey else set()
    raised_cols = [c for c in range(PLANE) if tops[c]]
    v2 = rules_version(state) >= 2
    out = []
    for kind in KINDS:
        if hand.get(kind, 0) <= 0:
            continue
        avoid_grey = kind in no_grey
        for d in PLACE_DIRS[kind]:
            anchors = ANCHORS[(kind, d)]
            uses, red_uses, by_foot = INDEX[(kind, d)]
            # on the ground: every anchor none of whose cells is taken and no foot on a red point
            blocked = set()
            for c in low_cells:
                if c in uses:
                    blocked |= uses[c]
            for c in red:
                if c in red_uses:
                    blocked |= red_uses[c]
            for n in range(len(anchors)):
                if n in blocked:
                    continue
                x, y, cells, feet, low, high = anchors[n]
                if high and v2:  # version 2: a staircase never stands on the ground (one piece)
                    continue
                if high:  # the staircase's high foot needs a piece under it, besides the ground
                    on = _high_feet_on(occ, top, high)
                    if on is None or altar in on or (avoid_grey and any(b in grey for b in on)):
                        continue
                out.append((kind, x, y, 0, d))
                if first_only:
                    return out
            # raised: the first foot on a top, every other foot on a top too, on two pieces
            for col in raised_cols:
                n = by_foot.get(col)
                if n is None:
                    continue
                x, y, cells, feet, low, high = anchors[n]
                for z in tops[col]:
                    base = z * PLANE
                    free = True
                    for c in cells:
                        i = base + c
                        if i < top and occ[i] >= 0:
                            free = False
                            break
                    if not free:
                        continue
                    on = []
                    for dz, fc in feet:
                        i = (z + dz - 1) * PLANE + fc
                        b = occ[i] if i < top else -1
                        if b < 0:
                            on = None
                            break
                        if b not in on:
                            on.append(b)
                    if on is None or len(on) < 2 or altar in on:
                        continue
                    if avoid_grey and any(b in grey for b in on):
                        continue
                    out.append((kind, x, y, z, d))
                    if first_only:
                        return out
    return out


def levels_for(state, seat, kind, x, y, d):
    """The levels at which this footprint would be legal (for a command without a level)."""
    return sorted(z for k, px, py, z, pd in placements_for(state, seat, kind, x, y, d) if k == kind)


def placements_for(state, seat, kind, x, y, d):
    tops = _tops(state)
    out = []
    fx, fy, fz = FEET[kind][d][0]
    cx, cy = x + fx, y + fy
    if not (0 <= cx < W and 0 <= cy < D):
        return out
    zs = [t - fz for t in tops[cy * W + cx] if t - fz >= 0]
    if fz == 0:
        zs.insert(0, 0)
    for z in zs:
        if check_place(state, seat, kind, x, y, z, d, full=False)[0] is None:
            out.append((kind, x, y, z, d))
    return out


# ---------------------------------------------------------------------------------------------
# Setup, decide
# ---------------------------------------------------------------------------------------------


def check_options(players, options):
    scen = options.get("scenario", "none")
    if scen != "none":
        allowed = SCENARIOS[scen]["players"]
        if players not in allowed:
            text = _("The scenario {scenario} is for {low}-{high} players.")
            raise Rejected(text.format(scenario=_scenario(SCENARIOS[scen]), low=allowed[0], high=allowed[-1]))


def setup(players, options, rng):
    scen = SCENARIOS.get(options["scenario"])
    grey, red, altar = [], [], None
    if scen:
        probe = {
            "players": 1,
            "options": dict(options),
            "hands": [dict.fromkeys(KINDS, 99)],
            "pieces": [],
            "occ": [],
            "red": [],
            "altar": None,
        }
        for g in scen["grey"]:
            err, info = check_place(probe, 0, g["kind"], g["x"], g["y"], g["z"], g["dir"], full=False)
            if err:
                raise ValueError(f"scenario layout is illegal: {err}")
            pid = _put(probe, None, g["kind"], g["x"], g["y"], g["z"], g["dir"], info["on"])
            grey.append({"kind": g["kind"], "x": g["x"], "y": g["y"], "z": g["z"], "dir": g["dir"], "on": info["on"]})
            if g.get("altar"):
                altar = pid
        red = [list(p) for p in scen["red"]]
    first = rng.randbelow(players)
    return [
        Event(
            "GameStarted",
            {
                "players": players,
                "options": dict(options),
                "first": first,
                "hand": dict(DATA["per_player"]),
                "grey": grey,
                "red": red,
                "altar": altar,
                "rules": RULES_VERSION,
            },
        )
    ]


def waiting_for(state):
    if state is None or state["phase"] == "over":
        return []
    return [state["turn"]]


def _components(state):
    """Component label of each piece, pieces joined by resting on one another."""
    pieces = state["pieces"]
    label = list(range(len(pieces)))

    def find(a):
        while label[a] != a:
            label[a] = label[label[a]]
            a = label[a]
        return a

    for p in pieces:
        for q in p["on"]:
            ra, rb = find(p["id"]), find(q)
            if ra != rb:
                label[ra] = rb
    return [find(i) for i in range(len(pieces))]


def library_connections(state, on):
    """How many connections between blocks of grey pieces a piece resting on `on` completes."""
    comps = _components(state)
    grey_comps = {comps[p["id"]] for p in state["pieces"] if p["owner"] is None}
    joined = {comps[pid] for pid in on if comps[pid] in grey_comps}
    return max(0, len(joined) - 1)


def decide(state, seat, command, rng):
    if seat not in waiting_for(state):
        raise Rejected(_("It is not your turn."))
    phase = state["phase"]
    decider = DECIDERS[phase].get(command.get("type"))
    if decider is None:
        raise Rejected(_(HINTS[phase]))
    return decider(state, seat, command)


def _make_staircase(state, seat, _command):
    events = [Event("StaircaseMade", {"seat": seat})]
    return events + _end_if_stuck(_after(state, events))


def _decline_staircase(state, seat, _command):
    events = [Event("StaircaseDeclined", {"seat": seat})]
    return events + _end_if_stuck(_after(state, events))


def _refuse_staircase(state, _seat, _command):
    if not state["options"]["staircase"]:
        raise Rejected(_("This game is played without staircases."))
    raise Rejected(
        _(
            "A staircase can be made only right after a placement that brings you to exactly "
            "8, 16, 24, 32 or 40 points. Now place one of your pieces."
        )
    )


def _place_args(command):
    """piece, x, y, z, dir of a 'place' command, the placement in its canonical form."""
    try:
        piece, x, y, z, d = command["piece"], int(command["x"]), int(command["y"]), int(command["z"]), command["dir"]
    except (KeyError, TypeError, ValueError):
        raise Rejected(
            _("Say which piece, where, which way and at which level: 'place bridge c3 east level 0'.")
        ) from None
    if piece in SHAPES and d in DIRS:
        x, y, d = canonical_place(piece, x, y, d)
    return piece, x, y, z, d


def _library_bonus(state, on):
    """(connections, bonus): the grey blocks a placement joins and the scenario's points for them."""
    connections = 0
    bonus = 0
    scen = SCENARIOS.get(state["options"]["scenario"])
    if scen and "connection_bonus" in scen and on:
        connections = library_connections(state, on)
        table = scen["connection_bonus"]
        for k in range(state["connections"], state["connections"] + connections):
            bonus += table[k] if k < len(table) else 0
    return connections, bonus


def _staircase_offer(state, seat, piece, gained):
    """Whether a placement worth `gained` brings the seat to a staircase score it may take."""
    before = state["scores"][seat]
    after_score = before + gained
    hand = state["hands"][seat]
    return bool(
        state["options"]["staircase"]
        and after_score != before
        and after_score in THRESHOLDS
        and hand["staircase"] - (1 if piece == "staircase" else 0) == 0
        and hand["bridge"] - (1 if piece == "bridge" else 0) >= 2
    )


def _decide_place(state, seat, command):
    piece, x, y, z, d = _place_args(command)
    err, info = check_place(state, seat, piece, x, y, z, d)
    if err:
        raise Rejected(err)
    points = sum(info["arches"])
    connections, bonus = _library_bonus(state, info["on"])
    offer = _staircase_offer(state, seat, piece, points + bonus)
    data = {
        "seat": seat,
        "kind": piece,
        "x": x,
        "y": y,
        "z": z,
        "dir": d,
        "on": info["on"],
        "arches": info["arches"],
        "points": points,
        "connections": connections,
        "bonus": bonus,
        "offer": offer,
    }
    events = [Event("PiecePlaced", data)]
    if offer:
        return events
    return events + _end_if_stuck(_after(state, events))


# One small function per phase and command type: (state, seat, command) -> events; a command the
# phase does not take gets the phase's hint.
DECIDERS = {
    "place": {"place": _decide_place, "staircase": _refuse_staircase},
    "staircase": {"staircase": _make_staircase, "decline": _decline_staircase},
}
HINTS = {
    "place": N_("On your turn place one of your pieces, e.g. 'place bridge c3 east level 0'."),
    "staircase": N_("You reached a staircase score: 'make staircase' or 'no staircase'."),
}


def _after(state, events):
    """The state the events lead to (on a copy)."""
    s = dict(state)
    s["occ"] = list(state["occ"])
    s["pieces"] = list(state["pieces"])
    s["hands"] = [dict(h) for h in state["hands"]]
    s["scores"] = list(state["scores"])
    s["sheet"] = list(state["sheet"])
    for e in events:
        s = evolve(s, e)
    return s


def _end_if_stuck(state):
    """The game ends when the player to move cannot place any piece."""
    seat = state["turn"]
    if placements(state, seat, first_only=True):
        return []
    hand = state["hands"][seat]
    reason = "no pieces" if sum(hand.values()) == 0 else "no space"
    return [Event("GameEnded", {"seat": seat, "reason": reason, "lines": final_lines(state)})]


def final_lines(state):
    """End-of-game bonuses and penalties: [seat, points, detail, label]."""
    lines = []
    opts = state["options"]
    pieces = state["pieces"]
    scen = SCENARIOS.get(opts["scenario"])
    if scen and "altar_bonus" in scen:
        best = max((_top(p) for p in pieces if p["owner"] is not None), default=None)
        if best is not None:
            for seat in sorted({p["owner"] for p in pieces if p["owner"] is not None and _top(p) == best}):
                lines.append([seat, scen["altar_bonus"], f"topmost piece at level {best}", "Altar"])
    if opts["penalties"]:
        pen = DATA["penalties"]
        for seat in range(state["players"]):
            hand = state["hands"][seat]
            specials = sum(n for k, n in hand.items() if k in SPECIAL)
            if specials:
                names = ", ".join(f"{n} {k}" for k, n in hand.items() if k in SPECIAL and n)
                lines.append([seat, -pen["per_special_in_hand"] * specials, f"left in hand: {names}", "Penalty"])
        carried = {q for p in pieces for q in p["on"]}
        for p in pieces:
            if p["owner"] is not None and p["z"] == 0 and not p["on"] and p["id"] not in carried:
                where = f"{p['kind']} #{p['id']} at {square(p['x'], p['y'])}"
                lines.append([p["owner"], -pen["per_lone_ground_piece"], f"{where} alone on the ground", "Penalty"])
    return lines


def _top(p) -> int:
    return p["z"] + HEIGHT[p["kind"]]


def highest(state, seat) -> int:
    return max((_top(p) for p in state["pieces"] if p["owner"] == seat), default=0)


def legal(state, seat):
    if seat not in waiting_for(state):
        return []
    if state["phase"] == "staircase":
        return [{"type": "staircase"}, {"type": "decline"}]
    return [
        {"type": "place", "piece": k, "x": x, "y": y, "z": z, "dir": d} for k, x, y, z, d in placements(state, seat)
    ]


def result(state):
    if state is None or state["phase"] != "over":
        return None
    n = state["players"]
    tops = [highest(state, s) for s in range(n)]
    return Result(list(state["scores"]), [(t,) for t in tops], {"highest_piece": tops})


# The phase as the summary names it (the read model keeps it in English, the log's language; the
# platform says it in the reader's words through this game's catalogue).
PHASE_NAMES = {"place": N_("placing a piece"), "staircase": N_("placing a staircase"), "over": N_("over")}


def summary(state):
    phase = PHASE_NAMES.get(state["phase"], state["phase"])
    return {"round": current_round(state), "phase": phase, "scores": list(state["scores"])}


def score_sheet(state):
    # The end-of-game lines were recorded with the round the ending turn would have begun; the
    # stored state keeps that (old logs replay unchanged) and the sheet shows the last round played.
    last = current_round(state)
    from .words import sheet_detail  # words names the colours and scenarios of this module

    return [ScoreLine(min(r, last), s, p, sheet_detail(detail), _(label)) for r, s, p, detail, label in state["sheet"]]


def timeout(state, seat):
    if state["phase"] == "staircase" and seat == state["turn"]:
        return {"type": "decline"}
    return None


# The pieces by name, for the messages above (words.py has the same table for the renders).
PIECE_NAMES = {
    "bridge": N_("bridge"),
    "window": N_("window"),
    "portal": N_("portal"),
    "balcony": N_("balcony"),
    "staircase": N_("staircase"),
}
SCENARIO_TITLES = {
    "Altar": N_("Altar"),
    "Catacombs": N_("Catacombs"),
    "Legacy of the Ancients": N_("Legacy of the Ancients"),
    "Library": N_("Library"),
    "Royal Gates": N_("Royal Gates"),
}


def _scenario(scen) -> str:
    return _(SCENARIO_TITLES.get(scen["title"], scen["title"]))
