"""What each seat sees, the events in words, and the renders: the 80-column text, the web board
and the picture of a turn notice (both drawn by drawing.py)."""

from __future__ import annotations

import textwrap

from . import board as B
from . import drawing as D
from . import rules as R

COLOURS = D.COLOURS


def view(state, seat):
    n = state["n"]
    over = state["phase"] == "over"
    mine = seat is not None and 0 <= seat < n
    seats = []
    for s in range(n):
        seats.append(
            {
                "elf": state["elf"][s],
                "towns": [t for t, _ in state["got"][s]],
                "cards": R.hand_size(state, s),
                "up": sorted(state["up"][s]),
                "down": len(state["down"][s]),
                "trouble": state["trouble_left"][s],
                "keep_awaited": s in state["keep_await"],
                "keep_chosen": state["keep"][s] is not None,
            }
        )
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
    narrator = NARRATORS.get(event.type)
    return narrator(event.data, names) if narrator else event.type


def _who(d, names):
    seat = d.get("seat")
    return names[seat] if seat is not None and seat < len(names) else "someone"


def _n_game_started(d, _names):
    opts = [k.replace("_", " ").title() for k, on in d["options"].items() if on]
    extra = f" with {', '.join(opts)}" if opts else ""
    return f"A game of Elfenland for {d['players']} players begins{extra}. Every Elf starts in Elvenhold."


def _n_home_city_dealt(d, names):
    if "town" in d:
        return f"{_who(d, names)} was dealt the City Card {B.name(d['town'])} (secret)."
    return f"{_who(d, names)} was dealt a secret City Card."


def _n_round_started(d, names):
    return f"Round {d['round']} of {B.ROUNDS} begins; {names[d['first']]} is the First Player."


def _n_cards_dealt(d, names):
    if "cards" in d:
        return f"{_who(d, names)} was dealt {_cards(d['cards'])}."
    return f"{_who(d, names)} was dealt {d['count']} card{'s' if d['count'] != 1 else ''}."


def _n_secret_counter_drawn(d, names):
    if "counter" in d:
        return f"{_who(d, names)} drew a face-down {B.WORD[d['counter']]} counter."
    return f"{_who(d, names)} drew a face-down counter."


def _n_pool_filled(d, _names):
    return "Face-up counters: " + (", ".join(B.WORD[c] for c in d["counters"]) or "none") + "."


def _n_counter_taken(d, names):
    refill = f"; {B.WORD[d['refill']]} is turned face up" if d.get("refill") else ""
    return f"{_who(d, names)} took the face-up {B.WORD[d['counter']]}{refill}."


def _n_counter_drawn(d, names):
    return f"{_who(d, names)} drew blind: {B.WORD[d['counter']]}."


def _n_counter_placed(d, names):
    how = " (the face-down counter)" if d["hidden"] else ""
    return f"{_who(d, names)} placed {B.WORD[d['counter']]}{how} on {_route(d['route'])}."


def _n_trouble_placed(d, names):
    return f"{_who(d, names)} placed Trouble on {_route(d['route'])}."


def _n_passed(d, names):
    return f"{_who(d, names)} passed" + (" (nothing to place)." if d.get("auto") else ".")


_HOW = {"counter": "", "raft": " by raft", "caravan": " with a caravan", "boatmen": " with the Boatmen"}


def _n_moved(d, names):
    got = ", and collected the town piece there" if d["collected"] else ""
    return (
        f"{_who(d, names)} travelled {B.name(d['from'])} -> {B.name(d['to'])}{_HOW.get(d['how'], '')}, "
        f"playing {_cards(d['cards'])}{got}."
    )


def _n_move_ended(d, names):
    return f"{_who(d, names)} ended the move" + (" (no move possible)." if d.get("auto") else ".")


def _n_card_discarded(d, names):
    if "card" in d:
        return f"{_who(d, names)} discarded {B.WORD[d['card']]}."
    return f"{_who(d, names)} discarded a card."


def _n_round_ended(d, _names):
    return f"Round {d['round']} is over." + (" The game ends." if d["last"] else "")


def _n_counter_kept(d, names):
    if "counter" in d:
        if d["counter"] is None:
            return f"{_who(d, names)} chose to keep no counter."
        return f"{_who(d, names)} chose to keep {'the face-down ' if d['hidden'] else ''}{B.WORD[d['counter']]}."
    return f"{_who(d, names)} has chosen which counter to keep."


