"""What a seat sees (everything in Elfenwizards is public), narration and renders."""

from __future__ import annotations

import html
import textwrap

from . import words as W
from .board import (
    LEVELS,
    MAJOR_LEVELS,
    ROUT_OF,
    TITLES_BY_LEVEL,
    TURNS,
    WIZARD_SPACES,
)
from .lang import _, ngettext
from .picture import web_drawings
from .rules import PHASE_NUMBER, PHASE_TITLE, next_demoted, next_routed, order, sheet_rows, vacancy_choices, waiting_for


def view(s, seat):
    colours = s["colours"]
    names = s["names"]
    board: dict[str, list] = {}
    for w, (o, sp, g) in enumerate(s["wiz"]):
        board.setdefault(sp, []).append({"name": names[w], "colour": colours[o], "gray": g})
    cast: dict[str, dict] = {}
    for w, seat_, v in s["cast"]:
        entry = cast.setdefault(names[w], {"wizard": names[w], "space": s["wiz"][w][1], "spells": [], "points": 0})
        entry["spells"].append({"by": colours[seat_], "spell": v if v else "minor"})
        entry["points"] += v if v else 1
    waiting = waiting_for(s)
    players = []
    for p in range(s["n"]):
        players.append(
            {
                "colour": colours[p],
                "score": s["scores"][p],
                "dice_in_front": s["front"][p],
                "minor_supply": s["supply"][p],
                "minor_in_space": s["mspace"][p],
                "gray": sum(g for o, _sp, g in s["wiz"] if o == p),
                "passed": s["passed"][p],
                "grand_druid_awards": s["gd_count"][p],
                "dragon": p == s["dragon"],
            }
        )
    routed = next_routed(s) if s["phase"] == "vacant" else next_demoted(s) if s["phase"] == "demote" else None
    return {
        "game": "elfenwizards",
        "seat": seat,
        "you": colours[seat] if seat is not None else None,
        "players": s["n"],
        "colours": list(colours),
        "turn": s["turn"],
        "turns": TURNS,
        "phase": s["phase"],
        "phase_number": PHASE_NUMBER.get(s["phase"]),
        "phase_title": PHASE_TITLE[s["phase"]],
        "dragon": colours[s["dragon"]],
        "order": [colours[p] for p in order(s)],
        "waiting_for": [colours[p] for p in waiting],
        "board": board,
        "major": {lv: [[colours[p], v] for p, v in s["major"][lv]] for lv in MAJOR_LEVELS},
        "minor_dice": [[colours[p], v] for p, v in s["mdice"]],
        "gray_dice": [[colours[p], v] for p, v in s["gdice"]],
        "rolled": (
            {"by": colours[order(s)[s["cur"]]], "dice": list(s["rolled"]), "rerolled": s["rerolled"]}
            if s["rolled"] is not None and s["cur"] < s["n"]
            else None
        ),
        "spells_cast": list(cast.values()),
        "spells_this_turn": s["in_turn"],
        "player_info": players,
        "turn_counter": [[t, colours[p]] for t, p in s["counter"]],
        "gray_supply": s["gsupply"],
        "gray_cost": s["gray_cost"],
        "pending": {colours[p]: s["pend"][p] for p in range(s["n"]) if s["pend"][p]},
        "routed_next": names[routed] if routed is not None else None,
        "vacancies": vacancy_choices(s) if s["phase"] == "vacant" else [],
        "scores": list(s["scores"]),
        "sheet": sheet_rows(s["sheet"]),
        "no_grand_druid_turns": s["no_gd"],
        "end_reason": s["end_reason"],
    }


# ---------------------------------------------------------------------------------------------
# narration
# ---------------------------------------------------------------------------------------------


def _dice(dice) -> str:
    return ", ".join(str(v) for v in dice) if dice else _("no dice")


def narrate(e, names):
    """The event in words, every line within 78 columns (a long line is wrapped, its
    continuation indented under its start)."""
    out = []
    for line in _narrate(e, names).split("\n"):
        indent = " " * (len(line) - len(line.lstrip(" ")))
        out += textwrap.wrap(line, 78, subsequent_indent=indent + "  ") or [""]
    return "\n".join(out)


