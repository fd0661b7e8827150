"""The text grammar: what a player types in an email, and back.

  take pig                      take a face-up counter (step 2)
  draw                          a blind draw from the face-down pile (step 2)
  place pig on Jxara-Virst      place a counter (step 3); "place hidden pig ..." for a face-down one
  trouble on Jxara-Virst        place your Trouble counter next to a counter (step 3)
  pass                          (step 3)
  move to Virst by road with troll troll
                                travel one route (step 4); "by road/river/lake" picks the route
                                where a land route and a river join the same towns; cards may be
                                left out when the counter (or the river) says which
  end                           finish moving (step 4)
  discard pig                   discard one card after moving (down to four)
  keep pig | keep hidden pig | keep none
                                the counter you keep for the next round (step 5)

`choices(state, seat)` (at the end) offers the same commands to a two-step chooser and as the
numbered codes of a turn notice.

Town names forgive case, accents, apostrophes and spaces ("mah davika", "erg eren"), take a
unique prefix, and answer a near miss with "did you mean". Route ids ("jxara-virst:river") work
wherever a route is named.
"""

from __future__ import annotations

import re
from dataclasses import replace

from games.base import MAX_FEATURED, Choice, ParseError, key, match_name, normalize

from . import board as B
from . import drawing as D
from . import rules as R
from . import standin as S
from . import view as V

VERBS = {
    "take": "take",
    "draw": "draw",
    "blind": "draw",
    "place": "place",
    "put": "place",
    "trouble": "trouble",
    "pass": "pass",
    "move": "move",
    "go": "move",
    "travel": "move",
    "caravan": "move",
    "boatmen": "move",
    "end": "end",
    "done": "end",
    "stop": "end",
    "finish": "end",
    "discard": "discard",
    "keep": "keep",
}

CARD_WORDS = {}
for _t, _words in {
    "giant_pig": ["pig", "giantpig", "swine"],
    "elfcycle": ["elfcycle", "cycle", "bike", "bicycle"],
    "magic_cloud": ["cloud", "magiccloud"],
    "unicorn": ["unicorn"],
    "troll_wagon": ["troll", "trollwagon", "wagon"],
    "dragon": ["dragon"],
    "raft": ["raft", "boat"],
}.items():
    for _w in _words:
        CARD_WORDS[_w] = _t
        CARD_WORDS[_w + "s"] = _t

TYPE_WORDS = {
    "road": "road",
    "roads": "road",
    "plain": "road",
    "plains": "road",
    "openroad": "road",
    "forest": "forest",
    "path": "forest",
    "forestpath": "forest",
    "desert": "desert",
    "track": "desert",
    "deserttrack": "desert",
    "mountain": "mountain",
    "mountains": "mountain",
    "trail": "mountain",
    "mountaintrail": "mountain",
    "river": "river",
    "upstream": "river",
    "downstream": "river",
    "lake": "lake",
    "maremagnum": "lake",
    "marenebulae": "lake",
}
BIGRAMS = {
    ("giant", "pig"),
    ("giant", "pigs"),
    ("magic", "cloud"),
    ("magic", "clouds"),
    ("troll", "wagon"),
    ("troll", "wagons"),
    ("elf", "cycle"),
    ("elf", "cycles"),
    ("open", "road"),
    ("forest", "path"),
    ("desert", "track"),
    ("mountain", "trail"),
    ("mare", "magnum"),
    ("mare", "nebulae"),
    ("face", "down"),
    ("face", "up"),
}
HIDDEN_WORDS = {"hidden", "secret", "facedown", "covered"}
NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}
FILLERS = {
    "to",
    "on",
    "by",
    "with",
    "via",
    "using",
    "the",
    "from",
    "and",
    "of",
    "a",
    "an",
    "my",
    "counter",
    "counters",
    "card",
    "cards",
    "route",
    "at",
    "into",
    "across",
    "faceup",
    "|",
    "x",
    "please",
}
NONE_WORDS = {"none", "nothing", "no"}

TOWN_NAMES: dict[str, str] = {}
for _t in B.DATA["towns"]:
    for _n in [_t["name"], _t["id"], *_t["aliases"]]:
        TOWN_NAMES.setdefault(key(_n), _t["id"])
TOWN_DISPLAY = {
    key(n): n for n in [*(t["name"] for t in B.DATA["towns"]), *(a for t in B.DATA["towns"] for a in t["aliases"])]
}


