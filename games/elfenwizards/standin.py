"""A stand-in for a seat whose player is gone: `standin(view, legal) -> command`.

It sees only that seat's view (in Elfenwizards everything is public anyway) and measures every
decision with one yardstick, `Look.standing`: what the titles would give each player this turn if
the competition ended now, each leading candidate discounted by how easily the players still in
the competition could overturn its lead with the spells they hold; its own share counts, the
others' mean counts against it (at four and five players half of it: `RIVALS_COUNTED`).

This is version 2 (issue 29); `standin_v1.py` plays the first one as this code with `version=1`
(no war weighed, the others' titles counted at their mean at every table size). Version 1 looked only at a
rival's next two spells, so it fought every war of minor spells to the end, two at a time, and
mostly lost or tied it with all its minor spells spent. Version 2 also weighs the war (`Look.hold`):
a lead that a rival candidate's owner could overturn with every spell he has left (his dice at that
level and his minor spells), and that the leader could not answer with every spell of his, holds
only a tenth as often; so it stays out of wars it cannot win and keeps its spells for those it can.
At five players that weighing lost to version 1, so there it weighs a lead as version 1 did. At four
and five players it counts the others' titles at half against its own: a title it keeps from one
of several rivals mostly goes to another, so it spends less on spoiling and more on its own titles
(RULINGS 36).

- Phases 2 and 3 (placing dice): each die goes where it adds most: a Major Spells space in
  proportion to the stakes of the contests at that level (its own candidates first), the Minor
  Spells space while it has spent minor spells to recover, the Gray Magic space while it has
  tokens. In phase 2 it keeps the low dice for the phase-3 roll; it rerolls a poor phase-3 roll.
- Phase 5 (competition): it casts the pair of spells that raises the yardstick most (a minor
  spell costs what it would score at the end), and passes when no spell raises it; a war for a
  lead it cannot hold against a rival's every spell is worth little (version 2).
- Phases 4, 6 and 9: it recovers (removes) as much as it can with the fewest pips and takes back
  every unused die (dice in front are next turn's spells).
- Phases 1, 7 and 8: a wizard goes to the Wizard space where it is likeliest to win a
  Necromancer title; a routed wizard takes the vacant title whose contest is easiest next turn.

Deterministic: no randomness, no clock; equal values keep the order of `legal`.
"""

from __future__ import annotations

from .board import CONTEST_OF_SPACE, CONTESTS, SPACE_LEVEL
from .rules import CONTEST_LEVEL, winners

# Points per turn a candidate gets by winning its contest (the title above) or by losing it
# (routed, then most often demoted to a Wizard space; from a Druid or Sorcerer title with a
# gray magic token).
WIN = {"druid": 10, "sorcerer": 7, "necromancer": 5, "wizard": 3}
LOSE = {"druid": 1, "sorcerer": 1, "necromancer": 2, "wizard": 2}
# A minor spell cast is one point less at the end (if not recovered) and one spell fewer.
MINOR_COST = 0.9
# A major die cast comes back after the award: only a trace of a cost, so the smaller is used.
MAJOR_COST = 0.01
# A pass or a spell must gain at least this much to be preferred to its alternative.
EPSILON = 0.05
# Second spells tried beside each first one (besides those in the same contest).
PAIR_WIDTH = 4
# Placing dice: the worth of a minor spell recovered, and of pips on a Major Spells space (the
# contest share x / (x + rivals + SHARE_DAMPING)).
MINOR_WORTH = 1.2
SHARE_DAMPING = 6.0
# Phase 2: a die is placed now when it is at least this high (or a perfect fit for the Minor
# Spells or Gray Magic space); the rest are rolled again in phase 3.
KEEP_BELOW = 4
# Phase 3: reroll when the mean of at least three dice is below this and minor spells are plenty.
REROLL_MEAN = 2.6
REROLL_SUPPLY = 3
# A lead that a rival could overturn with every spell he has left, and that its leader could not
# answer with every spell of his: it holds only this often (version 2).
WAR_LOST = 0.1
# The war is weighed up to this many players. At five, version 2's weighing lost to version 1
# (0.89x a fair share, 0.82-0.97, 1,000 games; RULINGS 36): with four rivals a war it stays out of
# is fought by the others, and the lead it gives up is taken. There it weighs a lead as version 1.
WAR_WEIGHED_UP_TO = 4
# How much the others' titles count against its own, by table size (1.0: their mean; RULINGS 36).
# At four and five players half: a title kept from one of three or four rivals mostly goes to
# another of them, so a spell spent spoiling buys less than a spell for its own titles; the stakes
# of the others' fights on a Major Spells space count as much less. (At five 1.36x version 1, at
# four 1.23x version 2's mean, over 1,000 games each.)
RIVALS_COUNTED = {4: 0.5, 5: 0.5}


