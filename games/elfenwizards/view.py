"""What a seat sees (everything in Elfenwizards is public), narration and renders."""

from __future__ import annotations

import html
import textwrap

from .board import (
    GD,
    LEVEL_NAME,
    LEVELS,
    MAJOR_LEVELS,
    ROUT_OF,
    TITLES_BY_LEVEL,
    TURNS,
    WIZARD_SPACES,
)
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
        players.append({
            "colour": colours[p], "score": s["scores"][p], "dice_in_front": s["front"][p],
            "minor_supply": s["supply"][p], "minor_in_space": s["mspace"][p],
            "gray": sum(g for o, _sp, g in s["wiz"] if o == p), "passed": s["passed"][p],
            "grand_druid_awards": s["gd_count"][p], "dragon": p == s["dragon"],
        })
    routed = next_routed(s) if s["phase"] == "vacant" else next_demoted(s) if s["phase"] == "demote" else None
    return {
        "game": "elfenwizards", "seat": seat, "you": colours[seat] if seat is not None else None,
        "players": s["n"], "colours": list(colours), "turn": s["turn"], "turns": TURNS,
        "phase": s["phase"], "phase_number": PHASE_NUMBER.get(s["phase"]), "phase_title": PHASE_TITLE[s["phase"]],
        "dragon": colours[s["dragon"]], "order": [colours[p] for p in order(s)],
        "waiting_for": [colours[p] for p in waiting],
        "board": board,
        "major": {lv: [[colours[p], v] for p, v in s["major"][lv]] for lv in MAJOR_LEVELS},
        "minor_dice": [[colours[p], v] for p, v in s["mdice"]],
        "gray_dice": [[colours[p], v] for p, v in s["gdice"]],
        "rolled": ({"by": colours[order(s)[s["cur"]]], "dice": list(s["rolled"]), "rerolled": s["rerolled"]}
                   if s["rolled"] is not None and s["cur"] < s["n"] else None),
        "spells_cast": list(cast.values()),
        "spells_this_turn": s["in_turn"],
        "player_info": players,
        "turn_counter": [[t, colours[p]] for t, p in s["counter"]],
        "gray_supply": s["gsupply"], "gray_cost": s["gray_cost"],
        "pending": {colours[p]: s["pend"][p] for p in range(s["n"]) if s["pend"][p]},
        "routed_next": names[routed] if routed is not None else None,
        "vacancies": vacancy_choices(s) if s["phase"] == "vacant" else [],
        "scores": list(s["scores"]), "sheet": sheet_rows(s["sheet"]),
        "no_grand_druid_turns": s["no_gd"], "end_reason": s["end_reason"],
    }


# ---------------------------------------------------------------------------------------------
# narration
# ---------------------------------------------------------------------------------------------


def _dice(dice) -> str:
    return ", ".join(str(v) for v in dice) if dice else "no dice"


def narrate(e, names):
    d = e.data
    t = e.type

    def who(key="seat"):
        return names[d[key]] if d.get(key) is not None and d[key] < len(names) else "?"

    if t == "GameStarted":
        return (f"Elfenwizards for {d['players']} players ({', '.join(d['colours'])}). "
                f"{names[d['dragon']]} holds the dragon and begins.")
    if t == "PhaseBegan":
        num = PHASE_NUMBER.get(d["phase"])
        return f"Turn {d.get('turn', '?')}, phase {num}: {PHASE_TITLE.get(d['phase'], d['phase'])}."
    if t == "DiceRolled":
        return f"{who()} rolls {_dice(d['dice'])}."
    if t == "DiceRerolled":
        return f"{who()} pays a minor spell and rerolls {_dice(d['before'])}: {_dice(d['dice'])}."
    if t == "DiePlaced":
        where = {"minor": "the Minor Spells space", "gray": "the Gray Magic space"}.get(
            d["space"], f"the {LEVEL_NAME.get(d['space'], d['space'])} Major Spells space")
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
        return (f"{who()}'s Grand Druid {d['wizard']} retires: {who()} {counter}takes the dragon, "
                f"and the wizard goes to {d['to']}.")
    if t == "TurnScored":
        lines = [f"Master of Seals - scoring of turn {d['turn']}:"]
        for seat, line in enumerate(d["lines"]):
            name = names[seat] if seat < len(names) else f"seat {seat}"
            total = f", total {d['totals'][seat]}" if "totals" in d else ""
            lines += textwrap.wrap(f"{name}: {line['total']:+d}{total} - {line['detail']}", 76,
                                   initial_indent="  ", subsequent_indent="      ")
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
            text += f" Final scores: {scores}. " + (f"{winners[0]} wins." if len(winners) == 1 else
                                                   f"Shared victory: {', '.join(winners)}.")
        return "\n".join(textwrap.wrap(text, 78))
    return t


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
    return ", ".join(f"{c} {' '.join(str(x) for x in sorted(vals, key=str, reverse=True))}"
                     for c, vals in by.items()) or "-"


