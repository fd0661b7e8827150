"""What a seat sees (everything in Elfenwizards is public), narration and renders."""

from __future__ import annotations

import html
import textwrap

from .board import (
    LEVEL_NAME,
    LEVELS,
    MAJOR_LEVELS,
    ROUT_OF,
    TITLES_BY_LEVEL,
    TURNS,
    WIZARD_SPACES,
)
from .picture import web_drawings
from .rules import PHASE_NUMBER, PHASE_TITLE, next_demoted, next_routed, order, sheet_rows, vacancy_choices, waiting_for

END_TEXT = {
    "fourth_turn": "the fourth turn is over",
    "second_grand_druid": "a player became Grand Druid for the second time",
    "no_grand_druid_twice": "for the second time no one became Grand Druid",
}


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
    return ", ".join(str(v) for v in dice) if dice else "no dice"


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


def _narrate_dice(t, d, names):
    """Narration of the start, dice and spells."""

    def who(key="seat"):
        return _who(d, names, key)

    if t == "GameStarted":
        return (
            f"Elfenwizards for {d['players']} players ({', '.join(d['colours'])}). "
            f"{names[d['dragon']]} holds the dragon and begins."
        )
    if t == "PhaseBegan":
        num = PHASE_NUMBER.get(d["phase"])
        return f"Turn {d.get('turn', '?')}, phase {num}: {PHASE_TITLE.get(d['phase'], d['phase'])}."
    if t == "DiceRolled":
        return f"{who()} rolls {_dice(d['dice'])}."
    if t == "DiceRerolled":
        return f"{who()} pays a minor spell and rerolls {_dice(d['before'])}: {_dice(d['dice'])}."
    if t == "DiePlaced":
        where = {"minor": "the Minor Spells space", "gray": "the Gray Magic space"}.get(
            d["space"], f"the {LEVEL_NAME.get(d['space'], d['space'])} Major Spells space"
        )
        return f"{who()} places a {d['value']} on {where}."
    if t == "CastingEnded":
        if d.get("skipped"):
            return f"{who()} has no major spells to roll."
        if d.get("kept"):
            return f"{who()} keeps {d['kept']} {'die' if d['kept'] == 1 else 'dice'} for phase 3."
        return f"{who()} has placed all dice."
    if t == "SpellCast":
        spell = "a minor spell" if d["spell"] == "minor" else f"a {d['spell']}"
        return f"{who()} casts {spell} for {d['wizard']} ({d.get('space', '')})."
    if t == "Passed":
        return f"{who()} passes" + (" (no spell left to cast)." if d.get("auto") else ".")
    if t == "CastingTurnEnded":
        return f"{who()} has no second spell to cast."
    return t


def _narrate_titles(t, d, names):
    """Narration of titles, recovery, vacancies, demotion and retirement."""

    def who(key="seat"):
        return _who(d, names, key)

    if t == "TitlesAwarded":
        lines = ["Award of titles:"]
        for r in d["results"]:
            if not r["candidates"]:
                continue
            cands = ", ".join(f"{n} {p}" for n, p, _sp in r["candidates"])
            won = ", ".join(f"{n} -> {t}" for n, t in r["won"]) or "not awarded"
            lines.append(f"  {'/'.join(r['titles'])}: {cands}: {won}")
        return "\n".join(lines)
    if t == "MinorSpellsRecovered":
        if not d["dice"]:
            return f"{who()} recovers no minor spells now."
        return f"{who()} uses {_dice(d['dice'])} and recovers {d['count']} minor spell(s)."
    if t == "DiceTakenBack":
        where = "Gray Magic" if d["space"] == "gray" else "Minor Spells"
        if not d["dice"]:
            return f"{who()} leaves dice in the {where} space."
        return f"{who()} takes back {_dice(d['dice'])} from the {where} space."
    if t == "GrayMagicRemoved":
        if not d["dice"]:
            return f"{who()} removes no gray magic now."
        return f"{who()} uses {_dice(d['dice'])} and removes {len(d['from'])} gray magic token(s)."
    if t == "TitleFilled":
        return f"{who()}'s routed wizard {d['wizard']} takes the vacant title {d['space']}."
    if t == "WizardDemoted":
        g = " and receives a gray magic token" if d["gray"] else ""
        return f"{who()}'s wizard {d['wizard']} is demoted to {d['space']}{g}."
    if t == "GrandDruidRetired":
        src = {"supply": "from supply", "space": "from the Minor Spells space"}.get(d["source"])
        counter = f"puts a minor spell {src} on turn {d['counter']} of the counter, " if src else ""
        return (
            f"{who()}'s Grand Druid {d['wizard']} retires: {who()} {counter}takes the dragon, "
            f"and the wizard goes to {d['to']}."
        )
    return t