def standin(view, legal, version=2):
    """One of `legal`, chosen from `view` (the seat's own view) alone; `version=1` is the first
    stand-in's choice (`standin_v1`)."""
    if len(legal) == 1:
        return legal[0]
    look = Look(view, version)
    kind = legal[0]["type"]
    phase = view["phase"]
    if phase in ("cast1", "cast2"):
        return _place(look, legal)
    if phase == "compete":
        return _compete(look, legal)
    if kind in ("recover", "remove"):
        return _recover(look, legal, kind)
    if kind == "takeback":
        return max(legal, key=lambda c: len(c["dice"]))
    if kind == "retire":
        return _retire(look, legal)
    if kind == "demote":
        return _best(legal, lambda c: look.wizard_space_worth(c["to"]))
    if kind == "claim":
        return _best(legal, lambda c: look.vacancy_worth(c["space"]))
    return legal[0]


def _best(legal, value):
    """The command of highest value; the first of `legal` among equals."""
    best, best_value = legal[0], value(legal[0])
    for command in legal[1:]:
        v = value(command)
        if v > best_value + 1e-9:
            best, best_value = command, v
    return best


def _wizard_key(name: str):
    """Wizards are named colour + number in placement order; the rules rank equal candidates of one
    player by that order."""
    digits = len(name) - len(name.rstrip("0123456789"))
    return name[:-digits], int(name[-digits:])


