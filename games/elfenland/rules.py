"""Elfenland rules: state, decide, evolve and the questions the platform asks.

State (plain JSON data), per seat lists are indexed by seat:
  n, opts{home_cities, lakes, boatmen}, round, first, phase, turn, step, passes,
  pool [counter types face up], pile {type: n} (face-down counters, unordered),
  up [[types]] (counters held face up), down [[types]] (held face down: secret),
  board {route: counter}, trouble {route: seat}, trouble_left [bool], trouble_used int,
  elf [town], got [[[town, round]]] (town pieces collected), hands [{card: n}] (secret),
  deck {card: n} (unused and discarded cards, face down), home [town|None] (secret),
  keep [choice|None] (secret until all are in), keep_await [seats], all20 bool, final dict|None.

Phases a seat can be awaited in: draw (step 2), place (step 3), move and discard (step 4),
keep (step 5, simultaneous), over. Transient phases (start, end, final) never survive a
`decide`: the automatic part of the round is emitted right away.
"""

from __future__ import annotations

import marshal
from functools import lru_cache

from games.base import Event, Rejected, Result, ScoreLine

from . import board as B
from .lang import N_, _, ngettext

CARDS = B.CARD_TYPES  # fixed order for hand tuples
CARD_INDEX = {c: i for i, c in enumerate(CARDS)}


def clone(state):
    return marshal.loads(marshal.dumps(state))


def order(state) -> list[int]:
    n = state["n"]
    return [(state["first"] + i) % n for i in range(n)]


def held(state, seat) -> int:
    return len(state["up"][seat]) + len(state["down"][seat])


def hand_size(state, seat) -> int:
    return sum(state["hands"][seat].values())


# ---------------------------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------------------------


# The rules a new game is played under (written in GameStarted; a log without it is version 1).
RULES_VERSION = 2


def setup(players, options, rng):
    events: list[Event] = []
    work: list = [None]

    def emit(ev):
        events.append(ev)
        work[0] = evolve(work[0], ev)

    opts = {
        "home_cities": bool(options.get("home_cities", False)),
        "lakes": bool(options.get("lakes", False)),
        "boatmen": bool(options.get("boatmen", False)),
    }
    emit(Event("GameStarted", {"players": players, "options": opts, "first": 0, "rules": RULES_VERSION}))
    if opts["home_cities"]:
        cards = rng.sample(B.TOWN_CARDS, players)
        for seat in range(players):
            emit(
                Event(
                    "HomeCityDealt",
                    {"seat": seat, "town": cards[seat]},
                    visible_to=(seat,),
                    public={"seat": seat},
                    reveals=True,
                )
            )
    _advance(work[0], rng, emit)
    return events


# ---------------------------------------------------------------------------------------------
# evolve
# ---------------------------------------------------------------------------------------------


def evolve(state, event):
    d = event.data
    t = event.type
    if t == "GameStarted":
        return _new_state(d)
    handler = _HANDLERS.get(t)
    if handler is None:
        raise ValueError(f"unknown event {t}")
    handler(state, d)
    return state


def _new_state(d):
    n = d["players"]
    return {
        "n": n,
        "opts": dict(d["options"]),
        "round": 0,
        "first": d["first"],
        "phase": "start",
        "turn": None,
        "step": 0,
        "passes": 0,
        "pool": [],
        "pile": dict(B.COUNTER_COUNTS),
        "up": [[] for _ in range(n)],
        "down": [[] for _ in range(n)],
        "board": {},
        "trouble": {},
        "trouble_left": [True] * n,
        "trouble_used": 0,
        "elf": [B.START] * n,
        "got": [[] for _ in range(n)],
        "hands": [dict.fromkeys(CARDS, 0) for _ in range(n)],
        "deck": dict(B.CARD_COUNTS),
        "home": [None] * n,
        "keep": [None] * n,
        "keep_await": [],
        "all20": False,
        "final": None,
        # absent from a log written before rules version 2: its state stays as it was
        **({"rules": d["rules"]} if "rules" in d else {}),
    }


def rules_version(state) -> int:
    """1: the first rules (a seat could keep no counter at the round's end); 2: the rulebook's
    letter, "must discard down to 1 counter" (RULINGS 16 and 22)."""
    return state.get("rules", 1)


def _ev_home(state, d):
    state["home"][d["seat"]] = d["town"]


def _ev_round_started(state, d):
    state["round"] = d["round"]
    state["first"] = d["first"]
    state["phase"] = "dealing"
    state["turn"] = None
    state["step"] = 0
    state["passes"] = 0


def _ev_cards_dealt(state, d):
    hand = state["hands"][d["seat"]]
    deck = state["deck"]
    for c in d["cards"]:
        hand[c] += 1
        deck[c] -= 1