def _tokens(text: str) -> list[str]:
    text = text.lower()
    text = re.sub(r"[-–—/:,;()\[\]+&.]", " | ", text)
    words = []
    for raw in text.split():
        if raw == "|":
            words.append("|")
            continue
        n = normalize(raw)
        words.extend(n.split() if n else [])
    out = []
    i = 0
    while i < len(words):
        if i + 1 < len(words) and (words[i], words[i + 1]) in BIGRAMS:
            out.append(words[i] + words[i + 1])
            i += 2
        else:
            m = re.fullmatch(r"(\d+)x|x(\d+)", words[i])
            out.append((m.group(1) or m.group(2)) if m else words[i])
            i += 1
    return out


class Parsed:
    def __init__(self, tokens):
        self.cards: list[str] = []
        self.types: list[str] = []
        self.hidden = False
        self.none = False
        self.segments: list[list[str]] = []
        seg: list[str] = []
        mult = 1
        for tok in tokens:
            k = key(tok) if tok != "|" else "|"
            k = NUMBER_WORDS.get(k, k)
            if k.isdigit():
                mult = int(k)
                seg = self._close(seg)
            elif k in CARD_WORDS:
                self.cards.extend([CARD_WORDS[k]] * mult)
                mult = 1
                seg = self._close(seg)
            elif k in TYPE_WORDS:
                self.types.append(TYPE_WORDS[k])
                seg = self._close(seg)
            elif k in HIDDEN_WORDS:
                self.hidden = True
                seg = self._close(seg)
            elif k in NONE_WORDS:
                self.none = True
                seg = self._close(seg)
            elif k in FILLERS or k in ("giant", "magic", "open", "face", "mare", "") or k == "|":
                seg = self._close(seg)
            else:
                seg.append(k)
        self._close(seg)

    def _close(self, seg):
        if seg:
            self.segments.append(seg)
        return []


def _town(words: list[str]) -> str:
    exact = TOWN_NAMES.get("".join(words))
    if exact:
        return exact
    return TOWN_NAMES[key(match_name("".join(words), list(TOWN_DISPLAY.values()), "town"))]


def _exact(words: list[str]) -> str | None:
    return TOWN_NAMES.get("".join(words))


def _two_towns(p: Parsed) -> tuple[str, str]:
    segs = p.segments
    if len(segs) == 2:
        return _town(segs[0]), _town(segs[1])
    if len(segs) == 1 and len(segs[0]) >= 2:
        words = segs[0]
        splits = [(a, b) for i in range(1, len(words)) if (a := _exact(words[:i])) and (b := _exact(words[i:]))]
        if len(splits) == 1:
            return splits[0]
        if len(words) == 2:
            return _town(words[:1]), _town(words[1:])
    raise ParseError("Name the route by its two towns, e.g. 'Jxara-Virst'.")


def _one_card(p: Parsed, what: str, example: str) -> str:
    if len(p.cards) != 1:
        raise ParseError(f"Say which {what}, e.g. '{example}'.", _card_suggestions(p))
    return p.cards[0]


def _card_suggestions(p: Parsed) -> list[str]:
    out = []
    for seg in p.segments:
        for w in seg:
            try:
                match_name(w, list(CARD_WORDS), "counter")
            except ParseError as e:
                out.extend(e.suggestions)
            else:
                out.append(match_name(w, list(CARD_WORDS), "counter"))
    return out[:3]


def _land_route(a: str, b: str, types: list[str]) -> str:
    if any(t in B.WATER for t in types):
        raise ParseError("Counters and Trouble go on land routes only: rivers and lakes are travelled by raft.")
    routes = [r for r in B.BETWEEN.get((a, b), []) if B.ROUTES[r]["type"] in B.LAND]
    if not routes:
        raise ParseError(f"No land route joins {B.name(a)} and {B.name(b)}.")
    return routes[0]


