"""A stand-in for a seat whose player is gone: it plays every decision of Elfenland from that
seat's own view (it never sees another seat's cards or counters, so it cannot cheat), and it is
deterministic (no randomness, no clock).

The heart is `best_plan`: the route through this round's board that collects the most town
pieces with the cards in hand. During movement it walks the counters on the board; while
counters are drawn and placed it may also lay the counters it holds on free routes. Every
decision then follows from the plan:

- step 2 (draw): the face-up counter that lengthens the plan most, else a blind draw;
- step 3 (place): the first counter the plan lays (among equal plans, one that lays no counter
  on a route out of a rival's town to a town it needs); when it lays none, Trouble on a route the
  leading rival is about to use; else a spare counter (not the one to keep) laid where it is slow
  on a route out of a rival's town, so that no quicker counter can go there; else pass. In the
  duel (two players, version 3) Trouble or a spare counter goes instead where it costs the
  rival's plan most, that plan guessed from this seat's view (`duel_command`);
- step 4 (move): the plan's first route, paying a caravan with the cards the plan needs least;
  'end' when no route is worth the cards;
- discarding: the card whose loss harms next round's plan least;
- step 5 (keep): the counter that makes next round's opening plan best.

A plan is scored in tenths of a town piece: 10 per new town piece, up to about 8 for where it
ends (unvisited towns one and two routes away: next round starts there) less 1 for each
unvisited town it leaves alone (no unvisited town next to it), and, in the last round, the Home
City penalty and the card tie-break.

This is version 3 (issue 29), which plays the duel otherwise and decides as version 2 at 3 to 6
players; `standin_v2` (today's code with version=2) decides as version 2 did at every table size,
and `standin_v1.py` plays the first one as this code with version=1: no spare-counter block, no
care for a rival helped by the counters it lays, no count of towns left alone.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from operator import ge

from . import board as B
from . import rules as R

KINDS = R.CARDS
KIND = R.CARD_INDEX
RAFT = KIND["raft"]
TOWNS = B.TOWN_IDS
TOWN = {t: i for i, t in enumerate(TOWNS)}
PIECE_MASK = sum(1 << TOWN[t] for t in B.PIECE_TOWNS)
NODE_LIMIT = 6000  # a cap on the search, so a stand-in decision stays fast on any board
TOWN_POINTS = 10
# A counter laid where it opens a way for a rival (a route out of its Elf's town to a town it
# still needs) costs the plan this much: among equal plans, the one that helps nobody.
HELP_COST = 1.5
NEAR_WEIGHT, NEXT_WEIGHT = 0.8, 0.3  # value of an unvisited town 1 or 2 routes from where we end
# An unvisited town left alone (no other unvisited town one route away, nor next to where the Elf
# ends) costs this much before the last round: among plans collecting as many towns, the one that
# leaves the rest in groups (a town left alone takes a journey of its own later).
STRANDED_COST = 1.0
# Version 3 (issue 29) plays the duel (2 players) differently; version=2 decides as version 2 did.
VERSION = 3

RING1 = [sum(1 << TOWN[o] for o in TOWNS if B.distance(t, o) == 1) & PIECE_MASK for t in TOWNS]
RING2 = [sum(1 << TOWN[o] for o in TOWNS if B.distance(t, o) == 2) & PIECE_MASK for t in TOWNS]
ALLOWED = {c: {r for r in B.LAND_ROUTES if B.allowed(c, r)} for c in B.COUNTER_TYPES}
COST = {c: {r: B.placed_cost(c, r) for r in ALLOWED[c]} for c in B.COUNTER_TYPES}
# Per town: the land routes out, each with its cost per kind of counter allowed on it; the water
# routes out, with their raft cost (without, with the Lakes variant) and whether on Mare Nebulae.
LAND_EXITS = [
    [
        (route, TOWN[other], {c: COST[c][route] for c in B.COUNTER_TYPES if route in ALLOWED[c]})
        for route, other in B.EXITS[t]
        if B.ROUTES[route]["type"] in B.LAND
    ]
    for t in TOWNS
]
WATER_EXITS = [
    [
        (
            route,
            TOWN[other],
            B.ROUTES[route].get("lake") == B.NEBULAE,
            (B.raft_cost(route, other, False), B.raft_cost(route, other, True)),
        )
        for route, other in B.EXITS[t]
        if B.ROUTES[route]["type"] in B.WATER
    ]
    for t in TOWNS
]


def _bits(mask: int) -> int:
    return mask.bit_count()


@lru_cache(maxsize=1 << 16)
def _stranded(candidates: int, unseen: int | None = None) -> int:
    """How many towns of `candidates` (unvisited, not next to where the Elf ends) have no other
    unvisited town one route away: each will cost a journey of its own in a later round."""
    unseen = candidates if unseen is None else unseen
    count = 0
    while candidates:
        low = candidates & -candidates
        if not RING1[low.bit_length() - 1] & unseen:
            count += 1
        candidates ^= low
    return count


class Seat:
    """What the plan needs to know, read from one seat's view."""

    def __init__(self, view, hand=None, elf=None, version=VERSION):
        me = view["seat"]
        mine = view["seats"][me]
        self.view = view
        self.me = me
        self.start = TOWN[elf or mine["elf"]]
        source = view["hand"] if hand is None else hand
        self.hand = tuple(source.get(c, 0) for c in KINDS)
        self.up = list(mine["up"])
        self.down = list(view["down"] or [])
        self.board = view["board"]
        self.trouble = view["trouble"]
        self.lakes = view["options"]["lakes"]
        self.boatmen = view["options"]["boatmen"]
        self.collected = sum(1 << TOWN[t] for t in mine["towns"])
        self.count = len(mine["towns"])
        self.last = view["round"] >= view["rounds"]
        self.home = TOWN[view["home"]] if view.get("home") else None
        self.round = view["round"]
        self._rival_routes = None
        # the duel: two players, version 3 on (what one rival loses is what this seat gains)
        self.duel = version >= 3 and view["players"] == 2
        self.version = version

    @property
    def rival_routes(self) -> frozenset:
        """The land routes out of a rival's Elf to a town that rival still needs: a counter laid
        there may carry the rival on."""
        if self._rival_routes is None:
            routes = set()
            for s, st in enumerate(self.view["seats"]):
                if s != self.me:
                    routes |= {
                        route
                        for route, other in B.EXITS[st["elf"]]
                        if other not in st["towns"] and B.TOWNS[other]["has_town_pieces"]
                    }
            self._rival_routes = frozenset(routes)
        return self._rival_routes

    def end_value(self, town: int, new: int, left: int) -> float:
        """What ending the move in `town` is worth, beyond the town pieces collected."""
        if self.last:
            value = 0.5 * min(left, B.HAND_LIMIT_AFTER_MOVE)  # the tie-break: most cards
            if self.home is not None:
                penalty = min(B.DIST[TOWNS[town]][TOWNS[self.home]], self.count + _bits(new))
                value -= TOWN_POINTS * penalty
            return value
        unseen = PIECE_MASK & ~(self.collected | new)
        value = NEAR_WEIGHT * _bits(RING1[town] & unseen) + NEXT_WEIGHT * _bits(RING2[town] & unseen)
        if self.home is not None and self.round == B.ROUNDS - 1:
            value -= 0.5 * B.DIST[TOWNS[town]][TOWNS[self.home]]
        if self.version < 2:  # version 1 did not count the towns a plan leaves alone
            return min(value, 8.0)
        return min(value, 8.0) - STRANDED_COST * _stranded(unseen & ~RING1[town] & ~(1 << town), unseen)