def _ev_secret_counter(state, d):
    state["down"][d["seat"]].append(d["counter"])
    state["pile"][d["counter"]] -= 1


def _ev_pool_filled(state, d):
    for c in d["counters"]:
        state["pool"].append(c)
        state["pile"][c] -= 1
    state["phase"] = "draw"
    state["step"] = 0
    _draw_turn(state)


def _draw_turn(state):
    """Moves `step` to the next seat that may still draw in step 2 (skipping full seats)."""
    n = state["n"]
    while state["step"] < B.DRAWS_PER_ROUND * n:
        seat = (state["first"] + state["step"]) % n
        if held(state, seat) < B.COUNTER_LIMIT and (state["pool"] or sum(state["pile"].values())):
            state["turn"] = seat
            return
        state["step"] += 1
    state["phase"] = "place"
    state["passes"] = 0
    state["turn"] = state["first"]


def _ev_counter_taken(state, d):
    seat = d["seat"]
    state["pool"].remove(d["counter"])
    state["up"][seat].append(d["counter"])
    if d.get("refill"):
        state["pool"].append(d["refill"])
        state["pile"][d["refill"]] -= 1
    state["step"] += 1
    _draw_turn(state)


def _ev_counter_drawn(state, d):
    state["up"][d["seat"]].append(d["counter"])
    state["pile"][d["counter"]] -= 1
    state["step"] += 1
    _draw_turn(state)


def _next_placer(state):
    if state["passes"] >= state["n"]:
        state["phase"] = "move"
        state["step"] = 0
        state["turn"] = state["first"]
    else:
        state["turn"] = (state["turn"] + 1) % state["n"]


def _ev_counter_placed(state, d):
    seat = d["seat"]
    (state["down"] if d["hidden"] else state["up"])[seat].remove(d["counter"])
    state["board"][d["route"]] = d["counter"]
    state["passes"] = 0
    _next_placer(state)


def _ev_trouble_placed(state, d):
    state["trouble"][d["route"]] = d["seat"]
    state["trouble_left"][d["seat"]] = False
    state["passes"] = 0
    _next_placer(state)


def _ev_passed(state, d):
    state["passes"] += 1
    _next_placer(state)


def _ev_moved(state, d):
    seat = d["seat"]
    hand = state["hands"][seat]
    for c in d["cards"]:
        hand[c] -= 1
        state["deck"][c] += 1
    state["elf"][seat] = d["to"]
    if d["collected"]:
        state["got"][seat].append([d["to"], state["round"]])
        if len(state["got"][seat]) == len(B.PIECE_TOWNS):
            state["all20"] = True


def _next_mover(state):
    state["step"] += 1
    if state["step"] >= state["n"]:
        state["phase"] = "end"
        state["turn"] = None
    else:
        state["phase"] = "move"
        state["turn"] = (state["first"] + state["step"]) % state["n"]


def _ev_move_ended(state, d):
    if hand_size(state, d["seat"]) > B.HAND_LIMIT_AFTER_MOVE:
        state["phase"] = "discard"
    else:
        _next_mover(state)


def _ev_card_discarded(state, d):
    seat = d["seat"]
    state["hands"][seat][d["card"]] -= 1
    state["deck"][d["card"]] += 1
    if hand_size(state, seat) <= B.HAND_LIMIT_AFTER_MOVE:
        _next_mover(state)


def _ev_round_ended(state, d):
    pile = state["pile"]
    for c in state["board"].values():
        pile[c] += 1
    for c in state["pool"]:
        pile[c] += 1
    state["board"] = {}
    state["pool"] = []
    state["trouble_used"] += len(state["trouble"])
    state["trouble"] = {}
    state["turn"] = None
    if d["last"]:
        state["phase"] = "final"
        return
    state["keep"] = [None] * state["n"]
    state["keep_await"] = [s for s in range(state["n"]) if held(state, s) > B.KEEP_LIMIT]
    if state["keep_await"]:
        state["phase"] = "keep"
    else:
        state["phase"] = "start"


def _ev_counter_kept(state, d):
    state["keep"][d["seat"]] = {"counter": d["counter"], "hidden": d["hidden"]}


def _ev_counters_kept(state, d):
    pile = state["pile"]
    for seat in state["keep_await"]:
        choice = state["keep"][seat]
        up, down = state["up"][seat], state["down"][seat]
        if choice and choice["counter"] is not None:
            (down if choice["hidden"] else up).remove(choice["counter"])
        for c in up + down:
            pile[c] += 1
        if choice and choice["counter"] is not None:
            state["up"][seat] = [] if choice["hidden"] else [choice["counter"]]
            state["down"][seat] = [choice["counter"]] if choice["hidden"] else []
        else:
            state["up"][seat], state["down"][seat] = [], []
    state["keep"] = [None] * state["n"]
    state["keep_await"] = []
    state["phase"] = "start"