def parse(text, state, seat):
    toks = _tokens(text or "")
    toks_clean = [t for t in toks if t != "|"]
    if not toks_clean:
        raise ParseError("Empty command. Try 'help'.")
    verb = VERBS.get(toks_clean[0]) or VERBS[match_name(toks_clean[0], list(VERBS), "command")]
    first_idx = toks.index(toks_clean[0])
    p = Parsed(toks[first_idx + 1 :])
    if verb == "draw":
        if p.cards:  # "draw pig": takes the face-up one
            return {"type": "take", "counter": _one_card(p, "counter", "take pig")}
        return {"type": "draw"}
    if verb == "take":
        if "blind" in toks_clean[1:] and not p.cards:
            return {"type": "draw"}
        if not p.cards:
            raise ParseError(
                "Say which face-up counter, e.g. 'take pig', or 'draw' for a blind draw.", _card_suggestions(p)
            )
        return {"type": "take", "counter": _one_card(p, "counter", "take pig")}
    if verb in ("pass", "end"):
        return {"type": verb}
    if verb == "discard":
        return {"type": "discard", "card": _one_card(p, "card", "discard pig")}
    if verb == "keep":
        if p.none or (not p.cards and not p.hidden):
            if not p.none:
                example = "" if state is not None and R.rules_version(state) >= 2 else " or 'keep none'"
                raise ParseError(f"Say which counter to keep, e.g. 'keep pig', 'keep hidden dragon'{example}.")
            return {"type": "keep", "counter": None, "hidden": False}
        if not p.cards:  # "keep hidden": the only face-down one
            downs = sorted(set(state["down"][seat])) if seat is not None else []
            if len(downs) != 1:
                raise ParseError("Say which face-down counter, e.g. 'keep hidden pig'.")
            return {"type": "keep", "counter": downs[0], "hidden": True}
        c = _one_card(p, "counter", "keep pig")
        return {"type": "keep", "counter": c, "hidden": _hidden(p, state, seat, c)}
    if verb == "trouble":
        a, b = _two_towns(p)
        return {"type": "trouble", "route": _land_route(a, b, p.types)}
    if verb == "place":
        c = _one_card(p, "counter", "place pig on Jxara-Virst")
        a, b = _two_towns(p)
        return {
            "type": "place",
            "counter": c,
            "route": _land_route(a, b, p.types),
            "hidden": _hidden(p, state, seat, c),
        }
    if verb == "move":
        return _parse_move(p, state, seat)
    raise ParseError("Unknown command. Try 'help'.")


def _hidden(p: Parsed, state, seat, c) -> bool:
    if p.hidden:
        return True
    if seat is None or state is None:
        return False
    return c not in state["up"][seat] and c in state["down"][seat]


def _parse_move(p: Parsed, state, seat):
    here = state["elf"][seat] if (state and seat is not None) else None
    towns = [_town(s) for s in p.segments]
    if len(towns) == 2 and here in towns:
        towns.remove(here)
    if len(towns) != 1:
        raise ParseError("Say where to, e.g. 'move to Lapphalya' or 'move to Virst by river with raft'.")
    to = towns[0]
    if here is None:
        raise ParseError("Only a seated player can move.")
    routes = B.BETWEEN.get((here, to), [])
    if not routes:
        near = ", ".join(B.name(o) for _, o in B.EXITS[here])
        raise ParseError(f"No route joins {B.name(here)} and {B.name(to)}. From here: {near}.")
    if p.types:
        want = p.types[-1]
        routes = [r for r in routes if B.ROUTES[r]["type"] == want]
        if not routes:
            have = " or ".join(B.ROUTES[r]["type"] for r in B.BETWEEN[(here, to)])
            raise ParseError(f"The route from {B.name(here)} to {B.name(to)} is a {have}.")
    hand = R._hand_tuple(state["hands"][seat])
    cards = sorted(p.cards)
    if cards:
        if len(routes) > 1:
            pay = [0] * len(R.CARDS)
            for c in cards:
                pay[R.CARD_INDEX[c]] += 1
            fits = [r for r in routes if any(pp == tuple(pay) for _, pp in R.payments(state, r, to, hand))]
            if len(fits) != 1:
                raise ParseError(_ambiguous(here, to))
            routes = fits
        return {"type": "move", "route": routes[0], "to": to, "cards": cards}
    # No cards named: the counter on the route (or the raft rule) says which.
    options = []
    for r in routes:
        for how, paid in R.payments(state, r, to, hand):
            if how in ("counter", "raft"):
                options.append((r, R._cards_of(paid)))
    if len(options) == 1:
        return {"type": "move", "route": options[0][0], "to": to, "cards": options[0][1]}
    if len(routes) > 1:
        raise ParseError(_ambiguous(here, to))
    return {"type": "move", "route": routes[0], "to": to, "cards": _nominal(state, routes[0], to)}


def _nominal(state, route, to) -> list[str]:
    """The cards a normal move would take (for a clear rejection when the hand lacks them)."""
    r = B.ROUTES[route]
    if r["type"] in B.WATER:
        return ["raft"] * B.raft_cost(route, to, state["opts"]["lakes"])
    counter = state["board"].get(route)
    if counter is None:
        return []
    return [counter] * (B.placed_cost(counter, route) + (1 if route in state["trouble"] else 0))


