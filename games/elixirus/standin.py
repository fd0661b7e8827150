"""A stand-in for a seat whose player is gone: a sensible player that sees only that seat's view.

Every decision is measured with one yardstick, `Seat.plan`: the best the seat can make of a set
of ingredients on its concoction table this round (points on the flasks and in the recipe book,
corks, progress towards corks, one ingredient saved in the bowl, the rest on the poison flask).

- Stage A places an apprentice where the simulated collecting leaves the seat most (every
  apprentice already placed takes, in resolution order, what suits its own table best), plus a
  guess of its effect: Steal counts most (a rival's best collected ingredient changes hands).
- Stage B takes the curves, uses the effect and keeps the drawn ingredients that raise the plan
  most (Steal also counts what the victim loses; Replace and Dance what they change for the
  apprentices still to collect).
- Stage C uses the basket tile on the best leftover, then plays the plan one move at a time.

This is version 2 (issue 29); `standin_v1.py` keeps the first one, which guessed the Steal space
worth 1.5 points when placing (a third of the 4.5 of today): it seldom took it, and lost to a seat
that did (RULINGS 37).

Deterministic: no randomness, no clock; ties go to the first legal command. The memo of searched
positions is shared between calls, which is safe because every entry is a pure function of its key.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb
from operator import eq

from .data_model import ALL_TOKENS, FLASKS, INGREDIENTS, PIECE_BY_EFFECT, PIECES, TABLES, matches

FIRST_CORK, LATER_CORK = 5, 2
CORKS_TO_END = 4
# A partly filled flask is worth this share of its cork, growing with the filling: filling a flask
# is the only way to a cork, and an open space is where a later ingredient scores instead of poisoning.
PROGRESS_SHARE = 0.8
PROGRESS_CURVE = 1.3
# A saved bowl ingredient is worth this share of what it scores next round on the next space
# (or the one after).
BOWL_NEXT = 0.7
BOWL_LATER = 0.35
# Taking from a rival is worth this share of their loss on top of our gain.
DENIAL = 0.35
# What an effect is worth when the apprentice is placed, before anything has been collected. A Steal
# takes a rival's best collected ingredient: our gain and their loss (version 1 guessed 1.5; any
# figure from 4.5 to 12 did about as well against it over 400 two-player games: RULINGS 37).
EFFECT_GUESS = {"steal": 4.5, "swap": 1.0, "draw": 2.0, "replace": 0.3, "dance": 0.3, "collect": 1.5}
# How likely the game goes on after this round (see `_future`).
FUTURE_FEW_LEFT = 0.3
FUTURE_ONE_SHORT = 0.6
FUTURE_ABOUT_TO_END = 0.2
# Spaces whose collecting is simulated in stage A (the best at a first glance).
SHORTLIST = 6
# A free space before ours on the same piece may be taken first: this much per such space.
CROWDING = 0.8
# An effect, a basket pick or a Replace must gain at least this much to be used.
WORTH_AN_EFFECT = 0.05
WORTH_A_PICK = 0.5
WORTH_A_REPLACE = 0.5
WORTH_A_DANCE = 0.3


def standin(view, legal):
    """One of `legal`, chosen from `view` (the seat's own view) alone."""
    if len(legal) == 1:
        return legal[0]
    return choose(Look(view), legal)


def choose(look, legal):
    """The decision once the view is read (a later candidate version subclasses `Look`)."""
    kinds = {c["type"] for c in legal}
    if "place" in kinds:
        # The collecting is simulated only for the most promising spaces (by a first glance).
        shortlist = sorted(legal, key=lambda c: -look.glance_value(c))[:SHORTLIST]
        return _best([c for c in legal if c in shortlist], look.placement_value)
    if "take" in kinds:
        return _best(legal, look.take_value)
    if "keep" in kinds:
        me = look.seat(look.me)
        return _best(legal, lambda c: me.plan(me.pool + tuple(c["ings"]))[0])
    if kinds & {"put", "pick", "done"}:
        return _brew(look, legal)
    return _effect(look, legal)


def _best(legal, value):
    """The command of highest value; the first one on a tie."""
    best, best_value = legal[0], None
    for command in legal:
        v = value(command)
        if best_value is None or v > best_value + 1e-9:
            best, best_value = command, v
    return best


def _best_or_skip(legal, value, threshold):
    """The best command other than skip if it gains more than `threshold`, else skip."""
    best, best_value = {"type": "skip"}, threshold
    for command in legal:
        if command["type"] != "skip":
            v = value(command)
            if v > best_value + 1e-9:
                best, best_value = command, v
    return best


# ---------------------------------------------------------------------------------------------
# What a set of ingredients is worth on a table
# ---------------------------------------------------------------------------------------------


def _cork(sealed_before: bool) -> int:
    return LATER_CORK if sealed_before else FIRST_CORK


def _potential(k, size, sealed_before, future=1.0):
    """What a flask filled k of `size` is worth beyond its ingredients' points; partial progress
    counts only as much as the game is likely to go on (`future`, 0 to 1)."""
    if k >= size:
        return _cork(sealed_before)
    return future * PROGRESS_SHARE * _cork(sealed_before) * (k / size) ** PROGRESS_CURVE


def _points(spec, tok):
    """An ingredient's points on a flask of this table: its value, +1 enchanted, -1 cursed."""
    colour, variety, value = INGREDIENTS[tok]
    if colour is None:
        return 0
    ench_kind, ench = spec["enchanted"]
    curse_kind, curse = spec["cursed"]
    bonus = 1 if (colour if ench_kind == "colour" else variety) == ench else 0
    malus = 1 if (colour if curse_kind == "colour" else variety) == curse else 0
    return value + bonus - malus


def _book_slot(spec, tok):
    colour, variety, _ = INGREDIENTS[tok]
    if colour is None:
        return None  # a crystal never goes into the recipe book (RULINGS #22)
    for i, (c, v) in enumerate(spec["special"]):
        if c == colour and v == variety:
            return i
    return None


class TableFacts:
    """What never changes for a table: each ingredient's points there, its recipe-book slot, and
    the levels of each flask at which it fits the next space."""

    def __init__(self, table):
        spec = TABLES[table]
        reqs = [spec["flasks"][f] for f in FLASKS]
        self.sizes = tuple(len(r) for r in reqs)
        self.points = {tok: _points(spec, tok) for tok in INGREDIENTS}
        self.slot = {tok: _book_slot(spec, tok) for tok in INGREDIENTS}
        self.fits = {
            tok: tuple(frozenset(k for k, req in enumerate(r) if matches(tok, req)) for r in reqs)
            for tok in INGREDIENTS
        }
        # only the flasks an ingredient fits at some level, as (flask index, levels)
        self.fit_list = {tok: tuple((fi, ks) for fi, ks in enumerate(self.fits[tok]) if ks) for tok in INGREDIENTS}


_FACTS = {table: TableFacts(table) for table in TABLES}
VALUE = {tok: INGREDIENTS[tok][2] for tok in INGREDIENTS}


class Context:
    """One table in one situation (which flask types are sealed, whether the game is likely to
    end this round): the worth of each step up each flask, and a memo of searched positions."""

    def __init__(self, key):
        table, sealed, future = key
        facts = _FACTS[table]
        self.sizes, self.points, self.slot, self.fits = facts.sizes, facts.points, facts.slot, facts.fits
        self.fit_list = facts.fit_list
        self.value = VALUE
        self.future = future
        # step[fi][k]: what filling space k of flask fi adds in progress (the cork at the top)
        self.step = [
            [_potential(k + 1, size, sealed[fi], future) - _potential(k, size, sealed[fi], future) for k in range(size)]
            for fi, size in enumerate(self.sizes)
        ]
        self.later_step = [
            [_potential(k + 1, size, sealed[fi]) - _potential(k, size, sealed[fi]) for k in range(size)]
            for fi, size in enumerate(self.sizes)
        ]
        self.memo: dict = {}
        self.bowl_memo: dict = {}

    def search(self, levels, book, pool):
        """(value, moves): the best placement of `pool`; the moves in an order they can be made."""
        state = (levels, book, pool)
        found = self.memo.get(state)
        if found is not None:
            return found
        best = self.leftover(levels, book, pool)
        seen = set()
        for i, tok in enumerate(pool):
            if tok in seen:
                continue
            seen.add(tok)
            rest = None
            for fi, ks in self.fit_list[tok]:
                k = levels[fi]
                if k in ks:
                    rest = rest or pool[:i] + pool[i + 1 :]
                    value, moves = self.search(levels[:fi] + (k + 1,) + levels[fi + 1 :], book, rest)
                    value += self.points[tok] + self.step[fi][k]
                    if value > best[0] + 1e-9:
                        best = (value, ((tok, FLASKS[fi]),) + moves)
            slot = self.slot[tok]
            if slot is not None and not book[slot]:
                rest = rest or pool[:i] + pool[i + 1 :]
                value, moves = self.search(levels, book[:slot] + (True,) + book[slot + 1 :], rest)
                value += 2 * self.value[tok] + (3 if book[1 - slot] else 0)
                if value > best[0] + 1e-9:
                    best = (value, ((tok, "book"),) + moves)
        self.memo[state] = best
        return best

    def placed(self, levels, book, tok):
        """The most `tok` adds on the next space of a flask or in the recipe book, or None."""
        best = None
        fits = self.fits[tok]
        for fi in range(len(FLASKS)):
            k = levels[fi]
            if k in fits[fi]:
                gain = self.points[tok] + self.step[fi][k]
                best = gain if best is None else max(best, gain)
        slot = self.slot[tok]
        if slot is not None and not book[slot]:
            gain = 2 * self.value[tok] + (3 if book[1 - slot] else 0)
            best = gain if best is None else max(best, gain)
        return best

    def leftover(self, levels, book, pool):
        """What is left goes onto the poison flask, except the one best kept in the bowl (unless this
        plan takes a fourth cork: the game ends and the bowl is poured onto the poison flask)."""
        if not pool:
            return (0.0, ())
        poison = -sum(map(VALUE.__getitem__, pool))
        if sum(map(eq, levels, self.sizes)) >= CORKS_TO_END:
            return (poison, tuple((t, "poison") for t in pool))
        keep, keep_value = None, None
        for tok in pool:
            v = self.bowl_value(levels, book, tok) + self.value[tok]
            if keep_value is None or v > keep_value:
                keep, keep_value = tok, v
        rest = list(pool)
        rest.remove(keep)
        return (poison + keep_value, tuple((t, "poison") for t in rest) + ((keep, "bowl"),))

    def bowl_value(self, levels, book, tok):
        """A saved ingredient: a share of what it would score next round if there is one (else it
        is poured onto the poison flask at the end)."""
        key = (levels, book, tok)
        found = self.bowl_memo.get(key)
        if found is not None:
            return found
        best = -0.3 * self.value[tok]  # it may end on the poison flask
        slot = self.slot[tok]
        if slot is not None and not book[slot]:
            best = max(best, BOWL_NEXT * (2 * self.value[tok] + (3 if book[1 - slot] else 0)))
        fits = self.fits[tok]
        for fi in range(len(FLASKS)):
            k = levels[fi]
            for ahead, share in ((0, BOWL_NEXT), (1, BOWL_LATER)):
                if k + ahead in fits[fi]:
                    best = max(best, share * (self.points[tok] + self.later_step[fi][k + ahead]))
        best = self.future * best - (1 - self.future) * self.value[tok]
        self.bowl_memo[key] = best
        return best


_CONTEXTS: dict = {}
# Positions remembered over all contexts (about 50 MB) before every memo starts afresh.
MEMO_LIMIT = 100_000


def _context(key, contexts=_CONTEXTS, make=Context) -> Context:
    """The context of `key`, made by `make` and remembered in `contexts` (another stand-in
    version keeps its own)."""
    if sum(len(c.memo) + len(c.bowl_memo) for c in contexts.values()) > MEMO_LIMIT:
        contexts.clear()
    ctx = contexts.get(key)
    if ctx is None:
        ctx = contexts[key] = make(key)
    return ctx


class Seat:
    """A seat's table as the viewer knows it: its flasks' levels, recipe book, bowl and the
    ingredients lying in front of it (for the viewer itself: its secret concocting so far)."""

    def __init__(self, view, seat, future):
        tab = view["tables"][seat]
        shown = view["mine"] if seat == view["seat"] and view["mine"] is not None else tab
        self.seat = seat
        self.levels = tuple(len(shown["flasks"][f]) for f in FLASKS)
        self.book = tuple(t is not None for t in shown["book"])
        self.bowl = shown["bowl"]
        self.front = tuple(shown["front"])
        self.pool = tuple(sorted(self.front + ((self.bowl,) if self.bowl else ())))
        sealed = {f for t in view["tables"] for f in t["corks"]}
        self.ctx = self.context((tab["table"], tuple(f in sealed for f in FLASKS), future))
        self._single: dict = {}

    def context(self, key) -> Context:
        return _context(key)

    def plan(self, pool):
        """(value, moves) of the best use of `pool` this round."""
        return self.ctx.search(self.levels, self.book, tuple(sorted(pool)))

    def draw_worth(self, tok, bowl_free):
        """One more ingredient: the most it adds on a flask or in the recipe book now; failing
        that, its worth in the bowl when the bowl is free, else its cost on the poison flask."""
        placed = self.ctx.placed(self.levels, self.book, tok)
        if placed is not None:
            return placed
        return self.ctx.bowl_value(self.levels, self.book, tok) if bowl_free else -VALUE[tok]

    def quick(self, tok):
        """What one ingredient is worth to this seat on its own (for guessing others' picks)."""
        value = self._single.get(tok)
        if value is None:
            value = self._single[tok] = self.ctx.search(self.levels, self.book, (tok,))[0]
        return value


class Look:
    """The stand-in's reading of its view, with what it works out from it kept for the call."""

    effect_guess = EFFECT_GUESS  # what a placed apprentice's effect is worth (standin_v1 has its own)

    def __init__(self, view):
        self.view = view
        self.me = view["seat"]
        self.future = _future(view)
        self._seats: dict = {}
        self._unseen: list | None = None
        self._draw: dict = {}
        self.pos_of = {f["piece"]: f["pos"] for f in view["forest"] if f["piece"] is not None}

    def seat(self, s) -> Seat:
        if s not in self._seats:
            self._seats[s] = Seat(self.view, s, self.future)
        return self._seats[s]

    def unseen(self) -> list[str]:
        """The ingredients nobody can see now (in the bag or the box): all of them minus those in
        the forest, on the tables, in front of players, in bowls, and drawn by this seat."""
        if self._unseen is None:
            left = Counter(ALL_TOKENS)
            left.subtract(_visible(self.view))
            self._unseen = sorted(left.elements())
        return self._unseen

    def draw_value(self, s, pool=None) -> float:
        """What one blind draw from the bag is worth to seat s beside `pool` (its own by default),
        on average: where it fits a flask or the recipe book, what it adds there; otherwise its
        worth in the bowl if the plan leaves the bowl free, else its cost on the poison flask."""
        seat = self.seat(s)
        pool = seat.pool if pool is None else tuple(pool)
        bowl_free = all(dest != "bowl" for _, dest in seat.plan(pool)[1])
        key = (s, bowl_free)
        if key not in self._draw:
            unseen = self.unseen()
            self._draw[key] = sum(seat.draw_worth(t, bowl_free) for t in unseen) / len(unseen) if unseen else 0.0
        return self._draw[key]

    def best_of_three(self) -> float:
        """The average worth of the best of three blind draws (the Draw effect keeps at least one)."""
        seat = self.seat(self.me)
        values = sorted(seat.quick(t) for t in self.unseen())
        n = len(values)
        if n < 3:
            return values[-1] if values else 0.0
        return sum(v * comb(i, 2) for i, v in enumerate(values)) / comb(n, 3)

    def curve_token(self, piece, curve):
        return self.view["forest"][self.pos_of[piece]]["curves"][curve - 1]

    # -- stage A ---------------------------------------------------------------------------

    def glance_value(self, command):
        """A first glance at a space: what its ingredients are worth to this seat one by one,
        after the apprentices already before it on the piece took what suits them, and the effect."""
        v = self.view
        pos = self.pos_of[command["piece"]]
        sp = command["space"] - 1
        baskets = PIECES[PIECE_BY_EFFECT[command["piece"]]]["baskets"]
        toks = [t for t in v["forest"][pos]["curves"] if t is not None]
        for before, s in enumerate(v["forest"][pos]["spaces"][:sp]):
            if s is not None:
                other = self.seat(s)
                toks.sort(key=lambda t, other=other: -other.quick(t))
                toks = toks[baskets[before] :]
        me = self.seat(self.me)
        values = sorted((me.quick(t) for t in toks), reverse=True)[: baskets[sp]]
        return sum(values) + (self.effect_guess[command["piece"]] if sp == 2 else 0.0)

    def placement_value(self, command):
        view = self.view
        pos = self.pos_of[command["piece"]]
        sp = command["space"] - 1
        spaces = {f["pos"]: list(f["spaces"]) for f in view["forest"] if f["up"]}
        spaces[pos][sp] = self.me
        value = self.collecting_value(spaces)
        free_before = sum(1 for i in range(sp) if spaces[pos][i] is None)
        others_left = sum(t["left"] for s, t in enumerate(view["tables"]) if s != self.me)
        if free_before and others_left:
            free = sum(1 for sps in spaces.values() for s in sps if s is None)
            value -= CROWDING * free_before * min(1.0, others_left / max(1, free))
        return value

    def collecting_value(self, spaces):
        """What this seat makes of the collecting with these apprentices on the forest: each
        apprentice takes, in resolution order, what suits its own table best."""
        view = self.view
        me = self.seat(self.me)
        curves = {f["pos"]: list(f["curves"]) for f in view["forest"] if f["up"]}
        mine: list[str] = []
        draws = 0
        effects = 0.0
        for pos in view["order"]:
            piece = view["forest"][pos]["piece"]
            baskets = PIECES[PIECE_BY_EFFECT[piece]]["baskets"]
            for sp in range(3):
                s = spaces[pos][sp]
                if s is None:
                    continue
                full = [c for c, t in enumerate(curves[pos]) if t is not None]
                k = min(baskets[sp], len(full))
                if s == self.me:

                    def worth(cs, pos=pos, mine=mine):
                        return me.plan(me.pool + tuple(mine) + tuple(curves[pos][c] for c in cs))[0] + (
                            0.5 if 0 in cs else 0.0
                        )

                    pick = max(combinations(full, k), key=worth)
                    mine += [curves[pos][c] for c in pick]
                    draws += 1 if 0 in pick else 0
                    if sp == 2 and not (piece == "collect" and view["basket"] == self.me):
                        effects += self.effect_guess[piece]
                else:
                    other = self.seat(s)
                    pick = sorted(full, key=lambda c, pos=pos, other=other: -other.quick(curves[pos][c]))[:k]
                for c in pick:
                    curves[pos][c] = None
        pool = me.pool + tuple(mine)
        return me.plan(pool)[0] + draws * self.draw_value(self.me, pool) + effects

    # -- stage B ---------------------------------------------------------------------------

    def take_value(self, command):
        cur = self.view["current"]
        curves = self.view["forest"][cur["pos"]]["curves"]
        me = self.seat(self.me)
        pool = me.pool + tuple(curves[c - 1] for c in command["curves"])
        value = me.plan(pool)[0]
        if 1 in command["curves"]:
            value += self.draw_value(self.me, pool)  # the first curve brings a blind draw
        return value


def _visible(view):
    """Every ingredient in sight, once: a leftover this seat picked with the basket tile is in its
    front already (it leaves the forest only when the concocting is revealed)."""
    mine = view["mine"]
    picked = tuple(mine["picked"]) if mine and mine["picked"] else None
    for piece in view["forest"]:
        yield from (t for c, t in enumerate(piece["curves"] or ()) if t is not None and (piece["pos"], c) != picked)
    for s, tab in enumerate(view["tables"]):
        shown = view["mine"] if s == view["seat"] and view["mine"] is not None else tab
        yield from shown["front"]
        yield from shown["poison"]
        yield from (t for t in shown["book"] if t is not None)
        for toks in shown["flasks"].values():
            yield from toks
        if shown["bowl"] is not None:
            yield shown["bowl"]
    yield from view["looking"] or ()


def _future(view) -> float:
    """How likely the game goes on after this round, as a weight for progress and for a saved
    bowl ingredient: low when a rival one cork short has in front of it enough ingredients to
    finish a flask, lower when someone is one cork short or the ingredients run low."""
    weight = 1.0
    if view["bag"] + view["box"] < 4 * view["players"]:
        weight = FUTURE_FEW_LEFT
    for s, tab in enumerate(view["tables"]):
        if len(tab["corks"]) < CORKS_TO_END - 1 or s == view["seat"]:
            continue
        weight = min(weight, FUTURE_ONE_SHORT)
        if view["phase"] == "brew" and _may_finish(view, tab):
            weight = min(weight, FUTURE_ABOUT_TO_END)
    return weight


def _may_finish(view, tab) -> bool:
    """Whether a seat has as many ingredients before it as one of its open flasks lacks."""
    have = len(tab["front"]) + (1 if tab["bowl"] else 0)
    sizes = {f: len(r) for f, r in TABLES[tab["table"]]["flasks"].items()}
    return any(f not in tab["corks"] and sizes[f] - len(tab["flasks"][f]) <= have for f in FLASKS)


# ---------------------------------------------------------------------------------------------
# Stage B: effects
# ---------------------------------------------------------------------------------------------


def _without(pool, tok):
    out = list(pool)
    out.remove(tok)
    return tuple(out)


def _effect(look: Look, legal):
    kinds = {c["type"] for c in legal} - {"skip"}
    if not kinds:
        return {"type": "skip"}
    kind = kinds.pop()
    me = look.seat(look.me)
    base = me.plan(me.pool)[0]
    if kind == "basket":
        return {"type": "basket"}  # a free pick of any leftover in a later stage C
    if kind == "draw":
        return {"type": "draw"} if look.best_of_three() > WORTH_AN_EFFECT else {"type": "skip"}
    if kind == "steal":

        def steal_value(c):
            victim = look.seat(c["from"])
            loss = victim.plan(victim.pool)[0] - victim.plan(_without(victim.pool, c["ing"]))[0]
            return me.plan(me.pool + (c["ing"],))[0] - base + DENIAL * loss

        return _best_or_skip(legal, steal_value, WORTH_AN_EFFECT)
    if kind == "swap":

        def swap_value(c):
            got = look.curve_token(c["piece"], c["curve"])
            return me.plan(_without(me.pool, c["ing"]) + (got,))[0] - base

        return _best_or_skip(legal, swap_value, WORTH_AN_EFFECT)
    if kind == "replace":
        return _best_or_skip(legal, lambda c: replace_value(look, c), WORTH_A_REPLACE)
    return _best_or_skip(legal, lambda c: _dance_value(look, c), WORTH_A_DANCE)


def replace_value(look: Look, command):
    """Sending ingredients back to the bag helps when they suit a rival still to collect on that
    piece, and hurts when they suit us; a fresh draw is worth about an average draw to each."""
    pos = look.pos_of[command["piece"]]
    value = 0.0
    for s in look.view["forest"][pos]["spaces"]:
        if s is None:
            continue
        seat = look.seat(s)
        for c in command["curves"]:
            delta = look.draw_value(s) - seat.quick(look.curve_token(command["piece"], c))
            value += delta if s == look.me else -2 * DENIAL * delta
    return value


def _dance_value(look: Look, command):
    """Dancing our own apprentice onto a better space of a piece still to be collected."""
    pos = look.pos_of[command["piece"]]
    spaces = {f["pos"]: list(f["spaces"]) for f in look.view["forest"] if f["up"]}
    a, b = (s - 1 for s in command["spaces"])
    if look.me not in (spaces[pos][a], spaces[pos][b]):
        return 0.0
    before = look.collecting_value(spaces)
    spaces[pos][a], spaces[pos][b] = spaces[pos][b], spaces[pos][a]
    return look.collecting_value(spaces) - before


# ---------------------------------------------------------------------------------------------
# Stage C: concocting, one move at a time
# ---------------------------------------------------------------------------------------------


def _brew(look: Look, legal):
    me = look.seat(look.me)
    picks = [c for c in legal if c["type"] == "pick"]
    if picks:
        base = me.plan(me.pool)[0]
        best = _best_or_skip(
            picks, lambda c: me.plan(me.pool + (look.curve_token(c["piece"], c["curve"]),))[0] - base, WORTH_A_PICK
        )
        if best["type"] == "pick":
            return best
    _, moves = me.plan(me.pool)
    # The flask and book moves first, in the plan's order (the order up each flask); then the
    # bowl's ingredient goes if another is kept; then the bowl is filled; then the poison flask.
    for tok, dest in moves:
        if dest not in ("bowl", "poison"):
            return _put(legal, tok, dest)
    kept = [tok for tok, dest in moves if dest == "bowl"]
    if me.bowl is not None and kept != [me.bowl]:
        return _put(legal, me.bowl, "poison")
    for tok in kept:
        if tok != me.bowl:
            return _put(legal, tok, "bowl")
    for tok, dest in moves:
        if dest == "poison":
            return _put(legal, tok, "poison")
    return {"type": "done"} if {"type": "done"} in legal else legal[0]


def _put(legal, tok, dest):
    command = {"type": "put", "ing": tok, "to": dest}
    if command not in legal:
        raise AssertionError(f"the stand-in's plan puts {tok} on {dest}, which is not legal now")
    return command