def _ev_homes_revealed(state, d):
    pass  # the state already knows; the event is the public reveal


def _ev_game_ended(state, d):
    state["phase"] = "over"
    state["turn"] = None
    state["final"] = {k: list(v) if isinstance(v, list) else v for k, v in d.items()}


_HANDLERS = {
    "HomeCityDealt": _ev_home,
    "RoundStarted": _ev_round_started,
    "CardsDealt": _ev_cards_dealt,
    "SecretCounterDrawn": _ev_secret_counter,
    "PoolFilled": _ev_pool_filled,
    "CounterTaken": _ev_counter_taken,
    "CounterDrawn": _ev_counter_drawn,
    "CounterPlaced": _ev_counter_placed,
    "TroublePlaced": _ev_trouble_placed,
    "Passed": _ev_passed,
    "Moved": _ev_moved,
    "MoveEnded": _ev_move_ended,
    "CardDiscarded": _ev_card_discarded,
    "RoundEnded": _ev_round_ended,
    "CounterKept": _ev_counter_kept,
    "CountersKept": _ev_counters_kept,
    "HomeCitiesRevealed": _ev_homes_revealed,
    "GameEnded": _ev_game_ended,
}


# ---------------------------------------------------------------------------------------------
# waiting_for / legal
# ---------------------------------------------------------------------------------------------


def waiting_for(state):
    phase = state["phase"]
    if phase in ("draw", "place", "move", "discard"):
        return [state["turn"]]
    if phase == "keep":
        return [s for s in state["keep_await"] if state["keep"][s] is None]
    return []


def _hand_tuple(hand) -> tuple:
    return tuple(hand[c] for c in CARDS)


@lru_cache(maxsize=65536)
def _subsets(hand: tuple, k: int) -> tuple:
    """Every distinct multiset of k cards out of `hand` (a count tuple), as count tuples."""
    out = []

    def rec(i, left, acc):
        if left == 0:
            out.append(tuple(acc) + (0,) * (len(hand) - len(acc)))
            return
        if i == len(hand):
            return
        rest = sum(hand[i:])
        if rest < left:
            return
        for take in range(min(hand[i], left), -1, -1):
            rec(i + 1, left - take, acc + [take])

    rec(0, k, [])
    return tuple(out)


def _cards_of(counts: tuple) -> list[str]:
    return list(_cards_cached(counts))


@lru_cache(maxsize=4096)
def _cards_cached(counts: tuple) -> tuple:
    out = []
    for i, c in enumerate(counts):
        out.extend([CARDS[i]] * c)
    return tuple(out)


def payments(state, route: str, to: str, hand: tuple) -> list[tuple[str, tuple]]:
    """Every way to pay for travelling `route` towards `to` with `hand`: [(how, cards-count-tuple)]."""
    r = B.ROUTES[route]
    out = []
    if r["type"] in B.WATER:
        need = B.raft_cost(route, to, state["opts"]["lakes"])
        ri = CARD_INDEX["raft"]
        if hand[ri] >= need:
            pay = [0] * len(CARDS)
            pay[ri] = need
            out.append(("raft", tuple(pay)))
        if r["type"] == "lake" and r["lake"] == B.NEBULAE and state["opts"]["boatmen"]:
            out.extend(("boatmen", p) for p in _subsets(hand, B.BOATMEN_CARDS))
        return out
    counter = state["board"].get(route)
    if counter is None:
        return out
    extra = 1 if route in state["trouble"] else 0
    need = B.placed_cost(counter, route) + extra
    ci = CARD_INDEX[counter]
    if hand[ci] >= need:
        pay = [0] * len(CARDS)
        pay[ci] = need
        out.append(("counter", tuple(pay)))
    out.extend(("caravan", p) for p in _subsets(hand, B.CARAVAN_CARDS + extra))
    return out


def _has_move(state, seat) -> bool:
    hand = _hand_tuple(state["hands"][seat])
    total = sum(hand)
    for route, other in B.EXITS[state["elf"][seat]]:
        r = B.ROUTES[route]
        if r["type"] in B.WATER:
            if hand[CARD_INDEX["raft"]] >= B.raft_cost(route, other, state["opts"]["lakes"]):
                return True
            if r["type"] == "lake" and r["lake"] == B.NEBULAE and state["opts"]["boatmen"] and total >= 3:
                return True
        elif route in state["board"]:
            extra = 1 if route in state["trouble"] else 0
            if total >= B.CARAVAN_CARDS + extra:
                return True
            counter = state["board"][route]
            if hand[CARD_INDEX[counter]] >= B.placed_cost(counter, route) + extra:
                return True
    return False


