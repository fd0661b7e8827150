"""A stand-in architect for a seat whose player is gone: `standin(view, legal)`.

This is version 5 (issue 29), the one in play; version 4 (`standin_v4`) is a candidate, not in
play (below). Version 1 stopped at the one-ply value below: `standin_v1.py` plays it as this code
with the look-ahead off. Version 2 counted every opponent's points in the look-ahead alike;
`standin_v2` plays it. `standin_v3` plays version 3 (in play before version 5, and the baseline
the bench measures versions 4 and 5 against).

It sees only the seat's view (in Elven Castle everything is public: the castle, every hand,
every score) and rebuilds the castle from it. Each placement first gets its one-ply value, the
careful rule "leave the next player nothing":

    value = the points this placement scores now (with the Library's connection bonus)
            - what the next player could score right after it (the best reply it leaves open)
            + small preferences: keep windows, portals and the balcony for later (the
              rulebook's TIP) unless they score more or the hand must be emptied (penalties);
              no lone piece on the ground near the end (penalties); the topmost piece late
              in the Altar scenario.

Version 2 then looks further at the LOOKAHEAD placements of best one-ply value: after each, it
plays the next PLIES placements as every player would by that careful rule (the next player's
answer, then, with two players, its own next placement) and adds what they score (+ its own,
- the others'), with the reply the last one leaves open. So it sees what the next player's
careful answer leaves it, which the one-ply value cannot: a point taken now that lets the
answer score more, or a placement that leaves the next player nothing good to do. On its last
placement, of equal values it takes the highest piece (the rulebook's tie-breaker).

Version 3 counts the others' points in that look-ahead by who they help win: in full those of
the opponent who would lead after it (his score after it, the one to beat), the rest's at
OTHERS_WEIGHT. Version 2 subtracted every opponent's points alike, so with four players the
three behind spent their placements denying one another as much as the leader, and whoever
led early (the first to play, who takes what the opening leaves open: RULINGS §0) kept his
lead. With two players the one opponent is the leader: the same choices as version 2; with
three, version 3 decides as version 2 too (LEADER_COUNTED_FROM: measured, RULINGS §0).

Version 4, a candidate not in play (it lost to version 3 head to head, 0.88x over 600 games;
RULINGS §0), from 4 players (with 2 and 3 it decides as versions 2 and 3) counts in full, beside
the leader, every opponent who would come within LEVEL_MARGIN point of him: under version 3
drawing level with the leader cost a quarter of its points and going past him cost in full, so
the others drew level and stopped there, and first place was tied on points in 39.5 % of
4-player games of variant A (RULINGS §0). And when the look-ahead reaches the end of the game,
finishing first is worth WIN points more: strictly ahead on points in full, level on points with
the highest piece (the rulebook's tie-breaker) at TIED_WIN of it.

Version 5, in play, from 4 players (with 2 and 3 it decides as versions 2 and 3: tested) changes
the look-ahead twice. It plays out FIELD_PLIES (3) placements instead of 2, so with four players
it sees the three opponents' careful answers and then the most it could score itself (its own
reply), on FIELD_WIDTH (5) candidates instead of 8 (the same cost). And it counts the opponents'
scores after it by a soft max, SOFTNESS * log(sum of exp(score / SOFTNESS)) with SOFTNESS 2.5
points: the best of them, and more the nearer the others come to him; a point to an opponent
costs his share, the nearer the top the more, the shares summing to one, with no kink where he
draws level with the leader (`against_the_field`). It beat version 3 head to head in both
variants and ties first place on points less often; at tables of version 5 only, variant B's
edge for the last to play grows from 1.26x to 2.16x (its castles grow twice as tall): the
rulebook's variant B played well, kept (RULINGS §0).

The reply is found without listing every placement again for every candidate: the next
player's placements of now are scored once; a candidate only takes away the ones it runs
into, lowers the arches it stands in, and opens new ones on its own top (which are searched
around it alone). Candidates are looked at best bound first and the search stops when no
bound beats the best value found, so a one-ply value costs about a millisecond and a
decision of version 2, 3 or 5 about ten (at idle; 15 ms at 4 players).

Staircase offers: made when the seat leads (a staircase is one piece for two bridges, so the
seat runs out a turn sooner and the game ends on that turn, while it leads; and the staircase
scores every arch it forms); declined when behind (every turn is needed to catch up).

Deterministic: no randomness, no clock; ties are broken in a fixed order (the bound, then the
order of `legal`).
"""