def render_text(v):
    b = v["board"]
    lines = [f"ELFENWIZARDS - turn {v['turn']} of {v['turns']} - phase {v['phase_number']}: {v['phase_title']}"]
    you = f"You are {v['you']}.  " if v.get("you") else ""
    lines.append(f"{you}Dragon: {v['dragon']}   turn order: {', '.join(v['order'])}")
    if v["waiting_for"]:
        lines.append(f"Waiting for: {', '.join(v['waiting_for'])}")
    lines.append("-" * 78)
    points = {}
    for c in v["spells_cast"]:
        points[c["wizard"]] = c["points"]

    def cell(space):
        here = b.get(space, [])
        if not here:
            return f"{space}:-"
        return f"{space}:" + " ".join(_wiz(x) + (f"[{points[x['name']]}]" if x["name"] in points else "")
                                      for x in here)

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
    lines += _wrap(f"Gray Magic space: {_grouped(v['gray_dice'])}; tokens left: {v['gray_supply']} "
                   f"(cost {v['gray_cost']} pips)")
    if v["turn_counter"]:
        lines += _wrap("Turn counter: " + ", ".join(f"turn {t}: {c}" for t, c in v["turn_counter"]))
    if v["rolled"]:
        r = v["rolled"]
        lines.append(f"Rolled by {r['by']}: {' '.join(str(x) for x in r['dice']) or '(all placed)'}"
                     + (" (rerolled)" if r["rerolled"] else ""))
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
        lines.append(f"{p['colour']:<8}{p['score']:>6}{p['dice_in_front']:>6}{p['minor_supply']:>7}"
                     f"{p['minor_in_space']:>7}{p['gray']:>6}  {', '.join(notes)}")
    if v["sheet"]:
        lines.append("Master of Seals:")
        by_turn: dict = {}
        for _turn, seat, pts, _detail, label in v["sheet"]:
            by_turn.setdefault(label.split(":")[0], [0] * v["players"])[seat] += pts
        for label, row in by_turn.items():
            lines.append(f"  {label:<8}" + "".join(f"{v['colours'][i]} {x:+d}  " for i, x in enumerate(row)))
    if v["end_reason"]:
        lines.append(f"Game over: {END_TEXT.get(v['end_reason'], v['end_reason'])}.")
    return "\n".join(line[:80].rstrip() for line in lines)


# ---------------------------------------------------------------------------------------------
# HTML / SVG render
# ---------------------------------------------------------------------------------------------

FILL = {"red": "#c0392b", "green": "#27ae60", "blue": "#2c6fbb", "yellow": "#e1b12c", "black": "#222222"}