class Plan:
    """The best plan found: its score, its steps and the cards its typed payments leave free.

    A step is (route, to-town index, kind, amount, placed counter or None): kind is a card index
    (that many cards of that kind) or None (any `amount` cards: a caravan or the Boatmen)."""

    def __init__(self, score, steps, free):
        self.score = score
        self.steps = steps
        self.free = free

    @property
    def places(self):
        return [(s[0], s[4]) for s in self.steps if s[4] is not None]


def best_plan(seat: Seat, counters=(), board=None, limit=NODE_LIMIT, budget=None) -> Plan:
    """The plan with the highest score from the seat's Elf: a search over routes with the hand
    split in typed cards still free and a count of "any" cards owed (a caravan takes any cards,
    so a path is payable exactly when its typed demands fit kind by kind and all its cards fit
    the hand's size), bounded (a town needs at least one card) and with dominated states skipped.
    `counters` may be laid on free land routes on the way (placement), one route each; the
    search stops after `limit` states (the best plan found by then). `budget`: how many cards
    the hand holds in all, when not the sum of its kinds (a guessed hand)."""
    # this round's board only; version 1 did not mind helping a rival
    helps = seat.rival_routes if counters and board is None and seat.version >= 2 else frozenset()
    board = seat.board if board is None else board
    ways = _ways(tuple(sorted(board.items())), frozenset(seat.trouble), seat.lakes, seat.boatmen)
    collected, end_value, last = seat.collected, seat.end_value, seat.last
    ends: dict = {}  # end_value's answers: before the last round it does not depend on the cards left
    budget = sum(seat.hand) if budget is None else budget
    best = Plan(end_value(seat.start, 0, budget), [], seat.hand)
    top = best.score  # the best plan's score, at hand
    seen: dict = {}
    path: list = []
    nodes = 0

    def visit(town, free, left, ctrs, placed, new, newcount, helping=0):
        """`free`: typed cards still free; `left`: cards still free once the "any" cards owed
        are paid (a caravan lowers only `left`); `helping`: counters laid where they open a way
        for a rival."""
        nonlocal best, top, nodes
        nodes += 1
        points = TOWN_POINTS * newcount
        if path and points + 8.0 > top:  # else it cannot be the best
            at = (town, new, left if last else 0)
            value = ends.get(at)
            if value is None:
                value = ends[at] = end_value(town, new, left)
            score = points + value - HELP_COST * helping
            if score > top:
                best, top = Plan(score, list(path), free), score
        if points + TOWN_POINTS * left + 8.0 <= top or nodes > limit:
            return
        # How a state was reached does not matter (but for the counters it laid): it is skipped
        # when one at the same town, with the same towns collected and counters left, had at
        # least as many cards of every kind and in all (else it is recorded).
        key = (town, new, ctrs, helping)
        kept = seen.get(key)
        if kept is None:
            seen[key] = [(free, left)]
        else:
            for f2, l2 in kept:
                if l2 >= left and all(map(ge, f2, free)):
                    return
            kept.append((free, left))
        for piece, route, other, kind, amount, lay in _exits(ways[town], free, left, ctrs, placed, collected | new):
            nfree = free if kind is None else free[:kind] + (free[kind] - amount,) + free[kind + 1 :]
            if lay is None:
                nctrs, nplaced, nhelping = ctrs, placed, helping
            else:
                i = ctrs.index(lay)
                nctrs, nplaced = ctrs[:i] + ctrs[i + 1 :], placed + ((route, lay),)
                nhelping = helping + (route in helps)
            path.append((route, other, kind, amount, lay))
            if piece:
                visit(other, nfree, left - amount, nctrs, nplaced, new | piece, newcount + 1, nhelping)
            else:
                visit(other, nfree, left - amount, nctrs, nplaced, new, newcount, nhelping)
            path.pop()

    visit(seat.start, seat.hand, budget, tuple(sorted(counters)), (), 0, 0)
    # `visit` calls itself through its closure: a cycle holding the search's states, which only
    # the cycle collector could free (a full collection over the heap in a worker). Broken here,
    # the search is freed at once.
    visit = None  # type: ignore[assignment]
    return best


