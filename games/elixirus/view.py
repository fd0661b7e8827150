"""What each seat sees, events in words, and the renders (80-column text and inline SVG)."""

from __future__ import annotations

from html import escape

from games.base import rank

from .data_model import CRYSTAL, FLASKS, INGREDIENTS, PIECE_BY_EFFECT, PIECES, TABLES
from .rules import CATEGORIES, SEAT_COLOURS, breakdowns, current, draft_table, ingredients_on_table, waiting_for

STAGES = {"place": "A - placing apprentices", "collect": "B - collecting ingredients",
          "brew": "C - concocting potions", "reveal": "C - concocting potions", "over": "game over",
          "setup": "setting up"}


def view(state, seat):
    n = state["n"]
    forest = []
    for pos in range(6):
        piece = state["circle"][pos]
        known = state["known"][pos] and piece is not None
        up = state["up"][pos]
        forest.append({
            "pos": pos,
            "piece": PIECES[piece]["effect"] if known else None,
            "up": up,
            "signpost": pos == state["signpost"],
            "curves": list(state["curves"][pos]) if up else None,
            "spaces": list(state["spaces"][pos]) if up else None,
        })
    tables = []
    scores = breakdowns(state)
    for s in range(n):
        tables.append({
            "table": state["tables"][s],
            "front": list(state["front"][s]),
            "bowl": state["bowl"][s],
            "flasks": {f: list(v) for f, v in state["flasks"][s].items()},
            "book": list(state["book"][s]),
            "poison": list(state["poison"][s]),
            "corks": dict(state["corks"][s]),
            "left": state["left"][s],
            "done": state["done"][s],
            "score": list(scores[s]),
        })
    cur = current(state)
    out = {
        "seat": seat,
        "players": n,
        "round": state["round"],
        "phase": state["phase"],
        "start": state["start"],
        "turn": state["turn"] if state["phase"] == "place" else None,
        "waiting": waiting_for(state),
        "current": None,
        "order": [p for p in _order(state)],
        "forest": forest,
        "bag": len(state["bag"]),
        "box": len(state["box"]),
        "basket": state["basket"],
        "tables": tables,
        "mine": None,
        "looking": None,
        "looking_count": len(state["looking"]),
        "end": state["end"],
        "ranking": None,
    }
    if state["phase"] == "over":
        tiebreak = [(ingredients_on_table(state, s),) for s in range(n)]
        out["ranking"] = rank([sum(b) for b in scores], tiebreak)
        out["tiebreak"] = [list(t) for t in tiebreak]
    if cur:
        out["current"] = {"seat": cur[0], "pos": cur[1], "space": cur[2], "step": state["step"]}
    if seat is not None and state["looking"] and cur and cur[0] == seat:
        out["looking"] = list(state["looking"])
    if seat is not None and state["drafts"] is not None:
        out["mine"] = draft_table(state, seat)
    return out


def _order(state):
    sign = state["signpost"]
    return [(sign + i) % 6 for i in range(6) if state["up"][(sign + i) % 6]]


# ---------------------------------------------------------------------------------------------
# Narration
# ---------------------------------------------------------------------------------------------


def _name(names, seat):
    if seat is None:
        return "nobody"
    return names[seat] if seat < len(names) else SEAT_COLOURS[seat]


def _list(toks):
    return ", ".join(toks) if toks else "nothing"


