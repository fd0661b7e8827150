"""Elfenwizards: state, decide, evolve and the bookkeeping (pure Python, no platform imports).

A turn has ten phases (rulebook): 1 retirement of the Grand Druid, 2 casting and allocation of
major spells, 3 the same for the remaining dice (optional reroll for a minor spell), 4 recovery of
minor spells, 5 competition and award of titles, 6 recovery of minor spells, 7 award of vacant
titles, 8 demotion, 9 removal of gray magic tokens, 10 scoring.

Phase names in the state: retire, cast1, cast2, recover4, compete, recover6, vacant, demote,
gray9; transitional (never awaited): begin, retired, awarded, scored; and over.
Everything in this game is public (dice are rolled openly, spells are placed openly).
"""

from __future__ import annotations

from collections import Counter

from games.base import Event, Rejected, Result, ScoreLine

from . import words as W
from .board import (
    CONTEST_OF_SPACE,
    CONTESTS,
    DATA_VERSION,
    DICE_PER_PLAYER,
    DIE_SPACES,
    GD,
    GRAY_ON_DEMOTION,
    GRAY_TOKENS,
    LEVEL_NAME,
    LEVELS,
    MAJOR_LEVELS,
    MINOR_PER_PLAYER,
    POINTS,
    ROUT_OF,
    ROUT_SPACES,
    SPACE_LEVEL,
    TITLE_SPACES,
    TITLES_BY_LEVEL,
    TURNS,
    WIZARD_SPACES,
    placement,
)
from .lang import _

PHASE_NUMBER = {
    "retire": 1,
    "cast1": 2,
    "cast2": 3,
    "recover4": 4,
    "compete": 5,
    "awarded": 5,
    "recover6": 6,
    "vacant": 7,
    "demote": 8,
    "gray9": 9,
    "scored": 10,
    "begin": 1,
    "retired": 1,
    "over": 10,
}
PHASE_TITLE = {
    "retire": "retirement of the Grand Druid",
    "cast1": "casting and allocation of major spells",
    "cast2": "casting and allocation of remaining major spells",
    "recover4": "recovery of minor spells",
    "compete": "competition for titles",
    "awarded": "award of titles",
    "recover6": "recovery of minor spells",
    "vacant": "award of vacant titles",
    "demote": "demotion of remaining wizards",
    "gray9": "removal of gray magic tokens",
    "scored": "scoring",
    "begin": "start of the turn",
    "retired": "retirement of the Grand Druid",
    "over": "game over",
}
PEND_PHASES = ("recover4", "recover6", "gray9")
# The rules a new game is played by (RULINGS.md, "Rules version 2"); recorded in GameStarted.
RULES_VERSION = 2
# where a space's rank lies (for ordering wizards top to bottom, left to right)
SPACE_RANK = {sp: i for i, sp in enumerate([*TITLE_SPACES, *ROUT_SPACES, *WIZARD_SPACES])}
MID_LEVELS = [lv for lv in LEVELS if lv in ROUT_OF]  # druid, sorcerer, necromancer
CONTEST_LEVEL = [SPACE_LEVEL[c["from"][0]] for c in CONTESTS]  # the level of a contest's candidates


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------


def order(s) -> list[int]:
    """Seats in turn order: the dragon's holder first, then clockwise."""
    n, d = s["n"], s["dragon"]
    return [(d + i) % n for i in range(n)]


def clone(s):
    """A copy deep enough for evolve to mutate (lists evolve never mutates in place are shared)."""
    c = dict(s)
    c["wiz"] = [list(w) for w in s["wiz"]]
    for k in ("front", "supply", "mspace", "passed", "pend", "gd_count", "scores", "sheet", "counter"):
        c[k] = list(s[k])
    c["rolled"] = list(s["rolled"]) if s["rolled"] is not None else None
    c["major"] = {lv: list(v) for lv, v in s["major"].items()}
    c["mdice"] = list(s["mdice"])
    c["gdice"] = list(s["gdice"])
    c["cast"] = list(s["cast"])
    return c


def level_of(s, w: int) -> str:
    return SPACE_LEVEL[s["wiz"][w][1]]


def wizard_index(s, name: str) -> int | None:
    try:
        return s["names"].index(name)
    except ValueError:
        return None


def occupant(s, space: str) -> int | None:
    for w, (_owner, sp, _g) in enumerate(s["wiz"]):
        if sp == space:
            return w
    return None


def my_dice(pairs, seat) -> list[int]:
    return sorted((v for st, v in pairs if st == seat), reverse=True)


def gray_of(s, seat) -> int:
    return sum(g for owner, _sp, g in s["wiz"] if owner == seat)


def sub_multisets(values) -> list[list[int]]:
    """Every sub-multiset of `values`, each sorted high to low."""
    counts = Counter(values)
    out: list[list[int]] = [[]]
    for v in sorted(counts, reverse=True):
        out = [r + [v] * k for r in out for k in range(counts[v] + 1)]
    return out


