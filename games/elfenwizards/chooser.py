"""The chooser: every legal command once as a `Choice`, the moves that matter first, valued as
the stand-in values them (from the seat's own view). The mail's short codes are the featured
ones; the web's step-by-step chooser groups them (what: the die or spell; then where or for whom).
"""

from __future__ import annotations

from dataclasses import replace

from games.base import MAX_FEATURED, Choice

from . import words as W
from .board import CONTEST_OF_SPACE, CONTESTS, SPACE_LEVEL
from .grammar import describe
from .lang import _, ngettext
from .rules import legal
from .standin import Look, compete_values, spell_cost, standin
from .view import view

# At most this many spells are featured in the competition (pass is always featured too).
FEATURED_CASTS = 12
# Dice placement: the best spaces of each die face are featured.
FEATURED_SPACES_PER_DIE = 2
# Recovery, removal and taking back: the best few subsets.
FEATURED_SUBSETS = 8


def wizard_target(name: str) -> str:
    """The id of a wizard's token in the board drawing."""
    return f"wizard-{name}"


def space_target(space: str) -> str:
    """The id of a space in the board drawing."""
    return f"space-{space}"


def choices(state, seat):
    commands = legal(state, seat)
    if not commands:
        return []
    look = Look(view(state, seat))
    phase = state["phase"]
    if phase in ("cast1", "cast2"):
        out = _place(look, commands)
    elif phase == "compete":
        out = _cast(look, commands)
    elif commands[0]["type"] in ("recover", "remove", "takeback"):
        out = _dice(look, commands)
    else:
        out = _wizards(look, commands)
    return _capped(out)


def _capped(out: list[Choice]) -> list[Choice]:
    featured = 0
    capped = []
    for choice in out:
        if choice.featured:
            featured += 1
            if featured > MAX_FEATURED:
                choice = replace(choice, featured=False)
        capped.append(choice)
    return capped


def _ranked(scored, featured) -> list[Choice]:
    """(value, Choice, featured?) triples, best first (stable on ties)."""
    order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
    return [replace(scored[i][1], featured=featured(rank, scored[i][1])) for rank, i in enumerate(order)]


def _place(look: Look, commands) -> list[Choice]:
    out = []
    for c in commands:
        if c["type"] == "done":
            out.append(
                Choice(c, _("Done"), _("keep the other dice for phase 3"), True, None, _("they are rolled again"))
            )
        elif c["type"] == "reroll":
            out.append(Choice(c, _("Reroll"), _("reroll all your dice"), True, None, _("costs a minor spell")))
    per_die: dict[int, list] = {}
    for c in commands:
        if c["type"] == "place":
            per_die.setdefault(c["die"], []).append((look.die_worth(c["die"], c["space"]), c))
    for die in sorted(per_die, reverse=True):
        ranked = sorted(per_die[die], key=lambda vc: -vc[0])
        for rank, (worth, c) in enumerate(ranked):
            space = c["space"]
            if space == "minor":
                where = _("on the Minor Spells space")
            elif space == "gray":
                where = _("on the Gray Magic space")
            else:
                where = _("on the {level} Major Spells space").format(level=W.level(space))
            out.append(
                Choice(
                    c,
                    _("Place a {die}").format(die=die),
                    where,
                    rank < FEATURED_SPACES_PER_DIE and worth > 0 or rank == 0,
                    space_target(_space_id(space)),
                    _place_note(look, c, worth),
                )
            )
    # the stand-in's own move first (a placement, keeping the rest for phase 3, or a reroll)
    best = standin(look.view, commands)
    return sorted(out, key=lambda choice: choice.command != best)


def _space_id(space: str) -> str:
    return {"minor": "MINOR", "gray": "GRAY"}.get(space, f"MAJOR_{space[0].upper()}")


def _place_note(look: Look, c, worth) -> str:
    space = c["space"]
    if space == "minor":
        return _("recovers a minor spell") if worth > 0 else _("nothing to recover")
    if space == "gray":
        return _("removes a gray magic token") if worth > 0 else _("no token to remove")
    mine = [
        w
        for w, sp in look.space.items()
        if look.owner[w] == look.me and CONTEST_OF_SPACE.get(sp) is not None and SPACE_LEVEL[sp] == space
    ]
    return _("for {wizards}").format(wizards=", ".join(sorted(mine))) if mine else _("none of your wizards stand there")