_ALLOWED_ROUTES = {c: [r for r in B.LAND_ROUTES if B.allowed(c, r)] for c in B.COUNTER_TYPES}


def _placements(state, seat) -> list[dict]:
    out = []
    board = state["board"]
    for hidden, counters in ((False, state["up"][seat]), (True, state["down"][seat])):
        for c in sorted(set(counters)):
            for r in _ALLOWED_ROUTES[c]:
                if r not in board:
                    out.append({"type": "place", "counter": c, "route": r, "hidden": hidden})
    if state["trouble_left"][seat]:
        for r in sorted(board):
            if r not in state["trouble"]:
                out.append({"type": "trouble", "route": r})
    return out


def _can_place(state, seat) -> bool:
    board = state["board"]
    if state["trouble_left"][seat] and any(r not in state["trouble"] for r in board):
        return True
    counters = set(state["up"][seat]) | set(state["down"][seat])
    return any(r not in board for c in counters for r in _ALLOWED_ROUTES[c])


def _keep_options(state, seat) -> list[dict]:
    out = [{"type": "keep", "counter": c, "hidden": False} for c in sorted(set(state["up"][seat]))]
    out += [{"type": "keep", "counter": c, "hidden": True} for c in sorted(set(state["down"][seat]))]
    if rules_version(state) < 2:
        out.append({"type": "keep", "counter": None, "hidden": False})
    return out


def legal(state, seat):
    if seat not in waiting_for(state):
        return []
    phase = state["phase"]
    if phase == "draw":
        out = [{"type": "take", "counter": c} for c in sorted(set(state["pool"]))]
        if sum(state["pile"].values()):
            out.append({"type": "draw"})
        return out
    if phase == "place":
        return _placements(state, seat) + [{"type": "pass"}]
    if phase == "move":
        hand = _hand_tuple(state["hands"][seat])
        out = []
        for route, other in B.EXITS[state["elf"][seat]]:
            for _how, pay in payments(state, route, other, hand):
                out.append({"type": "move", "route": route, "to": other, "cards": _cards_of(pay)})
        out.append({"type": "end"})
        return out
    if phase == "discard":
        return [{"type": "discard", "card": c} for c in CARDS if state["hands"][seat][c]]
    if phase == "keep":
        return _keep_options(state, seat)
    return []


def reachable(state, seat) -> list[str]:
    """Every town the seat's Elf can still reach this turn with the cards in hand.

    Exact, and fast because a caravan (or the Boatmen) takes *any* cards: a path is payable
    exactly when its typed demands (k cards of one kind for a counter or the rafts) fit the hand
    kind by kind and all its cards together fit the hand's size. So a search state is
    (town, typed cards still free, cards still free in total) and a caravan only lowers the
    total, instead of branching over every choice of three cards.
    """
    start = state["elf"][seat]
    hand = _hand_tuple(state["hands"][seat])
    lakes, boatmen = state["opts"]["lakes"], state["opts"]["boatmen"]
    board, trouble = state["board"], state["trouble"]
    raft = CARD_INDEX["raft"]
    # Per route from each town: (other, kind index or None for "any cards", cards needed [, caravan]).
    edges: dict[str, list] = {}
    # States are expanded by decreasing number of free cards (every move spends at least one),
    # so a state is skipped when one already expanded at the same town had at least as many cards
    # of every kind and in total (it dominates: whatever this one reaches, that one reached).
    total = sum(hand)
    buckets: list[list] = [[] for _ in range(total + 1)]
    buckets[total].append((start, hand))
    done: dict[str, list] = {}
    towns = set()
    goal = len(B.TOWN_IDS) - 1
    for free in range(total, 0, -1):
        for town, h in buckets[free]:
            kept = done.setdefault(town, [])
            if any(f2 >= free and all(a >= b for a, b in zip(h2, h)) for h2, f2 in kept):
                continue
            kept.append((h, free))
            ways = edges.get(town)
            if ways is None:
                ways = []
                for route, other in B.EXITS[town]:
                    r = B.ROUTES[route]
                    if r["type"] in B.WATER:
                        ways.append((other, raft, B.raft_cost(route, other, lakes)))
                        if boatmen and r["type"] == "lake" and r["lake"] == B.NEBULAE:
                            ways.append((other, None, B.BOATMEN_CARDS))
                    elif route in board:
                        extra = 1 if route in trouble else 0
                        counter = board[route]
                        ways.append((other, CARD_INDEX[counter], B.placed_cost(counter, route) + extra))
                        ways.append((other, None, B.CARAVAN_CARDS + extra))
                edges[town] = ways
            for other, kind, need in ways:
                if free < need:
                    continue
                if kind is None:
                    buckets[free - need].append((other, h))
                elif h[kind] >= need:
                    nh = list(h)
                    nh[kind] -= need
                    buckets[free - need].append((other, tuple(nh)))
                else:
                    continue
                towns.add(other)
        if len(towns) >= goal and start not in towns or len(towns) > goal:
            break
    towns.discard(start)
    return sorted(towns)


