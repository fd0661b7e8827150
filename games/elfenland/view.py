"""What each seat sees, the events in words, and the renders: the 80-column text, the web board
and the picture of a turn notice (both drawn by drawing.py)."""

from __future__ import annotations

import textwrap

from . import board as B
from . import drawing as D
from . import rules as R
from .lang import N_, _, ngettext

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
    counted = _("{n} {card}")
    return ", ".join(counted.format(n=k, card=B.word(c)) if k > 1 else B.word(c) for c, k in sorted(out.items())) or _(
        "no cards"
    )


def _route(route) -> str:
    r = B.ROUTES[route]
    return f"{B.name(r['a'])}-{B.name(r['b'])} ({B.type_long(r['type'])})"


def narrate(event, names):
    narrator = NARRATORS.get(event.type)
    return narrator(event.data, names) if narrator else event.type


def _who(d, names):
    seat = d.get("seat")
    return names[seat] if seat is not None and seat < len(names) else _("someone")


# The variants by their option names, as narrations and boards name them.
VARIANTS = {"home_cities": N_("Home Cities"), "lakes": N_("Lakes"), "boatmen": N_("Boatmen")}


# …and as the text board names them, in a line of lower-case words.
VARIANT_WORDS = {"home_cities": N_("home cities"), "lakes": N_("lakes"), "boatmen": N_("boatmen")}


def _variant(option: str) -> str:
    return _(VARIANTS[option]) if option in VARIANTS else option.replace("_", " ").title()


def _n_game_started(d, _names):
    opts = [_variant(k) for k, on in d["options"].items() if on]
    if opts:
        text = _("A game of Elfenland for {n} players begins with {variants}. Every Elf starts in Elvenhold.")
        return text.format(n=d["players"], variants=", ".join(opts))
    return _("A game of Elfenland for {n} players begins. Every Elf starts in Elvenhold.").format(n=d["players"])


def _n_home_city_dealt(d, names):
    if "town" in d:
        return _("{who} was dealt the City Card {town} (secret).").format(who=_who(d, names), town=B.name(d["town"]))
    return _("{who} was dealt a secret City Card.").format(who=_who(d, names))


def _n_round_started(d, names):
    text = _("Round {round} of {rounds} begins; {first} is the First Player.")
    return text.format(round=d["round"], rounds=B.ROUNDS, first=names[d["first"]])


def _n_cards_dealt(d, names):
    if "cards" in d:
        return _("{who} was dealt {cards}.").format(who=_who(d, names), cards=_cards(d["cards"]))
    text = ngettext("{who} was dealt {n} card.", "{who} was dealt {n} cards.", d["count"])
    return text.format(who=_who(d, names), n=d["count"])


def _n_secret_counter_drawn(d, names):
    if "counter" in d:
        return _("{who} drew a face-down {counter} counter.").format(who=_who(d, names), counter=B.word(d["counter"]))
    return _("{who} drew a face-down counter.").format(who=_who(d, names))


def _n_pool_filled(d, _names):
    return _("Face-up counters: {counters}.").format(counters=", ".join(B.word(c) for c in d["counters"]) or _("none"))


def _n_counter_taken(d, names):
    who, counter = _who(d, names), B.word(d["counter"])
    if d.get("refill"):
        text = _("{who} took the face-up {counter}; {refill} is turned face up.")
        return text.format(who=who, counter=counter, refill=B.word(d["refill"]))
    return _("{who} took the face-up {counter}.").format(who=who, counter=counter)


def _n_counter_drawn(d, names):
    return _("{who} drew blind: {counter}.").format(who=_who(d, names), counter=B.word(d["counter"]))


def _n_counter_placed(d, names):
    if d["hidden"]:
        text = _("{who} placed {counter} (the face-down counter) on {route}.")
    else:
        text = _("{who} placed {counter} on {route}.")
    return text.format(who=_who(d, names), counter=B.word(d["counter"]), route=_route(d["route"]))


def _n_trouble_placed(d, names):
    return _("{who} placed Trouble on {route}.").format(who=_who(d, names), route=_route(d["route"]))


def _n_passed(d, names):
    text = _("{who} passed (nothing to place).") if d.get("auto") else _("{who} passed.")
    return text.format(who=_who(d, names))


_HOW = {
    "counter": N_("{who} travelled {a} -> {b}, playing {cards}."),
    "raft": N_("{who} travelled {a} -> {b} by raft, playing {cards}."),
    "caravan": N_("{who} travelled {a} -> {b} with a caravan, playing {cards}."),
    "boatmen": N_("{who} travelled {a} -> {b} with the Boatmen, playing {cards}."),
}
_HOW_COLLECTED = {
    "counter": N_("{who} travelled {a} -> {b}, playing {cards}, and collected the town piece there."),
    "raft": N_("{who} travelled {a} -> {b} by raft, playing {cards}, and collected the town piece there."),
    "caravan": N_("{who} travelled {a} -> {b} with a caravan, playing {cards}, and collected the town piece there."),
    "boatmen": N_("{who} travelled {a} -> {b} with the Boatmen, playing {cards}, and collected the town piece there."),
}