def _cast(look: Look, commands) -> list[Choice]:
    values, now = compete_values(look, commands)
    scored = []
    for c in commands:
        if c["type"] == "pass":
            choice = Choice(c, _("Pass"), _("stop casting this turn (final)"), note=_("your spells stay"))
            scored.append((now + 1e-6, choice))
            continue
        w = c["wizard"]
        space = look.space[w]
        if c["spell"] == "minor":
            group = _("Cast a minor spell")
        else:
            group = _("Cast a {value} ({level} level)").format(value=c["spell"], level=W.level(SPACE_LEVEL[space]))
        titles = "/".join(CONTESTS[CONTEST_OF_SPACE[space]]["titles"])
        label = _("for {wizard} on {space} (for {titles})").format(wizard=w, space=space, titles=titles)
        scored.append(
            (
                values[id(c)] - 1e-9 * spell_cost(c),
                Choice(c, group, label, target=wizard_target(w), note=_standing(look, space)),
            )
        )
    casts = 0

    def featured(rank, choice):
        nonlocal casts
        if choice.command["type"] == "pass":
            return True
        casts += 1
        return casts <= FEATURED_CASTS

    return _ranked(scored, featured)


def _standing(look: Look, space: str) -> str:
    """The points cast so far in that contest: "red3 5, blue1 3"."""
    ci = CONTEST_OF_SPACE[space]
    cands = look.contests[ci]
    parts = [f"{w} {look.points.get(w, 0)}" for w in sorted(cands, key=lambda w: -look.points.get(w, 0))]
    return _("now {points}").format(points=", ".join(parts[:4]) + (" ..." if len(parts) > 4 else ""))


def _dice(look: Look, commands) -> list[Choice]:
    kind = commands[0]["type"]
    scored = []
    for c in commands:
        dice = c["dice"]
        text = " ".join(str(v) for v in dice) or _("none")
        if kind == "takeback":
            value = len(dice)
            choice = Choice(
                c,
                _("Take back"),
                _("dice {dice}").format(dice=text) if dice else _("none: leave them for the next turn"),
                note=_("in front of you for the next turn") if dice else "",
            )
        else:
            per = 2 if kind == "recover" else look.view["gray_cost"]
            have = look.spent[look.me] if kind == "recover" else look.gray[look.me]
            gain = min(sum(dice) // per, have)
            value = gain - 0.01 * sum(dice)
            if kind == "recover":
                what = ngettext("{n} minor spell", "{n} minor spells", gain).format(n=gain)
            else:
                what = ngettext("{n} gray magic token", "{n} gray magic tokens", gain).format(n=gain)
            if c.get("from"):
                label = _("with {dice}, from {wizards}").format(dice=text, wizards=" ".join(c["from"]))
            else:
                label = _("with {dice}").format(dice=text)
            choice = Choice(
                c,
                _("Recover") if kind == "recover" else _("Remove"),
                label if dice else _("none now"),
                note=what if dice else _("keep the dice"),
            )
        scored.append((value, choice))
    return _ranked(scored, lambda rank, choice: rank < FEATURED_SUBSETS or not choice.command["dice"])


def _wizards(look: Look, commands) -> list[Choice]:
    scored = []
    for c in commands:
        if c["type"] == "retire":
            if c["source"] == "supply":
                label = _("to {space}, minor spell from your supply").format(space=c["to"])
            elif c["source"] == "space":
                label = _("to {space}, minor spell from the Minor Spells space").format(space=c["to"])
            else:
                label = _("to {space}").format(space=c["to"])
            value = look.wizard_space_worth(c["to"]) + (0.5 if c["source"] == "space" else 0.0)
            scored.append(
                (
                    value,
                    Choice(
                        c,
                        _("Retire the Grand Druid"),
                        label,
                        target=space_target(c["to"]),
                        note=_wizard_space_note(look, c["to"]),
                    ),
                )
            )
        elif c["type"] == "demote":
            scored.append(
                (
                    look.wizard_space_worth(c["to"]),
                    Choice(
                        c,
                        _("Demote {wizard}").format(wizard=look.view["routed_next"]),
                        _("to {space}").format(space=c["to"]),
                        target=space_target(c["to"]),
                        note=_wizard_space_note(look, c["to"]),
                    ),
                )
            )
        elif c["type"] == "claim":
            scored.append(
                (
                    look.vacancy_worth(c["space"]),
                    Choice(
                        c,
                        _("Vacant title for {wizard}").format(wizard=look.view["routed_next"]),
                        _("take {space}").format(space=c["space"]),
                        target=space_target(c["space"]),
                    ),
                )
            )
        else:
            scored.append((0.0, Choice(c, c["type"].capitalize(), describe(c))))
    return _ranked(scored, lambda rank, choice: True)


def _wizard_space_note(look: Look, space: str) -> str:
    here = look.view["board"].get(space, [])
    if not here:
        return _("empty")
    return _("with {wizards}").format(
        wizards=", ".join(w["name"] for w in here[:5]) + (" ..." if len(here) > 5 else "")
    )