# A town's piece as a bit, or 0 for a town without pieces (nothing to collect there).
PIECE_BIT = [(1 << i) & PIECE_MASK for i in range(len(TOWNS))]


@lru_cache(maxsize=64)
def _ways(board: tuple, trouble: frozenset, lakes: bool, boatmen: bool) -> list[list[tuple]]:
    """Per town, its ways out on this board, in the order the search tries them (rivers and
    lakes, then land routes): (piece bit of the town it leads to, route, that town, kind of card,
    cards needed, None) for a payment of that many cards of that kind (kind None: any cards), and
    (piece bit, route, town, None, trouble's extra card, costs per counter kind) for a land route
    without a counter on the board (where the plan may lay one, or use one it laid). What
    _exits then needs per state is only the hand's checks. `board`: its (route, counter) pairs,
    sorted (a decision weighs several plans on one board: made once)."""
    counters = dict(board)
    ways = []
    for town in range(len(TOWNS)):
        out: list[tuple] = []
        for route, other, nebulae, rafts in WATER_EXITS[town]:
            out.append((PIECE_BIT[other], route, other, RAFT, rafts[1] if lakes else rafts[0], None))
            if boatmen and nebulae:
                out.append((PIECE_BIT[other], route, other, None, B.BOATMEN_CARDS, None))
        for route, other, costs in LAND_EXITS[town]:
            counter = counters.get(route)
            extra = 1 if route in trouble else 0
            if counter is None:
                out.append((PIECE_BIT[other], route, other, None, extra, costs))
            else:
                out.append((PIECE_BIT[other], route, other, KIND[counter], costs[counter] + extra, None))
                out.append((PIECE_BIT[other], route, other, None, B.CARAVAN_CARDS + extra, None))
        ways.append(out)
    return ways


