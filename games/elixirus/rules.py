"""Elixirus: state, decide, evolve and the bookkeeping around them.

Stages of a round: "place" (A, apprentices one at a time in turn order), "collect" (B, resolved
piece by piece from the signpost, space by space), "brew" (C, simultaneous and secret until all
are done), then the end of the round. See RULINGS.md for every decision the rulebook leaves open.
"""

from __future__ import annotations

import json
from itertools import combinations

from games.base import Event, Rejected, Result, ScoreLine

from . import words as W
from .data_model import (
    ALL_TOKENS,
    APPRENTICES,
    CORK_FIRST,
    CORK_LATER,
    CORKS_TO_END,
    CURVES,
    FLASKS,
    INGREDIENTS,
    PIECE_BY_EFFECT,
    PIECE_IDS,
    PIECES,
    SPACES,
    TABLE_IDS,
    TABLES,
    book_slot,
    matches,
)
from .lang import N_, _, ngettext

SEAT_COLOURS = ("white", "black", "pink", "brown", "grey")
# Why a game ended (GameEnded's reason), in words.
ENDINGS = {
    "cork": "a fourth cork was taken",
    "exhausted": "no ingredients are left to collect",
    "unwanted": "nobody would collect the ingredients left",
}
DESTS = FLASKS + ("book", "bowl", "poison")


def _copy(obj):
    return json.loads(json.dumps(obj))


# ---------------------------------------------------------------------------------------------
# Bag
# ---------------------------------------------------------------------------------------------


def bag_draw(bag: list, box: list, k: int, rng) -> tuple[list, int | None]:
    """Draws k ingredients blindly (decide side). When the bag runs dry, the box is poured back
    into it once (RULINGS: empty bag); if both are empty, fewer are drawn.
    Returns (drawn, poured) with poured = how many were drawn before the box was poured, or None."""
    bag = list(bag)
    drawn: list = []
    poured = None
    for _i in range(k):
        if not bag:
            if box and poured is None:
                poured = len(drawn)
                bag = list(box)
            else:
                break
        drawn.append(bag.pop(rng.randbelow(len(bag))))
    return drawn, poured


def _apply_draw(state, drawn, poured):
    bag = state["bag"]
    for i, tok in enumerate(drawn):
        if poured == i:
            bag.extend(state["box"])
            state["box"] = []
        bag.remove(tok)


# ---------------------------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------------------------


def setup(players, options, rng):
    tables = rng.sample(TABLE_IDS, players)
    circle = rng.shuffle(PIECE_IDS)
    face_up = min(players + 1, 6)
    if face_up == 6:
        up = [True] * 6
        signpost = rng.randbelow(6)  # all face up: the signpost goes on a random piece
    else:
        up = [i < face_up for i in range(6)]
        signpost = 0  # the first face-up piece clockwise
    start = rng.randbelow(players)
    bag = list(ALL_TOKENS)
    drawn, poured = bag_draw(bag, [], 4 * face_up, rng)
    fill = []
    k = 0
    for i in range(6):
        pos = (signpost + i) % 6
        if up[pos]:
            for c in range(CURVES):
                fill.append([pos, c, drawn[k]])
                k += 1
    public_circle = [p if up[i] else None for i, p in enumerate(circle)]
    return [
        Event("GameStarted", {"players": players, "tables": tables, "start": start, "signpost": signpost, "up": up}),
        Event("ForestLaid", {"circle": circle}, visible_to=(), public={"circle": public_circle}),
        Event("ForestFilled", {"fill": fill, "poured": poured}),
    ]


def _new_state(d):
    n = d["players"]
    return {
        "n": n,
        "round": 1,
        "phase": "setup",
        "start": d["start"],
        "turn": d["start"],
        "tables": list(d["tables"]),
        "circle": [None] * 6,
        "up": list(d["up"]),
        "known": list(d["up"]),
        "signpost": d["signpost"],
        "curves": [[None] * CURVES for _ in range(6)],
        "spaces": [[None] * SPACES for _ in range(6)],
        "left": [APPRENTICES] * n,
        "bag": list(ALL_TOKENS),
        "box": [],
        "front": [[] for _ in range(n)],
        "bowl": [None] * n,
        "flasks": [{f: [] for f in FLASKS} for _ in range(n)],
        "book": [[None, None] for _ in range(n)],
        "poison": [[] for _ in range(n)],
        "corks": [{} for _ in range(n)],
        "basket": None,
        "queue": [],
        "qi": 0,
        "step": None,
        "looking": [],
        "drafts": None,
        "done": [False] * n,
        "history": [],
        "end": None,
    }


# ---------------------------------------------------------------------------------------------
# Evolve
# ---------------------------------------------------------------------------------------------


def evolve(state, event):
    d = event.data
    t = event.type
    if t == "GameStarted":
        return _new_state(d)
    handler = _HANDLERS.get(t)
    if handler is None:
        raise ValueError(f"unknown event {t}")
    handler(state, d)
    return state


def _ev_forest_laid(state, d):
    state["circle"] = list(d["circle"])