def narrate(event, names):
    d = event.data
    t = event.type
    who = _name(names, d["seat"]) if "seat" in d else ""
    if t == "GameStarted":
        return (f"A game of Elixirus for {d['players']} begins; {_name(names, d['start'])} has the starting marker. "
                f"Concoction tables: " + ", ".join(f"{_name(names, s)} {tid}" for s, tid in enumerate(d["tables"])) + ".")
    if t == "ForestLaid":
        shown = [PIECES[p]["effect"].capitalize() if p else "face down" for p in d["circle"]]
        return "The forest is laid out clockwise: " + ", ".join(shown) + "."
    if t == "ForestFilled":
        return f"The forest is filled with {len(d['fill'])} ingredients from the bag."
    if t == "ApprenticePlaced":
        return f"{who} places an apprentice on space {d['space'] + 1} of the {d['piece'].capitalize()} piece."
    if t == "IngredientsCollected":
        text = f"{who} collects {_list(d['ings'])} from the {d['piece'].capitalize()} piece"
        if d["drawn"]:
            text += f" and draws {_list(d['drawn'])} from the bag (first curve)"
        return text + "."
    if t == "EffectSkipped":
        return f"{who} does not use the {d['effect'].capitalize()} effect."
    if t == "IngredientStolen":
        return f"{who} steals {d['ing']} from {_name(names, d['from'])}."
    if t == "IngredientSwapped":
        return f"{who} swaps {d['ing']} for {d['got']} (curve {d['curve'] + 1} of the {d['piece'].capitalize()} piece)."
    if t == "DrawLooked":
        if "drawn" in d:
            return f"{who} draws {_list(d['drawn'])} from the bag (seen only by you)."
        return f"{who} draws {d['count']} ingredients from the bag and looks at them."
    if t == "DrawKept":
        back = d["back"] if isinstance(d["back"], int) else len(d["back"])
        text = f"{who} keeps {_list(d['keep'])} and returns {back} to the bag"
        if not isinstance(d["back"], int) and d["back"]:
            text += f" ({_list(d['back'])})"
        return text + "."
    if t == "IngredientsReplaced":
        return (f"{who} replaces {_list(d['removed'])} on the {d['piece'].capitalize()} piece with "
                f"{_list(d['drawn'])} from the bag.")
    if t == "ApprenticesDanced":
        a, b = d["spaces"]
        sa, sb = d["seats"]
        return (f"{who} makes the apprentices dance on the {d['piece'].capitalize()} piece: "
                f"{_name(names, sa)}'s (space {a + 1}) and {_name(names, sb)}'s (space {b + 1}) change places.")
    if t == "BasketTaken":
        src = f" from {_name(names, d['from'])}" if d["from"] is not None else ""
        return f"{who} takes the basket tile{src}."
    if t == "IngredientPlaced":
        if "ing" in d:
            return f"You put {d['ing']} on your {d['to']}" + (" (from your bowl)." if d["src"] == "bowl" else ".")
        return f"{who} is concocting."
    if t == "LeftoverPicked":
        if "ing" in d:
            return f"You use the basket tile to collect {d['ing']} from the {d['piece'].capitalize()} piece."
        return f"{who} is concocting."
    if t == "BrewDone":
        return f"{who} has finished concocting."
    if t == "BrewReset":
        return f"{who} is revising their concocting."
    if t == "PotionsRevealed":
        parts = []
        for s, moves in enumerate(d["moves"]):
            if moves:
                parts.append(f"{_name(names, s)}: " + "; ".join(f"{tok} -> {dest}" for tok, dest in moves))
        corks = [f"{_name(names, s)} corks {f} ({p} points)" for s, f, p in d["corks"]]
        text = "Concocting revealed. " + (" | ".join(parts) if parts else "Nothing was placed.")
        if corks:
            text += " Corks: " + ", ".join(corks) + "."
        return text
    if t == "RoundEnded":
        text = f"End of the round: {len(d['to_box'])} leftovers go to the box, the signpost moves on"
        if d["piece"]:
            text += f", the {PIECES[d['piece']]['effect'].capitalize()} piece is turned face up"
        if d["poured"] is not None:
            text += ", the bag is refilled from the box"
        return text + f"; {_name(names, d['start'])} has the starting marker."
    if t == "GameEnded":
        why = "a fourth cork was taken" if d["reason"] == "cork" else "no ingredients are left to collect"
        bowls = "".join(f" {_name(names, s)}'s bowl ingredient ({tok}) goes to the poison flask." for s, tok in d["bowl"])
        scores = ", ".join(f"{_name(names, s)} {p}" for s, p in enumerate(d["scores"]))
        return f"The game ends ({why}).{bowls} Scores: {scores}."
    return t


# ---------------------------------------------------------------------------------------------
# Text render (80 columns)
# ---------------------------------------------------------------------------------------------


def short(tok):
    if tok is None:
        return "-"
    if tok == CRYSTAL:
        return "crystal"
    c, v, val = INGREDIENTS[tok]
    return f"{c[:3]}-{v[:3]}{val}"


def _who(v, s):
    return f"{SEAT_COLOURS[s]}"