def _exits(ways, free, left, ctrs, placed, visited):
    """The payable ways on from a town (its `ways`), as (piece bit gained or 0, route, other,
    kind, amount, counter laid): those to towns with a piece still to collect, then the others,
    each in the order of `ways`."""
    fresh, stale = [], []  # new towns first: a good plan found early lets the bound prune more
    laid = dict(placed) if placed else None
    for piece, route, other, kind, need, costs in ways:
        if costs is None:
            if need <= left and (kind is None or free[kind] >= need):
                if piece and not visited & piece:
                    fresh.append((piece, route, other, kind, need, None))
                else:
                    stale.append((0, route, other, kind, need, None))
            continue
        gain = piece if piece and not visited & piece else 0
        out = fresh if gain else stale
        counter = laid.get(route) if laid else None
        if counter is not None:  # a counter this plan laid: paid as one on the board
            typed, caravan = costs[counter] + need, B.CARAVAN_CARDS + need
            kind = KIND[counter]
            if free[kind] >= typed and left >= typed:
                out.append((gain, route, other, kind, typed, None))
            if left >= caravan:
                out.append((gain, route, other, None, caravan, None))
            continue
        previous = None
        for c in ctrs:  # sorted, so each kind of counter is tried once
            if c != previous and c in costs:
                previous = c
                kind, cost = KIND[c], costs[c]
                if free[kind] >= cost and left >= cost:
                    out.append((gain, route, other, kind, cost, c))
    fresh += stale
    return fresh


# ---------------------------------------------------------------------------------------------
# which cards to give up
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _card_worth(town: int, unseen: int) -> tuple:
    """How useful each kind of card is around `town` next round: summed over the land routes and
    rivers within two routes that lead to a town still to visit, 1 / cards needed there."""
    worth = [0.0] * len(KINDS)
    near = {TOWN[o] for o in TOWNS if B.DIST[TOWNS[town]][o] <= 1}
    for t in near:
        for _route, other, _nebulae, rafts in WATER_EXITS[t]:
            if unseen >> other & 1:
                worth[RAFT] += 1 / rafts[0]
        for _route, other, costs in LAND_EXITS[t]:
            if unseen >> other & 1:
                for c, cost in costs.items():
                    worth[KIND[c]] += 1 / cost
    return tuple(worth)


def spare_cards(seat: Seat, pool: tuple, n: int) -> list[str]:
    """`n` cards out of `pool` (count tuple) to spend on a caravan: those worth least here."""
    unseen = PIECE_MASK & ~seat.collected
    worth = _card_worth(seat.start, unseen)
    held = set(seat.up) | set(seat.down)
    left = list(pool)
    out = []
    for _ in range(n):
        kind = min(
            (k for k in range(len(KINDS)) if left[k]),
            key=lambda k: (worth[k] + (3 if KINDS[k] in held else 0) - 0.5 * left[k], k),
        )
        left[kind] -= 1
        out.append(KINDS[kind])
    return sorted(out)