from __future__ import annotations

import math

from . import rules

PLANE, W = rules.PLANE, rules.W
# How much a kept special piece is worth beyond its points now (the TIP: "at the end they can
# be much more useful to you"), in points; a special is used when it scores this much more.
KEEP_SPECIAL = 0.5


def standin(view, legal, lookahead=None, version=5):
    """Version 5's choice (the one in play); `version=3` is version 3's (`standin_v3`), `version=4`
    the candidate version 4's (`standin_v4`), `version=2` version 2's (`standin_v2`),
    `lookahead=0` version 1's (`standin_v1`): the one-ply value alone."""
    if not legal:
        raise ValueError("the stand-in was asked to move with no legal command")
    if view["phase"] == "staircase":
        return _staircase(view, legal)
    state = state_from_view(view)
    return legal[best_index(state, view["turn"], legal, LOOKAHEAD if lookahead is None else lookahead, version)]


def standin_v5(view, legal):
    """Version 5 (in play): from 4 players, its own reply after the three opponents' answers in
    the look-ahead, and the opponents counted by a soft max of their scores (RULINGS §0)."""
    return standin(view, legal, version=5)


def standin_v3(view, legal):
    """Version 3 (in play until version 5, and the bench's baseline for versions 4 and 5): the
    leader's points in full, the others' at OTHERS_WEIGHT, with no regard to who finishes first."""
    return standin(view, legal, version=3)


def standin_v4(view, legal):
    """Version 4, a candidate not in play: it ties first place less often (22.8 % against 39.5 %
    of 4-player games of variant A) but lost to version 3 head to head (0.88x, RULINGS §0)."""
    return standin(view, legal, version=4)


def standin_v2(view, legal):
    """Version 2 (the bench's baseline for version 3): the look-ahead counts every opponent's
    points alike against the seat."""
    return standin(view, legal, version=2)


# ---------------------------------------------------------------------------------------------
# The castle rebuilt from a view
# ---------------------------------------------------------------------------------------------


def state_from_view(view):
    """A rules state holding what the view shows (enough for placements and scoring)."""
    state = {
        "players": view["players"],
        "options": dict(view["options"]),
        "turn": view["turn"],
        "phase": view["phase"],
        "hands": [dict(h) for h in view["hands"]],
        "scores": list(view["scores"]),
        "pieces": [],
        "occ": [],
        "red": [list(p) for p in view["red"]],
        "altar": view["altar"],
        "connections": view["connections"],
        "rules": view.get("rules", 1),
    }
    for p in view["pieces"]:
        rules._put(state, p["owner"], p["kind"], p["x"], p["y"], p["z"], p["dir"], list(p["on"]))
    return state


# The cells (flat offsets at level 0) and the ground points of each piece at each anchor.
FOOTPRINT = {
    key: {(a[0], a[1]): (a[2], frozenset(c % PLANE for c in a[2])) for a in anchors}
    for key, anchors in rules.ANCHORS.items()
}


def _cells(kind, x, y, z, d):
    base = z * PLANE
    return [base + c for c in FOOTPRINT[(kind, d)][(x, y)][0]]


def _arch_columns(kind, x, y, d):
    return {(y + dy) * W + x + dx for arch in rules.ARCHES[kind][d] for dx, dy, _dz in arch}