def render_text(v):
    lines = []
    stage = STAGES.get(v["phase"], v["phase"])
    lines.append(f"ELIXIRUS - round {v['round']}, stage {stage}")
    basket = "centre" if v["basket"] is None else _who(v, v["basket"])
    lines.append(f"Starting marker: {_who(v, v['start'])}   Bag: {v['bag']}   Box: {v['box']}   Basket tile: {basket}")
    if v["waiting"]:
        lines.append("Awaiting: " + ", ".join(_who(v, s) for s in v["waiting"]))
    lines.append("")
    lines.append("FOREST (resolved from the signpost >, clockwise; curve 1* brings a bag draw)")
    for pos in v["order"]:
        f = v["forest"][pos]
        mark = ">" if f["signpost"] else " "
        name = (f["piece"] or "?").capitalize()
        curves = "  ".join(f"{i + 1}{'*' if i == 0 else ''}:{short(t)}" for i, t in enumerate(f["curves"]))
        lines.append(f" {mark} {name:8} {curves}")
        baskets = PIECES[PIECE_BY_EFFECT[f["piece"]]]["baskets"] if f["piece"] else [1, 2, 1]
        spaces = "  ".join(
            f"[{i + 1}: {b} bsk{'+' + name if i == 2 else ''}] {_who(v, s) if s is not None else 'free'}"
            for i, (b, s) in enumerate(zip(baskets, f["spaces"]))
        )
        lines.append(f"            {spaces}")
    down = [f for f in v["forest"] if not f["up"]]
    if down:
        lines.append("   face down: " + ", ".join((f["piece"] or "?").capitalize() for f in down))
    cur = v["current"]
    if cur:
        name = v["forest"][cur["pos"]]["piece"].capitalize()
        lines.append(f"Now: {_who(v, cur['seat'])}'s apprentice on {name} space {cur['space'] + 1} ({cur['step']}).")
    if v["looking"]:
        lines.append("You drew (only you see them): " + ", ".join(v["looking"]))
    for s, tab in enumerate(v["tables"]):
        lines.append("")
        total = sum(tab["score"])
        corks = ", ".join(f"{f} {p}" for f, p in tab["corks"].items()) or "none"
        extra = ""
        if v["phase"] == "place":
            extra = f", {tab['left']} apprentice(s) to place"
        if v["phase"] == "brew":
            extra = ", done" if tab["done"] else ", concocting"
        lines.append(f"{_who(v, s).upper()}{' (you)' if s == v['seat'] else ''} - table {tab['table']}, "
                     f"score {total}, corks: {corks}{extra}")
        shown = tab
        if s == v["seat"] and v["mine"] is not None:
            shown = v["mine"]
            lines.append("  (your concocting this round, hidden from the others until all are done)")
        lines.extend(_table_lines(tab["table"], shown))
    if v["ranking"]:
        lines.append("")
        why = "a fourth cork was taken" if v["end"] == "cork" else "no ingredients were left"
        lines.append(f"GAME OVER ({why}). Final standings:")
        for place, seats in enumerate(v["ranking"], start=1):
            for s in seats:
                tab = v["tables"][s]
                parts = " ".join(f"{p:+d}" for p in tab["score"])
                lines.append(f"  {place}. {_who(v, s)}: {sum(tab['score'])} points (A-F: {parts}), "
                             f"{v['tiebreak'][s][0]} ingredients")
    lines.append("")
    lines.append("Ingredients are written colour-variety-value: red-roo2 = red root 2. 'help' lists commands.")
    return "\n".join(_wrap(line) for line in lines)


def _wrap(line, width=80):
    if len(line) <= width:
        return line
    out = []
    while len(line) > width:
        cut = line.rfind(" ", 0, width)
        if cut <= 4:
            cut = width
        out.append(line[:cut])
        line = "      " + line[cut:].lstrip()
    out.append(line)
    return "\n".join(out)