# ---------------------------------------------------------------------------------------------
# the decisions
# ---------------------------------------------------------------------------------------------


def standin(view, legal, version=VERSION):
    """The command a sensible player would give now, chosen from `legal` using `view` only."""
    if not legal:
        raise ValueError("the seat is not awaited: nothing to choose")
    if len(legal) == 1:
        return legal[0]
    decide = _DECISIONS.get(view["phase"])
    command = decide(view, legal, version=version) if decide else None
    return command if command in legal else _fallback(legal)


def standin_v2(view, legal):
    """Version 2, kept for the bench's head-to-head table: today's code with the duel's play off
    (at 3 to 6 players the two decide alike)."""
    return standin(view, legal, version=2)


def _fallback(legal):
    for kind in ("pass", "end", "draw"):
        if {"type": kind} in legal:
            return {"type": kind}
    return legal[0]


DRAW_LIMIT = 800  # a lighter search per counter weighed in step 2 (six of them a decision)


def counter_gains(seat: Seat, kinds) -> dict:
    """The plan's score with each kind of counter in `kinds` added to those held, and (None)
    with none added."""
    held = tuple(seat.up + seat.down)
    gains = {c: best_plan(seat, held + (c,), limit=DRAW_LIMIT).score for c in sorted(set(kinds))}
    gains[None] = best_plan(seat, held, limit=DRAW_LIMIT).score
    return gains


def choose_draw(view, legal, version=VERSION):
    """The face-up counter that improves the plan most (ties: the one matching most cards);
    a blind draw when none improves it (a hidden counter might)."""
    seat = Seat(view, version=version)
    takes = [cmd for cmd in legal if cmd["type"] == "take"]
    gains = counter_gains(seat, [cmd["counter"] for cmd in takes])
    best = max(takes, key=lambda cmd: (gains[cmd["counter"]], seat.hand[KIND[cmd["counter"]]]), default=None)
    if best is not None and ({"type": "draw"} not in legal or gains[best["counter"]] > gains[None]):
        return best
    return {"type": "draw"}


def placing_plan(seat: Seat, limit=NODE_LIMIT) -> Plan:
    return best_plan(seat, tuple(seat.up + seat.down), limit=limit)


def choose_place(view, legal, limit=NODE_LIMIT, version=VERSION):
    seat = Seat(view, version=version)
    plan = placing_plan(seat, limit)
    return place_command(seat, plan, legal)


def place_command(seat: Seat, plan: Plan, legal) -> dict:
    """The placement the plan asks for first; else Trouble for a rival; else pass."""
    if plan.places:
        route, counter = plan.places[0]
        hidden = counter not in seat.up
        return {"type": "place", "counter": counter, "route": route, "hidden": hidden}
    if seat.duel:
        return duel_command(seat, plan, legal) or {"type": "pass"}
    target = trouble_target(seat, plan, legal)
    if target:
        return {"type": "trouble", "route": target}
    block = block_command(seat, plan, legal) if seat.version >= 2 else None
    if block:
        return block
    return {"type": "pass"}