def _ambiguous(here, to) -> str:
    kinds = " or ".join(f"'by {B.ROUTES[r]['type']}'" for r in B.BETWEEN[(here, to)])
    return f"{B.name(here)} and {B.name(to)} are joined twice: say {kinds}, and the cards."


def route_text(route: str) -> str:
    r = B.ROUTES[route]
    return f"{B.name(r['a'])}-{B.name(r['b'])}"


def describe(command):
    t = command["type"]
    if t == "take":
        return f"take {B.WORD[command['counter']]}"
    if t in ("draw", "pass", "end"):
        return t
    if t == "place":
        hidden = "hidden " if command.get("hidden") else ""
        return f"place {hidden}{B.WORD[command['counter']]} on {route_text(command['route'])}"
    if t == "trouble":
        return f"trouble on {route_text(command['route'])}"
    if t == "move":
        r = B.ROUTES[command["route"]]
        cards = " ".join(B.WORD[c] for c in command["cards"])
        return f"move to {B.name(command['to'])} by {r['type']} with {cards}".rstrip()
    if t == "discard":
        return f"discard {B.WORD[command['card']]}"
    if t == "keep":
        if command["counter"] is None:
            return "keep none"
        return f"keep {'hidden ' if command['hidden'] else ''}{B.WORD[command['counter']]}"
    return t


def help(state, seat):
    phase = state["phase"]
    lines = []
    if seat is None or seat not in R.waiting_for(state):
        # Seats are not numbered here: the platform names whom it waits for.
        lines.append("You are not awaited now.")
    if phase == "draw":
        pool = ", ".join(B.WORD[c] for c in state["pool"]) or "none"
        lines += [
            f"Step 2: draw counters (face up now: {pool}).",
            "  take pig        take a face-up counter (the pool is refilled)",
            "  draw            a blind draw from the face-down pile (kept face up)",
        ]
    elif phase == "place":
        lines += [
            "Step 3: place counters, one per turn, until everyone passes in a row.",
            "  place pig on Jxara-Virst         a face-up counter",
            "  place hidden dragon on Beata-Strykhaven   your face-down counter",
            "  trouble on Jxara-Virst           your Trouble counter, next to a counter",
            "  pass",
        ]
    elif phase in ("move", "discard"):
        if phase == "move":
            lines += [
                "Step 4: move your Elf, one route at a time, then 'end'.",
                "  move to Lapphalya                the counter says which cards",
                "  move to Virst by river           rafts: 1 down river, 2 up river, 2 on a lake",
                "  move to Feodor with pig troll raft   a caravan: any 3 cards (4 with Trouble)",
                "  end",
            ]
            if seat is not None and seat == state["turn"]:
                reach = R.reachable(state, seat)
                lines.append("  You can reach this turn: " + (", ".join(B.name(t) for t in reach) or "nowhere") + ".")
                opts = [describe(c) for c in R.legal(state, seat) if c["type"] == "move"]
                plain = [o for o in opts if o.count(" ") <= 7][:6]
                if plain:
                    lines.append("  For example: " + "; ".join(plain) + ".")
        else:
            lines += ["You hold more than four cards: discard one at a time.", "  discard pig"]
    elif phase == "keep":
        if R.rules_version(state) >= 2:  # "must discard down to 1 counter"
            lines += ["Step 5: keep one counter for the next round.", "  keep pig | keep hidden dragon"]
        else:
            lines += [
                "Step 5: keep at most one counter for the next round.",
                "  keep pig | keep hidden dragon | keep none",
            ]
    elif phase == "over":
        lines.append("The game is over.")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# the chooser: the legal moves in two steps, the few worth a code in a notice featured
# ---------------------------------------------------------------------------------------------

# A smaller search than the stand-in's own, so the chooser stays within a few milliseconds; the
# plans it finds are the same in nearly every position (see bench/game_elfenland.py).
CHOOSER_LIMIT = 150
# Placing counters takes a deeper search (the plan weighs every counter in hand against every
# route): at 150 nodes the stand-in's placement was a code in 77 % of decisions (4 players),
# at 1,000 in 99 %, at 1.6 ms a menu (p99 5 ms; bench.codes).
PLACE_CHOOSER_LIMIT = 1000
NEAR_PLACES = 8  # at most this many placements beside the plan's are featured