class Look:
    """What the seat sees, read from its view once per decision."""

    def __init__(self, view, version=2):
        self.view = view
        self.version = version
        self.colours = list(view["colours"])
        self.n = len(self.colours)
        self.me = view["seat"]
        seat_of = {c: i for i, c in enumerate(self.colours)}
        self.seat_of = seat_of
        self.turn_pos = {seat_of[c]: i for i, c in enumerate(view["order"])}
        info = view["player_info"]
        self.minor = [p["minor_supply"] for p in info]
        self.spent = [p["minor_in_space"] for p in info]
        self.gray = [p["gray"] for p in info]
        self.active = [not p["passed"] for p in info]
        self.scores = [p["score"] for p in info]
        self.gd_awards = [p["grand_druid_awards"] for p in info]
        self.turns_left = view["turns"] - view["turn"] + 1
        # wizard name -> (owner, space); per contest its candidates
        self.owner: dict[str, int] = {}
        self.space: dict[str, str] = {}
        for space, here in view["board"].items():
            for w in here:
                self.owner[w["name"]] = seat_of[w["colour"]]
                self.space[w["name"]] = space
        self.contests: list[list[str]] = [[] for _ in CONTESTS]
        for ci, contest in enumerate(CONTESTS):
            for space in contest["from"]:
                self.contests[ci] += [w["name"] for w in view["board"].get(space, [])]
        self.contest_owners = [{self.owner[w] for w in cands} for cands in self.contests]
        self.rank_key = {w: (self.turn_pos[o], _wizard_key(w)) for w, o in self.owner.items()}
        self.ending = [self.ending_bonus(q) for q in range(self.n)]
        self.rivals_counted = RIVALS_COUNTED.get(self.n, 1.0) if version >= 2 else 1.0
        self.points = {c["wizard"]: c["points"] for c in view["spells_cast"]}
        self._worth_memo: dict[tuple, float] = {}
        # major dice per level and seat
        self.dice = {lv: [[] for _ in range(self.n)] for lv in view["major"]}
        for lv, pairs in view["major"].items():
            for colour, v in pairs:
                self.dice[lv][seat_of[colour]].append(v)

    # -- the competition ---------------------------------------------------------------------

    def potentials(self, dice, minor) -> dict:
        """Per level and seat, the most pips that seat could add there with its next two spells
        (0 for a seat that has passed)."""
        out = {}
        for level, per_seat in dice.items():
            row = []
            for q in range(self.n):
                if not self.active[q]:
                    row.append((0, 0))
                    continue
                row.append(self.potential(per_seat[q], minor[q]))
            out[level] = row
        return out

    @staticmethod
    def potential(dice, minor):
        """(the most pips with the next two spells, the most with every spell left)."""
        return (sum(sorted(dice + [1] * min(2, minor), reverse=True)[:2]), sum(dice) + minor)

    def threat(self, ci, against: int, pot):
        """(the most pips a player still in the competition, other than `against`, could add in
        contest `ci` with his next two spells (only the owner, where he owns every candidate),
        the most a rival candidate's owner could add with every spell he has left)."""
        owners = self.contest_owners[ci]
        row = pot[CONTEST_LEVEL[ci]]
        seats = owners if len(owners) == 1 else range(self.n)
        two = max((row[q][0] for q in seats if q != against), default=0)
        full = max((row[q][1] for q in owners if q != against), default=0)
        return two, full

    def hold(self, margin, threat, own) -> float:
        """The chance a lead of `margin` holds against `threat` (the rivals' next two spells, all
        their spells) with the leader's own `own` spells to answer."""
        two, full = threat
        if self.n > WAR_WEIGHED_UP_TO or self.version < 2:  # version 1's: the next two spells only
            return 1.0 if margin > two else 0.5 + 0.5 * margin / (two + 1)
        if margin > full:
            return 1.0
        answer = margin + own[1] > full
        if margin > two:
            return 1.0 if answer else WAR_LOST
        p = 0.5 + 0.5 * margin / (two + 1)
        return p if answer else p * WAR_LOST

    def contest_worth(self, ci, points, pot) -> float:
        """What contest `ci` gives as it stands (its winners discounted by the threat to their
        lead): this seat's share less the mean of the others'. It depends only on the points of
        its candidates and the potentials at its level, so it is worked out once per decision for
        each of those (the pair search asks the same question many times)."""
        cands = self.contests[ci]
        if not cands:
            return 0.0
        level = CONTEST_LEVEL[ci]
        key = (ci, tuple(points.get(w, 0) for w in cands), tuple(pot[level]))
        known = self._worth_memo.get(key)
        if known is None:
            known = self._worth_memo[key] = self._contest_worth(ci, points, pot)
        return known

    def _contest_worth(self, ci, points, pot) -> float:
        cands = self.contests[ci]
        level = CONTEST_LEVEL[ci]
        ranked = sorted(cands, key=lambda w: (-points.get(w, 0), self.rank_key[w]))
        pts = [points.get(w, 0) for w in ranked]
        won = set(winners(pts, len(CONTESTS[ci]["titles"])))
        beaten = max((pts[i] for i in range(len(ranked)) if i not in won), default=0)
        total = 0.0
        for i, w in enumerate(ranked):
            owner = self.owner[w]
            value: float = LOSE[level]
            if i in won:
                margin = pts[i] - beaten
                p = self.hold(margin, self.threat(ci, owner, pot), pot[level][owner])
                win = WIN[level] + (self.ending[owner] if level == "druid" else 0.0)
                value = p * win + (1 - p) * LOSE[level]
            total += value if owner == self.me else -value / (self.n - 1) * self.rivals_counted
        return total

    def standing(self, points, dice, minor, before=None, levels=None, pot=None):
        """(worth, points, dice, minor, per-contest worth, potentials); with `before`, only the
        contests at `levels` are worked out again."""
        if pot is None:
            pot = self.potentials(dice, minor)
        parts = list(before) if before is not None else [0.0] * len(CONTESTS)
        for ci in range(len(CONTESTS)):
            if before is None or CONTEST_LEVEL[ci] in levels:
                parts[ci] = self.contest_worth(ci, points, pot)
        return sum(parts), points, dice, minor, parts, pot

    def cast(self, standing, command):
        """The standing after this seat casts `command` (new copies, the inputs untouched)."""
        _worth, points, dice, minor, parts, pot = standing
        me = self.me
        w = command["wizard"]
        points = dict(points)
        level = SPACE_LEVEL[self.space[w]]
        if command["spell"] == "minor":
            points[w] = points.get(w, 0) + 1
            minor = list(minor)
            minor[me] -= 1
            levels = tuple(dice) if minor[me] < 2 else (level,)
        else:
            points[w] = points.get(w, 0) + command["spell"]
            dice = dict(dice)
            dice[level] = list(dice[level])
            mine = list(dice[level][me])
            mine.remove(command["spell"])
            dice[level][me] = mine
            levels = (level,)
        pot = dict(pot)
        for lv in levels:
            row = list(pot[lv])
            row[me] = self.potential(dice[lv][me], minor[me]) if self.active[me] else (0, 0)
            pot[lv] = row
        return self.standing(points, dice, minor, parts, levels, pot)

    def ending_bonus(self, seat) -> float:
        """A second Grand Druid title ends the game: good for a leader, bad for the others."""
        if self.gd_awards[seat] < 1:
            return 0.0
        lead = self.scores[seat] - max(s for q, s in enumerate(self.scores) if q != seat)
        return 8.0 if lead > 0 else -4.0

    def castable(self, dice, minor, command) -> bool:
        if command["spell"] == "minor":
            return minor[self.me] > 0
        return command["spell"] in dice[SPACE_LEVEL[self.space[command["wizard"]]]][self.me]

    # -- placing dice --------------------------------------------------------------------------

    def stakes(self, level) -> float:
        """What pips on the Major Spells space of `level` may decide for this seat."""
        total = 0.0
        for ci, cands in enumerate(self.contests):
            if CONTEST_LEVEL[ci] != level or not cands:
                continue
            owners = self.contest_owners[ci]
            mine = sum(1 for w in cands if self.owner[w] == self.me)
            swing = WIN[level] - LOSE[level]
            if mine and len(owners) > 1:
                total += swing * min(mine, len(CONTESTS[ci]["titles"]))
            elif mine:
                total += 0.15 * swing  # only this seat may cast: one point is enough
            elif len(owners) > 1:
                total += 0.2 * swing * self.rivals_counted  # the others' fight: worth a spoiling spell
        return total

    def die_worth(self, value: int, space: str) -> float:
        if space == "minor":
            pips = sum(v for c, v in self.view["minor_dice"] if self.seat_of[c] == self.me)
            need = self.spent[self.me]
            return MINOR_WORTH * (min((pips + value) // 2, need) - min(pips // 2, need))
        if space == "gray":
            pips = sum(v for c, v in self.view["gray_dice"] if self.seat_of[c] == self.me)
            cost = self.view["gray_cost"]
            tokens = self.gray[self.me]
            per_token = min(2.5, self.turns_left)
            return per_token * (min((pips + value) // cost, tokens) - min(pips // cost, tokens))
        mine = sum(self.dice[space][self.me])
        rivals = max([sum(d) for q, d in enumerate(self.dice[space]) if q != self.me] or [0])
        stakes = self.stakes(space)

        def share(x):
            return x / (x + rivals + SHARE_DAMPING)

        return stakes * (share(mine + value) - share(mine))

    # -- where wizards go ----------------------------------------------------------------------

    def wizard_space_worth(self, space: str) -> float:
        """A Wizard space's two Necromancer titles: this seat's chance of one more, with one more
        wizard there (best where it has fewer than two and the others few or none)."""
        here = self.view["board"].get(space, [])
        mine = sum(1 for w in here if self.seat_of[w["colour"]] == self.me)
        others = len(here) - mine
        gain = min(mine + 1, 2) - min(mine, 2)
        return gain / (1 + others) - 0.01 * (mine + others) + (0.5 if others == 0 else 0.0)

    def vacancy_worth(self, space: str) -> float:
        """A vacant title whose partner space (the other candidate of its next contest) is empty
        or this seat's own is easier to rise from."""
        for contest in CONTESTS:
            if space in contest["from"]:
                partners = [s for s in contest["from"] if s != space]
                theirs = [
                    w for s in partners for w in self.view["board"].get(s, []) if self.seat_of[w["colour"]] != self.me
                ]
                empty = all(not self.view["board"].get(s) for s in partners)
                return 2.0 if empty else 0.0 if theirs else 1.5
        return 0.0


def _place(look: Look, legal):
    view = look.view
    places = [c for c in legal if c["type"] == "place"]
    rolled = view["rolled"]["dice"] if view["rolled"] else []
    if (
        any(c["type"] == "reroll" for c in legal)
        and len(rolled) >= 3
        and sum(rolled) / len(rolled) < REROLL_MEAN
        and look.minor[look.me] >= REROLL_SUPPLY
    ):
        return {"type": "reroll"}

    def value(c):
        return look.die_worth(c["die"], c["space"]) + 0.001 * c["die"]

    best = _best(places, value)
    if any(c["type"] == "done" for c in legal):  # phase 2: keep the low dice for phase 3
        worth = look.die_worth(best["die"], best["space"])
        perfect = best["space"] in ("minor", "gray") and worth >= MINOR_WORTH
        if worth <= 0 or (best["die"] < KEEP_BELOW and not perfect):
            return {"type": "done"}
    return best


def _compete(look: Look, legal):
    values, now = compete_values(look, legal)
    casts = [c for c in legal if c["type"] == "cast"]
    choice = _best(casts, lambda c: values[id(c)])
    if any(c["type"] == "pass" for c in legal) and values[id(choice)] <= now + EPSILON:
        return {"type": "pass"}
    return choice


def spell_cost(c) -> float:
    return MINOR_COST if c["spell"] == "minor" else MAJOR_COST * c["spell"]


def compete_values(look: Look, legal):
    """({id(cast): worth after it (with the best second spell of the turn, when there is one)},
    worth now)."""
    casts = [c for c in legal if c["type"] == "cast"]
    now = look.standing(look.points, look.dice, look.minor)
    single = {id(c): look.cast(now, c) for c in casts}
    if look.view["spells_this_turn"] >= 1 or not any(c["type"] == "pass" for c in legal):
        return {id(c): single[id(c)][0] - spell_cost(c) for c in casts}, now[0]

    # Two spells in one contest may win what neither wins alone: each first spell is tried with
    # every second spell for the same wizard, the best few single spells in its contest and the
    # best few anywhere.
    ranked = sorted(casts, key=lambda c: spell_cost(c) - single[id(c)][0])
    by_contest: dict[int, list] = {}
    for c in ranked:
        by_contest.setdefault(CONTEST_OF_SPACE[look.space[c["wizard"]]], []).append(c)
    by_wizard: dict[str, list] = {}
    for c in casts:
        by_wizard.setdefault(c["wizard"], []).append(c)

    def pair(c):
        first = single[id(c)]
        best = first[0] - spell_cost(c)
        contest = CONTEST_OF_SPACE[look.space[c["wizard"]]]
        seconds = by_wizard[c["wizard"]] + by_contest[contest][:PAIR_WIDTH] + ranked[:PAIR_WIDTH]
        for c2 in seconds:
            if look.castable(first[2], first[3], c2):
                best = max(best, look.cast(first, c2)[0] - spell_cost(c) - spell_cost(c2))
        return best

    # Among pairs worth the same, the spell worth more alone goes first.
    return {id(c): pair(c) + 0.001 * (single[id(c)][0] - spell_cost(c)) for c in casts}, now[0]


def _recover(look: Look, legal, kind):
    spent = look.spent[look.me] if kind == "recover" else look.gray[look.me]
    per = 2 if kind == "recover" else look.view["gray_cost"]
    return _best(legal, lambda c: min(sum(c["dice"]) // per, spent) - 0.01 * sum(c["dice"]))


def _retire(look: Look, legal):
    # A minor spell from the Minor Spells space (already spent) rather than from the supply
    # (which scores at the end); the wizard to the best Wizard space.
    def value(c):
        return look.wizard_space_worth(c["to"]) + (0.5 if c["source"] == "space" else 0.0)

    return _best(legal, value)