# ---------------------------------------------------------------------------------------------
# decide
# ---------------------------------------------------------------------------------------------


def decide(state, seat, command, rng):
    if seat not in waiting_for(state):
        raise Rejected(_("It is not your turn.") if state["phase"] != "over" else _("The game is over."))
    _check_shape(command)
    work = clone(state)
    events: list[Event] = []

    def emit(ev):
        events.append(ev)
        evolve(work, ev)

    _command(work, seat, command, rng, emit, auto=False)
    _advance(work, rng, emit)
    return events


def _check_shape(command) -> None:
    """Commands come from the web form and the API too: refuse malformed ones politely."""
    if not isinstance(command, dict) or not isinstance(command.get("type"), str):
        raise Rejected(_("That is not a command."))
    for field in ("counter", "route", "to", "card"):
        if field in command and command[field] is not None and not isinstance(command[field], str):
            raise Rejected(_("The {field} must be a name.").format(field=field))
    if "hidden" in command and not isinstance(command["hidden"], bool):
        raise Rejected(_("'hidden' must be true or false."))
    cards = command.get("cards")
    if cards is not None and not (isinstance(cards, list) and all(isinstance(c, str) for c in cards)):
        raise Rejected(_("The cards must be a list of card names."))


def _draw_from(counts: dict, rng) -> str:
    total = sum(counts.values())
    i = rng.randbelow(total)
    for c in sorted(counts):
        if i < counts[c]:
            return c
        i -= counts[c]
    raise AssertionError("unreachable")


def _command(work, seat, command, rng, emit, auto):
    phase = work["phase"]
    deciders = DECIDERS.get(phase)
    if deciders is None:
        raise Rejected(_("Nothing to do now."))
    decider = deciders.get(command.get("type"))
    if decider is None:
        raise Rejected(HINTS[phase](work, seat))
    decider(work, seat, command, rng, emit, auto)


def _do_take(work, seat, command, rng, emit, _auto):
    c = command.get("counter")
    if c not in work["pool"]:
        shown = ", ".join(B.word(x) for x in work["pool"]) or _("none")
        raise Rejected(
            _("There is no face-up {counter} counter; face up: {shown}.").format(counter=_kind(c), shown=shown)
        )
    refill = _draw_from(work["pile"], rng) if sum(work["pile"].values()) else None
    emit(Event("CounterTaken", {"seat": seat, "counter": c, "refill": refill}, reveals=refill is not None))


def _do_draw(work, seat, _command, rng, emit, auto):
    if not sum(work["pile"].values()):
        raise Rejected(_("The face-down pile is empty: take a face-up counter."))
    c = _draw_from(work["pile"], rng)
    emit(Event("CounterDrawn", {"seat": seat, "counter": c, "auto": auto}, reveals=True))


def _do_pass(_work, seat, _command, _rng, emit, auto):
    emit(Event("Passed", {"seat": seat, "auto": auto}))


def _do_place(work, seat, command, _rng, emit, _auto):
    c, route, hidden = command.get("counter"), command.get("route"), bool(command.get("hidden"))
    mine = work["down"][seat] if hidden else work["up"][seat]
    if c not in mine:
        text = _("You hold no face-down {counter} counter.") if hidden else _("You hold no face-up {counter} counter.")
        raise Rejected(text.format(counter=_kind(c)))
    if route not in B.ROUTES:
        raise Rejected(_("There is no such route."))
    r = B.ROUTES[route]
    if r["type"] in B.WATER:
        raise Rejected(_("No counter may be placed on a river or a lake: they are travelled by raft."))
    if not B.allowed(c, route):
        text = _("{counter}s may not be used on {kind}s.")
        raise Rejected(text.format(counter=B.long(c), kind=B.type_long(r["type"])))
    if route in work["board"]:
        raise Rejected(_("That route already has a {counter} counter.").format(counter=B.word(work["board"][route])))
    emit(Event("CounterPlaced", {"seat": seat, "counter": c, "route": route, "hidden": hidden}, reveals=hidden))