def _n_moved(d, names):
    text = (_HOW_COLLECTED if d["collected"] else _HOW).get(d["how"], _HOW["counter"])
    return _(text).format(who=_who(d, names), a=B.name(d["from"]), b=B.name(d["to"]), cards=_cards(d["cards"]))


def _n_move_ended(d, names):
    text = _("{who} ended the move (no move possible).") if d.get("auto") else _("{who} ended the move.")
    return text.format(who=_who(d, names))


def _n_card_discarded(d, names):
    if "card" in d:
        return _("{who} discarded {card}.").format(who=_who(d, names), card=B.word(d["card"]))
    return _("{who} discarded a card.").format(who=_who(d, names))


def _n_round_ended(d, _names):
    text = _("Round {round} is over. The game ends.") if d["last"] else _("Round {round} is over.")
    return text.format(round=d["round"])


def _n_counter_kept(d, names):
    who = _who(d, names)
    if "counter" not in d:
        return _("{who} has chosen which counter to keep.").format(who=who)
    if d["counter"] is None:
        return _("{who} chose to keep no counter.").format(who=who)
    if d["hidden"]:
        return _("{who} chose to keep the face-down {counter}.").format(who=who, counter=B.word(d["counter"]))
    return _("{who} chose to keep {counter}.").format(who=who, counter=B.word(d["counter"]))


def _n_counters_kept(d, names):
    parts = []
    for s, k in enumerate(d["kept"]):
        if k is None or s >= len(names):
            continue
        if k["none"]:
            parts.append(_("{who} keeps none").format(who=names[s]))
        elif k["hidden"]:
            parts.append(_("{who} keeps a face-down counter").format(who=names[s]))
        else:
            parts.append(_("{who} keeps {counter}").format(who=names[s], counter=B.word(k["counter"])))
    return _("Counters kept: {kept}.").format(kept="; ".join(parts) or _("none"))


def _n_home_cities_revealed(d, names):
    away = _("{who}: {town} ({n} away)")
    parts = [away.format(who=names[s], town=B.name(h), n=d["distances"][s]) for s, h in enumerate(d["homes"])]
    return _("City Cards revealed: {homes}.").format(homes="; ".join(parts))


def _n_game_ended(d, names):
    n = len(d["scores"])
    parts = [f"{names[s]} {sc}" for s, sc in enumerate(d["scores"])]
    if d.get("distances") is not None:
        keys = [(d["scores"][s], -d["distances"][s], d["cards"][s]) for s in range(n)]
        text = _("The game is over. Final scores (town pieces less Home City penalties): {scores}. Winner: {winners}.")
    else:
        keys = [(d["scores"][s], d["cards"][s]) for s in range(n)]
        text = _("The game is over. Town pieces: {scores}. Winner: {winners}.")
    best = max(keys)
    winners = _(" and ").join(names[s] for s in range(n) if keys[s] == best)
    return text.format(scores=", ".join(parts), winners=winners)


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
        return f"{names[s]} ({D.colour(s)})"
    return f"P{s + 1} {D.colour(s)}"


def _wrap(text, width=WIDTH, indent="    ") -> list[str]:
    """`text` in lines of at most `width` columns, broken between words and continued with
    `indent`; nothing is cut (the standard library's textwrap keeps every word)."""
    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)


PHASE_TEXT = {
    "draw": N_("step 2: drawing counters"),
    "place": N_("step 3: placing counters"),
    "move": N_("step 4: moving"),
    "discard": N_("step 4: discarding"),
    "keep": N_("step 5: keeping counters"),
    "over": N_("game over"),
}


def render_text(v):
    phase_text = _(PHASE_TEXT[phase_key]) if (phase_key := v["phase"]) in PHASE_TEXT else phase_key
    lines = [
        _("ELFENLAND  round {round}/{rounds}  {phase}").format(round=v["round"], rounds=v["rounds"], phase=phase_text)
    ]
    opts = [_(VARIANT_WORDS[k]) if k in VARIANT_WORDS else k.replace("_", " ") for k, on in v["options"].items() if on]
    first = _("First player: {seat}").format(seat=_label(v["first"], v.get("names")))
    lines += _wrap(first + (_("   variants: {variants}").format(variants=", ".join(opts)) if opts else ""))
    if v["waiting"]:
        lines += _wrap(
            _("Waiting for: {seats}").format(seats=", ".join(_label(s, v.get("names")) for s in v["waiting"]))
        )
    lines.append("")
    for s, st in enumerate(v["seats"]):
        lines += _seat_lines(v, s, st)
    lines.append(_("(T: Trouble counter not yet used)"))
    lines.append("")
    if v["phase"] in ("draw",):
        lines += _wrap(
            _("Face-up counters: {counters}").format(counters=" ".join(B.word(c) for c in v["pool"]) or _("none"))
        )
    lines.append(
        _("Face-down counters: {pile}   movement cards in the deck: {deck}").format(pile=v["pile"], deck=v["deck"])
    )
    lines += _board_lines(v)
    lines += _own_lines(v)
    lines += _final_lines(v)
    return "\n".join(line.rstrip() for line in lines)