def _ev_forest_filled(state, d):
    _apply_draw(state, [f[2] for f in d["fill"]], d["poured"])
    for pos, c, tok in d["fill"]:
        state["curves"][pos][c] = tok
    state["phase"] = "place"


def _ev_placed(state, d):
    seat = d["seat"]
    pos = _pos(state, d["piece"])
    state["spaces"][pos][d["space"]] = seat
    state["left"][seat] -= 1
    if sum(state["left"]):
        n = state["n"]
        nxt = (seat + 1) % n
        while not state["left"][nxt]:
            nxt = (nxt + 1) % n
        state["turn"] = nxt
    else:
        state["turn"] = None
        state["phase"] = "collect"
        state["queue"] = [
            [pos, sp] for pos in order(state) for sp in range(SPACES) if state["spaces"][pos][sp] is not None
        ]
        state["qi"] = 0
        state["step"] = "take"
        _advance(state)


def _ev_collected(state, d):
    seat = d["seat"]
    pos, sp = state["queue"][state["qi"]]
    curves = state["curves"][pos]
    front = state["front"][seat]
    for c in d["curves"]:
        front.append(curves[c])
        curves[c] = None
    if d["drawn"]:
        _apply_draw(state, d["drawn"], d["poured"])
        front.extend(d["drawn"])
    _after_take(state, sp)


def _after_take(state, sp):
    if sp == SPACES - 1:
        state["step"] = "effect"
    else:
        _home(state)
    _advance(state)


def _home(state):
    pos, sp = state["queue"][state["qi"]]
    state["spaces"][pos][sp] = None
    state["qi"] += 1
    state["step"] = "take"


def _effect_done(state):
    _home(state)
    _advance(state)


def _ev_skipped(state, d):
    _effect_done(state)


def _ev_stolen(state, d):
    state["front"][d["from"]].remove(d["ing"])
    state["front"][d["seat"]].append(d["ing"])
    _effect_done(state)


def _ev_swapped(state, d):
    pos = _pos(state, d["piece"])
    front = state["front"][d["seat"]]
    front.remove(d["ing"])
    front.append(state["curves"][pos][d["curve"]])
    state["curves"][pos][d["curve"]] = d["ing"]
    _effect_done(state)


def _ev_draw_looked(state, d):
    _apply_draw(state, d["drawn"], d["poured"])
    state["looking"] = list(d["drawn"])
    if d["drawn"]:
        state["step"] = "keep"
    else:
        _effect_done(state)


def _ev_draw_kept(state, d):
    front = state["front"][d["seat"]]
    for tok in d["keep"]:
        state["looking"].remove(tok)
        front.append(tok)
    state["bag"].extend(state["looking"])
    state["looking"] = []
    _effect_done(state)


def _ev_replaced(state, d):
    pos = _pos(state, d["piece"])
    curves = state["curves"][pos]
    for c in d["curves"]:
        state["bag"].append(curves[c])
        curves[c] = None
    _apply_draw(state, d["drawn"], d["poured"])
    for c, tok in zip(d["curves"], d["drawn"]):
        curves[c] = tok
    _effect_done(state)


def _ev_danced(state, d):
    pos = _pos(state, d["piece"])
    sp = state["spaces"][pos]
    a, b = d["spaces"]
    sp[a], sp[b] = sp[b], sp[a]
    _effect_done(state)


def _ev_basket_taken(state, d):
    state["basket"] = d["seat"]
    _effect_done(state)


def _ev_placed_ing(state, d):
    dr = state["drafts"][d["seat"]]
    tok, dest = d["ing"], d["to"]
    if d["src"] == "front":
        dr["front"].remove(tok)
    else:
        dr["bowl"] = None
    if dest == "bowl":
        dr["bowl"] = tok
    dr["moves"].append([tok, dest])


def _ev_picked(state, d):
    dr = state["drafts"][d["seat"]]
    dr["picked"] = [_pos(state, d["piece"]), d["curve"]]
    dr["front"].append(d["ing"])
    dr["moves"].append([d["ing"], "basket"])


def _ev_brew_done(state, d):
    state["done"][d["seat"]] = True


def _ev_brew_reset(state, d):
    seat = d["seat"]
    state["done"][seat] = False
    state["drafts"][seat] = _draft(state, seat)


def _ev_revealed(state, d):
    for seat in range(state["n"]):
        dr = state["drafts"][seat]
        _apply_moves(state, seat, dr["moves"], state["flasks"][seat], state["book"][seat], state["poison"][seat])
        state["front"][seat] = dr["front"]
        state["bowl"][seat] = dr["bowl"]
        if dr["picked"] is not None:
            pos, c = dr["picked"]
            state["curves"][pos][c] = None
            state["basket"] = None
    for seat, flask, points in d["corks"]:
        state["corks"][seat][flask] = points
    state["drafts"] = None
    state["done"] = [False] * state["n"]
    state["phase"] = "reveal"
    state["history"].append([scores_breakdown(state, s) for s in range(state["n"])])


