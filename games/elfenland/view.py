"""What each seat sees, the events in words, and the two renders (80-column text, inline SVG)."""

from __future__ import annotations

from html import escape

from . import board as B
from . import rules as R

COLOURS = ("red", "blue", "green", "yellow", "purple", "black")
SVG_COLOURS = {"red": "#d32f2f", "blue": "#1565c0", "green": "#2e7d32", "yellow": "#f9a825",
               "purple": "#6a1b9a", "black": "#212121"}


def view(state, seat):
    n = state["n"]
    over = state["phase"] == "over"
    mine = seat is not None and 0 <= seat < n
    seats = []
    for s in range(n):
        seats.append({
            "elf": state["elf"][s],
            "towns": [t for t, _ in state["got"][s]],
            "cards": R.hand_size(state, s),
            "up": sorted(state["up"][s]),
            "down": len(state["down"][s]),
            "trouble": state["trouble_left"][s],
            "keep_awaited": s in state["keep_await"],
            "keep_chosen": state["keep"][s] is not None,
        })
    v = {
        "game": "elfenland",
        "seat": seat,
        "players": n,
        "round": state["round"],
        "rounds": B.ROUNDS,
        "phase": state["phase"],
        "turn": state["turn"],
        "first": state["first"],
        "options": dict(state["opts"]),
        "waiting": R.waiting_for(state),
        "passes": state["passes"],
        "pool": list(state["pool"]),
        "pile": sum(state["pile"].values()),
        "deck": sum(state["deck"].values()),
        "board": dict(state["board"]),
        "trouble": dict(state["trouble"]),
        "trouble_used": state["trouble_used"],
        "seats": seats,
        "hand": dict(state["hands"][seat]) if mine else None,
        "down": sorted(state["down"][seat]) if mine else None,
        "home": state["home"][seat] if mine else None,
        "my_keep": dict(state["keep"][seat]) if mine and state["keep"][seat] else None,
        "reachable": None,
        "final": None,
        "homes": None,
    }
    if mine and state["phase"] == "move" and state["turn"] == seat:
        v["reachable"] = R.reachable(state, seat)
    if over:
        v["final"] = dict(state["final"])
        v["final"]["ranking"] = R.result(state).ranking()
        if state["opts"]["home_cities"]:
            v["homes"] = list(state["home"])
    return v


# ---------------------------------------------------------------------------------------------
# narrate
# ---------------------------------------------------------------------------------------------