def _who(d, names, key="seat"):
    return names[d[key]] if d.get(key) is not None and d[key] < len(names) else "?"


def _where(space) -> str:
    if space == "minor":
        return _("the Minor Spells space")
    if space == "gray":
        return _("the Gray Magic space")
    return _("the {level} Major Spells space").format(level=W.level(space))


def _narrate_dice(t, d, names):
    """Narration of the start, dice and spells."""
    who = _who(d, names)
    if t == "GameStarted":
        text = _("Elfenwizards for {n} players ({colours}). {first} holds the dragon and begins.")
        return text.format(n=d["players"], colours=W.colours(d["colours"]), first=names[d["dragon"]])
    if t == "PhaseBegan":
        text = _("Turn {turn}, phase {number}: {title}.")
        return text.format(turn=d.get("turn", "?"), number=PHASE_NUMBER.get(d["phase"]), title=W.phase(d["phase"]))
    if t == "DiceRolled":
        return _("{who} rolls {dice}.").format(who=who, dice=_dice(d["dice"]))
    if t == "DiceRerolled":
        text = _("{who} pays a minor spell and rerolls {before}: {dice}.")
        return text.format(who=who, before=_dice(d["before"]), dice=_dice(d["dice"]))
    if t == "DiePlaced":
        return _("{who} places a {value} on {where}.").format(who=who, value=d["value"], where=_where(d["space"]))
    if t == "CastingEnded":
        if d.get("skipped"):
            return _("{who} has no major spells to roll.").format(who=who)
        if d.get("kept"):
            text = ngettext("{who} keeps {n} die for phase 3.", "{who} keeps {n} dice for phase 3.", d["kept"])
            return text.format(who=who, n=d["kept"])
        return _("{who} has placed all dice.").format(who=who)
    if t == "SpellCast":
        spell = _("a minor spell") if d["spell"] == "minor" else _("a {value}").format(value=d["spell"])
        text = _("{who} casts {spell} for {wizard} ({space}).")
        return text.format(who=who, spell=spell, wizard=d["wizard"], space=d.get("space", ""))
    if t == "Passed":
        text = _("{who} passes (no spell left to cast).") if d.get("auto") else _("{who} passes.")
        return text.format(who=who)
    if t == "CastingTurnEnded":
        return _("{who} has no second spell to cast.").format(who=who)
    return t


def _narrate_titles(t, d, names):
    """Narration of titles, recovery, vacancies, demotion and retirement."""
    who = _who(d, names)
    if t == "TitlesAwarded":
        lines = [_("Award of titles:")]
        for r in d["results"]:
            if not r["candidates"]:
                continue
            cands = ", ".join(f"{n} {p}" for n, p, _sp in r["candidates"])
            won = ", ".join(f"{n} -> {title}" for n, title in r["won"]) or _("not awarded")
            lines.append(f"  {'/'.join(r['titles'])}: {cands}: {won}")
        return "\n".join(lines)
    if t == "MinorSpellsRecovered":
        if not d["dice"]:
            return _("{who} recovers no minor spells now.").format(who=who)
        text = _("{who} uses {dice} and recovers {n} minor spell(s).")
        return text.format(who=who, dice=_dice(d["dice"]), n=d["count"])
    if t == "DiceTakenBack":
        where = _where(d["space"])
        if not d["dice"]:
            return _("{who} leaves dice in {where}.").format(who=who, where=where)
        return _("{who} takes back {dice} from {where}.").format(who=who, dice=_dice(d["dice"]), where=where)
    if t == "GrayMagicRemoved":
        if not d["dice"]:
            return _("{who} removes no gray magic now.").format(who=who)
        text = _("{who} uses {dice} and removes {n} gray magic token(s).")
        return text.format(who=who, dice=_dice(d["dice"]), n=len(d["from"]))
    if t == "TitleFilled":
        text = _("{who}'s routed wizard {wizard} takes the vacant title {space}.")
        return text.format(who=who, wizard=d["wizard"], space=d["space"])
    if t == "WizardDemoted":
        if d["gray"]:
            text = _("{who}'s wizard {wizard} is demoted to {space} and receives a gray magic token.")
        else:
            text = _("{who}'s wizard {wizard} is demoted to {space}.")
        return text.format(who=who, wizard=d["wizard"], space=d["space"])
    if t == "GrandDruidRetired":
        return _retired(d, who)
    return t