def _ev_round_ended(state, d):
    box = state["box"]
    for pos in range(6):
        curves = state["curves"][pos]
        for c in range(CURVES):
            if curves[c] is not None:
                box.append(curves[c])
                curves[c] = None
    state["signpost"] = d["signpost"]
    if d["down"] is not None:
        state["up"][d["down"]] = False
        state["up"][d["up"]] = True
        state["known"][d["up"]] = True
    _ev_forest_filled(state, d)
    state["round"] += 1
    state["start"] = d["start"]
    state["turn"] = d["start"]
    state["left"] = [APPRENTICES] * state["n"]
    state["queue"] = []
    state["qi"] = 0
    state["step"] = None


def _ev_game_ended(state, d):
    for seat, tok in d["bowl"]:
        state["bowl"][seat] = None
        state["poison"][seat].append(tok)
    state["phase"] = "over"
    state["end"] = d["reason"]
    state["known"] = [True] * 6
    final = [scores_breakdown(state, s) for s in range(state["n"])]
    if state["history"]:
        state["history"][-1] = final
    else:
        state["history"].append(final)


_HANDLERS = {
    "ForestLaid": _ev_forest_laid,
    "ForestFilled": _ev_forest_filled,
    "ApprenticePlaced": _ev_placed,
    "IngredientsCollected": _ev_collected,
    "EffectSkipped": _ev_skipped,
    "IngredientStolen": _ev_stolen,
    "IngredientSwapped": _ev_swapped,
    "DrawLooked": _ev_draw_looked,
    "DrawKept": _ev_draw_kept,
    "IngredientsReplaced": _ev_replaced,
    "ApprenticesDanced": _ev_danced,
    "BasketTaken": _ev_basket_taken,
    "IngredientPlaced": _ev_placed_ing,
    "LeftoverPicked": _ev_picked,
    "BrewDone": _ev_brew_done,
    "BrewReset": _ev_brew_reset,
    "PotionsRevealed": _ev_revealed,
    "RoundEnded": _ev_round_ended,
    "GameEnded": _ev_game_ended,
}


def _draft(state, seat):
    """A seat's secret concocting this round: what is still in front, the bowl, and the moves made.
    The flasks, book and poison flask as they would be are the committed ones plus the moves."""
    return {"front": list(state["front"][seat]), "bowl": state["bowl"][seat], "picked": None, "moves": []}


def _apply_moves(state, seat, moves, flasks, book, poison):
    table = state["tables"][seat]
    for tok, dest in moves:
        if dest == "poison":
            poison.append(tok)
        elif dest == "book":
            book[book_slot(table, tok)] = tok
        elif dest in flasks:
            flasks[dest].append(tok)


def draft_table(state, seat) -> dict:
    """The seat's table as its secret concocting would leave it (only that seat may see this)."""
    dr = state["drafts"][seat]
    flasks = {f: list(v) for f, v in state["flasks"][seat].items()}
    book = list(state["book"][seat])
    poison = list(state["poison"][seat])
    _apply_moves(state, seat, dr["moves"], flasks, book, poison)
    return {
        "front": list(dr["front"]),
        "bowl": dr["bowl"],
        "flasks": flasks,
        "book": book,
        "poison": poison,
        "picked": list(dr["picked"]) if dr["picked"] else None,
        "moves": [list(m) for m in dr["moves"]],
    }


def _advance(state):
    """Moves the collecting cursor to the next apprentice who has something to decide."""
    queue = state["queue"]
    while state["qi"] < len(queue):
        pos, sp = queue[state["qi"]]
        if state["step"] == "take":
            if any(c is not None for c in state["curves"][pos]):
                return
            if sp == SPACES - 1:
                state["step"] = "effect"
            else:
                _home(state)
            continue
        if state["step"] == "effect":
            if effect_options(state, pos, state["spaces"][pos][sp]):
                return
            _home(state)
            continue
        return  # "keep"
    # Stage C begins: everyone concocts at once.
    state["phase"] = "brew"
    state["step"] = None
    state["drafts"] = [_draft(state, s) for s in range(state["n"])]
    state["done"] = [False] * state["n"]


# ---------------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------------


def order(state) -> list[int]:
    """Face-up piece positions in resolution order: from the signpost, clockwise."""
    sign = state["signpost"]
    return [(sign + i) % 6 for i in range(6) if state["up"][(sign + i) % 6]]


def _pos(state, effect: str) -> int:
    return state["circle"].index(PIECE_BY_EFFECT[effect])


def effect_of(state, pos: int) -> str:
    return PIECES[state["circle"][pos]]["effect"]


def current(state):
    """(seat, pos, space) of the apprentice being resolved in stage B, or None."""
    if state["phase"] != "collect" or state["qi"] >= len(state["queue"]):
        return None
    pos, sp = state["queue"][state["qi"]]
    return state["spaces"][pos][sp], pos, sp


def waiting_for(state):
    phase = state["phase"]
    if phase == "place":
        return [state["turn"]]
    if phase == "collect":
        cur = current(state)
        return [cur[0]] if cur else []
    if phase == "brew":
        return [s for s in range(state["n"]) if not state["done"][s]]
    return []


def can_act(state, seat):
    return state["phase"] == "brew" and state["done"][seat]