def _cards(cards) -> str:
    out: dict[str, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return ", ".join(f"{k} {B.WORD[c]}" if k > 1 else B.WORD[c] for c, k in sorted(out.items())) or "no cards"


def _route(route) -> str:
    r = B.ROUTES[route]
    return f"{B.name(r['a'])}-{B.name(r['b'])} ({B.TYPE_LONG[r['type']]})"


def narrate(event, names):
    d = event.data
    t = event.type

    def who(key="seat"):
        return names[d[key]] if key in d and d[key] is not None and d[key] < len(names) else "someone"

    if t == "GameStarted":
        opts = [k.replace("_", " ").title() for k, on in d["options"].items() if on]
        extra = f" with {', '.join(opts)}" if opts else ""
        return f"A game of Elfenland for {d['players']} players begins{extra}. Every Elf starts in Elvenhold."
    if t == "HomeCityDealt":
        if "town" in d:
            return f"{who()} was dealt the City Card {B.name(d['town'])} (secret)."
        return f"{who()} was dealt a secret City Card."
    if t == "RoundStarted":
        return f"Round {d['round']} of {B.ROUNDS} begins; {names[d['first']]} is the First Player."
    if t == "CardsDealt":
        if "cards" in d:
            return f"{who()} was dealt {_cards(d['cards'])}."
        return f"{who()} was dealt {d['count']} card{'s' if d['count'] != 1 else ''}."
    if t == "SecretCounterDrawn":
        if "counter" in d:
            return f"{who()} drew a face-down {B.WORD[d['counter']]} counter."
        return f"{who()} drew a face-down counter."
    if t == "PoolFilled":
        return "Face-up counters: " + (", ".join(B.WORD[c] for c in d["counters"]) or "none") + "."
    if t == "CounterTaken":
        refill = f"; {B.WORD[d['refill']]} is turned face up" if d.get("refill") else ""
        return f"{who()} took the face-up {B.WORD[d['counter']]}{refill}."
    if t == "CounterDrawn":
        return f"{who()} drew blind: {B.WORD[d['counter']]}."
    if t == "CounterPlaced":
        how = " (the face-down counter)" if d["hidden"] else ""
        return f"{who()} placed {B.WORD[d['counter']]}{how} on {_route(d['route'])}."
    if t == "TroublePlaced":
        return f"{who()} placed Trouble on {_route(d['route'])}."
    if t == "Passed":
        return f"{who()} passed" + (" (nothing to place)." if d.get("auto") else ".")
    if t == "Moved":
        how = {"counter": "", "raft": " by raft", "caravan": " with a caravan", "boatmen": " with the Boatmen"}
        got = ", and collected the town piece there" if d["collected"] else ""
        return (f"{who()} travelled {B.name(d['from'])} -> {B.name(d['to'])}{how.get(d['how'], '')}, "
                f"playing {_cards(d['cards'])}{got}.")
    if t == "MoveEnded":
        return f"{who()} ended the move" + (" (no move possible)." if d.get("auto") else ".")
    if t == "CardDiscarded":
        if "card" in d:
            return f"{who()} discarded {B.WORD[d['card']]}."
        return f"{who()} discarded a card."
    if t == "RoundEnded":
        return f"Round {d['round']} is over." + (" The game ends." if d["last"] else "")
    if t == "CounterKept":
        if "counter" in d:
            if d["counter"] is None:
                return f"{who()} chose to keep no counter."
            return f"{who()} chose to keep {'the face-down ' if d['hidden'] else ''}{B.WORD[d['counter']]}."
        return f"{who()} has chosen which counter to keep."
    if t == "CountersKept":
        parts = []
        for s, k in enumerate(d["kept"]):
            if k is None or s >= len(names):
                continue
            if k["none"]:
                parts.append(f"{names[s]} keeps none")
            elif k["hidden"]:
                parts.append(f"{names[s]} keeps a face-down counter")
            else:
                parts.append(f"{names[s]} keeps {B.WORD[k['counter']]}")
        return "Counters kept: " + ("; ".join(parts) or "none") + "."
    if t == "HomeCitiesRevealed":
        parts = [f"{names[s]}: {B.name(h)} ({d['distances'][s]} away)" for s, h in enumerate(d["homes"])]
        return "City Cards revealed: " + "; ".join(parts) + "."
    if t == "GameEnded":
        n = len(d["scores"])
        parts = [f"{names[s]} {sc}" for s, sc in enumerate(d["scores"])]
        if d.get("distances") is not None:
            keys = [(d["scores"][s], -d["distances"][s], d["cards"][s]) for s in range(n)]
        else:
            keys = [(d["scores"][s], d["cards"][s]) for s in range(n)]
        best = max(keys)
        winners = " and ".join(names[s] for s in range(n) if keys[s] == best)
        what = "Final scores (town pieces less Home City penalties)" if d.get("distances") is not None \
            else "Town pieces"
        return f"The game is over. {what}: " + ", ".join(parts) + f". Winner: {winners}."
    return t


# ---------------------------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------------------------


def _label(s) -> str:
    return f"P{s + 1} {COLOURS[s]}"


def render_text(v):
    phase_text = {"draw": "step 2: drawing counters", "place": "step 3: placing counters",
                  "move": "step 4: moving", "discard": "step 4: discarding", "keep": "step 5: keeping counters",
                  "over": "game over"}.get(v["phase"], v["phase"])
    lines = [f"ELFENLAND  round {v['round']}/{v['rounds']}  {phase_text}"]
    opts = [k.replace("_", " ") for k, on in v["options"].items() if on]
    lines.append(f"First player: {_label(v['first'])}" + (f"   variants: {', '.join(opts)}" if opts else ""))
    if v["waiting"]:
        lines.append("Waiting for: " + ", ".join(_label(s) for s in v["waiting"]))
    lines.append("")
    for s, st in enumerate(v["seats"]):
        me = "*" if s == v["seat"] else " "
        ctr = " ".join(B.WORD[c] for c in st["up"])
        if st["down"]:
            ctr = (ctr + f" +{st['down']} hidden").strip()
        trouble = " T" if st["trouble"] else ""
        lines.append(f"{me}{_label(s):10} at {B.name(st['elf']):12} towns {len(st['towns']):2}/20 "
                     f"cards {st['cards']} {trouble:2} {ctr}"[:80])
    lines.append("(T: Trouble counter not yet used)")
    lines.append("")
    if v["phase"] in ("draw",):
        lines.append("Face-up counters: " + (" ".join(B.WORD[c] for c in v["pool"]) or "none"))
    lines.append(f"Face-down counters: {v['pile']}   movement cards in the deck: {v['deck']}")
    if v["board"]:
        lines.append("Counters on routes:")
        for route in sorted(v["board"], key=lambda r: (B.ROUTES[r]["a"], B.ROUTES[r]["b"])):
            tr = f" + Trouble (P{v['trouble'][route] + 1})" if route in v["trouble"] else ""
            r = B.ROUTES[route]
            text = f"  {B.name(r['a'])}-{B.name(r['b'])} {r['type']}"
            lines.append(f"{text:38} {B.WORD[v['board'][route]]}{tr}"[:80])
    lines.append("Town pieces still on the board, by seat:")
    cells = []
    for t in B.PIECE_TOWNS:
        left = "".join(str(s + 1) for s, st in enumerate(v["seats"]) if t not in st["towns"])
        cells.append(f"{B.name(t):11} {left:6}")
    for i in range(0, len(cells), 4):
        lines.append("  " + "  ".join(cells[i:i + 4]).rstrip())
    if v["hand"] is not None:
        lines.append("")
        hand = ", ".join(f"{k} {B.WORD[c]}" for c, k in sorted(v["hand"].items()) if k) or "none"
        lines.append(f"Your cards: {hand}")
        if v["down"]:
            lines.append("Your face-down counter(s): " + " ".join(B.WORD[c] for c in v["down"]))
        if v["home"]:
            lines.append(f"Your City Card: {B.name(v['home'])}")
        if v["my_keep"]:
            k = v["my_keep"]
            lines.append("You keep: " + ("none" if k["counter"] is None else B.WORD[k["counter"]]))
        if v["reachable"] is not None:
            reach = ", ".join(B.name(t) for t in v["reachable"]) or "nowhere"
            lines.extend(_wrap(f"You can reach this turn: {reach}"))
    if v["final"]:
        f = v["final"]
        lines.append("")
        lines.append("Final result (winner: " + " and ".join(_label(s) for s in f["ranking"][0]) + "):")
        for s in range(v["players"]):
            extra = ""
            if f["distances"] is not None:
                extra = f", City Card {B.name(f['homes'][s])} {f['distances'][s]} away (-{f['penalties'][s]})"
            lines.append(f"  {_label(s):10} {f['scores'][s]:2} ({f['collected'][s]} towns{extra}, "
                         f"{f['cards'][s]} card{'s' if f['cards'][s] != 1 else ''})"[:80])
    return "\n".join(line.rstrip() for line in lines)


def _wrap(text, width=78):
    out, line = [], ""
    for word in text.split(" "):
        if len(line) + len(word) + 1 > width:
            out.append(line)
            line = "  " + word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return out


# ---------------------------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------------------------

STYLE = {
    "road": ("#b8864b", "", 5), "forest": ("#2e7d32", "", 5), "desert": ("#e6b800", "10 5", 5),
    "mountain": ("#6d4c41", "3 4", 5), "river": ("#1e88e5", "", 4), "lake": ("#64b5f6", "2 6", 4),
}


def _xy(town):
    x, y = B.TOWNS[town]["approx_xy"]
    return 60 + x * 8.8, 40 + y * 6.6


def render_html(v):
    w, h = 1000, 770
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" role="img" '
             f'aria-label="Elfenland board" style="max-width:100%;height:auto;background:#f4efe1;'
             f'font-family:sans-serif">',
             '<defs><marker id="elf-arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="5" '
             'markerHeight="5" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1e88e5"/></marker></defs>']
    labels = []
    for route in B.ROUTE_IDS:
        r = B.ROUTES[route]
        (x1, y1), (x2, y2) = _xy(r["a"]), _xy(r["b"])
        colour, dash, width = STYLE[r["type"]]
        twin = len(B.BETWEEN[(r["a"], r["b"])]) > 1
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        if twin and r["type"] in B.WATER:
            dx, dy = x2 - x1, y2 - y1
            ln = max((dx * dx + dy * dy) ** 0.5, 1)
            cx, cy = mx - dy / ln * 40, my + dx / ln * 40
            d = f"M{x1:.0f},{y1:.0f} Q{cx:.0f},{cy:.0f} {x2:.0f},{y2:.0f}"
            mx, my = (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4
        else:
            d = f"M{x1:.0f},{y1:.0f} L{x2:.0f},{y2:.0f}"
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        title = escape(_route(route))
        parts.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{width}"{dash_attr}>'
                     f'<title>{title}</title></path>')
        if r["type"] == "river":
            down = r["downstream_to"]
            up = r["a"] if down == r["b"] else r["b"]
            (ux, uy), (dx2, dy2) = _xy(up), _xy(down)
            ax, ay = mx + (dx2 - ux) * 0.08, my + (dy2 - uy) * 0.08
            parts.append(f'<line x1="{mx:.0f}" y1="{my:.0f}" x2="{ax:.0f}" y2="{ay:.0f}" stroke="#1e88e5" '
                         f'stroke-width="3" marker-end="url(#elf-arrow)"/>')
        if route in v["board"]:
            text = B.WORD[v["board"][route]]
            trouble = route in v["trouble"]
            stroke = "#c62828" if trouble else "#333"
            wbox = 8 + 7 * len(text) + (10 if trouble else 0)
            labels.append(f'<rect x="{mx - wbox / 2:.0f}" y="{my - 10:.0f}" width="{wbox:.0f}" height="20" rx="4" '
                          f'fill="#fff" stroke="{stroke}" stroke-width="{3 if trouble else 1}"/>'
                          f'<text x="{mx:.0f}" y="{my + 4:.0f}" font-size="12" text-anchor="middle">'
                          f'{escape(text)}{" !" if trouble else ""}</text>')
    parts.extend(labels)
    for town in B.TOWN_IDS:
        x, y = _xy(town)
        start = town == B.START
        parts.append(f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{18 if start else 14}" fill="{"#ffe082" if start else "#fff8e1"}" '
                     f'stroke="#5d4037" stroke-width="2"/>')
        parts.append(f'<text x="{x:.0f}" y="{y + 30:.0f}" font-size="13" text-anchor="middle" '
                     f'font-weight="bold">{escape(B.name(town))}</text>')
        if B.TOWNS[town]["has_town_pieces"]:
            left = [s for s, st in enumerate(v["seats"]) if town not in st["towns"]]
            for i, s in enumerate(left):
                px = x - 15 + (i % 6) * 6
                parts.append(f'<rect x="{px:.0f}" y="{y - 25:.0f}" width="5" height="5" '
                             f'fill="{SVG_COLOURS[COLOURS[s]]}"/>')
    here: dict[str, list[int]] = {}
    for s, st in enumerate(v["seats"]):
        here.setdefault(st["elf"], []).append(s)
    for town, seats in here.items():
        x, y = _xy(town)
        for i, s in enumerate(seats):
            ex, ey = x + 16 + (i % 3) * 11, y - 6 + (i // 3) * 11
            parts.append(f'<circle cx="{ex:.0f}" cy="{ey:.0f}" r="6" fill="{SVG_COLOURS[COLOURS[s]]}" '
                         f'stroke="#fff" stroke-width="1.5"><title>Elf of P{s + 1}</title></circle>')
    legend = [("road", "open road"), ("forest", "forest path"), ("desert", "desert track"),
              ("mountain", "mountain trail"), ("river", "river (arrow: downstream)"), ("lake", "lake")]
    for i, (k, text) in enumerate(legend):
        colour, dash, width = STYLE[k]
        x, y = 20 + (i % 3) * 250, 725 + (i // 3) * 22
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<line x1="{x}" y1="{y}" x2="{x + 35}" y2="{y}" stroke="{colour}" stroke-width="{width}"{dash_attr}/>'
                     f'<text x="{x + 42}" y="{y + 4}" font-size="12">{escape(text)}</text>')
    parts.append("</svg>")
    return '<div class="elfenland">' + "".join(parts) + _html_table(v) + "</div>"


def _html_table(v):
    rows = []
    for s, st in enumerate(v["seats"]):
        mark = " (you)" if s == v["seat"] else ""
        ctr = " ".join(B.WORD[c] for c in st["up"]) + (f" +{st['down']} face down" if st["down"] else "")
        rows.append(f"<tr><td style='color:{SVG_COLOURS[COLOURS[s]]}'>P{s + 1} {COLOURS[s]}{mark}</td>"
                    f"<td>{escape(B.name(st['elf']))}</td><td>{len(st['towns'])}</td><td>{st['cards']}</td>"
                    f"<td>{escape(ctr)}</td><td>{'yes' if st['trouble'] else 'used'}</td></tr>")
    head = ("<table class='elfenland-seats'><tr><th>Seat</th><th>Elf at</th><th>Towns</th><th>Cards</th>"
            "<th>Counters</th><th>Trouble</th></tr>")
    text = escape(render_text(v))
    return head + "".join(rows) + f"</table><pre class='elfenland-text'>{text}</pre>"