def block_command(seat: Seat, plan: Plan, legal) -> dict | None:
    """A counter the plan does not need laid where it slows a rival: on a free route out of the
    rival's Elf towards a town it still needs, of a kind that is slow there (two cards), so that
    no quicker counter can be laid there. The counter worth keeping for next round is not used
    (one is kept at the round's end); rivals in order of town pieces, the most first."""
    held = seat.up + seat.down
    if len(held) < 2:
        return None
    keep = max(held, key=lambda c: (seat.hand[KIND[c]], len(ALLOWED[c]), c))
    spare = list(held)
    spare.remove(keep)
    places = {(cmd["route"], cmd["counter"]) for cmd in legal if cmd["type"] == "place"}
    mine = {step[0] for step in plan.steps}
    view = seat.view
    n = view["players"]
    rivals = sorted(
        (s for s in range(n) if s != seat.me), key=lambda s: (-len(view["seats"][s]["towns"]), (s - seat.me) % n)
    )
    for s in rivals:
        st = view["seats"][s]
        if len(st["towns"]) + (0 if seat.last else 2) < seat.count:
            continue  # far behind: not worth a counter
        for route, other in sorted(B.EXITS[st["elf"]]):
            if route in mine or other in st["towns"] or not B.TOWNS[other]["has_town_pieces"]:
                continue
            for c in sorted(set(spare)):
                if (route, c) in places and COST[c].get(route, 0) >= 2:
                    return {"type": "place", "counter": c, "route": route, "hidden": c not in seat.up}
    return None


# ---------------------------------------------------------------------------------------------
# the duel (2 players, version 3)
# ---------------------------------------------------------------------------------------------

RIVAL_LIMIT = 1000  # the search for the rival's plan (several a decision)
TROUBLE_LOSS = 10.0  # Trouble (one a game) only where it costs the rival this much (a town), ...
LAST_TROUBLE_LOSS = 1.0  # ... or, in the last round, anything
BLOCK_LOSS = 1.0  # a spare counter is laid where it costs the rival at least this much