def effect_options(state, pos, seat) -> list[dict]:
    """Every effect command the apprentice on the third space of `pos` may give (without skip)."""
    effect = effect_of(state, pos)
    out: list[dict] = []
    if effect == "steal":
        for other in range(state["n"]):
            if other != seat:
                for tok in sorted(set(state["front"][other])):
                    out.append({"type": "steal", "ing": tok, "from": other})
    elif effect == "swap":
        mine = sorted(set(state["front"][seat]))
        if mine:
            for p in order(state):
                for c, tok in enumerate(state["curves"][p]):
                    if tok is not None:
                        for m in mine:
                            out.append({"type": "swap", "ing": m, "piece": effect_of(state, p), "curve": c + 1})
    elif effect == "draw":
        if state["bag"] or state["box"]:
            out.append({"type": "draw"})
    elif effect == "replace":
        for p in order(state):
            if p == pos:
                continue
            full = [c + 1 for c, tok in enumerate(state["curves"][p]) if tok is not None]
            name = effect_of(state, p)
            for k in (1, 2):
                for combo in combinations(full, k):
                    out.append({"type": "replace", "piece": name, "curves": list(combo)})
    elif effect == "dance":
        for p in order(state):
            if p == pos:
                continue
            sp = state["spaces"][p]
            for a, b in combinations(range(SPACES), 2):
                if sp[a] is not None and sp[b] is not None and sp[a] != sp[b]:
                    out.append({"type": "dance", "piece": effect_of(state, p), "spaces": [a + 1, b + 1]})
    elif effect == "collect":
        if state["basket"] != seat:
            out.append({"type": "basket"})
    return out


def _draft_options(state, seat) -> list[dict]:
    dr = draft_table(state, seat)
    table = state["tables"][seat]
    reqs = TABLES[table]["flasks"]
    out: list[dict] = []
    seen = set()
    sources = [t for t in dr["front"]]
    if dr["bowl"] is not None:
        sources.append(dr["bowl"])
    for tok in sources:
        if tok in seen:
            continue
        seen.add(tok)
        in_front = tok in dr["front"]
        for f in FLASKS:
            filled = dr["flasks"][f]
            req = reqs[f]
            if len(filled) < len(req) and matches(tok, req[len(filled)]):
                out.append({"type": "put", "ing": tok, "to": f})
        slot = book_slot(table, tok)
        if slot is not None and dr["book"][slot] is None:
            out.append({"type": "put", "ing": tok, "to": "book"})
        if in_front and dr["bowl"] is None:
            out.append({"type": "put", "ing": tok, "to": "bowl"})
        out.append({"type": "put", "ing": tok, "to": "poison"})
    if state["basket"] == seat and dr["picked"] is None:
        for p in order(state):
            for c, tok in enumerate(state["curves"][p]):
                if tok is not None:
                    out.append({"type": "pick", "piece": effect_of(state, p), "curve": c + 1})
    if not dr["front"]:
        out.append({"type": "done"})
    # "reset" (revising this round's concocting) is accepted by decide but, like the platform's undo,
    # not listed here (RULINGS #34: revising a secret placement).
    return out


def legal(state, seat):
    if seat not in waiting_for(state):
        return []
    phase = state["phase"]
    if phase == "place":
        return [
            {"type": "place", "piece": effect_of(state, p), "space": sp + 1}
            for p in order(state)
            for sp in range(SPACES)
            if state["spaces"][p][sp] is None
        ]
    if phase == "collect":
        _who, pos, sp = current(state)
        step = state["step"]
        if step == "take":
            full = [c + 1 for c, tok in enumerate(state["curves"][pos]) if tok is not None]
            k = min(PIECES[state["circle"][pos]]["baskets"][sp], len(full))
            return [{"type": "take", "curves": list(combo)} for combo in combinations(full, k)]
        if step == "effect":
            return effect_options(state, pos, seat) + [{"type": "skip"}]
        looking = state["looking"]
        keeps = {tuple(sorted([a])) for a in looking}
        keeps |= {tuple(sorted(pair)) for pair in combinations(looking, 2)}
        return [{"type": "keep", "ings": list(k)} for k in sorted(keeps)]
    if phase == "brew":
        return _draft_options(state, seat)
    return []


# ---------------------------------------------------------------------------------------------
# Decide
# ---------------------------------------------------------------------------------------------


def _seat_word(seat):
    return W.seat(SEAT_COLOURS[seat])


def decide(state, seat, command, rng):
    if not isinstance(command, dict):
        raise Rejected(_("That is not a command."))
    phase = state["phase"]
    if phase == "over":
        raise Rejected(_("The game is over."))
    if phase != "brew":
        _check_turn(state, seat, phase)
    return DECIDERS.get(phase, _decide_collect)(state, seat, command, rng)


def _check_turn(state, seat, phase):
    if seat not in waiting_for(state):
        if phase == "place":
            raise Rejected(_("It is {colour}'s turn to place an apprentice.").format(colour=_seat_word(state["turn"])))
        raise Rejected(_("It is not your turn."))