def _do_trouble(work, seat, command, _rng, emit, _auto):
    route = command.get("route")
    if not work["trouble_left"][seat]:
        raise Rejected(_("You have already used your Trouble counter (one per game)."))
    if route not in B.ROUTES:
        raise Rejected(_("There is no such route."))
    if B.ROUTES[route]["type"] in B.WATER:
        raise Rejected(_("Trouble counters may not be placed on rivers or lakes."))
    if route not in work["board"]:
        raise Rejected(_("Trouble goes next to a transportation counter already placed; that route has none."))
    if route in work["trouble"]:
        raise Rejected(_("That route already has a Trouble counter (only one per route)."))
    emit(Event("TroublePlaced", {"seat": seat, "route": route}))


def _do_end(_work, seat, _command, _rng, emit, auto):
    emit(Event("MoveEnded", {"seat": seat, "auto": auto}))


def _do_move(work, seat, command, _rng, emit, _auto):
    _move(work, seat, command, emit)


def _do_discard(work, seat, command, _rng, emit, auto):
    c = command.get("card")
    if c not in CARD_INDEX or not work["hands"][seat][c]:
        raise Rejected(_("You hold no {card} card.").format(card=_kind(c)))
    public = {"seat": seat, "auto": auto}
    emit(Event("CardDiscarded", {"seat": seat, "card": c, "auto": auto}, visible_to=(seat,), public=public))


def _do_keep(work, seat, command, _rng, emit, _auto):
    c, hidden = command.get("counter"), bool(command.get("hidden"))
    if c is None and rules_version(work) >= 2:
        raise Rejected(
            _(
                "You must keep one counter: the rulebook has every player discard down to 1 counter, "
                "not to none ('keep pig', 'keep hidden dragon')."
            )
        )
    if c is not None and c not in (work["down"][seat] if hidden else work["up"][seat]):
        text = _("You hold no face-down {counter} counter.") if hidden else _("You hold no {counter} counter.")
        raise Rejected(text.format(counter=_kind(c)))
    if c is None:
        hidden = False
    data = {"seat": seat, "counter": c, "hidden": hidden}
    emit(Event("CounterKept", data, visible_to=(seat,), public={"seat": seat}))
    if not waiting_for(work):
        kept = [_kept_shown(work, s) if s in work["keep_await"] else None for s in range(work["n"])]
        emit(Event("CountersKept", {"kept": kept}, reveals=True))


def _kept_shown(work, s):
    """What everyone learns of the counter a seat keeps once all have chosen."""
    ch = work["keep"][s]
    return {"counter": None if ch["hidden"] else ch["counter"], "hidden": ch["hidden"], "none": ch["counter"] is None}


def _kind(c) -> str:
    """A counter or card type as a player named it: its short word if there is such a type."""
    return B.word(c) if c in B.WORD else str(c)


def _hint_draw(_work, _seat):
    return _("Now draw a counter: 'take pig' (face up) or 'draw' (a blind draw).")


def _hint_place(_work, _seat):
    return _("Now place a counter ('place pig on Jxara-Virst'), Trouble ('trouble on ...') or 'pass'.")


def _hint_move(_work, _seat):
    return _("Now move your Elf ('move to Lapphalya by road with pig') or 'end' your move.")


def _hint_discard(work, seat):
    left = hand_size(work, seat) - B.HAND_LIMIT_AFTER_MOVE
    return _("You must discard down to four cards: {n} more ('discard pig').").format(n=left)


def _hint_keep(work, _seat):
    if rules_version(work) >= 2:
        return _("Choose the one counter to keep for the next round ('keep pig', 'keep hidden dragon').")
    return _("Choose the one counter to keep for the next round ('keep pig', 'keep none').")


# One small function per phase and command type: (work, seat, command, rng, emit, auto), which
# checks the command and emits its events; a command the phase does not take gets the phase's hint.
DECIDERS = {
    "draw": {"take": _do_take, "draw": _do_draw},
    "place": {"pass": _do_pass, "place": _do_place, "trouble": _do_trouble},
    "move": {"end": _do_end, "move": _do_move},
    "discard": {"discard": _do_discard},
    "keep": {"keep": _do_keep},
}
HINTS = {"draw": _hint_draw, "place": _hint_place, "move": _hint_move, "discard": _hint_discard, "keep": _hint_keep}