def rival_hand(seat: Seat, size: int) -> tuple:
    """The rival's hidden hand as guessed: of each kind its share of the `size` cards it holds,
    shared out like the cards this seat does not hold, rounded up (eight cards: two of each
    kind). The kinds then sum to more than `size`: the plan counts all cards against the true
    `size`, and a typed payment fits where the rival would likely hold the cards."""
    rest = [B.CARD_COUNTS[k] - seat.hand[i] for i, k in enumerate(KINDS)]
    total = sum(rest) or 1
    return tuple(min(size, -(-size * r // total)) for r in rest)


def rival_seat(seat: Seat) -> tuple[Seat, int]:
    """The single rival as a Seat, from what this seat sees (its Elf, towns, face-up counters and
    how many cards it holds; its hand guessed, its face-down counters unknown), and its size."""
    st = seat.view["seats"][1 - seat.me]
    rival = copy.copy(seat)
    rival.me, rival.start = 1 - seat.me, TOWN[st["elf"]]
    rival.hand = rival_hand(seat, st["cards"])
    rival.up, rival.down = list(st["up"]), []
    rival.collected, rival.count = sum(1 << TOWN[t] for t in st["towns"]), len(st["towns"])
    rival.home = None
    rival._rival_routes = frozenset()
    return rival, st["cards"]


def rival_plan(rival: Seat, size: int, board=None, trouble=None) -> Plan:
    if trouble is not None:
        rival = copy.copy(rival)
        rival.trouble = trouble
    return best_plan(rival, tuple(rival.up), board=board, limit=RIVAL_LIMIT, budget=size)


def duel_command(seat: Seat, plan: Plan, legal) -> dict | None:
    """With one rival, and nothing of this seat's plan left to place: Trouble or a spare counter
    where it costs the rival's plan (as guessed from this seat's view) most, on a route of that
    plan this seat's plan does not use. Trouble (one a game) only for a town's worth, or
    anything in the last round; a spare counter for any loss (before the last round the counter
    worth keeping is kept)."""
    rival, size = rival_seat(seat)
    base = rival_plan(rival, size)
    mine = {step[0] for step in plan.steps}
    theirs = [step[0] for step in base.steps if step[0] not in mine]
    best: tuple = (0.0, None)
    allowed = {cmd["route"] for cmd in legal if cmd["type"] == "trouble"}
    for route in dict.fromkeys(theirs):
        if route in allowed:
            loss = base.score - rival_plan(rival, size, trouble={**seat.trouble, route: seat.me}).score
            if loss >= (LAST_TROUBLE_LOSS if seat.last else TROUBLE_LOSS) and loss > best[0]:
                best = (loss, {"type": "trouble", "route": route})
    held = seat.up + seat.down
    spare = sorted(set(held))
    if not seat.last and spare:
        keep = max(held, key=lambda c: (seat.hand[KIND[c]], len(ALLOWED[c]), c))
        if held.count(keep) == 1:
            spare.remove(keep)
    places = {(cmd["route"], cmd["counter"]) for cmd in legal if cmd["type"] == "place"}
    for route in dict.fromkeys(theirs):
        for c in spare:
            if (route, c) in places:
                loss = base.score - rival_plan(rival, size, board={**seat.board, route: c}).score
                if loss >= BLOCK_LOSS and loss > best[0]:
                    best = (loss, {"type": "place", "counter": c, "route": route, "hidden": c not in seat.up})
    return best[1]


def trouble_target(seat: Seat, plan: Plan, legal) -> str | None:
    """A route for Trouble: one my plan does not use, leaving the leading rival's Elf towards a
    town that rival still needs (the leader: most town pieces, ties to the next to move), when
    that rival is ahead of me (or level, in the last round)."""
    allowed = {cmd["route"] for cmd in legal if cmd["type"] == "trouble"}
    if not allowed:
        return None
    mine = {step[0] for step in plan.steps}
    view = seat.view
    n = view["players"]
    rivals = sorted(
        (s for s in range(n) if s != seat.me), key=lambda s: (-len(view["seats"][s]["towns"]), (s - seat.me) % n)
    )
    lead = len(view["seats"][rivals[0]]["towns"])
    if lead < seat.count or lead == seat.count and not seat.last:
        return None  # nobody is ahead: keep it for a rival who is (in the last round, one level)
    for s in rivals[:1]:
        st = view["seats"][s]
        for route, other in sorted(B.EXITS[st["elf"]]):
            if (
                route in allowed
                and route not in mine
                and other not in st["towns"]
                and B.TOWNS[other]["has_town_pieces"]
            ):
                return route
    return None


def move_plan(seat: Seat) -> Plan:
    return best_plan(seat)


def choose_move(view, legal, version=VERSION):
    seat = Seat(view, version=version)
    plan = move_plan(seat)
    if not plan.steps:
        return {"type": "end"}
    return step_command(seat, plan, 0)


def step_command(seat: Seat, plan: Plan, index: int) -> dict:
    """The move command of the plan's step `index` (its cards chosen when it is a caravan)."""
    route, other, kind, amount, _lay = plan.steps[index]
    if kind is None:
        cards = spare_cards(seat, plan.free, amount)
    else:
        cards = [KINDS[kind]] * amount
    return {"type": "move", "route": route, "to": TOWNS[other], "cards": sorted(cards)}


def next_round_value(seat: Seat, hand: tuple, counters) -> float:
    """How good next round's opening is with this hand and these counters (an empty board)."""
    trial = Seat(seat.view, dict(zip(KINDS, hand)), version=seat.version)
    trial.last = False
    return best_plan(trial, tuple(counters), board={}).score


def choose_discard(view, legal, version=VERSION):
    seat = Seat(view, version=version)
    held = sorted(set(seat.up + seat.down)) or [None]
    options = []
    for cmd in legal:
        k = KIND[cmd["card"]]
        hand = seat.hand[:k] + (seat.hand[k] - 1,) + seat.hand[k + 1 :]
        value = 0.0 if seat.last else max(next_round_value(seat, hand, [c] if c else []) for c in held)
        options.append((value, seat.hand[k], -k, cmd))
    return max(options, key=lambda o: o[:3])[3]


def choose_keep(view, legal, version=VERSION):
    seat = Seat(view, version=version)
    options = []
    for cmd in legal:
        if cmd["counter"] is None:
            continue
        value = next_round_value(seat, seat.hand, [cmd["counter"]])
        reach = len(ALLOWED[cmd["counter"]])
        options.append((value, reach, cmd["hidden"], cmd["counter"], cmd))
    return max(options, key=lambda o: o[:4])[4] if options else {"type": "keep", "counter": None, "hidden": False}


_DECISIONS = {
    "draw": choose_draw,
    "place": choose_place,
    "move": choose_move,
    "discard": choose_discard,
    "keep": choose_keep,
}