def _piece_pos(state, name, must_be_up=True):
    if not isinstance(name, str) or name not in PIECE_BY_EFFECT:
        raise Rejected(_("There is no piece of forest called {name!r}.").format(name=name))
    pos = _pos(state, name)
    if must_be_up and not state["up"][pos]:
        raise Rejected(_("The {name} piece of forest is face down.").format(name=W.effect(name)))
    return pos


def _decide_place(state, seat, command, _rng):
    if command.get("type") != "place":
        raise Rejected(_("Now place an apprentice: 'place <piece> <space>', e.g. 'place steal 2'."))
    name = command.get("piece")
    space = command.get("space")
    pos = _piece_pos(state, name)
    if space not in (1, 2, 3):
        raise Rejected(_("Each piece of forest has spaces 1, 2 and 3."))
    if state["spaces"][pos][space - 1] is not None:
        raise Rejected(
            _("Space {space} of the {name} piece is taken: only 1 apprentice may occupy a space.").format(
                space=space, name=W.effect(name)
            )
        )
    return [Event("ApprenticePlaced", {"seat": seat, "piece": name, "space": space - 1})]


def _decide_collect(state, seat, command, rng):
    return COLLECT_STEPS.get(state["step"], _decide_effect)(state, seat, command, rng)


def _take_curves(state, pos, sp, command):
    """The curves a 'take' names, checked against the piece; 0-based and sorted."""
    curves = command.get("curves")
    if not isinstance(curves, list) or not all(isinstance(c, int) for c in curves):
        raise Rejected(_("Say which curves: 'take 2 4'."))
    full = [c + 1 for c, tok in enumerate(state["curves"][pos]) if tok is not None]
    need = min(PIECES[state["circle"][pos]]["baskets"][sp], len(full))
    if len(set(curves)) != len(curves):
        raise Rejected(_("Name each curve once."))
    for c in curves:
        if c not in full:
            raise Rejected(
                _("There is no ingredient in curve {c} of this piece (curves with one: {full}).").format(c=c, full=full)
            )
    if len(curves) != need:
        raise Rejected(
            ngettext(
                "You must collect exactly {need} ingredient here.",
                "You must collect exactly {need} ingredients here.",
                need,
            ).format(need=need)
        )
    return sorted(c - 1 for c in curves)


def _decide_take(state, seat, command, rng):
    _who, pos, sp = current(state)
    if command.get("type") != "take":
        raise Rejected(_("First collect your ingredients: 'take <curve> [<curve>]', e.g. 'take 2 4'."))
    cs = _take_curves(state, pos, sp, command)
    drawn, poured = [], None
    if PIECES[state["circle"][pos]]["bag_curve"] in cs:
        drawn, poured = bag_draw(state["bag"], state["box"], 1, rng)
    data = {
        "seat": seat,
        "piece": effect_of(state, pos),
        "space": sp,
        "curves": cs,
        "ings": [state["curves"][pos][c] for c in cs],
        "drawn": drawn,
        "poured": poured,
    }
    return [Event("IngredientsCollected", data, reveals=bool(drawn))]


def _decide_keep(state, seat, command, _rng):
    if command.get("type") != "keep":
        raise Rejected(_("Keep 1 or 2 of the ingredients you drew: 'keep <ingredient> [and <ingredient>]'."))
    keep = command.get("ings")
    if not isinstance(keep, list) or not 1 <= len(keep) <= 2:
        raise Rejected(_("Keep 1 or 2 of them."))
    pool = list(state["looking"])
    for tok in keep:
        if tok not in pool:
            raise Rejected(
                _("You did not draw {ing}; you drew {drawn}.").format(
                    ing=W.ingredient(tok), drawn=W.ingredients(state["looking"])
                )
            )
        pool.remove(tok)
    keep = sorted(keep)
    public = {"seat": seat, "keep": keep, "back": len(pool)}
    return [
        Event("DrawKept", {"seat": seat, "keep": keep, "back": pool}, visible_to=(seat,), public=public, reveals=True)
    ]


def _decide_effect(state, seat, command, rng):
    _who, pos, _sp = current(state)
    kind = command.get("type")
    if kind == "skip":
        return [Event("EffectSkipped", {"seat": seat, "effect": effect_of(state, pos)})]
    options = effect_options(state, pos, seat)
    effect = effect_of(state, pos)
    if kind != effect and not (effect == "collect" and kind == "basket"):
        raise Rejected(_("The effect here is {effect}: use it or 'skip'.").format(effect=W.effect(effect)))
    norm = _normalise_effect(command)
    if norm not in options:
        raise Rejected(_effect_reason(state, pos, seat, norm))
    return EFFECTS.get(kind, _effect_basket)(state, seat, norm, rng)


def _effect_steal(_state, seat, norm, _rng):
    return [Event("IngredientStolen", {"seat": seat, "from": norm["from"], "ing": norm["ing"]})]


def _effect_swap(state, seat, norm, _rng):
    p = _pos(state, norm["piece"])
    got = state["curves"][p][norm["curve"] - 1]
    data = {"seat": seat, "ing": norm["ing"], "piece": norm["piece"], "curve": norm["curve"] - 1, "got": got}
    return [Event("IngredientSwapped", data)]