def _retired(d, who) -> str:
    if d["source"] == "supply":
        text = _(
            "{who}'s Grand Druid {wizard} retires: {who} puts a minor spell from supply on turn {turn} of the "
            "counter, takes the dragon, and the wizard goes to {to}."
        )
    elif d["source"] == "space":
        text = _(
            "{who}'s Grand Druid {wizard} retires: {who} puts a minor spell from the Minor Spells space on turn "
            "{turn} of the counter, takes the dragon, and the wizard goes to {to}."
        )
    else:
        text = _("{who}'s Grand Druid {wizard} retires: {who} takes the dragon, and the wizard goes to {to}.")
    return text.format(who=who, wizard=d["wizard"], turn=d["counter"], to=d["to"])


def _narrate_scoring(t, d, names):
    """Narration of scoring and the end."""
    if t == "TurnScored":
        lines = [_("Master of Seals - scoring of turn {turn}:").format(turn=d["turn"])]
        for seat, line in enumerate(d["lines"]):
            name = names[seat] if seat < len(names) else _("seat {n}").format(n=seat)
            total = _(", total {n}").format(n=d["totals"][seat]) if "totals" in d else ""
            lines += textwrap.wrap(
                f"{name}: {line['total']:+d}{total} - {W.detail(line['detail'])}",
                76,
                initial_indent="  ",
                subsequent_indent="      ",
            )
        return "\n".join(lines)
    if t == "TurnBegan":
        return _("Turn {turn} begins.").format(turn=d["turn"])
    if t == "GameEnded":
        return _game_ended(d, names)
    return t


def _game_ended(d, names) -> str:
    bonus = ", ".join(f"{names[s] if s < len(names) else s} +{b}" for s, b in enumerate(d["bonus"]))
    text = _("The game ends: {reason}. Final minor spells: {bonus}.").format(reason=W.end(d["reason"]), bonus=bonus)
    if "final" in d:
        top = max(d["final"])
        winners = [names[s] if s < len(names) else str(s) for s, x in enumerate(d["final"]) if x == top]
        scores = ", ".join(f"{names[s] if s < len(names) else s} {x}" for s, x in enumerate(d["final"]))
        text += " " + _("Final scores: {scores}.").format(scores=scores) + " "
        if len(winners) == 1:
            text += _("{winner} wins.").format(winner=winners[0])
        else:
            text += _("Shared victory: {winners}.").format(winners=", ".join(winners))
    return "\n".join(textwrap.wrap(text, 78))


# Which function tells each event type.
NARRATORS = {
    "GameStarted": _narrate_dice,
    "PhaseBegan": _narrate_dice,
    "DiceRolled": _narrate_dice,
    "DiceRerolled": _narrate_dice,
    "DiePlaced": _narrate_dice,
    "CastingEnded": _narrate_dice,
    "SpellCast": _narrate_dice,
    "Passed": _narrate_dice,
    "CastingTurnEnded": _narrate_dice,
    "TitlesAwarded": _narrate_titles,
    "MinorSpellsRecovered": _narrate_titles,
    "DiceTakenBack": _narrate_titles,
    "GrayMagicRemoved": _narrate_titles,
    "TitleFilled": _narrate_titles,
    "WizardDemoted": _narrate_titles,
    "GrandDruidRetired": _narrate_titles,
    "TurnScored": _narrate_scoring,
    "TurnBegan": _narrate_scoring,
    "GameEnded": _narrate_scoring,
}