def _table_lines(table_id, tab):
    spec = TABLES[table_id]
    lines = []
    lines.append(f"  in front: {_list(tab['front'])}   bowl: {tab['bowl'] or '-'}")
    for f in FLASKS:
        req = spec["flasks"][f]
        filled = tab["flasks"][f]
        cells = [short(filled[i]) if i < len(filled) else f"({r[1]})" for i, r in enumerate(req)]
        lines.append(f"  {f:9} " + " ".join(cells))
    specials = [f"{c} {v}" for c, v in spec["special"]]
    book = [tab["book"][i] or f"({specials[i]})" for i in range(2)]
    ench = spec["enchanted"][1]
    curse = spec["cursed"][1]
    lines.append(f"  book: {book[0]}; {book[1]}   enchanted +1: {ench}, cursed -1: {curse}")
    toxic = sum(INGREDIENTS[t][2] for t in tab["poison"])
    lines.append(f"  poison (-{toxic}): " + (" ".join(short(t) for t in tab["poison"]) or "nothing"))
    return lines


# ---------------------------------------------------------------------------------------------
# HTML / SVG render
# ---------------------------------------------------------------------------------------------

FILL = {"red": "#d33", "orange": "#f90", "yellow": "#ec2", "green": "#3a3", "blue": "#36c", "purple": "#94c"}
INK = {"yellow": "#222", "orange": "#222"}
SEAT_FILL = {"white": "#fff", "black": "#222", "pink": "#f8c", "brown": "#852", "grey": "#999"}


def _token_svg(tok, x, y, r=11):
    if tok is None:
        return f'<circle cx="{x}" cy="{y}" r="{r}" fill="none" stroke="#bbb" stroke-dasharray="2,2"/>'
    if tok == CRYSTAL:
        return (f'<polygon points="{x},{y - r} {x + r},{y} {x},{y + r} {x - r},{y}" fill="#bef" stroke="#333">'
                f"<title>crystal</title></polygon>")
    c, var, val = INGREDIENTS[tok]
    return (f'<g><title>{escape(tok)}</title><circle cx="{x}" cy="{y}" r="{r}" fill="{FILL[c]}" stroke="#333"/>'
            f'<text x="{x}" y="{y + 4}" font-size="10" text-anchor="middle" fill="{INK.get(c, "#fff")}">'
            f"{var[:2]}{val}</text></g>")


def render_html(v):
    parts = []
    width = 760
    forest_h = 60 + 70 * len(v["order"])
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {forest_h}" width="100%" '
           f'font-family="sans-serif" font-size="12">']
    svg.append(f'<text x="10" y="20" font-size="15">Elixirus - round {v["round"]}, stage '
               f'{escape(STAGES.get(v["phase"], v["phase"]))}; bag {v["bag"]}, box {v["box"]}</text>')
    y = 45
    for pos in v["order"]:
        f = v["forest"][pos]
        name = (f["piece"] or "?").capitalize()
        svg.append(f'<rect x="10" y="{y}" width="{width - 20}" height="60" rx="8" fill="#e8f3e0" stroke="#575"/>')
        svg.append(f'<text x="20" y="{y + 20}" font-weight="bold">{"&#x27A4; " if f["signpost"] else ""}'
                   f'{escape(name)}</text>')
        for i, tok in enumerate(f["curves"]):
            x = 150 + i * 40
            svg.append(_token_svg(tok, x, y + 30))
            svg.append(f'<text x="{x}" y="{y + 55}" font-size="9" text-anchor="middle">{i + 1}'
                       f'{"+bag" if i == 0 else ""}</text>')
        baskets = PIECES[PIECE_BY_EFFECT[f["piece"]]]["baskets"] if f["piece"] else [1, 2, 1]
        for i, (b, s) in enumerate(zip(baskets, f["spaces"])):
            x = 350 + i * 130
            fill = SEAT_FILL[SEAT_COLOURS[s]] if s is not None else "none"
            svg.append(f'<rect x="{x}" y="{y + 12}" width="120" height="36" rx="5" fill="#fff" stroke="#888"/>')
            svg.append(f'<circle cx="{x + 18}" cy="{y + 30}" r="10" fill="{fill}" stroke="#333"/>')
            label = f"{i + 1}: {b} basket{'s' if b > 1 else ''}" + (f" + {name}" if i == 2 else "")
            svg.append(f'<text x="{x + 34}" y="{y + 34}" font-size="10">{escape(label)}</text>')
        y += 70
    down = [(f["piece"] or "?").capitalize() for f in v["forest"] if not f["up"]]
    notes = []
    if down:
        notes.append("face down: " + ", ".join(down))
    basket = "centre" if v["basket"] is None else SEAT_COLOURS[v["basket"]]
    notes.append(f"basket tile: {basket}; starting marker: {SEAT_COLOURS[v['start']]}")
    if v["waiting"]:
        notes.append("awaiting: " + ", ".join(SEAT_COLOURS[s] for s in v["waiting"]))
    svg.append(f'<text x="10" y="{y + 5}">{escape("; ".join(notes))}</text>')
    svg.append("</svg>")
    parts.append("".join(svg).replace(f'viewBox="0 0 {width} {forest_h}"', f'viewBox="0 0 {width} {forest_h + 15}"'))
    for s, tab in enumerate(v["tables"]):
        shown = v["mine"] if (s == v["seat"] and v["mine"] is not None) else tab
        parts.append(_table_svg(v, s, tab, shown))
    return '<div class="elixirus">' + "".join(parts) + "</div>"