def _bonus(state, on, extra_connections=0):
    """The Library's bonus for the connections a piece resting on `on` completes."""
    scen = rules.SCENARIOS.get(state["options"]["scenario"])
    if not scen or "connection_bonus" not in scen or not on:
        return 0
    table = scen["connection_bonus"]
    done = state["connections"] + extra_connections
    made = rules.library_connections(state, on)
    return sum(table[k] for k in range(done, done + made) if k < len(table))


def points(state, kind, x, y, z, d):
    """What the placement scores at once: its arches (by the game's variant) and any bonus."""
    if z == 0 and kind != "staircase":
        return 0  # on the ground with every foot: its opening is at level 0, and it joins nothing
    spans = sum(rules.arch_spans(state, kind, x, y, z, d))
    if state["options"]["scenario"] == "library":
        _err, info = rules.check_place(state, state["turn"], kind, x, y, z, d, full=False)
        spans += _bonus(state, info["on"] if info else [])
    return spans


# ---------------------------------------------------------------------------------------------
# Choosing a placement
# ---------------------------------------------------------------------------------------------


# How many of the placements of best one-ply value are looked at further, and how many placements
# of careful play after each are played out (the next player's, then, with two players, ours).
LOOKAHEAD = 8
PLIES = 2


# Version 3: of the opponents' points in the look-ahead, those of the opponent who would lead
# after it count in full, the others' at this weight (see the module's docstring).
OTHERS_WEIGHT = 0.25
# ... with this many players or more. With 3, counting the leader's points in full made the last
# to play win 1.43x (1.24-1.61) in variant A over 240 games, where version 2 is within the
# bounds (RULINGS §0): with 3 players version 3 decides as version 2.
LEADER_COUNTED_FROM = 4


# Version 4, from RANK_FROM players: an opponent who would come within LEVEL_MARGIN points of the
# leader after the look-ahead counts in full, as the leader does (`against_the_top`); and when the
# look-ahead reaches the end of the game (every remaining placement played out, or a player to
# move with no piece or no space), finishing first is worth WIN points more: in full strictly
# ahead on points, TIED_WIN of it level on points with the highest piece (the rulebook's
# tie-breaker), shared when the tops are level too (`finishing_first`).
RANK_FROM = 4
LEVEL_MARGIN = 1
WIN = 10.0
TIED_WIN = 0.5


# Version 5, from FIELD_FROM players: of the FIELD_WIDTH placements of best one-ply value, the
# look-ahead plays out FIELD_PLIES placements (with four players the three opponents' careful
# answers, and then the best the seat itself could score: its own reply) and counts the
# opponents' scores after it by a soft max of softness SOFTNESS points (`against_the_field`).
# Five candidates of three placements cost what version 3's eight of two do (RULINGS §0).
FIELD_FROM = 4
FIELD_WIDTH = 5
FIELD_PLIES = 3
SOFTNESS = 2.5


def best_index(state, seat, legal, lookahead=LOOKAHEAD, version=5):
    """The index in `legal` of the placement of best value (see the module's docstring); with
    `lookahead` 0 the best one-ply value, the first of equals (version 1)."""
    places = [place_of(c) for c in legal]
    judged = Evaluation(state, seat, places)
    if not lookahead:
        return judged.best()
    field = version >= 5 and state["players"] >= FIELD_FROM
    candidates = judged.top(FIELD_WIDTH if field and lookahead == LOOKAHEAD else lookahead)
    if len(candidates) == 1:
        return candidates[0]
    last = my_turns_left(state, seat) == 1
    best, best_i = None, None
    counted = against_leader if version >= 3 and state["players"] >= LEADER_COUNTED_FROM else against_all
    ranked = version == 4 and state["players"] >= RANK_FROM
    if ranked:
        counted = against_the_top
    if field:
        counted = against_the_field
    for i in candidates:
        after = state_after(state, seat, places[i], judged.gains[i])
        got, end = rollout(after, FIELD_PLIES if field else None)
        value = judged.gains[i] + judged.prefs[i] + counted(after, seat, got)
        if ranked and end is not None:
            value += finishing_first(end, seat, [s + g for s, g in zip(after["scores"], got)])
        # On its last placement, of equal values the highest piece (the rulebook's tie-breaker).
        key = (value, places[i][3] + rules.HEIGHT[places[i][0]] if last else 0)
        if best is None or key > best:
            best, best_i = key, i
    return best_i