def _n_counters_kept(d, names):
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


def _n_home_cities_revealed(d, names):
    parts = [f"{names[s]}: {B.name(h)} ({d['distances'][s]} away)" for s, h in enumerate(d["homes"])]
    return "City Cards revealed: " + "; ".join(parts) + "."


def _n_game_ended(d, names):
    n = len(d["scores"])
    parts = [f"{names[s]} {sc}" for s, sc in enumerate(d["scores"])]
    if d.get("distances") is not None:
        keys = [(d["scores"][s], -d["distances"][s], d["cards"][s]) for s in range(n)]
    else:
        keys = [(d["scores"][s], d["cards"][s]) for s in range(n)]
    best = max(keys)
    winners = " and ".join(names[s] for s in range(n) if keys[s] == best)
    what = "Final scores (town pieces less Home City penalties)" if d.get("distances") is not None else "Town pieces"
    return f"The game is over. {what}: " + ", ".join(parts) + f". Winner: {winners}."


# One small function per event type: narrate(event, names) -> one line (an unknown type is named).
NARRATORS = {
    "GameStarted": _n_game_started,
    "HomeCityDealt": _n_home_city_dealt,
    "RoundStarted": _n_round_started,
    "CardsDealt": _n_cards_dealt,
    "SecretCounterDrawn": _n_secret_counter_drawn,
    "PoolFilled": _n_pool_filled,
    "CounterTaken": _n_counter_taken,
    "CounterDrawn": _n_counter_drawn,
    "CounterPlaced": _n_counter_placed,
    "TroublePlaced": _n_trouble_placed,
    "Passed": _n_passed,
    "Moved": _n_moved,
    "MoveEnded": _n_move_ended,
    "CardDiscarded": _n_card_discarded,
    "RoundEnded": _n_round_ended,
    "CounterKept": _n_counter_kept,
    "CountersKept": _n_counters_kept,
    "HomeCitiesRevealed": _n_home_cities_revealed,
    "GameEnded": _n_game_ended,
}


# ---------------------------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------------------------

WIDTH = 80


def _label(s, names=None) -> str:
    """A seat as the text board names it: the player's name with the colour when the platform
    gave the names (view["names"]), so the result names players as the standings do."""
    if names and s < len(names):
        return f"{names[s]} ({COLOURS[s]})"
    return f"P{s + 1} {COLOURS[s]}"


def _wrap(text, width=WIDTH, indent="    ") -> list[str]:
    """`text` in lines of at most `width` columns, broken between words and continued with
    `indent`; nothing is cut (the standard library's textwrap keeps every word)."""
    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)