def _table_svg(v, s, tab, shown):
    spec = TABLES[tab["table"]]
    w, h = 760, 230
    total = sum(tab["score"])
    detail = ", ".join(f"{c} {p}" for c, p in zip(CATEGORIES, tab["score"]))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="100%" font-family="sans-serif" '
           f'font-size="11"><rect x="1" y="1" width="{w - 2}" height="{h - 2}" rx="8" fill="#f6efe4" stroke="#864"/>']
    you = " (you)" if s == v["seat"] else ""
    out.append(f'<circle cx="18" cy="18" r="8" fill="{SEAT_FILL[SEAT_COLOURS[s]]}" stroke="#333"/>'
               f'<text x="32" y="22" font-size="13" font-weight="bold">{SEAT_COLOURS[s]}{you} - table {tab["table"]} '
               f'- {total} points</text><text x="330" y="22">{escape(detail)}</text>')
    for i, f in enumerate(FLASKS):
        x = 30 + i * 90
        req = spec["flasks"][f]
        out.append(f'<text x="{x}" y="{h - 12}" text-anchor="middle">{f}</text>')
        if f in tab["corks"]:
            out.append(f'<rect x="{x - 12}" y="{h - 34 - 26 * len(req) - 14}" width="24" height="12" fill="#a76"/>'
                       f'<text x="{x}" y="{h - 34 - 26 * len(req) - 4}" text-anchor="middle" fill="#fff" '
                       f'font-size="9">{tab["corks"][f]}</text>')
        for j, r in enumerate(req):
            yy = h - 34 - 26 * j
            tok = shown["flasks"][f][j] if j < len(shown["flasks"][f]) else None
            if tok is None and r[0] == "colour":
                out.append(f'<circle cx="{x}" cy="{yy}" r="10" fill="#fff" stroke="{FILL[r[1]]}" stroke-width="3">'
                           f"<title>{r[1]}</title></circle>")
            elif tok is None:
                out.append(f'<circle cx="{x}" cy="{yy}" r="11" fill="#fff" stroke="#999"><title>{r[1]}</title></circle>'
                           f'<text x="{x}" y="{yy + 3}" font-size="7" text-anchor="middle">{r[1][:6]}</text>')
            else:
                out.append(_token_svg(tok, x, yy))
    x0 = 480
    out.append(f'<text x="{x0}" y="50">recipe book (enchanted +1: {spec["enchanted"][1]}, '
               f'cursed -1: {spec["cursed"][1]})</text>')
    for i, (c, var) in enumerate(spec["special"]):
        tok = shown["book"][i]
        out.append(_token_svg(tok, x0 + 15 + i * 120, 75))
        out.append(f'<text x="{x0 + 30 + i * 120}" y="79">{c} {var}</text>')
    out.append(f'<text x="{x0}" y="110">bowl:</text>' + _token_svg(shown["bowl"], x0 + 50, 106))
    out.append(f'<text x="{x0}" y="140">poison:</text>')
    for i, tok in enumerate(shown["poison"][:10]):
        out.append(_token_svg(tok, x0 + 60 + i * 22, 136, 9))
    out.append(f'<text x="{x0}" y="170">in front:</text>')
    for i, tok in enumerate(shown["front"][:10]):
        out.append(_token_svg(tok, x0 + 60 + i * 22, 166, 9))
    out.append("</svg>")
    return "".join(out)