def against_all(state, me, got):
    """Version 2: what the look-ahead brings me, less what it brings every opponent alike."""
    return got[me] - sum(g for seat, g in enumerate(got) if seat != me)


def against_leader(state, me, got):
    """Version 3: what the look-ahead brings me, less the score the best-placed opponent would
    have after it (in full: the one to beat) and OTHERS_WEIGHT of what it brings the rest. With
    two players the same choices as version 2 (the one opponent is the leader)."""
    others = [seat for seat in range(len(got)) if seat != me]
    leader = max(others, key=lambda seat: state["scores"][seat] + got[seat])  # the first of equals
    rest = sum(got[seat] for seat in others if seat != leader)
    return got[me] - (state["scores"][leader] + got[leader]) - OTHERS_WEIGHT * rest


def against_the_top(state, me, got):
    """Version 4: as against_leader, but an opponent who would come within LEVEL_MARGIN points of
    the leader counts in full too, not at OTHERS_WEIGHT: under version 3 drawing level with the
    leader cost a quarter and going past him cost in full, so the others drew level and stopped
    there, and first place was tied on points in 39.5 % of 4-player games of variant A."""
    others = [seat for seat in range(len(got)) if seat != me]
    final = {seat: state["scores"][seat] + got[seat] for seat in others}
    leader = max(others, key=lambda seat: final[seat])  # the first of equals
    top = final[leader]
    rest = sum(
        got[seat] * (1 if final[seat] >= top - LEVEL_MARGIN else OTHERS_WEIGHT) for seat in others if seat != leader
    )
    return got[me] - top - rest


def against_the_field(state, me, got):
    """Version 5: what the look-ahead brings me, less a soft max of the opponents' scores after it,
    SOFTNESS * log(sum of exp(score / SOFTNESS)): the best of them (the one to beat) and up to
    SOFTNESS * log(3) more as the others come near him. A point to an opponent costs his share,
    exp(score / SOFTNESS) over the sum: the closer to the top the more, the shares summing to one,
    with no kink where he draws level with the leader or passes him (version 3: a quarter below
    the leader's score, in full above it, so drawing level was cheap: RULINGS §0)."""
    final = [s + g for s, g in zip(state["scores"], got)]
    pool = [f for seat, f in enumerate(final) if seat != me]
    top = max(pool)
    soft = top + SOFTNESS * math.log(sum(math.exp((f - top) / SOFTNESS) for f in pool))
    return got[me] - soft


def state_after(state, seat, place, gain):
    """The state after `seat` places `place` (worth `gain`), on a copy; the next player's turn
    (a staircase offer is not made)."""
    kind, x, y, z, d = place
    s = dict(state)
    s["occ"] = list(state["occ"])
    s["pieces"] = list(state["pieces"])
    s["hands"] = [dict(h) for h in state["hands"]]
    s["scores"] = list(state["scores"])
    _err, info = rules.check_place(state, seat, kind, x, y, z, d, full=False)
    on = info["on"] if info else []
    s["connections"] = state["connections"] + rules._library_bonus(state, on)[0]
    rules._put(s, seat, kind, x, y, z, d, on)
    s["hands"][seat][kind] -= 1
    s["scores"][seat] += gain
    s["turn"] = (seat + 1) % state["players"]
    s["phase"] = "place"
    return s