def choices(state, seat):
    """Every legal command once, as a two-step chooser offers it: `group` is what (a counter, a
    destination, a card), `label` where or how. The stand-in's own choice comes first and is
    featured, with the other sensible moves of the phase and a pass or end where allowed."""
    legal = R.legal(state, seat)
    if not legal:
        return []
    v = V.view(state, seat)
    chooser = _CHOOSERS[state["phase"]]
    offered = chooser(v, legal)
    assert len(offered) == len(legal)
    return offered


def _ordered(choices_, first=None):
    """The recommended move first, then featured ones, then the rest (each group together); no
    more than MAX_FEATURED featured."""
    groups: dict[str, int] = {}
    for c in choices_:
        groups.setdefault(c.group, len(groups))
    out = sorted(choices_, key=lambda c: (c.command != first, not c.featured, groups[c.group]))
    return [c if i < MAX_FEATURED or not c.featured else replace(c, featured=False) for i, c in enumerate(out)]


def _plural(k, word):
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def _draw_choices(v, legal):
    hand = v["hand"]
    out = []
    for cmd in legal:
        if cmd["type"] == "take":
            c = cmd["counter"]
            held = hand.get(c, 0)
            note = f"you hold {_plural(held, B.WORD[c] + ' card')}" if held else ""
            out.append(Choice(cmd, "Take a face-up counter", B.LONG[c], True, f"pool-{c}", note))
        else:
            out.append(
                Choice(cmd, "Draw blind", "a face-down counter from the pile", True, "pile", f"{v['pile']} in the pile")
            )
    out.sort(key=lambda c: (c.command["type"] != "take", -hand.get(c.command.get("counter"), 0)))
    return out


ROUTE_LABEL = {
    route: f"on {B.name(r['a'])}–{B.name(r['b'])} ({B.TYPE_LONG[r['type']]})" for route, r in B.ROUTES.items()
}


def _route_label(route) -> str:
    return ROUTE_LABEL[route]


def _place_choices(v, legal):
    seat = S.Seat(v)
    plan = S.placing_plan(seat, PLACE_CHOOSER_LIMIT)
    first = S.place_command(seat, plan, legal)
    planned = set(plan.places)
    near = _near_placements(seat, legal)
    trouble = S.trouble_target(seat, plan, legal)
    out = []
    for cmd in legal:
        kind = cmd["type"]
        if kind == "pass":
            out.append(
                Choice(
                    cmd, "Pass", "pass (place nothing this turn)", True, note="you may still place on your next turn"
                )
            )
        elif kind == "trouble":
            route = cmd["route"]
            word = B.WORD[v["board"][route]]
            out.append(
                Choice(
                    cmd,
                    "Place your Trouble counter",
                    _route_label(route) + f", next to the {word}",
                    route == trouble,
                    D.target_of_route(route),
                    "one card more to travel it",
                )
            )
        else:
            c, route = cmd["counter"], cmd["route"]
            group = f"Place {'your face-down ' if cmd['hidden'] else ''}{B.LONG[c]}"
            cost = B.counter_cost(c, route)
            usual = cmd["hidden"] == (c not in seat.up)  # the face-up one when both are held
            featured = cmd == first or usual and ((route, c) in planned or (route, c) in near)
            note = (
                "on your best route" if (route, c) in planned else f"{_plural(cost, B.WORD[c] + ' card')} to travel it"
            )
            out.append(Choice(cmd, group, _route_label(route), featured, D.target_of_route(route), note))
    return _ordered(out, first)


def _near_placements(seat, legal) -> set:
    """Placements on a route leaving the seat's Elf towards a town it still needs, with a
    counter its hand can pay: the cheapest first, at most NEAR_PLACES."""
    here = B.TOWN_IDS[seat.start]
    mine = set(seat.view["seats"][seat.me]["towns"])
    exits = {route: other for route, other in B.EXITS[here]}
    found = []
    for cmd in legal:
        if cmd["type"] != "place" or cmd["route"] not in exits:
            continue
        c, route = cmd["counter"], cmd["route"]
        cost = B.counter_cost(c, route)
        if seat.hand[S.KIND[c]] >= cost and exits[route] not in mine:
            found.append((cost, -seat.hand[S.KIND[c]], route, c))
    found.sort()
    best_per_route: dict = {}
    for _cost, _held, route, c in found:
        best_per_route.setdefault(route, c)
    return set(list(best_per_route.items())[:NEAR_PLACES])