def gain(dice, per: int, available: int) -> int:
    return min(sum(dice) // per, available)


def useful(dice, per: int, available: int) -> bool:
    """A set of dice may be spent when it gains something and every die in it is needed."""
    g = gain(dice, per, available)
    if g <= 0:
        return False
    for v in set(dice):
        rest = list(dice)
        rest.remove(v)
        if gain(rest, per, available) >= g:
            return False
    return True


def spend_options(dice, per: int, available: int) -> list[list[int]]:
    """The sets of dice worth spending: each gains something and needs every die in it."""
    return [sub for sub in sub_multisets(dice) if sub and useful(sub, per, available)]


def spendable(s, dice, per: int, available: int) -> list[list[int]]:
    """The sets of dice a player may spend. Rules version 2 follows the rulebook's letter: "one or
    several dice … any remaining points are lost", so any set of his dice there (once there is
    something to gain at all); version 1 allowed only sets whose every die counts."""
    if rules_version(s) < 2:
        return spend_options(dice, per, available)
    if not spend_options(dice, per, available):
        return []
    return [sub for sub in sub_multisets(dice) if sub]


def candidates(s) -> list[list[int]]:
    """Per contest (in award order), the wizards standing on its candidate spaces."""
    cands: list[list[int]] = [[] for _ in CONTESTS]
    for w, (_owner, sp, _g) in enumerate(s["wiz"]):
        ci = CONTEST_OF_SPACE.get(sp)
        if ci is not None:
            cands[ci].append(w)
    return cands


def rules_version(s) -> int:
    """The rules a game is played by (RULINGS.md, "Rules version 2"): recorded in GameStarted
    since version 2; a log without it keeps the rules it was started with (version 1)."""
    return s.get("rules", 1)


def open_to(s, seat, owners, count) -> bool:
    """Whether `seat` may cast in a contest of `count` candidates owned by `owners`. Where one
    player owns every candidate, opponents "cannot place points to oppose it"; a lone candidate
    has nobody to be opposed for, so since rules version 2 anyone may support it."""
    if len(owners) > 1 or seat in owners:
        return True
    return count == 1 and rules_version(s) >= 2


def targets(s, seat) -> list[int]:
    """Wizards `seat` may cast spells for (in the contests open to him)."""
    wiz = s["wiz"]
    out = []
    for ws in candidates(s):
        if ws and open_to(s, seat, {wiz[w][0] for w in ws}, len(ws)):
            out.extend(ws)
    return out


def contest_owners(s) -> list[set]:
    """Per contest, the players owning its candidates."""
    owners: list[set] = [set() for _ in CONTESTS]
    for owner, sp, _g in s["wiz"]:
        ci = CONTEST_OF_SPACE.get(sp)
        if ci is not None:
            owners[ci].add(owner)
    return owners


def may_cast_for(s, seat, w) -> bool:
    """Whether `seat` may cast for wizard `w` (a candidate, in a contest open to him)."""
    ci = CONTEST_OF_SPACE.get(s["wiz"][w][1])
    if ci is None:
        return False
    return open_to(s, seat, contest_owners(s)[ci], len(candidates(s)[ci]))


def castable(s, seat) -> bool:
    """Whether `seat` has a spell he can cast for some candidate."""
    minor = s["supply"][seat] > 0
    levels = {lv for lv in MAJOR_LEVELS if any(st == seat for st, _v in s["major"][lv])}
    if not minor and not levels:
        return False
    counts = [len(ws) for ws in candidates(s)]
    for ci, owners in enumerate(contest_owners(s)):
        if owners and open_to(s, seat, owners, counts[ci]) and (minor or CONTEST_LEVEL[ci] in levels):
            return True
    return False


def next_routed(s) -> int | None:
    """The routed wizard to be placed next: Druid level first, then Sorcerer, then
    Necromancer; within a level in turn order (dragon first), a player's wizards in order."""
    pos = {seat: i for i, seat in enumerate(order(s))}
    for rout in ROUT_SPACES:
        here = [w for w, (_o, sp, _g) in enumerate(s["wiz"]) if sp == rout]
        if here:
            return min(here, key=lambda w: (pos[s["wiz"][w][0]], w))
    return None


def vacancy_choices(s) -> list[str]:
    """The vacant titles a routed wizard may take: those of the highest level with a
    vacancy, never the Grand Druid's."""
    taken = {sp for _o, sp, _g in s["wiz"]}
    for lv in MID_LEVELS:
        empty = [t for t in TITLES_BY_LEVEL[lv] if t not in taken]
        if empty:
            return empty
    return []


def next_demoted(s) -> int | None:
    """Demotion: the dragon's holder places all his routed wizards first, then the next."""
    for seat in order(s):
        mine = [w for w, (o, sp, _g) in enumerate(s["wiz"]) if o == seat and sp in ROUT_SPACES]
        if mine:
            return min(mine, key=lambda w: (SPACE_RANK[s["wiz"][w][1]], w))
    return None


def grand_druid(s) -> int | None:
    return occupant(s, GD)


# ---------------------------------------------------------------------------------------------
# setup and evolve
# ---------------------------------------------------------------------------------------------


def setup(players, options, rng):
    return setup_with_data(DATA_VERSION, players, options, rng)


def setup_as_logged(players, options, rng, first):
    """The deal of a game whose first dealt event is `first`, under the placement data version it
    recorded (the offline verifier deals an old game again: a 5-player game of version 2 keeps its
    version-2 placement)."""
    version = first.get("data", 1)  # none written: version 1
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= DATA_VERSION:
        # A file may claim anything; only the versions this game has had can be dealt again.
        raise Rejected(_("This game has no data version {version}.").format(version=repr(version)[:20]))
    return setup_with_data(version, players, options, rng)


def setup_with_data(version, players, options, rng, table=None):
    """setup with the placement table of data version `version` (an older one to compare with:
    bench/game_elfenwizards), or with the placement row `table` (a candidate the bench screens)."""
    table = table or placement(players, version)
    colours = list(table["colours"])
    rows = dealt_rows(table, rng)
    wizards, names = [], []
    for seat, colour in enumerate(colours):
        for i, space in enumerate(table["positions"][colours[rows[seat]]]):
            wizards.append([seat, space])
            names.append(f"{colour}{i + 1}")
    gray_cost = 3 if options.get("translator_variant") else 4
    data = {"players": players, "colours": colours, "wizards": wizards, "names": names}
    if table.get("rows_dealt"):
        data["rows"] = rows
    data.update(dragon=rng.randbelow(players), gray_cost=gray_cost, data=version, rules=RULES_VERSION)
    start = Event("GameStarted", data)
    s = evolve(None, start)
    events = [start]
    run_auto(s, rng, events)
    return events


def dealt_rows(table, rng) -> list[int]:
    """Which row of the placement table each colour plays, as indices into the table's order.
    Data versions 4 and 5 deal the 5-player rows by a shuffle drawn from the game's seed before the
    first player is drawn (RULINGS.md, "Data version 4"), so no colour or seat is favoured by the
    rows being unequal; before it (and at 3 and 4 players) each colour plays the row under its own name,
    and nothing is drawn."""
    order = list(range(len(table["colours"])))
    return rng.shuffle(order) if table.get("rows_dealt") else order


def _advance(s):
    """Competition: the turn passes to the next player (clockwise) who has not passed."""
    n = s["n"]
    seats = order(s)
    for k in range(1, n + 1):
        j = (s["cur"] + k) % n
        if not s["passed"][seats[j]]:
            s["cur"] = j
            return


def _game_started(_s, d):
    n = d["players"]
    return {
        "n": n,
        "colours": list(d["colours"]),
        "names": list(d["names"]),
        "gray_cost": d["gray_cost"],
        "turn": 1,
        "phase": "begin",
        "dragon": d["dragon"],
        "cur": 0,
        "wiz": [[o, sp, 0] for o, sp in d["wizards"]],
        "front": [DICE_PER_PLAYER] * n,
        "rolled": None,
        "rerolled": False,
        "placed": False,
        "major": {lv: [] for lv in MAJOR_LEVELS},
        "mdice": [],
        "gdice": [],
        "supply": [MINOR_PER_PLAYER] * n,
        "mspace": [0] * n,
        "counter": [],
        "gsupply": GRAY_TOKENS,
        "cast": [],
        "passed": [False] * n,
        "in_turn": 0,
        "pend": [None] * n,
        "gd_count": [0] * n,
        "no_gd": 0,
        "gd_this_turn": None,
        "scores": [0] * n,
        "sheet": [],
        "end_reason": None,
    }


def _game_started_with_rules(_s, d):
    s = _game_started(_s, d)
    if "rules" in d:  # absent from a log written before rules version 2: its state stays as it was
        s["rules"] = d["rules"]
    return s


def _dice_rolled(s, d):
    s["front"][d["seat"]] -= len(d["dice"])
    s["rolled"] = list(d["dice"])
    return s


def _die_placed(s, d):
    s["rolled"].remove(d["value"])
    s["placed"] = True
    sp = d["space"]
    pair = [d["seat"], d["value"]]
    if sp == "minor":
        s["mdice"].append(pair)
    elif sp == "gray":
        s["gdice"].append(pair)
    else:
        s["major"][sp].append(pair)
    return s


def _dice_rerolled(s, d):
    seat = d["seat"]
    s["supply"][seat] -= 1
    s["mspace"][seat] += 1
    s["rolled"] = list(d["dice"])
    s["rerolled"] = True
    return s


def _casting_ended(s, d):
    if s["rolled"]:
        s["front"][d["seat"]] += len(s["rolled"])
    s["rolled"] = None
    s["rerolled"] = False
    s["placed"] = False
    s["cur"] += 1
    return s


def _spell_cast(s, d):
    seat = d["seat"]
    w = s["names"].index(d["wizard"])
    if d["spell"] == "minor":
        s["supply"][seat] -= 1
        s["cast"].append([w, seat, 0])
    else:
        s["major"][SPACE_LEVEL[s["wiz"][w][1]]].remove([seat, d["spell"]])
        s["cast"].append([w, seat, d["spell"]])
    s["in_turn"] += 1
    if s["in_turn"] >= 2:
        s["in_turn"] = 0
        _advance(s)
    return s


def _casting_turn_ended(s, _d):
    s["in_turn"] = 0
    _advance(s)
    return s


def _passed(s, d):
    s["passed"][d["seat"]] = True
    s["in_turn"] = 0
    _advance(s)
    return s


def _titles_awarded(s, d):
    wiz = s["wiz"]
    for w, sp in d["moves"]:
        wiz[w][1] = sp
    for _w, seat, v in s["cast"]:
        if v == 0:
            s["mspace"][seat] += 1
        else:
            s["front"][seat] += 1
    s["cast"] = []
    for lv in MAJOR_LEVELS:
        for seat, _v in s["major"][lv]:
            s["front"][seat] += 1
        s["major"][lv] = []
    gd = d["gd"]
    s["gd_this_turn"] = gd
    if gd is None:
        s["no_gd"] += 1
    else:
        s["gd_count"][gd] += 1
    s["passed"] = [False] * s["n"]
    s["phase"] = "awarded"
    return s


def _minor_spells_recovered(s, d):
    seat = d["seat"]
    for v in d["dice"]:
        s["mdice"].remove([seat, v])
    s["front"][seat] += len(d["dice"])
    s["mspace"][seat] -= d["count"]
    s["supply"][seat] += d["count"]
    left = any(st == seat for st, _v in s["mdice"])
    s["pend"][seat] = "back" if (s["phase"] == "recover6" and left) else None
    return s


def _dice_taken_back(s, d):
    seat = d["seat"]
    pool = s["mdice"] if d["space"] == "minor" else s["gdice"]
    for v in d["dice"]:
        pool.remove([seat, v])
    s["front"][seat] += len(d["dice"])
    s["pend"][seat] = None
    return s


def _gray_magic_removed(s, d):
    seat = d["seat"]
    for v in d["dice"]:
        s["gdice"].remove([seat, v])
    s["front"][seat] += len(d["dice"])
    for name in d["from"]:
        s["wiz"][s["names"].index(name)][2] -= 1
    s["gsupply"] += len(d["from"])
    left = any(st == seat for st, _v in s["gdice"])
    s["pend"][seat] = "back" if left else None
    return s


def _title_filled(s, d):
    s["wiz"][s["names"].index(d["wizard"])][1] = d["space"]
    return s


def _wizard_demoted(s, d):
    w = s["names"].index(d["wizard"])
    s["wiz"][w][1] = d["space"]
    s["wiz"][w][2] += d["gray"]
    s["gsupply"] -= d["gray"]
    return s


def _grand_druid_retired(s, d):
    seat = d["seat"]
    if d["source"] == "supply":
        s["supply"][seat] -= 1
    elif d["source"] == "space":
        s["mspace"][seat] -= 1
    if d["source"]:
        s["counter"].append([d["counter"], seat])
    s["wiz"][s["names"].index(d["wizard"])][1] = d["to"]
    s["dragon"] = seat
    s["phase"] = "retired"
    return s


def _phase_began(s, d):
    s["phase"] = d["phase"]
    s["cur"] = 0
    s["rolled"] = None
    s["rerolled"] = False
    s["placed"] = False
    s["in_turn"] = 0
    s["passed"] = [False] * s["n"]
    s["pend"] = list(d.get("pend") or [None] * s["n"])
    return s


def _turn_scored(s, d):
    turn = d["turn"]
    for seat, line in enumerate(d["lines"]):
        s["scores"][seat] += line["total"]
        s["sheet"].append([turn, seat, line["total"], line["gray"], [line["levels"].get(lv, 0) for lv in LEVELS]])
    s["phase"] = "scored"
    return s


def _turn_began(s, d):
    s["turn"] = d["turn"]
    s["gd_this_turn"] = None
    s["phase"] = "begin"
    return s


def _game_ended(s, d):
    for seat, bonus in enumerate(d["bonus"]):
        s["scores"][seat] += bonus
        s["sheet"].append([s["turn"], seat, bonus])
    s["end_reason"] = d["reason"]
    s["phase"] = "over"
    return s


def _unchanged(s, _d):
    return s


# One small function per event type: evolve(state, event) -> state (it may mutate its input).
EVOLVERS = {
    "GameStarted": _game_started_with_rules,
    "DiceRolled": _dice_rolled,
    "DiePlaced": _die_placed,
    "DiceRerolled": _dice_rerolled,
    "CastingEnded": _casting_ended,
    "SpellCast": _spell_cast,
    "CastingTurnEnded": _casting_turn_ended,
    "Passed": _passed,
    "TitlesAwarded": _titles_awarded,
    "MinorSpellsRecovered": _minor_spells_recovered,
    "DiceTakenBack": _dice_taken_back,
    "GrayMagicRemoved": _gray_magic_removed,
    "TitleFilled": _title_filled,
    "WizardDemoted": _wizard_demoted,
    "GrandDruidRetired": _grand_druid_retired,
    "PhaseBegan": _phase_began,
    "TurnScored": _turn_scored,
    "TurnBegan": _turn_began,
    "GameEnded": _game_ended,
}


def evolve(s, e):
    # an event type this reducer does not know changes nothing (as before the table existed)
    return EVOLVERS.get(e.type, _unchanged)(s, e.data)


# ---------------------------------------------------------------------------------------------
# automatic steps (no choice to make): run inside decide/setup, each one an event
# ---------------------------------------------------------------------------------------------


def _phase(name, s) -> Event:
    n = s["n"]
    data = {"phase": name, "turn": s["turn"]}
    if name == "recover4":
        data["pend"] = [
            "use" if spend_options(my_dice(s["mdice"], seat), 2, s["mspace"][seat]) else None for seat in range(n)
        ]
    elif name == "recover6":
        pend: list[str | None] = []
        for seat in range(n):
            dice = my_dice(s["mdice"], seat)
            if not dice:
                pend.append(None)
            elif spend_options(dice, 2, s["mspace"][seat]):
                pend.append("use")
            else:
                pend.append("back")
        data["pend"] = pend
    elif name == "gray9":
        pend = []
        for seat in range(n):
            dice = my_dice(s["gdice"], seat)
            if not dice:
                pend.append(None)
            elif spend_options(dice, s["gray_cost"], gray_of(s, seat)):
                pend.append("use")
            else:
                pend.append("back")
        data["pend"] = pend
    return Event("PhaseBegan", data)


def award(s) -> dict:
    """Phase 5: titles awarded top to bottom, left to right (computed from the spells cast)."""
    wiz = s["wiz"]
    pts = [0] * len(wiz)
    spells: list[list] = [[] for _ in wiz]
    for w, _seat, v in s["cast"]:
        pts[w] += v if v else 1
        spells[w].append(v)
    pos = {seat: i for i, seat in enumerate(order(s))}
    results, moves = [], []
    moved = set()
    gd = None
    for contest, ws in zip(CONTESTS, candidates(s)):
        titles = contest["titles"]
        ranked = sorted(ws, key=lambda w: (-pts[w], pos[wiz[w][0]], w))
        won = winners([pts[w] for w in ranked], len(titles))
        winners_w = [ranked[i] for i in won]
        for title, w in zip(titles, winners_w):
            moves.append([w, title])
            moved.add(w)
            if title == GD:
                gd = wiz[w][0]
        results.append(
            {
                "titles": list(titles),
                "candidates": [
                    [s["names"][w], pts[w], sorted(spells[w], reverse=True)]
                    for w in sorted(ws, key=lambda w: (SPACE_RANK[wiz[w][1]], w))
                ],
                "won": [[s["names"][w], title] for title, w in zip(titles, winners_w)],
            }
        )
    for w, (_o, sp, _g) in enumerate(wiz):
        lv = SPACE_LEVEL[sp]
        if w not in moved and lv in ROUT_OF and sp in TITLE_SPACES:
            moves.append([w, ROUT_OF[lv]])
    return {"results": results, "moves": moves, "gd": gd}


def winners(points: list[int], titles: int) -> list[int]:
    """Indices (into `points`, sorted high to low) of the candidates awarded a title.

    One title: the single best with at least one point (a tie for first: nobody).
    Two titles (the Necromancer rule): the two best; more than two tied for first: nobody;
    two tied for second: only the leader. Always at least one point.
    """
    if not points or points[0] < 1:
        return []
    top = points[0]
    firsts = [i for i, p in enumerate(points) if p == top]
    if titles == 1:
        return [0] if len(firsts) == 1 else []
    if len(firsts) > 2:
        return []
    if len(firsts) == 2:
        return [0, 1]
    rest = points[1:]
    if rest and rest[0] >= 1 and rest.count(rest[0]) == 1:
        return [0, 1]
    return [0]


def scoring(s) -> Event:
    lines = []
    for seat in range(s["n"]):
        by_level = Counter(SPACE_LEVEL[sp] for o, sp, _g in s["wiz"] if o == seat)
        titles = sum(POINTS[lv] * k for lv, k in by_level.items())
        gray = gray_of(s, seat)
        detail = _detail(by_level, gray)
        lines.append(
            {
                "titles": titles,
                "gray": -gray,
                "total": titles - gray,
                "detail": detail,
                "levels": {lv: by_level[lv] for lv in LEVELS if by_level.get(lv)},
            }
        )
    totals = [score + line["total"] for score, line in zip(s["scores"], lines)]
    return Event("TurnScored", {"turn": s["turn"], "lines": lines, "totals": totals})


def end_reason(s) -> str | None:
    gd = s["gd_this_turn"]
    if gd is not None and s["gd_count"][gd] >= 2:
        return "second_grand_druid"
    if s["no_gd"] >= 2:
        return "no_grand_druid_twice"
    if s["turn"] >= TURNS:
        return "fourth_turn"
    return None


def next_auto(s, rng) -> Event | None:
    ph = s["phase"]
    if ph == "begin":
        if s["turn"] > 1 and grand_druid(s) is not None:
            return _phase("retire", s)
        return _phase("cast1", s)
    if ph == "retired":
        return _phase("cast1", s)
    if ph in ("cast1", "cast2"):
        if s["cur"] >= s["n"]:
            return _phase("cast2" if ph == "cast1" else "recover4", s)
        seat = order(s)[s["cur"]]
        if s["rolled"] is None:
            k = s["front"][seat]
            if k == 0:
                return Event("CastingEnded", {"seat": seat, "phase": ph, "kept": 0, "skipped": True})
            # a roll shows an outcome no one knew: an undo barrier
            return Event(
                "DiceRolled", {"seat": seat, "phase": ph, "dice": [rng.roll(6) for _ in range(k)]}, reveals=True
            )
        if not s["rolled"]:
            return Event("CastingEnded", {"seat": seat, "phase": ph, "kept": 0})
        return None
    if ph in PEND_PHASES:
        if any(s["pend"]):
            return None
        if ph == "recover4":
            return _phase("compete", s)
        if ph == "recover6":
            return _phase("vacant", s)
        return scoring(s)
    if ph == "compete":
        if all(s["passed"]):
            return Event("TitlesAwarded", award(s))
        seat = order(s)[s["cur"]]
        if not castable(s, seat):
            if s["in_turn"]:
                return Event("CastingTurnEnded", {"seat": seat})
            return Event("Passed", {"seat": seat, "auto": True})
        return None
    if ph == "awarded":
        return _phase("recover6", s)
    if ph == "vacant":
        w = next_routed(s)
        choices = vacancy_choices(s) if w is not None else []
        if not choices:
            return _phase("demote", s)
        if len(choices) == 1:
            return Event(
                "TitleFilled", {"seat": s["wiz"][w][0], "wizard": s["names"][w], "space": choices[0], "auto": True}
            )
        return None
    if ph == "demote":
        if next_demoted(s) is None:
            return _phase("gray9", s)
        return None
    if ph == "scored":
        reason = end_reason(s)
        if reason:
            final = [score + bonus for score, bonus in zip(s["scores"], s["supply"])]
            return Event("GameEnded", {"reason": reason, "turn": s["turn"], "bonus": list(s["supply"]), "final": final})
        return Event("TurnBegan", {"turn": s["turn"] + 1})
    return None


def run_auto(s, rng, events):
    while True:
        e = next_auto(s, rng)
        if e is None:
            return
        evolve(s, e)
        events.append(e)


# ---------------------------------------------------------------------------------------------
# who is awaited, what they may do
# ---------------------------------------------------------------------------------------------


def waiting_for(s) -> list[int]:
    ph = s["phase"]
    if ph == "retire":
        w = grand_druid(s)
        return [s["wiz"][w][0]] if w is not None else []
    if ph in ("cast1", "cast2"):
        if s["cur"] < s["n"] and s["rolled"]:
            return [order(s)[s["cur"]]]
        return []
    if ph == "compete":
        if s["cur"] < s["n"] and not all(s["passed"]):
            return [order(s)[s["cur"]]]
        return []
    if ph in PEND_PHASES:
        return [seat for seat in order(s) if s["pend"][seat]]
    if ph == "vacant":
        w = next_routed(s)
        return [s["wiz"][w][0]] if w is not None else []
    if ph == "demote":
        w = next_demoted(s)
        return [s["wiz"][w][0]] if w is not None else []
    return []


def token_choices(s, seat, count) -> list[list[str]]:
    """The ways to take `count` gray magic tokens from the player's wizards (names, each as
    often as it loses a token), in wizard order."""
    holders = [(s["names"][w], g) for w, (o, _sp, g) in enumerate(s["wiz"]) if o == seat and g]
    ways: list[list[str]] = [[]]
    for name, tokens in holders:
        ways = [way + [name] * k for way in ways for k in range(min(tokens, count - len(way)) + 1)]
    return [way for way in ways if len(way) == count]


def remove_commands(s, seat, dice) -> list[dict]:
    """The `remove` commands for one set of dice: since rules version 2 the player says which
    wizards lose the tokens ("from any one of their wizards"); version 1 chose for him."""
    if rules_version(s) < 2:
        return [{"type": "remove", "dice": dice}]
    count = gain(dice, s["gray_cost"], gray_of(s, seat)) if dice else 0
    return [{"type": "remove", "dice": dice, "from": way} for way in token_choices(s, seat, count)]


def retire_sources(s, seat) -> list[str | None]:
    out: list[str | None] = []
    if s["supply"][seat] > 0:
        out.append("supply")
    if s["mspace"][seat] > 0:
        out.append("space")
    return out or [None]


def legal(s, seat) -> list[dict]:
    if seat not in waiting_for(s):
        return []
    ph = s["phase"]
    if ph == "retire":
        return [{"type": "retire", "source": src, "to": w} for src in retire_sources(s, seat) for w in WIZARD_SPACES]
    if ph in ("cast1", "cast2"):
        out = []
        if ph == "cast2" and not s["rerolled"] and not s["placed"] and s["supply"][seat] > 0:
            out.append({"type": "reroll"})
        for v in sorted(set(s["rolled"]), reverse=True):
            for sp in DIE_SPACES:
                out.append({"type": "place", "die": v, "space": sp})
        if ph == "cast1":
            out.append({"type": "done"})
        return out
    if ph == "compete":
        out = []
        minor = s["supply"][seat] > 0
        held = {lv: sorted({v for st, v in s["major"][lv] if st == seat}, reverse=True) for lv in MAJOR_LEVELS}
        for w in targets(s, seat):
            name = s["names"][w]
            for v in held[level_of(s, w)]:
                out.append({"type": "cast", "spell": v, "wizard": name})
            if minor:
                out.append({"type": "cast", "spell": "minor", "wizard": name})
        if s["in_turn"] == 0:
            out.append({"type": "pass"})
        return out
    if ph in PEND_PHASES:
        step = s["pend"][seat]
        if ph == "gray9":
            dice = my_dice(s["gdice"], seat)
            if step == "use":
                opts = spendable(s, dice, s["gray_cost"], gray_of(s, seat))
                return [cmd for d in [[], *opts] for cmd in remove_commands(s, seat, d)]
            return [{"type": "takeback", "dice": d} for d in sub_multisets(dice)]
        dice = my_dice(s["mdice"], seat)
        if step == "use":
            opts = spendable(s, dice, 2, s["mspace"][seat])
            return [{"type": "recover", "dice": d} for d in [[], *opts]]
        return [{"type": "takeback", "dice": d} for d in sub_multisets(dice)]
    if ph == "vacant":
        return [{"type": "claim", "space": sp} for sp in vacancy_choices(s)]
    if ph == "demote":
        return [{"type": "demote", "to": sp} for sp in WIZARD_SPACES]
    return []


def _need(cond, message):
    if not cond:
        raise Rejected(message)


def _dice_list(cmd) -> list[int]:
    dice = cmd.get("dice")
    _need(isinstance(dice, list) and all(type(v) is int for v in dice), _("Say which dice, e.g. '6 2', or 'none'."))
    return sorted(dice, reverse=True)


def _contains(have: list[int], want: list[int]) -> bool:
    have_c = Counter(have)
    return all(have_c[v] >= k for v, k in Counter(want).items())


def _decide_retire(state, seat, kind, cmd, rng):
    _need(kind == "retire", _("Your Grand Druid retires first: e.g. 'retire from supply to W2'."))
    src = cmd.get("source")
    allowed = retire_sources(state, seat)
    _need(
        src in allowed,
        _(
            "Place a minor spell on the turn counter from your 'supply' or from the Minor Spells 'space' "
            "(you may: {sources})."
        ).format(sources=", ".join(str(a) for a in allowed)),
    )
    _need(
        cmd.get("to") in WIZARD_SPACES,
        _("The Grand Druid goes to a Wizard space: {spaces}.").format(spaces=", ".join(WIZARD_SPACES)),
    )
    w = grand_druid(state)
    data = {"seat": seat, "wizard": state["names"][w], "source": src, "to": cmd["to"], "counter": state["turn"] - 1}
    return [Event("GrandDruidRetired", data)]


def _decide_place(state, seat, cmd, rng):
    v = cmd.get("die")
    _need(
        type(v) is int and v in state["rolled"],
        _("You have no rolled die showing {value}; you rolled {dice}.").format(value=v, dice=_fmt(state["rolled"])),
    )
    _need(cmd.get("space") in DIE_SPACES, _("Place dice on: {spaces}.").format(spaces=", ".join(DIE_SPACES)))
    return [Event("DiePlaced", {"seat": seat, "value": v, "space": cmd["space"], "phase": state["phase"]})]


def _decide_done_casting(state, seat, cmd, rng):
    ph = state["phase"]
    _need(ph == "cast1", _("In phase 3 you must place all your remaining dice."))
    return [Event("CastingEnded", {"seat": seat, "phase": ph, "kept": len(state["rolled"])})]


def _decide_reroll(state, seat, cmd, rng):
    _need(state["phase"] == "cast2", _("You may reroll only in phase 3 (casting of the remaining major spells)."))
    _need(not state["rerolled"], _("You have already rerolled once."))
    _need(not state["placed"], _("You have already placed a die of this roll; no reroll now."))
    _need(state["supply"][seat] > 0, _("A reroll costs one minor spell and you have none in front of you."))
    data = {"seat": seat, "dice": [rng.roll(6) for _ in state["rolled"]], "before": list(state["rolled"])}
    return [Event("DiceRerolled", data, reveals=True)]


_CASTING_COMMANDS = {"place": _decide_place, "done": _decide_done_casting, "reroll": _decide_reroll}


def _decide_casting(state, seat, kind, cmd, rng):
    """Phases 2 and 3: place a die, end phase 2 ('done'), or reroll in phase 3."""
    handler = _CASTING_COMMANDS.get(kind)
    if handler is None:
        if state["phase"] == "cast1":
            raise Rejected(_("Place your dice: e.g. 'place 6 on druid', or 'done'."))
        raise Rejected(_("Place your dice: e.g. 'place 6 on druid'."))
    return handler(state, seat, cmd, rng)


def _decide_cast_spell(state, seat, cmd):
    w = wizard_index(state, cmd.get("wizard"))
    _need(w is not None, _("There is no wizard {wizard}.").format(wizard=cmd.get("wizard")))
    name = state["names"][w]
    lv = level_of(state, w)
    _need(
        CONTEST_OF_SPACE.get(state["wiz"][w][1]) is not None,
        _("{wizard} is not a candidate for a title.").format(wizard=name),
    )
    _need(
        may_cast_for(state, seat, w),
        _("Only {colour} may cast spells in the contest of {wizard}: all its candidates are theirs.").format(
            colour=W.colour(state["colours"][state["wiz"][w][0]]), wizard=name
        ),
    )
    spell = cmd.get("spell")
    if spell == "minor":
        _need(state["supply"][seat] > 0, _("You have no minor spell left in front of you."))
    else:
        mine = my_dice(state["major"][lv], seat)
        _need(
            type(spell) is int and spell in mine,
            _(
                "You have no {spell} in the Major Spells space of the {level} level (you have {dice}); major "
                "spells are cast at their own level."
            ).format(spell=spell, level=W.level(lv), dice=_fmt(mine)),
        )
    return [Event("SpellCast", {"seat": seat, "spell": spell, "wizard": name, "space": state["wiz"][w][1]})]


def _decide_compete(state, seat, kind, cmd, rng):
    if kind == "pass":
        _need(state["in_turn"] == 0, _("You have cast one spell this turn; cast the second one."))
        return [Event("Passed", {"seat": seat})]
    if kind == "cast":
        return _decide_cast_spell(state, seat, cmd)
    raise Rejected(_("Cast a spell ('cast 5 on red3', 'cast minor on N4') or 'pass'."))


def _decide_remove_gray(state, seat, kind, cmd):
    _need(kind == "remove", _("Use dice from the Gray Magic space: e.g. 'remove 4' or 'remove none'."))
    dice = _dice_list(cmd)
    have = my_dice(state["gdice"], seat)
    _need(_contains(have, dice), _("Your dice in the Gray Magic space are {dice}.").format(dice=_fmt(have)))
    tokens = gray_of(state, seat)
    _need(
        not dice or rules_version(state) >= 2 or useful(dice, state["gray_cost"], tokens),
        _("Every die used must count: {cost} pips remove one token, you have {n}.").format(
            cost=state["gray_cost"], n=tokens
        ),
    )
    count = gain(dice, state["gray_cost"], tokens) if dice else 0
    return [Event("GrayMagicRemoved", {"seat": seat, "dice": dice, "from": _tokens_from(state, seat, cmd, count)})]


def _tokens_from(state, seat, cmd, count) -> list[str]:
    """The wizards that lose the tokens: as the player says (rules version 2), else as the game
    picks (version 1, or a command that names none: 'remove 4' by mail)."""
    named = cmd.get("from") if rules_version(state) >= 2 else None
    if named is None:
        return _pick_gray(state, seat, count)
    ways = token_choices(state, seat, count)
    _need(
        isinstance(named, list) and sorted(named) in [sorted(w) for w in ways],
        _("Name {n} of your wizards with gray magic tokens to lose them, e.g. 'remove {dice} from {wizards}'.").format(
            n=count, dice=_fmt(cmd["dice"]), wizards=" ".join(ways[0]) if ways else "red1"
        ),
    )
    return [w for w in ways if sorted(w) == sorted(named)][0]


def _decide_recover(state, seat, kind, cmd):
    _need(kind == "recover", _("Use dice from the Minor Spells space: e.g. 'recover 6 2' or 'recover none'."))
    dice = _dice_list(cmd)
    have = my_dice(state["mdice"], seat)
    _need(_contains(have, dice), _("Your dice in the Minor Spells space are {dice}.").format(dice=_fmt(have)))
    spent = state["mspace"][seat]
    _need(
        not dice or rules_version(state) >= 2 or useful(dice, 2, spent),
        _("Every die used must count: 2 pips recover one minor spell, {n} are in the space.").format(n=spent),
    )
    count = gain(dice, 2, spent) if dice else 0
    return [Event("MinorSpellsRecovered", {"seat": seat, "dice": dice, "count": count, "phase": state["phase"]})]


def _decide_take_back(state, seat, kind, cmd):
    _need(kind == "takeback", _("Take back unused dice ('take back 3 1') or leave them ('take back none')."))
    dice = _dice_list(cmd)
    where = "gray" if state["phase"] == "gray9" else "minor"
    have = my_dice(state["gdice" if where == "gray" else "mdice"], seat)
    _need(_contains(have, dice), _("Your unused dice there are {dice}.").format(dice=_fmt(have)))
    return [Event("DiceTakenBack", {"seat": seat, "dice": dice, "space": where, "left": len(have) - len(dice)})]


def _decide_pending(state, seat, kind, cmd, rng):
    """Phases 4, 6 and 9: use dice from the space (step 'use'), then take back unused ones."""
    step = state["pend"][seat]
    if step != "use":
        return _decide_take_back(state, seat, kind, cmd)
    if state["phase"] == "gray9":
        return _decide_remove_gray(state, seat, kind, cmd)
    return _decide_recover(state, seat, kind, cmd)


def _decide_vacant(state, seat, kind, cmd, rng):
    _need(kind == "claim", _("Choose the vacant title for your routed wizard: e.g. 'claim S2'."))
    choices = vacancy_choices(state)
    _need(cmd.get("space") in choices, _("Your routed wizard may take: {spaces}.").format(spaces=", ".join(choices)))
    w = next_routed(state)
    return [Event("TitleFilled", {"seat": seat, "wizard": state["names"][w], "space": cmd["space"]})]


def _decide_demote(state, seat, kind, cmd, rng):
    _need(kind == "demote", _("Place your demoted wizard on a Wizard space: e.g. 'demote to W3'."))
    _need(cmd.get("to") in WIZARD_SPACES, _("Wizard spaces: {spaces}.").format(spaces=", ".join(WIZARD_SPACES)))
    w = next_demoted(state)
    lv = SPACE_LEVEL[state["wiz"][w][1]]
    gray = 1 if GRAY_ON_DEMOTION[lv] and state["gsupply"] > 0 else 0
    data = {"seat": seat, "wizard": state["names"][w], "space": cmd["to"], "gray": gray, "from": lv}
    return [Event("WizardDemoted", data)]


# One small function per phase that awaits a command (the phase says which commands it takes).
DECIDERS = {
    "retire": _decide_retire,
    "cast1": _decide_casting,
    "cast2": _decide_casting,
    "compete": _decide_compete,
    "recover4": _decide_pending,
    "recover6": _decide_pending,
    "gray9": _decide_pending,
    "vacant": _decide_vacant,
    "demote": _decide_demote,
}


def decide(state, seat, cmd, rng):
    if seat not in waiting_for(state):
        raise Rejected(_("It is not your turn."))
    decider = DECIDERS.get(state["phase"])
    if decider is None:
        raise Rejected(_("Nothing to do now."))
    kind = cmd.get("type") if isinstance(cmd, dict) else None
    events = decider(state, seat, kind, cmd, rng)
    s = clone(state)
    for e in events:
        evolve(s, e)
    run_auto(s, rng, events)
    return events


def _pick_gray(s, seat, count) -> list[str]:
    """Which wizards lose the tokens: the player's wizard with the most, highest ranked first
    (scoring counts tokens per player, so the choice never changes a score)."""
    gray = {w: g for w, (o, _sp, g) in enumerate(s["wiz"]) if o == seat and g}
    out = []
    for _token in range(count):
        w = min(gray, key=lambda w: (-gray[w], SPACE_RANK[s["wiz"][w][1]], w))
        out.append(s["names"][w])
        gray[w] -= 1
        if not gray[w]:
            del gray[w]
    return out


def _fmt(dice) -> str:
    return " ".join(str(v) for v in dice) if dice else _("none")


# ---------------------------------------------------------------------------------------------
# results and bookkeeping
# ---------------------------------------------------------------------------------------------


def result(s):
    if s["phase"] != "over":
        return None
    return Result(
        list(s["scores"]),
        [() for _ in range(s["n"])],
        {
            "reason": s["end_reason"],
            "grand_druid_awards": list(s["gd_count"]),
        },
    )


def summary(s):
    return {"round": s["turn"], "phase": PHASE_TITLE.get(s["phase"], s["phase"]), "scores": list(s["scores"])}


def score_sheet(s):
    return [
        ScoreLine(turn, seat, points, W.sheet_detail(detail), W.sheet_label(label))
        for turn, seat, points, detail, label in sheet_rows(s["sheet"])
    ]


def sheet_rows(sheet) -> list[list]:
    """The Master of Seals' rows [turn, seat, points, detail, label] from the compact sheet
    ([turn, seat, total, gray, titles per level] per turn, [turn, seat, bonus] for the final count):
    per turn one row for the titles and one for the gray magic tokens, then the final minor spells."""
    rows = []
    for row in sheet:
        if len(row) == 3:
            turn, seat, bonus = row
            rows.append([turn, seat, bonus, f"{bonus} minor spell(s) in front", "Final: minor spells"])
            continue
        turn, seat, total, gray, counts = row
        by_level = dict(zip(LEVELS, counts))
        parts = [f"{LEVEL_NAME[lv]} {by_level[lv]}x{POINTS[lv]}" for lv in LEVELS if by_level.get(lv)]
        rows.append([turn, seat, total - gray, ", ".join(parts), f"Turn {turn}: titles"])
        rows.append([turn, seat, gray, f"{-gray} token(s)" if gray else "none", f"Turn {turn}: gray magic"])
    return rows


def _detail(by_level, gray) -> str:
    titles = sum(POINTS[lv] * k for lv, k in by_level.items())
    parts = [f"{LEVEL_NAME[lv]} {by_level[lv]}x{POINTS[lv]}" for lv in LEVELS if by_level.get(lv)]
    detail = f"titles {titles} ({', '.join(parts)})"
    if gray:
        detail += f", gray magic -{gray}"
    return detail


def timeout(s, seat):
    if seat not in waiting_for(s):
        return None
    ph = s["phase"]
    if ph == "retire":
        return {"type": "retire", "source": retire_sources(s, seat)[0], "to": WIZARD_SPACES[0]}
    if ph == "cast1":
        return {"type": "done"}
    if ph == "cast2":
        return {"type": "place", "die": max(s["rolled"]), "space": "minor"}
    if ph == "compete":
        if s["in_turn"] == 0:
            return {"type": "pass"}
        return legal(s, seat)[0]
    if ph in PEND_PHASES:
        step = s["pend"][seat]
        if step == "use":
            return remove_commands(s, seat, [])[0] if ph == "gray9" else {"type": "recover", "dice": []}
        return {"type": "takeback", "dice": []}
    if ph == "vacant":
        return {"type": "claim", "space": vacancy_choices(s)[0]}
    if ph == "demote":
        return {"type": "demote", "to": WIZARD_SPACES[0]}
    return None