def _narrate_scoring(t, d, names):
    """Narration of scoring and the end."""
    if t == "TurnScored":
        lines = [f"Master of Seals - scoring of turn {d['turn']}:"]
        for seat, line in enumerate(d["lines"]):
            name = names[seat] if seat < len(names) else f"seat {seat}"
            total = f", total {d['totals'][seat]}" if "totals" in d else ""
            lines += textwrap.wrap(
                f"{name}: {line['total']:+d}{total} - {line['detail']}",
                76,
                initial_indent="  ",
                subsequent_indent="      ",
            )
        return "\n".join(lines)
    if t == "TurnBegan":
        return f"Turn {d['turn']} begins."
    if t == "GameEnded":
        bonus = ", ".join(f"{names[s] if s < len(names) else s} +{b}" for s, b in enumerate(d["bonus"]))
        text = f"The game ends: {END_TEXT.get(d['reason'], d['reason'])}. Final minor spells: {bonus}."
        if "final" in d:
            top = max(d["final"])
            winners = [names[s] if s < len(names) else str(s) for s, x in enumerate(d["final"]) if x == top]
            scores = ", ".join(f"{names[s] if s < len(names) else s} {x}" for s, x in enumerate(d["final"]))
            text += f" Final scores: {scores}. " + (
                f"{winners[0]} wins." if len(winners) == 1 else f"Shared victory: {', '.join(winners)}."
            )
        return "\n".join(textwrap.wrap(text, 78))
    return t


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
        ", ".join(f"{c} {' '.join(str(x) for x in sorted(vals, key=str, reverse=True))}" for c, vals in by.items())
        or "-"
    )


def render_text(v):
    b = v["board"]
    lines = _wrap(f"ELFENWIZARDS - turn {v['turn']} of {v['turns']} - phase {v['phase_number']}: {v['phase_title']}")
    you = f"You are {v['you']}.  " if v.get("you") else ""
    lines += _wrap(f"{you}Dragon: {v['dragon']}   turn order: {', '.join(v['order'])}")
    if v["waiting_for"]:
        lines += _wrap(f"Waiting for: {', '.join(v['waiting_for'])}")
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
        label = f"{LEVEL_NAME[lv]:<12}"
        cells = [cell(sp) for sp in spaces]
        if lv in ROUT_OF:
            cells.append("rout " + cell(ROUT_OF[lv]).split(":", 1)[1])
        if lv == LEVELS[-1]:
            for c in cells:
                lines += _wrap(f"{label}{c}", " " * 15)
                label = " " * 12
            continue
        lines += _wrap(label + "  ".join(cells), " " * 12)
    lines.append("(* = gray magic token, [n] = points cast in favour this turn)")
    if v["spells_cast"]:
        lines.append("Spells cast (m = minor spell):")
        for c in v["spells_cast"]:
            spells = _grouped([[x["by"], "m" if x["spell"] == "minor" else x["spell"]] for x in c["spells"]])
            lines += _wrap(f"  {c['wizard']} ({c['space']}) {c['points']}: {spells}", " " * 6)
    lines.append("-" * 78)
    lines.append("Major Spells spaces:")
    for lv in MAJOR_LEVELS:
        lines += _wrap(f"  {LEVEL_NAME[lv]:<12}{_grouped(v['major'][lv])}", " " * 14)
    lines += _wrap(f"Minor Spells space: {_grouped(v['minor_dice'])}")
    lines += _wrap(
        f"Gray Magic space: {_grouped(v['gray_dice'])}; tokens left: {v['gray_supply']} (cost {v['gray_cost']} pips)"
    )
    if v["turn_counter"]:
        lines += _wrap("Turn counter: " + ", ".join(f"turn {t}: {c}" for t, c in v["turn_counter"]))
    if v["rolled"]:
        r = v["rolled"]
        lines.append(
            f"Rolled by {r['by']}: {' '.join(str(x) for x in r['dice']) or '(all placed)'}"
            + (" (rerolled)" if r["rerolled"] else "")
        )
    if v["vacancies"]:
        lines.append(f"Routed wizard {v['routed_next']} may take: {', '.join(v['vacancies'])}")
    elif v["routed_next"]:
        lines.append(f"Next wizard to demote: {v['routed_next']}")
    lines.append("-" * 78)
    lines.append(f"{'player':<8}{'score':>6}{'dice':>6}{'minor':>7}{'spent':>7}{'gray':>6}  notes")
    for p in v["player_info"]:
        notes = []
        if p["dragon"]:
            notes.append("dragon")
        if p["passed"]:
            notes.append("passed")
        if p["grand_druid_awards"]:
            notes.append(f"Grand Druid x{p['grand_druid_awards']}")
        lines.append(
            f"{p['colour']:<8}{p['score']:>6}{p['dice_in_front']:>6}{p['minor_supply']:>7}"
            f"{p['minor_in_space']:>7}{p['gray']:>6}  {', '.join(notes)}"
        )
    if v["sheet"]:
        lines.append("Master of Seals:")
        by_turn: dict = {}
        for _turn, seat, pts, _detail, label in v["sheet"]:
            by_turn.setdefault(label.split(":")[0], [0] * v["players"])[seat] += pts
        for label, row in by_turn.items():
            lines.append(f"  {label:<8}" + "".join(f"{v['colours'][i]} {x:+d}  " for i, x in enumerate(row)))
    if v["end_reason"]:
        lines.append(f"Game over: {END_TEXT.get(v['end_reason'], v['end_reason'])}.")
    return "\n".join(line.rstrip() for line in lines)


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
            + e(", ".join(f"{x['by']} {x['spell']}" for x in c["spells"]))
            + "</li>"
            for c in v["spells_cast"]
        )
        head += f"<details><summary>Spells cast</summary><ul>{items}</ul></details>"
    sheet = ""
    if v["sheet"]:
        cells = "".join(
            f"<tr><td>{e(label)}</td><td>{e(v['colours'][seat])}</td><td>{pts:+d}</td><td>{e(detail)}</td></tr>"
            for _t, seat, pts, detail, label in v["sheet"]
        )
        sheet = f"<details><summary>Master of Seals</summary><table>{cells}</table></details>"
    return f'<div class="elfenwizards">{svg}{head}{sheet}</div>'