def _effect_draw(state, seat, _norm, rng):
    drawn, poured = bag_draw(state["bag"], state["box"], 3, rng)
    public = {"seat": seat, "count": len(drawn), "poured": poured}
    data = {"seat": seat, "drawn": drawn, "poured": poured}
    return [Event("DrawLooked", data, visible_to=(seat,), public=public, reveals=True)]


def _effect_replace(state, seat, norm, rng):
    p = _pos(state, norm["piece"])
    cs = [c - 1 for c in norm["curves"]]
    removed = [state["curves"][p][c] for c in cs]
    drawn, poured = bag_draw(state["bag"] + removed, state["box"], len(cs), rng)
    data = {"seat": seat, "piece": norm["piece"], "curves": cs, "removed": removed, "drawn": drawn, "poured": poured}
    return [Event("IngredientsReplaced", data, reveals=True)]


def _effect_dance(state, seat, norm, _rng):
    p = _pos(state, norm["piece"])
    a, b = norm["spaces"]
    sp_ = state["spaces"][p]
    data = {"seat": seat, "piece": norm["piece"], "spaces": [a - 1, b - 1], "seats": [sp_[a - 1], sp_[b - 1]]}
    return [Event("ApprenticesDanced", data)]


def _effect_basket(state, seat, _norm, _rng):
    return [Event("BasketTaken", {"seat": seat, "from": state["basket"]})]


def _normalise_effect(command):
    out = dict(command)
    for k in ("curves", "spaces"):
        if isinstance(out.get(k), list):
            try:
                out[k] = sorted(out[k])
            except TypeError:
                pass
    return out


def _effect_reason(state, pos, seat, command):
    kind = command.get("type")
    if kind == "steal":
        victim = command.get("from")
        if victim == seat:
            return _("Steal takes an ingredient from someone else.")
        if (
            not isinstance(victim, int)
            or not 0 <= victim < state["n"]
            or command.get("ing") not in state["front"][victim]
        ):
            return _("Steal takes 1 ingredient another player has collected in this stage (not from their table).")
    if kind == "swap":
        if command.get("ing") not in state["front"][seat]:
            return _("Swap gives 1 ingredient you collected in this stage (not from your table).")
        return _("Swap takes 1 ingredient still lying on a face-up piece of forest: name the piece and curve.")
    if kind == "replace":
        return _(
            "Replace 1 or 2 ingredients on one other face-up piece of forest: 'replace <piece> <curve> [<curve>]'."
        )
    if kind == "dance":
        return _("Dance swaps 2 apprentices of different colours on one other piece of forest: 'dance <piece> 1 3'.")
    if kind == "basket":
        return _("You already hold the basket tile.")
    if kind == "draw":
        return _("The bag and the box are empty: there is nothing to draw.")
    return _("That is not possible now.")


def _decide_brew(state, seat, command, rng):
    kind = command.get("type")
    if state["done"][seat]:
        if kind == "reset":
            return [Event("BrewReset", {"seat": seat})]
        raise Rejected(
            _(
                "You have finished concocting for this round; 'reset' to start your concocting again "
                "(possible until the last player is done)."
            )
        )
    return BREWERS.get(kind, _brew_put)(state, seat, command, rng)


def _brew_reset(state, seat, _command, _rng):
    if not draft_table(state, seat)["moves"]:
        raise Rejected(_("You have not placed anything yet this round."))
    return [Event("BrewReset", {"seat": seat})]


def _brew_done(state, seat, _command, rng):
    dr = draft_table(state, seat)
    if dr["front"]:
        raise Rejected(
            _("Place all the ingredients you collected first: {ings} still in front of you.").format(
                ings=W.ingredients(dr["front"])
            )
        )
    events = [Event("BrewDone", {"seat": seat})]
    if all(state["done"][s] for s in range(state["n"]) if s != seat):
        events += _reveal_and_end(state, seat, rng)
    return events


def _brew_pick(state, seat, command, _rng):
    if state["basket"] != seat:
        raise Rejected(_("Only the player holding the basket tile may collect a leftover ingredient."))
    if draft_table(state, seat)["picked"] is not None:
        raise Rejected(_("You have already used the basket tile this round."))
    name = command.get("piece")
    pos = _piece_pos(state, name)
    curve = command.get("curve")
    if curve not in (1, 2, 3, 4) or state["curves"][pos][curve - 1] is None:
        raise Rejected(
            _("There is no leftover ingredient in curve {curve} of the {name} piece.").format(
                curve=curve, name=W.effect(name)
            )
        )
    tok = state["curves"][pos][curve - 1]
    data = {"seat": seat, "piece": name, "curve": curve - 1, "ing": tok}
    return [Event("LeftoverPicked", data, visible_to=(seat,), public={"seat": seat})]