def _move(work, seat, command, emit):
    route, to, cards = command.get("route"), command.get("to"), command.get("cards")
    here = work["elf"][seat]
    if route not in B.ROUTES:
        raise Rejected(_("There is no such route."))
    r = B.ROUTES[route]
    if here not in (r["a"], r["b"]) or to not in (r["a"], r["b"]) or to == here:
        raise Rejected(_("That route does not lead from {town}.").format(town=B.name(here)))
    if not isinstance(cards, list) or any(c not in CARD_INDEX for c in cards):
        raise Rejected(_("Name the cards you play."))
    hand = work["hands"][seat]
    pay = [0] * len(CARDS)
    for c in cards:
        pay[CARD_INDEX[c]] += 1
    if any(pay[i] > hand[c] for i, c in enumerate(CARDS)):
        raise Rejected(_("You do not hold those cards."))
    pay_t = tuple(pay)
    ways = payments(work, route, to, _hand_tuple(hand))
    how = next((h for h, p in ways if p == pay_t), None)
    if how is None:
        raise Rejected(_why_not(work, route, to, len(cards)))
    collected = to in B.PIECE_TOWNS and all(g[0] != to for g in work["got"][seat])
    emit(
        Event(
            "Moved",
            {
                "seat": seat,
                "route": route,
                "from": here,
                "to": to,
                "cards": sorted(cards),
                "how": how,
                "collected": collected,
            },
        )
    )


def _why_not(work, route, to, ncards) -> str:
    r = B.ROUTES[route]
    if r["type"] == "river":
        need = B.raft_cost(route, to, work["opts"]["lakes"])
        if need == 1:
            return _("Going down river takes 1 raft card; no caravans on rivers.")
        return _("Going up river (slow) takes {n} raft cards; no caravans on rivers.").format(n=need)
    if r["type"] == "lake":
        need = B.raft_cost(route, to, work["opts"]["lakes"])
        cards = ngettext("{n} raft card", "{n} raft cards", need).format(n=need)
        if r["lake"] == B.NEBULAE and work["opts"]["boatmen"]:
            text = _("Crossing {lake} takes {cards} or any 3 cards for the Boatmen; no caravans on lakes.")
        else:
            text = _("Crossing {lake} takes {cards}; no caravans on lakes.")
        return text.format(lake=r["lake"], cards=cards)
    counter = work["board"].get(route)
    if counter is None:
        return _("There is no counter on that route: nobody can travel it this round.")
    extra = 1 if route in work["trouble"] else 0
    need = B.placed_cost(counter, route) + extra
    cards = ngettext("{n} {kind} card", "{n} {kind} cards", need).format(n=need, kind=B.word(counter))
    if extra:
        text = _("That route (with Trouble) takes {cards}, or {any} cards of any kind for a caravan.")
    else:
        text = _("That route takes {cards}, or {any} cards of any kind for a caravan.")
    return text.format(cards=cards, any=B.CARAVAN_CARDS + extra)


# ---------------------------------------------------------------------------------------------
# the automatic parts of a round
# ---------------------------------------------------------------------------------------------


def _advance(work, rng, emit):
    """Emits what happens without a choice: round ends and starts, final scoring, and the
    moves a seat is forced to make (a pass with nothing to place, an end of movement with no
    possible move, the discard of the only kind of card held, a blind draw with no pool)."""
    while True:
        phase = work["phase"]
        if phase == "start":
            _start_round(work, rng, emit)
        elif phase == "end":
            last = work["round"] >= B.ROUNDS or work["all20"]
            emit(Event("RoundEnded", {"round": work["round"], "last": last}))
        elif phase == "final":
            _final(work, emit)
        elif phase == "place" and not _can_place(work, work["turn"]):
            _command(work, work["turn"], {"type": "pass"}, rng, emit, auto=True)
        elif phase == "move" and not _has_move(work, work["turn"]):
            _command(work, work["turn"], {"type": "end"}, rng, emit, auto=True)
        elif phase == "discard" and sum(1 for v in work["hands"][work["turn"]].values() if v) == 1:
            card = next(c for c in CARDS if work["hands"][work["turn"]][c])
            _command(work, work["turn"], {"type": "discard", "card": card}, rng, emit, auto=True)
        elif phase == "draw" and not work["pool"]:
            _command(work, work["turn"], {"type": "draw"}, rng, emit, auto=True)
        else:
            return


def _start_round(work, rng, emit):
    n = work["n"]
    rnd = work["round"] + 1
    first = 0 if rnd == 1 else (work["first"] + 1) % n
    emit(Event("RoundStarted", {"round": rnd, "first": first}))
    for seat in order(work):
        need = B.HAND_SIZE - hand_size(work, seat)
        cards = []
        deck = dict(work["deck"])
        for _draw in range(need):
            if not sum(deck.values()):
                break
            c = _draw_from(deck, rng)
            deck[c] -= 1
            cards.append(c)
        emit(
            Event(
                "CardsDealt",
                {"seat": seat, "cards": sorted(cards)},
                visible_to=(seat,),
                public={"seat": seat, "count": len(cards)},
                reveals=True,
            )
        )
    for seat in order(work):
        if sum(work["pile"].values()) and held(work, seat) < B.COUNTER_LIMIT:
            c = _draw_from(work["pile"], rng)
            emit(
                Event(
                    "SecretCounterDrawn",
                    {"seat": seat, "counter": c},
                    visible_to=(seat,),
                    public={"seat": seat},
                    reveals=True,
                )
            )
    pile = dict(work["pile"])
    shown = []
    for _slot in range(B.POOL_SIZE):
        if not sum(pile.values()):
            break
        c = _draw_from(pile, rng)
        pile[c] -= 1
        shown.append(c)
    emit(Event("PoolFilled", {"counters": shown}, reveals=True))