def finishing_first(end, me, final):
    """Version 4: what finishing first is worth to `me` in a game ending as `end` (its castle) with
    the scores `final`: WIN strictly ahead on points, TIED_WIN of it level on points with the
    highest piece, shared when the tops are level too, 0 behind."""
    best_other = max(score for seat, score in enumerate(final) if seat != me)
    if final[me] != best_other:
        return WIN if final[me] > best_other else 0.0
    level = [seat for seat, score in enumerate(final) if score == final[me]]
    tops = {seat: rules.highest(end, seat) for seat in level}
    highest = max(tops.values())
    if tops[me] < highest:
        return 0.0
    return WIN * TIED_WIN / sum(1 for top in tops.values() if top == highest)


def rollout_gains(state, plies=None):
    """What the careful play of the next `plies` placements (each player's one-ply pick) brings
    each seat, and at the end the best reply the last placement leaves the player after it."""
    return rollout(state, plies)[0]


def rollout(state, plies=None):
    """rollout_gains, and the castle the game ends with if it ends within them (the last reply's
    piece not placed), else None."""
    plies = PLIES if plies is None else plies
    got = [0] * state["players"]
    for ply in range(plies):
        seat = state["turn"]
        if not sum(state["hands"][seat].values()):
            return got, state  # the game ends
        places = rules.placements(state, seat)
        if not places:
            return got, state
        ev = Evaluation(state, seat, places)
        i = ev.best()
        got[seat] += ev.gains[i]
        if ev.replies is None:  # the next player has no piece: the game ends after this placement
            return got, state_after(state, seat, places[i], ev.gains[i])
        if ply == plies - 1:
            replier = (seat + 1) % state["players"]
            got[replier] += ev.reply(i)
            then = (replier + 1) % state["players"]
            left = sum(state["hands"][then].values()) - (then == seat)
            return got, (state_after(state, seat, places[i], ev.gains[i]) if left <= 0 else None)
        state = state_after(state, seat, places[i], ev.gains[i])
    return got, None


def place_of(command):
    return command["piece"], command["x"], command["y"], command["z"], command["dir"]


class Evaluation:
    """The placements `places` (kind, x, y, z, dir) of `seat`, which must be all his legal
    ones (the next player's replies are partly taken from them), valued as the module's
    docstring says: `gains[i]` what each scores now, `best(among)` the best of them."""

    def __init__(self, state, seat, places):
        self.places = places
        self.gains = [points(state, *p) for p in places]
        self.prefs = preferences(state, seat, places)
        nxt = (seat + 1) % state["players"]
        # When the next player has no piece, the game ends before he moves: no reply to fear.
        if sum(state["hands"][nxt].values()):
            held = [k for k, n in state["hands"][seat].items() if n > 0]
            self.replies = Replies(state, nxt, list(zip(places, self.gains)), held)
        else:
            self.replies = None
        self._reply = {}
        self._bounds = None

    def best(self, among=None):
        """The index (into `places`) of the best placement among the indices `among` (all by
        default): candidates in order of their bound (the reply they leave open, which is cheap)
        and the ones that might beat the best so far also searched for the replies they open."""
        if self._bounds is None:
            self._bounds = [self._bound(i) for i in range(len(self.places))]
        among = range(len(self.places)) if among is None else among
        bounds = sorted((self._bounds[i], i) for i in among)
        best, best_i = None, None
        for neg_bound, i in bounds:
            if best is not None and -neg_bound <= best:
                break
            value = self.value(i)
            if best is None or value > best:
                best, best_i = value, i
        return best_i

    def top(self, k):
        """The indices of the k placements of best value (fewer if there are fewer), best first."""
        if self._bounds is None:
            self._bounds = [self._bound(i) for i in range(len(self.places))]
        bounds = sorted((self._bounds[i], i) for i in range(len(self.places)))
        found = []
        for neg_bound, i in bounds:
            if len(found) >= k and -neg_bound <= found[k - 1][0] * -1:
                break
            found.append((-self.value(i), i))
            found.sort()
        return [i for _v, i in found[:k]]

    def reply(self, i):
        """The most the next player can score right after placement i."""
        if self.replies is None:
            return 0
        if i not in self._reply:
            place = self.places[i]
            self._reply[i] = max(self.replies.left_open(place), self.replies.opened(place))
        return self._reply[i]

    def value(self, i):
        return self.gains[i] + self.prefs[i] - self.reply(i)

    def _bound(self, i):
        """Minus an upper bound of value(i) (sorted ascending: best first, ties in legal order)."""
        left = self.replies.left_open(self.places[i]) if self.replies else 0
        return -(self.gains[i] + self.prefs[i] - left)