def _move_choices(v, legal):
    seat = S.Seat(v)
    plan = S.best_plan(seat, limit=CHOOSER_LIMIT)
    first = S.step_command(seat, plan, 0) if plan.steps else {"type": "end"}
    mine = set(v["seats"][v["seat"]]["towns"])
    here = v["seats"][v["seat"]]["elf"]
    # per route, the one payment worth a code: the counter's (or the rafts'), else a caravan of
    # the cards the stand-in would spare
    spare = {}
    for cmd in legal:
        if cmd["type"] == "move" and _how(v, cmd) in ("counter", "raft"):
            spare[cmd["route"]] = cmd
    for cmd in legal:
        if cmd["type"] == "move" and cmd["route"] not in spare:
            spare[cmd["route"]] = _caravan_pick(seat, v, cmd["route"], cmd["to"], legal)
    out = []
    for cmd in legal:
        if cmd["type"] == "end":
            out.append(
                Choice(
                    cmd,
                    "End the move",
                    f"stay in {B.name(here)}",
                    True,
                    note="" if first != cmd else "nothing more worth the cards",
                )
            )
            continue
        route, to = cmd["route"], cmd["to"]
        twin = len(B.BETWEEN[(here, to)]) > 1
        group = f"Move to {B.name(to)}" + (f" by {B.ROUTES[route]['type']}" if twin else "")
        note = "collects a town piece" if to in B.PIECE_TOWNS and to not in mine else "already collected"
        if cmd == first:
            note += "; the best plan"
        out.append(Choice(cmd, group, _pay_label(v, cmd), cmd == first or spare.get(route) == cmd, f"town-{to}", note))
    return _ordered(out, first)


def _how(v, cmd) -> str:
    r = B.ROUTES[cmd["route"]]
    cards = cmd["cards"]
    if r["type"] in B.WATER:
        return (
            "raft"
            if set(cards) == {"raft"} and len(cards) == B.raft_cost(cmd["route"], cmd["to"], v["options"]["lakes"])
            else "boatmen"
        )
    counter = v["board"][cmd["route"]]
    need = B.placed_cost(counter, cmd["route"]) + (1 if cmd["route"] in v["trouble"] else 0)
    return "counter" if set(cards) == {counter} and len(cards) == need else "caravan"


def _pay_label(v, cmd) -> str:
    cards = " ".join(B.WORD[c] for c in cmd["cards"])
    how = _how(v, cmd)
    if how == "raft":
        r = B.ROUTES[cmd["route"]]
        if r["type"] == "river":
            way = "down river" if r["downstream_to"] == cmd["to"] else "up river"
            return f"with {cards} ({way})"
        return f"with {cards} (across {r['lake']})"
    if how == "boatmen":
        return f"Boatmen: {cards}"
    if how == "caravan":
        return f"caravan: {cards}"
    return f"with {cards}"


def _caravan_pick(seat, v, route, to, legal):
    """The caravan (or Boatmen) paid with the cards the stand-in would spare."""
    k = len(next(c for c in legal if c.get("route") == route)["cards"])
    cards = S.spare_cards(seat, seat.hand, k)
    wanted = {"type": "move", "route": route, "to": to, "cards": cards}
    return wanted if wanted in legal else next(c for c in legal if c.get("route") == route)


def _discard_choices(v, legal):
    first = S.choose_discard(v, legal)
    hand = v["hand"]
    out = [
        Choice(cmd, "Discard a card", B.LONG[cmd["card"]], True, f"card-{cmd['card']}", f"you hold {hand[cmd['card']]}")
        for cmd in legal
    ]
    return _ordered(out, first)


def _keep_choices(v, legal):
    first = S.choose_keep(v, legal)
    out = []
    for cmd in legal:
        c = cmd["counter"]
        if c is None:
            out.append(Choice(cmd, "Keep a counter", "none (keep no counter)", True))
        elif cmd["hidden"]:
            out.append(
                Choice(
                    cmd, "Keep a counter", f"your face-down {B.LONG[c]}", True, f"counter-hidden-{c}", "stays secret"
                )
            )
        else:
            out.append(Choice(cmd, "Keep a counter", B.LONG[c], True, f"counter-{c}"))
    return _ordered(out, first)


_CHOOSERS = {
    "draw": _draw_choices,
    "place": _place_choices,
    "move": _move_choices,
    "discard": _discard_choices,
    "keep": _keep_choices,
}