def final_scores(state) -> dict:
    n = state["n"]
    collected = [len(g) for g in state["got"]]
    cards = [hand_size(state, s) for s in range(n)]
    out: dict = {"collected": collected, "cards": cards, "distances": None, "penalties": [0] * n, "homes": None}
    if state["opts"]["home_cities"]:
        dist = [B.distance(state["elf"][s], state["home"][s]) for s in range(n)]
        # One town piece is removed per route away; a player cannot give back more than he holds.
        pen = [min(dist[s], collected[s]) for s in range(n)]
        out.update(distances=dist, penalties=pen, homes=list(state["home"]))
    out["scores"] = [collected[s] - out["penalties"][s] for s in range(n)]
    return out


def _final(work, emit):
    data = final_scores(work)
    if work["opts"]["home_cities"]:
        emit(
            Event(
                "HomeCitiesRevealed", {"homes": list(work["home"]), "distances": list(data["distances"])}, reveals=True
            )
        )
    emit(Event("GameEnded", data))


# ---------------------------------------------------------------------------------------------
# result, summary, score sheet, timeout
# ---------------------------------------------------------------------------------------------


def tiebreaks(state, data) -> list[tuple]:
    if data["distances"] is not None:
        return [(-data["distances"][s], data["cards"][s]) for s in range(state["n"])]
    return [(data["cards"][s],) for s in range(state["n"])]


def result(state):
    if state["phase"] != "over":
        return None
    data = state["final"]
    return Result(list(data["scores"]), tiebreaks(state, data), detail=dict(data))


# The phase as the game's summary names it (kept in the read model, in English, the log's
# language); the platform says it in the reader's words through this game's catalogue.
PHASE_NAMES = {
    "draw": N_("drawing counters"),
    "place": N_("placing counters"),
    "move": N_("moving"),
    "discard": N_("moving (discarding)"),
    "keep": N_("keeping a counter"),
    "over": N_("over"),
}


def summary(state):
    if state["final"]:
        scores = list(state["final"]["scores"])
    else:
        scores = [len(g) for g in state["got"]]
    return {"round": state["round"], "phase": PHASE_NAMES.get(state["phase"], state["phase"]), "scores": scores}


def score_sheet(state):
    lines = []
    for rnd in range(1, state["round"] + 1):
        for seat in range(state["n"]):
            towns = [B.name(t) for t, r in state["got"][seat] if r == rnd]
            lines.append(ScoreLine(rnd, seat, len(towns), ", ".join(towns), _("Round {round}").format(round=rnd)))
    final = state["final"]
    if final and final["distances"] is not None:
        for seat in range(state["n"]):
            d = final["distances"][seat]
            lines.append(
                ScoreLine(
                    state["round"],
                    seat,
                    -final["penalties"][seat],
                    ngettext("{n} route from {town}", "{n} routes from {town}", d).format(
                        n=d, town=B.name(final["homes"][seat])
                    ),
                    _("Home City"),
                )
            )
    return lines


def timeout(state, seat):
    if seat not in waiting_for(state):
        return None
    phase = state["phase"]
    if phase == "draw":
        return {"type": "draw"} if sum(state["pile"].values()) else legal(state, seat)[0]
    if phase == "place":
        return {"type": "pass"}
    if phase == "move":
        return {"type": "end"}
    if phase == "discard":
        hand = state["hands"][seat]
        return {"type": "discard", "card": max(CARDS, key=lambda c: (hand[c], c))}
    if phase == "keep":
        return _timeout_keep(state, seat)
    return None


def _timeout_keep(state, seat) -> dict:
    """Keep nothing (rules version 1); version 2 must keep one: the face-down counter if the seat
    holds one (it shows the table least), else the first face-up one in the board's order."""
    if rules_version(state) < 2:
        return {"type": "keep", "counter": None, "hidden": False}
    if state["down"][seat]:
        return {"type": "keep", "counter": sorted(state["down"][seat])[0], "hidden": True}
    return {"type": "keep", "counter": sorted(state["up"][seat])[0], "hidden": False}
