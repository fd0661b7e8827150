"""A candidate version 2 of the stand-in, not (yet) the stand-in the game plays (`standin.py`,
version 1, is): it was not shown clearly better over 1,000 games (RULINGS 37, 39); the bench
measures it against version 1. It is version 1 (imported from `standin.py`) except that it knows
the fourth cork ends the game. In stage C every seat's ingredients are known: when a rival's plan
takes its fourth cork, the game ends this round and only points count (no progress, nothing saved
in the bowl); otherwise, when its own plan would end the game with the seat not ahead, it keeps a
flask open (the plan that takes the fourth cork loses END_LOSE). Before the concocting, a seat one
cork short guesses the final scores (what each seat has, plus a share per apprentice still out)
and values a plan that takes the fourth cork END_WIN more when ahead, END_LOSE less when behind.

Deterministic, as version 1; its searched positions are remembered apart from version 1's.
"""

from __future__ import annotations

from collections import Counter
from operator import eq

from . import standin as v1
from .data_model import FLASKS
from .standin import CORKS_TO_END, VALUE, _cork, _future

# The fourth cork ends the game: a plan that takes it gains this much more when the seat would be
# ahead at the end (by more than END_MARGIN, guessed before the concocting), and this much less
# when it would be behind (in stage C, where every ingredient in front of every seat is known,
# exactly: ending the game behind loses it for sure, so the stand-in keeps a flask open instead).
END_WIN = 10.0
END_LOSE = -40.0
END_MARGIN = 3.0
# What an apprentice still to collect is likely to add to a seat's score (for the guess above).
PER_APPRENTICE = 4.0


def standin(view, legal):
    """One of `legal`, chosen from `view` (the seat's own view) alone."""
    if len(legal) == 1:
        return legal[0]
    return v1.choose(Look(view), legal)


class Context(v1.Context):
    """Version 1's context, with a bonus (or malus) for a plan that takes the fourth cork."""

    def __init__(self, key):
        table, sealed, future, end_bonus = key
        super().__init__((table, sealed, future))
        self.sealed = sealed
        self.end_bonus = end_bonus

    def leftover(self, levels, book, pool):
        value, moves = super().leftover(levels, book, pool)
        if sum(map(eq, levels, self.sizes)) >= CORKS_TO_END:
            value += self.end_bonus
        return value, moves


_CONTEXTS: dict = {}


class Seat(v1.Seat):
    def __init__(self, view, seat, future, end_bonus=0.0):
        self.end_bonus = end_bonus
        super().__init__(view, seat, future)

    def context(self, key) -> Context:
        return v1._context(key + (self.end_bonus,), _CONTEXTS, Context)

    def final_gain(self, moves, table=None) -> tuple[int, bool]:
        """What `moves` add to the seat's score if the game ends this round (a kept bowl ingredient is
        poured onto the poison flask), and whether they take the seat's fourth cork; from `table`
        (the seat's revealed table) when given, else from where the seat's concocting stands."""
        ctx = self.ctx
        levels, book = list(self.levels), list(self.book)
        if table is not None:
            levels = [len(table["flasks"][f]) for f in FLASKS]
            book = [t is not None for t in table["book"]]
        gain = 0
        for tok, dest in moves:
            if dest in ("poison", "bowl"):
                gain -= VALUE[tok]
            elif dest == "book":
                book[ctx.slot[tok]] = True
                gain += 2 * VALUE[tok] + (3 if all(book) else 0)
            else:
                fi = FLASKS.index(dest)
                levels[fi] += 1
                gain += ctx.points[tok] + (_cork(ctx.sealed[fi]) if levels[fi] == ctx.sizes[fi] else 0)
        return gain, sum(map(eq, levels, ctx.sizes)) >= CORKS_TO_END


class Look(v1.Look):
    """Version 1's reading of the view, and what the end of the game means for this seat."""

    def __init__(self, view):
        self.end_bonus = 0.0
        super().__init__(view)
        if view["phase"] == "brew":
            self._brew_outlook()
        elif len(view["tables"][self.me]["corks"]) >= CORKS_TO_END - 1:
            self.end_bonus = self._end_guess()

    def seat(self, s) -> Seat:
        if s not in self._seats:
            self._seats[s] = Seat(self.view, s, self.future, self.end_bonus if s == self.me else 0.0)
        return self._seats[s]

    def score(self, s) -> int:
        return sum(self.view["tables"][s]["score"])

    def _brew_outlook(self):
        """In stage C every seat's ingredients are known: if a rival's plan takes its fourth cork,
        the game ends this round (only points count now); otherwise, if ours would end it with us
        behind, we keep a flask open."""
        finals = []
        for s in range(self.view["players"]):
            if s != self.me:
                rival = self.seat(s)
                gain, ends = rival.final_gain(rival.plan(rival.pool)[1])
                if ends:
                    self.future, self._seats = 0.0, {}
                    return
                finals.append(self.score(s) + gain)
        # The rivals' plans are known not to end the game: version 1's weight as outside stage C.
        self.future, self._seats = _future({**self.view, "phase": "exact"}), {}
        me = self.seat(self.me)
        done = [tuple(m) for m in self.view["mine"]["moves"] if m[1] not in ("bowl", "basket")]
        gain, ends = me.final_gain(tuple(done) + me.plan(me.pool)[1], self.view["tables"][self.me])
        if ends and finals and self.score(self.me) + gain <= max(finals):
            self.end_bonus, self._seats = END_LOSE, {}

    def _end_guess(self) -> float:
        """Before the concocting: END_WIN if this seat would likely end the game ahead, END_LOSE if
        behind, else nothing (what each seat has plus a guess for each apprentice still out)."""
        out = Counter(s for f in self.view["forest"] if f["up"] for s in f["spaces"] if s is not None)
        guess = []
        for s, tab in enumerate(self.view["tables"]):
            seat = self.seat(s)
            guess.append(self.score(s) + seat.plan(seat.pool)[0] + PER_APPRENTICE * (tab["left"] + out[s]))
        self._seats = {}
        margin = guess[self.me] - max(g for s, g in enumerate(guess) if s != self.me)
        if margin > END_MARGIN:
            return END_WIN
        return END_LOSE if margin < -END_MARGIN else 0.0