def render_html(v):
    e = html.escape
    width = 860
    row_h = 78
    out = []
    y = 10
    points = {c["wizard"]: c["points"] for c in v["spells_cast"]}
    for lv in LEVELS:
        spaces = TITLES_BY_LEVEL[lv] or WIZARD_SPACES
        has_rout = lv in ROUT_OF
        usable = width - (130 if has_rout else 0) - 125
        box_w = min(150, usable // len(spaces) - 6)
        total = len(spaces) * (box_w + 6)
        x0 = 122 + (usable - total) // 2
        out.append(f'<text x="8" y="{y + 40}" font-size="13" font-weight="bold">{e(LEVEL_NAME[lv])}</text>')
        boxes = [(sp, x0 + i * (box_w + 6), box_w) for i, sp in enumerate(spaces)]
        if has_rout:
            boxes.append((ROUT_OF[lv], width - 130, 122))
        for sp, x, bw in boxes:
            rout = sp.startswith("ROUT")
            fill = "#f3e9f7" if rout else ("#fff6d6" if sp == GD else "#f4f1ea")
            out.append(f'<rect x="{x}" y="{y}" width="{bw}" height="{row_h - 10}" rx="6" fill="{fill}" '
                       f'stroke="#8a7f6b"/>')
            label = "Rout" if rout else sp
            out.append(f'<text x="{x + 4}" y="{y + 13}" font-size="11" fill="#555">{e(label)}</text>')
            here = v["board"].get(sp, [])
            if len(here) > 12:
                out.append(f'<text x="{x + bw - 4}" y="{y + 13}" font-size="11" text-anchor="end">'
                           f'+{len(here) - 11} more</text>')
                here = here[:11]
            for k, wz in enumerate(here):
                cx = x + 14 + (k % 6) * 22
                cy = y + 30 + (k // 6) * 24
                col = FILL.get(wz["colour"], "#888")
                tc = "#000" if wz["colour"] == "yellow" else "#fff"
                out.append(f'<circle cx="{cx}" cy="{cy}" r="10" fill="{col}" stroke="#000"><title>{e(wz["name"])}'
                           f'{" gray " + str(wz["gray"]) if wz["gray"] else ""}</title></circle>')
                out.append(f'<text x="{cx}" y="{cy + 4}" font-size="10" text-anchor="middle" fill="{tc}">'
                           f'{e(wz["name"].lstrip("abcdefghijklmnopqrstuvwxyz"))}</text>')
                if wz["gray"]:
                    out.append(f'<text x="{cx + 7}" y="{cy - 6}" font-size="9" fill="#666">{wz["gray"]}g</text>')
                if wz["name"] in points:
                    out.append(f'<text x="{cx}" y="{cy + 21}" font-size="10" font-weight="bold" '
                               f'text-anchor="middle">{points[wz["name"]]}</text>')
        y += row_h
    spaces_txt = []
    for lv in MAJOR_LEVELS:
        spaces_txt.append((f"Major: {LEVEL_NAME[lv]}", v["major"][lv]))
    spaces_txt.append(("Minor Spells", v["minor_dice"]))
    spaces_txt.append((f"Gray Magic ({v['gray_supply']} tokens)", v["gray_dice"]))
    bw = width // len(spaces_txt) - 6
    rows = max([3] + [(len(dice) + 5) // 6 for _label, dice in spaces_txt])
    box_h = 24 + rows * 16
    for i, (label, dice) in enumerate(spaces_txt):
        x = 4 + i * (bw + 6)
        out.append(f'<rect x="{x}" y="{y}" width="{bw}" height="{box_h}" rx="6" fill="#eef2f7" stroke="#8a8fa0"/>')
        out.append(f'<text x="{x + 4}" y="{y + 13}" font-size="11" fill="#333">{e(label)}</text>')
        for k, (colour, val) in enumerate(dice):
            dx = x + 4 + (k % 6) * 21
            dy = y + 20 + (k // 6) * 16
            col = FILL.get(colour, "#888")
            tc = "#000" if colour == "yellow" else "#fff"
            out.append(f'<rect x="{dx}" y="{dy}" width="15" height="14" rx="2" fill="{col}"/>'
                       f'<text x="{dx + 7}" y="{dy + 11}" font-size="10" text-anchor="middle" fill="{tc}">{val}</text>')
    y += box_h + 10
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {y}" width="100%" '
           f'style="max-width:{width}px;font-family:sans-serif" role="img" aria-label="Elfenwizards board">'
           + "".join(out) + "</svg>")
    rows = "".join(
        f"<tr><td style='color:{FILL.get(p['colour'], '#000')}'>{e(p['colour'])}{' (dragon)' if p['dragon'] else ''}"
        f"</td><td>{p['score']}</td><td>{p['dice_in_front']}</td><td>{p['minor_supply']}</td>"
        f"<td>{p['minor_in_space']}</td><td>{p['gray']}</td><td>{'passed' if p['passed'] else ''}</td></tr>"
        for p in v["player_info"])
    head = (f"<p><b>Turn {v['turn']} of {v['turns']}</b> - phase {v['phase_number']}: {e(v['phase_title'])}. "
            f"Dragon: {e(v['dragon'])}; turn order: {e(', '.join(v['order']))}. "
            f"Waiting for: {e(', '.join(v['waiting_for']) or 'nobody')}.</p>")
    if v["turn_counter"]:
        head += "<p>Turn counter: " + e(", ".join(f"turn {n}: {c}" for n, c in v["turn_counter"])) + "</p>"
    if v["spells_cast"]:
        items = "".join(
            f"<li>{e(c['wizard'])} ({e(c['space'])}): {c['points']} - "
            + e(", ".join(f"{x['by']} {x['spell']}" for x in c["spells"])) + "</li>" for c in v["spells_cast"])
        head += f"<details><summary>Spells cast</summary><ul>{items}</ul></details>"
    roll = ""
    if v["rolled"]:
        roll = f"<p>Rolled by {e(v['rolled']['by'])}: {' '.join(str(x) for x in v['rolled']['dice'])}</p>"
    table = ("<table class='elfenwizards-players'><tr><th>player</th><th>score</th><th>dice</th><th>minor</th>"
             f"<th>spent</th><th>gray</th><th></th></tr>{rows}</table>")
    sheet = ""
    if v["sheet"]:
        cells = "".join(f"<tr><td>{e(label)}</td><td>{e(v['colours'][seat])}</td><td>{pts:+d}</td>"
                        f"<td>{e(detail)}</td></tr>" for _t, seat, pts, detail, label in v["sheet"])
        sheet = f"<details><summary>Master of Seals</summary><table>{cells}</table></details>"
    return f'<div class="elfenwizards">{head}{roll}{svg}{table}{sheet}</div>'