def _brew_put(state, seat, command, _rng):
    if command.get("type") != "put":
        raise Rejected(_("Now concoct: 'put <ingredient> on <flask|book|bowl|poison>', then 'done'."))
    tok = command.get("ing")
    dest = command.get("to")
    if dest not in DESTS:
        raise Rejected(_("Place it on one of: {places}.").format(places=", ".join(W.place(d) for d in DESTS)))
    dr = draft_table(state, seat)
    src = _put_source(dr, tok)
    _PUT_CHECKS.get(dest, _check_put_flask)(state["tables"][seat], dr, tok, src, dest)
    data = {"seat": seat, "ing": tok, "src": src, "to": dest}
    return [Event("IngredientPlaced", data, visible_to=(seat,), public={"seat": seat})]


def _put_source(dr, tok):
    """Where the ingredient to put comes from: in front of the player, or their bowl."""
    if tok in dr["front"]:
        return "front"
    if tok is not None and tok == dr["bowl"]:
        return "bowl"
    raise Rejected(
        _("You have no {ing} to place (in front of you: {front}; in your bowl: {bowl}).").format(
            ing=W.ingredient(tok),
            front=W.ingredients(dr["front"]),
            bowl=W.ingredient(dr["bowl"]) if dr["bowl"] else _("nothing"),
        )
    )


def _check_put_bowl(_table, dr, _tok, src, _dest):
    if src == "bowl":
        raise Rejected(_("That ingredient is already in your bowl."))
    if dr["bowl"] is not None:
        raise Rejected(
            _("Your bowl already holds {ing}: at most 1 ingredient may be in the bowl.").format(
                ing=W.ingredient(dr["bowl"])
            )
        )


def _check_put_book(table, dr, tok, _src, _dest):
    slot = book_slot(table, tok)
    if slot is None:
        specials = _(" and ").join(W.kind(c, v) for c, v in TABLES[table]["special"])
        raise Rejected(
            _("Only your special ingredients ({specials}) go in your recipe book.").format(specials=specials)
        )
    if dr["book"][slot] is not None:
        raise Rejected(_("That space of your recipe book is already filled."))


def _check_put_poison(_table, _dr, _tok, _src, _dest):
    return  # the poison track takes any ingredient


def _check_put_flask(table, dr, tok, _src, dest):
    req = TABLES[table]["flasks"][dest]
    filled = dr["flasks"][dest]
    if len(filled) >= len(req):
        raise Rejected(_("Your {flask} flask is already full.").format(flask=W.place(dest)))
    need = req[len(filled)]
    if not matches(tok, need):
        raise Rejected(
            _(
                "The next space of your {flask} flask (space {space}, filled bottom to top "
                "without skipping) needs {kind} {name}."
            ).format(flask=W.place(dest), space=len(filled) + 1, kind=_(KINDS[need[0]]), name=W.trait(need))
        )


# One small function per phase that awaits a command (collecting is the default: its steps differ).
DECIDERS = {"place": _decide_place, "collect": _decide_collect, "brew": _decide_brew}
# Collecting: one function per step ("effect" is the default step).
COLLECT_STEPS = {"take": _decide_take, "keep": _decide_keep}
# The effect of the piece of forest, one function per effect ("basket"/"collect" is the default).
EFFECTS = {
    "steal": _effect_steal,
    "swap": _effect_swap,
    "draw": _effect_draw,
    "replace": _effect_replace,
    "dance": _effect_dance,
}
# Concocting: one function per command ("put" is the default: it names any other command wrong).
BREWERS = {"reset": _brew_reset, "done": _brew_done, "pick": _brew_pick}
# Where a 'put' places the ingredient: one check per destination (a flask is the default).
_PUT_CHECKS = {"bowl": _check_put_bowl, "book": _check_put_book, "poison": _check_put_poison}


def _reveal_and_end(state, last_seat, rng):
    """The last player is done: all placements are revealed, corks taken, the round ends."""
    n = state["n"]
    sealed_before = {f for c in state["corks"] for f in c}
    corks = []
    for s in range(n):
        dr = draft_table(state, s)
        reqs = TABLES[state["tables"][s]]["flasks"]
        for f in FLASKS:
            if f not in state["corks"][s] and len(dr["flasks"][f]) == len(reqs[f]):
                corks.append([s, f, CORK_LATER if f in sealed_before else CORK_FIRST])
    moves = [state["drafts"][s]["moves"] for s in range(n)]
    events = [Event("PotionsRevealed", {"moves": _copy(moves), "corks": corks}, reveals=True)]
    after = _copy(state)
    after["done"][last_seat] = True
    _ev_revealed(after, events[0].data)
    if any(len(c) >= CORKS_TO_END for c in after["corks"]):
        return events + [_game_end(after, "cork")]
    # End of the round.
    leftovers = [tok for pos in range(6) for tok in after["curves"][pos] if tok is not None]
    if leftovers and not after["bag"] and not after["box"] and not any(moves):
        # Nobody placed anything and nothing new can come: the next round would lay out the same
        # unwanted leftovers for the same tables (RULINGS #35).
        return events + [_game_end(after, "unwanted")]
    box = after["box"] + leftovers
    old = after["signpost"]
    new = (old + 1) % 6
    while not after["up"][new]:
        new = (new + 1) % 6
    down = up = None
    revealed = None
    up_now = list(after["up"])
    if not all(after["up"]):
        down = old
        up = old
        while up_now[up]:
            up = (up + 1) % 6
        up_now[down] = False
        up_now[up] = True
        if not after["known"][up]:
            revealed = after["circle"][up]
    slots = [[(new + i) % 6, c] for i in range(6) if up_now[(new + i) % 6] for c in range(CURVES)]
    drawn, poured = bag_draw(after["bag"], box, len(slots), rng)
    if not drawn:
        return events + [_game_end(after, "exhausted")]
    fill = [[p, c, tok] for (p, c), tok in zip(slots, drawn)]
    data = {
        "signpost": new,
        "down": down,
        "up": up,
        "piece": revealed,
        "fill": fill,
        "poured": poured,
        "to_box": leftovers,
        "start": (after["start"] + 1) % n,
    }
    # The refill shows ingredients drawn blindly from the bag (and maybe a piece turned face up).
    return events + [Event("RoundEnded", data, reveals=True)]