def _narrate(e, names):
    teller = NARRATORS.get(e.type)
    return teller(e.type, e.data, names) if teller else e.type


# ---------------------------------------------------------------------------------------------
# text render (80 columns)
# ---------------------------------------------------------------------------------------------


def _wiz(entry) -> str:
    return entry["name"] + ("*" * entry["gray"] if entry["gray"] <= 3 else f"*{entry['gray']}")


def _wrap(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, 78, subsequent_indent=indent) or [""]


def _grouped(pairs) -> str:
    """Dice by colour: "red 6 6 2, blue 3"."""
    by: dict[str, list] = {}
    for colour, value in pairs:
        by.setdefault(colour, []).append(value)
    return (
        ", ".join(
            f"{W.colour(c)} {' '.join(str(x) for x in sorted(vals, key=str, reverse=True))}" for c, vals in by.items()
        )
        or "-"
    )


def render_text(v):
    b = v["board"]
    lines = _wrap(
        _("ELFENWIZARDS - turn {turn} of {turns} - phase {number}: {title}").format(
            turn=v["turn"], turns=v["turns"], number=v["phase_number"], title=W.phase(v["phase"])
        )
    )
    you = _("You are {colour}.").format(colour=W.colour(v["you"])) + "  " if v.get("you") else ""
    dragon = _("Dragon: {colour}   turn order: {order}").format(
        colour=W.colour(v["dragon"]), order=W.colours(v["order"])
    )
    lines += _wrap(you + dragon)
    if v["waiting_for"]:
        lines += _wrap(_("Waiting for: {colours}").format(colours=W.colours(v["waiting_for"])))
    lines.append("-" * 78)
    points = {}
    for c in v["spells_cast"]:
        points[c["wizard"]] = c["points"]

    def cell(space):
        here = b.get(space, [])
        if not here:
            return f"{space}:-"
        return f"{space}:" + " ".join(_wiz(x) + (f"[{points[x['name']]}]" if x["name"] in points else "") for x in here)

    for lv in LEVELS:
        spaces = TITLES_BY_LEVEL[lv] or (WIZARD_SPACES if lv == LEVELS[-1] else [])
        label = f"{W.level(lv):<12}"
        cells = [cell(sp) for sp in spaces]
        if lv in ROUT_OF:
            cells.append(_("rout") + " " + cell(ROUT_OF[lv]).split(":", 1)[1])
        if lv == LEVELS[-1]:
            for c in cells:
                lines += _wrap(f"{label}{c}", " " * 15)
                label = " " * 12
            continue
        lines += _wrap(label + "  ".join(cells), " " * 12)
    lines.append(_("(* = gray magic token, [n] = points cast in favour this turn)"))
    if v["spells_cast"]:
        lines.append(_("Spells cast (m = minor spell):"))
        for c in v["spells_cast"]:
            spells = _grouped([[x["by"], "m" if x["spell"] == "minor" else x["spell"]] for x in c["spells"]])
            lines += _wrap(f"  {c['wizard']} ({c['space']}) {c['points']}: {spells}", " " * 6)
    lines.append("-" * 78)
    lines += _spaces_lines(v)
    lines.append("-" * 78)
    lines += _players_lines(v)
    if v["end_reason"]:
        lines.append(_("Game over: {reason}.").format(reason=W.end(v["end_reason"])))
    return "\n".join(line.rstrip() for line in lines)