def preferences(state, seat, places):
    """The small preferences added to each placement's points (see the module's docstring)."""
    hand = state["hands"][seat]
    opts = state["options"]
    specials = sum(n for k, n in hand.items() if k in rules.SPECIAL)
    must_empty = opts["penalties"] and specials >= my_turns_left(state, seat)
    placed = sum(1 for p in state["pieces"] if p["owner"] is not None)
    progress = placed / max(1, placed + sum(sum(h.values()) for h in state["hands"]))
    late = progress * progress
    top_now = max((rules._top(p) for p in state["pieces"] if p["owner"] is not None), default=0)
    altar = opts["scenario"] == "altar"
    out = []
    for kind, _x, _y, z, _d in places:
        pref = 0.0
        if kind in rules.SPECIAL:
            pref += 2.5 if must_empty else -KEEP_SPECIAL
        if opts["penalties"] and z == 0 and kind != "staircase":  # a staircase's high foot is on a piece
            pref -= 2.0 * late  # near the end nothing will be built on it: -2 for a lone piece
        if altar and z + rules.HEIGHT[kind] > top_now:
            pref += 6.0 * late  # the topmost piece at the end gets 6
        out.append(pref)
    return out


def my_turns_left(state, seat):
    """How many more placements `seat` makes, this one included, if nobody is stuck for space:
    the game ends on the first turn whose player has no piece left."""
    n = state["players"]
    left = [sum(h.values()) for h in state["hands"]]
    turn, mine = seat, 0
    while left[turn] > 0:
        left[turn] -= 1
        mine += turn == seat
        turn = (turn + 1) % n
    return mine


# The anchors at which each piece laid each way stays on the board.
ON_BOARD = {key: {(a[0], a[1]) for a in anchors} for key, anchors in rules.ANCHORS.items()}


def _feet_supported(occ, top, place, feet):
    """Whether every foot of `place` stands on the board or on an occupied cell."""
    _kind, x, y, z, _d = place
    for fx, fy, fz in feet:
        level = z + fz
        if level:
            i = (level - 1) * PLANE + (y + fy) * W + x + fx
            if i >= top or occ[i] < 0:
                return False
    return True


def _rests(occ, top, place, feet, v2):
    """Whether `place`, whose feet are supported, runs into nothing and rests on two pieces (or,
    under rules version 1 only, on the ground and one piece), as check_place asks."""
    kind, x, y, z, d = place
    base = z * PLANE
    for c in FOOTPRINT[(kind, d)][(x, y)][0]:
        i = base + c
        if i < top and occ[i] >= 0:
            return False
    on, ground = set(), 0
    for fx, fy, fz in feet:
        level = z + fz
        if level:
            on.add(occ[(level - 1) * PLANE + (y + fy) * W + x + fx])
        else:
            ground = 1
    if not on:
        return True
    if ground and v2:
        return False
    return len(on) + ground >= 2