def _game_end(after, reason):
    bowl = [[s, tok] for s, tok in enumerate(after["bowl"]) if tok is not None]
    end = _copy(after)
    _ev_game_ended(end, {"bowl": bowl, "reason": reason})
    return Event(
        "GameEnded",
        {
            "reason": reason,
            "bowl": bowl,
            "circle": list(after["circle"]),
            "scores": [total(end, s) for s in range(end["n"])],
        },
        reveals=True,
    )


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------

CATEGORIES = (N_("concocting"), N_("corks"), N_("recipe book"), N_("enchanted"), N_("cursed"), N_("toxic"))
KINDS = {"colour": N_("colour"), "variety": N_("variety")}


def scores_breakdown(state, seat) -> list[int]:
    """[A concocting, B corks, C recipe book, D enchanted, E cursed, F toxic] from the table as it is."""
    table = TABLES[state["tables"][seat]]
    ench_kind, ench = table["enchanted"]
    curse_kind, curse = table["cursed"]
    ei = 0 if ench_kind == "colour" else 1
    ci = 0 if curse_kind == "colour" else 1
    a = d = e = 0
    for toks in state["flasks"][seat].values():
        for t in toks:
            info = INGREDIENTS[t]
            a += info[2]
            if info[ei] == ench:
                d += 1
            if info[ci] == curse:
                e -= 1
    b = sum(state["corks"][seat].values())
    book = [t for t in state["book"][seat] if t is not None]
    c = sum(2 * INGREDIENTS[t][2] for t in book) + (3 if len(book) == 2 else 0)
    f = -sum(INGREDIENTS[t][2] for t in state["poison"][seat])
    return [a, b, c, d, e, f]


def total(state, seat) -> int:
    return sum(scores_breakdown(state, seat))


def ingredients_on_table(state, seat) -> int:
    """Tie-breaker: ingredients and crystals on the flasks and the recipe book (not the poison flask)."""
    return sum(len(v) for v in state["flasks"][seat].values()) + sum(1 for t in state["book"][seat] if t)


def result(state):
    if state["phase"] != "over":
        return None
    n = state["n"]
    return Result(
        [total(state, s) for s in range(n)],
        [(ingredients_on_table(state, s),) for s in range(n)],
        {"breakdown": [dict(zip(CATEGORIES, scores_breakdown(state, s))) for s in range(n)], "end": state["end"]},
    )


def breakdowns(state) -> list[list[int]]:
    """A-F per seat as of the last revealed concocting (the tables change only then)."""
    if state["history"]:
        return state["history"][-1]
    return [[0] * 6 for _ in range(state["n"])]


# The stage as the summary names it (the read model keeps it in English, the log's language; the
# platform says it in the reader's words through this game's catalogue: the board's own names).
STAGE_NAMES = {
    "place": N_("A - placing apprentices"),
    "collect": N_("B - collecting ingredients"),
    "brew": N_("C - concocting potions"),
    "reveal": N_("C - concocting potions"),
    "over": N_("game over"),
    "setup": N_("setting up"),
}


def summary(state):
    stage = STAGE_NAMES.get(state["phase"], state["phase"])
    return {"round": state["round"], "phase": stage, "scores": [sum(b) for b in breakdowns(state)]}


def score_sheet(state):
    lines = []
    prev = [[0] * 6 for _ in range(state["n"])]
    for r, snap in enumerate(state["history"], start=1):
        for s in range(state["n"]):
            delta = [a - b for a, b in zip(snap[s], prev[s])]
            detail = ", ".join(_(name) + f" {d:+d}" for name, d in zip(CATEGORIES, delta) if d)
            lines.append(ScoreLine(r, s, sum(delta), detail, _("Round {round}").format(round=r)))
        prev = snap
    return lines


def timeout(state, seat):
    if seat not in waiting_for(state):
        return None
    if state["phase"] == "collect" and state["step"] == "effect":
        return {"type": "skip"}  # the effect is optional
    if state["phase"] == "brew" and not state["drafts"][seat]["front"]:
        return {"type": "done"}
    return None