def _board_lines(v) -> list[str]:
    """The counters on the routes, and the town pieces still to collect."""
    lines = []
    if v["board"]:
        lines.append(_("Counters on routes:"))
        for route in sorted(v["board"], key=lambda r: (B.ROUTES[r]["a"], B.ROUTES[r]["b"])):
            tr = _(" + Trouble (P{n})").format(n=v["trouble"][route] + 1) if route in v["trouble"] else ""
            r = B.ROUTES[route]
            text = f"  {B.name(r['a'])}-{B.name(r['b'])} {B.type_word(r['type'])}"
            lines += _wrap(f"{text:38} {B.word(v['board'][route])}{tr}", indent=" " * 39)
    lines.append(_("Town pieces still on the board, by seat:"))
    cells = []
    for t in B.PIECE_TOWNS:
        left = "".join(str(s + 1) for s, st in enumerate(v["seats"]) if t not in st["towns"])
        cells.append(f"{B.name(t):11} {left:6}")
    for i in range(0, len(cells), 4):
        lines.append("  " + "  ".join(cells[i : i + 4]).rstrip())
    return lines


def _own_lines(v) -> list[str]:
    """What only the seat itself sees: its cards, face-down counters, City Card, reach."""
    if v["hand"] is None:
        return []
    lines = [""]
    counted = _("{n} {card}")
    hand = ", ".join(counted.format(n=k, card=B.word(c)) for c, k in sorted(v["hand"].items()) if k) or _("none")
    lines += _wrap(_("Your cards: {cards}").format(cards=hand))
    if v["down"]:
        lines += _wrap(
            _("Your face-down counter(s): {counters}").format(counters=" ".join(B.word(c) for c in v["down"]))
        )
    if v["home"]:
        lines.append(_("Your City Card: {town}").format(town=B.name(v["home"])))
    if v["my_keep"]:
        k = v["my_keep"]
        lines.append(
            _("You keep: {counter}").format(counter=_("none") if k["counter"] is None else B.word(k["counter"]))
        )
    if v["reachable"] is not None:
        reach = ", ".join(B.name(t) for t in v["reachable"]) or _("nowhere")
        lines += _wrap(_("You can reach this turn: {towns}").format(towns=reach), indent="  ")
    return lines


def _final_lines(v) -> list[str]:
    if not v["final"]:
        return []
    f = v["final"]
    names = v.get("names")
    winners = _(" and ").join(_label(s, names) for s in f["ranking"][0])
    lines = [""] + _wrap(_("Final result (winner: {winners}):").format(winners=winners))
    for s in range(v["players"]):
        cards = ngettext("{n} card", "{n} cards", f["cards"][s]).format(n=f["cards"][s])
        if f["distances"] is not None:
            text = _("{towns} towns, City Card {town} {n} away (-{penalty}), {cards}").format(
                towns=f["collected"][s],
                town=B.name(f["homes"][s]),
                n=f["distances"][s],
                penalty=f["penalties"][s],
                cards=cards,
            )
        else:
            text = _("{towns} towns, {cards}").format(towns=f["collected"][s], cards=cards)
        lines += _wrap(f"  {_label(s, names):10} {f['scores'][s]:2} ({text})", indent=" " * 16)
    return lines


def _seat_lines(v, s, st) -> list[str]:
    """A seat's line: where its Elf is, towns, cards, Trouble; its counters after it, or on a
    second line when they do not fit."""
    me = "*" if s == v["seat"] else " "
    trouble = "T" if st["trouble"] else " "
    head = me + _("{seat:10} at {town:12} towns {towns:2}/20 cards {cards} {trouble}").format(
        seat=_label(s, v.get("names")),
        town=B.name(st["elf"]),
        towns=len(st["towns"]),
        cards=st["cards"],
        trouble=trouble,
    )
    ctr = " ".join(B.word(c) for c in st["up"])
    if st["down"]:
        ctr = (ctr + _(" +{n} hidden").format(n=st["down"])).strip()
    if not ctr:
        return [head]
    if len(head) + 2 + len(ctr) <= WIDTH:
        return [f"{head}  {ctr}"]
    return [head] + _wrap(" " * 12 + _("counters: {counters}").format(counters=ctr), indent=" " * 22)


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