def _spaces_lines(v) -> list[str]:
    """The dice on the spaces, the turn counter, the roll and the routed wizard."""
    lines = [_("Major Spells spaces:")]
    for lv in MAJOR_LEVELS:
        lines += _wrap(f"  {W.level(lv):<12}{_grouped(v['major'][lv])}", " " * 14)
    lines += _wrap(_("Minor Spells space: {dice}").format(dice=_grouped(v["minor_dice"])))
    lines += _wrap(
        _("Gray Magic space: {dice}; tokens left: {n} (cost {cost} pips)").format(
            dice=_grouped(v["gray_dice"]), n=v["gray_supply"], cost=v["gray_cost"]
        )
    )
    if v["turn_counter"]:
        turn = _("turn {n}: {colour}")
        counter = ", ".join(turn.format(n=t, colour=W.colour(c)) for t, c in v["turn_counter"])
        lines += _wrap(_("Turn counter: {counter}").format(counter=counter))
    if v["rolled"]:
        r = v["rolled"]
        dice = " ".join(str(x) for x in r["dice"]) or _("(all placed)")
        lines.append(
            _("Rolled by {colour}: {dice}").format(colour=W.colour(r["by"]), dice=dice)
            + (_(" (rerolled)") if r["rerolled"] else "")
        )
    if v["vacancies"]:
        text = _("Routed wizard {wizard} may take: {spaces}")
        lines.append(text.format(wizard=v["routed_next"], spaces=", ".join(v["vacancies"])))
    elif v["routed_next"]:
        lines.append(_("Next wizard to demote: {wizard}").format(wizard=v["routed_next"]))
    return lines


def _players_lines(v) -> list[str]:
    """The players' table and the Master of Seals' sheet by turn."""
    head = (_("player"), _("score"), _("dice"), _("minor"), _("spent"), _("gray"), _("notes"))
    lines = [f"{head[0]:<8}{head[1]:>6}{head[2]:>6}{head[3]:>7}{head[4]:>7}{head[5]:>6}  {head[6]}"]
    for p in v["player_info"]:
        notes = []
        if p["dragon"]:
            notes.append(_("dragon"))
        if p["passed"]:
            notes.append(_("passed"))
        if p["grand_druid_awards"]:
            notes.append(_("Grand Druid x{n}").format(n=p["grand_druid_awards"]))
        lines.append(
            f"{W.colour(p['colour']):<8}{p['score']:>6}{p['dice_in_front']:>6}{p['minor_supply']:>7}"
            f"{p['minor_in_space']:>7}{p['gray']:>6}  {', '.join(notes)}"
        )
    if v["sheet"]:
        lines.append(_("Master of Seals:"))
        by_turn: dict = {}
        for _turn, seat, pts, _detail, label in v["sheet"]:
            by_turn.setdefault(W.sheet_label(label).split(":")[0], [0] * v["players"])[seat] += pts
        for label, row in by_turn.items():
            lines.append(f"  {label:<8}" + "".join(f"{W.colour(v['colours'][i])} {x:+d}  " for i, x in enumerate(row)))
    return lines


# ---------------------------------------------------------------------------------------------
# HTML / SVG render
# ---------------------------------------------------------------------------------------------


def render_html(v, links=None):
    """The web board: the picture's drawing scaled to the page (with `links`, its wizards and
    spaces are links to the chooser's moves), the spells cast and the Master of Seals' sheet."""
    e = html.escape
    svg = web_drawings(v, links)
    head = ""
    if v["spells_cast"]:
        items = "".join(
            f"<li>{e(c['wizard'])} ({e(c['space'])}): {c['points']} - "
            + e(", ".join(f"{W.colour(x['by'])} {_spell(x['spell'])}" for x in c["spells"]))
            + "</li>"
            for c in v["spells_cast"]
        )
        summary = e(_("Spells cast"))
        head += f"<details><summary>{summary}</summary><ul>{items}</ul></details>"
    sheet = ""
    if v["sheet"]:
        cells = "".join(
            f"<tr><td>{e(W.sheet_label(label))}</td><td>{e(W.colour(v['colours'][seat]))}</td><td>{pts:+d}</td>"
            f"<td>{e(W.sheet_detail(detail))}</td></tr>"
            for _t, seat, pts, detail, label in v["sheet"]
        )
        summary = e(_("Master of Seals"))
        sheet = f"<details><summary>{summary}</summary><table>{cells}</table></details>"
    return f'<div class="elfenwizards">{svg}{head}{sheet}</div>'


def _spell(spell) -> str:
    return _("minor") if spell == "minor" else str(spell)