def render_text(v):
    phase_text = {
        "draw": "step 2: drawing counters",
        "place": "step 3: placing counters",
        "move": "step 4: moving",
        "discard": "step 4: discarding",
        "keep": "step 5: keeping counters",
        "over": "game over",
    }.get(v["phase"], v["phase"])
    lines = [f"ELFENLAND  round {v['round']}/{v['rounds']}  {phase_text}"]
    opts = [k.replace("_", " ") for k, on in v["options"].items() if on]
    lines += _wrap(
        f"First player: {_label(v['first'], v.get('names'))}" + (f"   variants: {', '.join(opts)}" if opts else "")
    )
    if v["waiting"]:
        lines += _wrap("Waiting for: " + ", ".join(_label(s, v.get("names")) for s in v["waiting"]))
    lines.append("")
    for s, st in enumerate(v["seats"]):
        lines += _seat_lines(v, s, st)
    lines.append("(T: Trouble counter not yet used)")
    lines.append("")
    if v["phase"] in ("draw",):
        lines += _wrap("Face-up counters: " + (" ".join(B.WORD[c] for c in v["pool"]) or "none"))
    lines.append(f"Face-down counters: {v['pile']}   movement cards in the deck: {v['deck']}")
    if v["board"]:
        lines.append("Counters on routes:")
        for route in sorted(v["board"], key=lambda r: (B.ROUTES[r]["a"], B.ROUTES[r]["b"])):
            tr = f" + Trouble (P{v['trouble'][route] + 1})" if route in v["trouble"] else ""
            r = B.ROUTES[route]
            text = f"  {B.name(r['a'])}-{B.name(r['b'])} {r['type']}"
            lines += _wrap(f"{text:38} {B.WORD[v['board'][route]]}{tr}", indent=" " * 39)
    lines.append("Town pieces still on the board, by seat:")
    cells = []
    for t in B.PIECE_TOWNS:
        left = "".join(str(s + 1) for s, st in enumerate(v["seats"]) if t not in st["towns"])
        cells.append(f"{B.name(t):11} {left:6}")
    for i in range(0, len(cells), 4):
        lines.append("  " + "  ".join(cells[i : i + 4]).rstrip())
    if v["hand"] is not None:
        lines.append("")
        hand = ", ".join(f"{k} {B.WORD[c]}" for c, k in sorted(v["hand"].items()) if k) or "none"
        lines += _wrap(f"Your cards: {hand}")
        if v["down"]:
            lines += _wrap("Your face-down counter(s): " + " ".join(B.WORD[c] for c in v["down"]))
        if v["home"]:
            lines.append(f"Your City Card: {B.name(v['home'])}")
        if v["my_keep"]:
            k = v["my_keep"]
            lines.append("You keep: " + ("none" if k["counter"] is None else B.WORD[k["counter"]]))
        if v["reachable"] is not None:
            reach = ", ".join(B.name(t) for t in v["reachable"]) or "nowhere"
            lines += _wrap(f"You can reach this turn: {reach}", indent="  ")
    if v["final"]:
        f = v["final"]
        lines.append("")
        lines += _wrap(
            "Final result (winner: " + " and ".join(_label(s, v.get("names")) for s in f["ranking"][0]) + "):"
        )
        for s in range(v["players"]):
            extra = ""
            if f["distances"] is not None:
                extra = f", City Card {B.name(f['homes'][s])} {f['distances'][s]} away (-{f['penalties'][s]})"
            lines += _wrap(
                f"  {_label(s, v.get('names')):10} {f['scores'][s]:2} ({f['collected'][s]} towns{extra}, "
                f"{f['cards'][s]} card{'s' if f['cards'][s] != 1 else ''})",
                indent=" " * 16,
            )
    return "\n".join(line.rstrip() for line in lines)


def _seat_lines(v, s, st) -> list[str]:
    """A seat's line: where its Elf is, towns, cards, Trouble; its counters after it, or on a
    second line when they do not fit."""
    me = "*" if s == v["seat"] else " "
    trouble = "T" if st["trouble"] else " "
    head = f"{me}{_label(s, v.get('names')):10} at {B.name(st['elf']):12} towns {len(st['towns']):2}/20 cards {st['cards']} {trouble}"
    ctr = " ".join(B.WORD[c] for c in st["up"])
    if st["down"]:
        ctr = (ctr + f" +{st['down']} hidden").strip()
    if not ctr:
        return [head]
    if len(head) + 2 + len(ctr) <= WIDTH:
        return [f"{head}  {ctr}"]
    return [head] + _wrap(" " * 12 + "counters: " + ctr, indent=" " * 22)


# ---------------------------------------------------------------------------------------------
# pictures
# ---------------------------------------------------------------------------------------------

HTML_STYLE = (
    "<style>"
    ".elfenland svg{display:block;max-width:100%}.elfenland .elf-narrow{display:none}"
    "@media (max-width:700px){.elfenland .elf-wide{display:none}.elfenland .elf-narrow{display:block}}"
    ".elfenland a.elf-link:hover .elf-hit{fill-opacity:.2}"
    ".elfenland a.elf-link:focus{outline:none}"
    ".elfenland a.elf-link:focus .elf-hit,.elfenland a.elf-link:focus-visible .elf-hit"
    "{fill-opacity:.3;stroke:#0d47a1;stroke-width:3}"
    "</style>"
)


def render_html(v, links=None):
    """The board for the web page: a landscape drawing, and on a narrow screen (a media query)
    a portrait one whose text stays about 10 CSS px at a phone's width. With `links` (target ->
    URL) the targets are links with touch-sized hit areas. The text board is not repeated here:
    the page shows render_text once."""
    wide = D.draw(v, D.WIDE, links=links)
    narrow = D.draw(v, D.NARROW, links=links, prefix="n-")
    return f'<div class="elfenland">{HTML_STYLE}{wide}{narrow}</div>'


def render_svg(v):
    """The picture of a turn notice: the portrait drawing as one standalone SVG, 600 px wide."""
    return D.draw(v, D.NARROW, standalone=True, css_width=600, players=False)