class Replies:
    """The next player's best immediate score after a candidate placement of ours."""

    def __init__(self, state, seat, known=(), known_kinds=()):
        """`known`: (placement, score) pairs already listed for another seat holding the
        kinds `known_kinds`; where a placement is legal does not depend on who holds the
        piece, so those of the kinds this seat holds are taken over, not searched again."""
        self.state = state
        self.seat = seat
        self.variant_a = state["options"]["scoring"] == "A"
        hand = state["hands"][seat]
        held = {k for k, n in hand.items() if n > 0}
        scored = [(score, p) for p, score in known if score > 0 and p[0] in held]
        missing = held - set(known_kinds)
        if missing:
            hands = list(state["hands"])
            hands[seat] = {k: hand[k] if k in missing else 0 for k in hand}
            reply_state = dict(state, turn=seat, hands=hands)
            scored += [(points(reply_state, *p), p) for p in rules.placements(reply_state, seat)]
        self.now = []  # (score, cells, arch columns, placement), best first
        for score, p in scored:
            if score > 0:
                kind, x, y, z, d = p
                self.now.append((score, set(_cells(kind, x, y, z, d)), _arch_columns(kind, x, y, d), p))
        self.now.sort(key=lambda r: -r[0])
        self._after = {}

    def left_open(self, place):
        """The best of the next player's placements of now that `place` leaves possible (with
        the arches it stands in lowered)."""
        if not self.now:
            return 0
        kind, x, y, z, d = place
        cells, columns = FOOTPRINT[(kind, d)][(x, y)]
        base = z * PLANE
        taken = {base + c for c in cells}
        best = 0
        for score, their_cells, arch_columns, p in self.now:
            if score <= best:
                break
            if taken & their_cells:
                continue
            if self.variant_a and columns & arch_columns:
                score = points(self._state_after(place), *p)
            best = max(best, score)
        return best

    def opened(self, place):
        """The best new placement of the next player standing on `place` (0 if none)."""
        after = self._state_after(place)
        kind, x, y, z, d = place
        occ = after["occ"]
        top = len(occ)
        hand = self.state["hands"][self.seat]
        seen = set()
        best = 0
        v2 = rules.rules_version(after) >= 2
        scen = rules.SCENARIOS.get(after["options"]["scenario"])
        # With no red point, altar or grey-only rule, _rests is the whole of check_place's test.
        plain = not after["red"] and after["altar"] is None and not (scen and scen.get("no_special_on_grey"))
        for c in _cells(kind, x, y, z, d):
            above = c + PLANE
            if above < top and occ[above] >= 0:
                continue
            level, col = above // PLANE, above % PLANE
            cx, cy = col % W, col // W
            for k in rules.KINDS:
                if hand.get(k, 0) <= 0:
                    continue
                for pd in rules.PLACE_DIRS[k]:
                    feet = rules.FEET[k][pd]
                    on_board = ON_BOARD[(k, pd)]
                    for fx, fy, fz in feet:
                        p = (k, cx - fx, cy - fy, level - fz, pd)
                        if p[3] < 0 or (p[1], p[2]) not in on_board or p in seen:
                            continue
                        seen.add(p)
                        if not _feet_supported(occ, top, p, feet) or not _rests(occ, top, p, feet, v2):
                            continue  # (the cheap tests first: most candidates fail them)
                        if plain or rules.check_place(after, self.seat, *p, full=False)[0] is None:
                            best = max(best, points(after, *p))
        return best

    def _state_after(self, place):
        """The castle with our candidate placed (hands untouched: only geometry matters)."""
        if place not in self._after:
            kind, x, y, z, d = place
            s = dict(self.state, turn=self.seat)
            s["occ"] = list(self.state["occ"])
            s["pieces"] = list(self.state["pieces"])
            _err, info = rules.check_place(self.state, self.state["turn"], kind, x, y, z, d, full=False)
            rules._put(s, self.state["turn"], kind, x, y, z, d, info["on"] if info else [])
            self._after = {place: s}  # one at a time: a candidate is looked at once
        return self._after[place]


# ---------------------------------------------------------------------------------------------
# The staircase offer
# ---------------------------------------------------------------------------------------------


def _staircase(view, legal):
    seat = view["turn"]
    scores = view["scores"]
    leads = all(scores[seat] > s for i, s in enumerate(scores) if i != seat)
    make = {"type": "staircase"}
    decline = {"type": "decline"}
    if leads and make in legal:
        return make
    return decline if decline in legal else legal[0]
