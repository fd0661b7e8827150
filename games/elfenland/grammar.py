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

Town names forgive case, accents, apostrophes and spaces ("mah davika", "erg eren"), take a
unique prefix, and answer a near miss with "did you mean". Route ids ("jxara-virst:river") work
wherever a route is named.
"""

from __future__ import annotations

import re

from games.base import ParseError, key, match_name, normalize

from . import board as B
from . import rules as R

VERBS = {
    "take": "take", "draw": "draw", "blind": "draw", "place": "place", "put": "place",
    "trouble": "trouble", "pass": "pass", "move": "move", "go": "move", "travel": "move",
    "caravan": "move", "boatmen": "move", "end": "end", "done": "end", "stop": "end", "finish": "end",
    "discard": "discard", "keep": "keep",
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
    "road": "road", "roads": "road", "plain": "road", "plains": "road", "openroad": "road",
    "forest": "forest", "path": "forest", "forestpath": "forest",
    "desert": "desert", "track": "desert", "deserttrack": "desert",
    "mountain": "mountain", "mountains": "mountain", "trail": "mountain", "mountaintrail": "mountain",
    "river": "river", "upstream": "river", "downstream": "river",
    "lake": "lake", "maremagnum": "lake", "marenebulae": "lake",
}
BIGRAMS = {("giant", "pig"), ("giant", "pigs"), ("magic", "cloud"), ("magic", "clouds"), ("troll", "wagon"),
           ("troll", "wagons"), ("elf", "cycle"), ("elf", "cycles"), ("open", "road"), ("forest", "path"),
           ("desert", "track"), ("mountain", "trail"), ("mare", "magnum"), ("mare", "nebulae"),
           ("face", "down"), ("face", "up")}
HIDDEN_WORDS = {"hidden", "secret", "facedown", "covered"}
NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}
FILLERS = {"to", "on", "by", "with", "via", "using", "the", "from", "and", "of", "a", "an", "my", "counter",
           "counters", "card", "cards", "route", "at", "into", "across", "faceup", "|", "x", "please"}
NONE_WORDS = {"none", "nothing", "no"}

TOWN_NAMES: dict[str, str] = {}
for _t in B.DATA["towns"]:
    for _n in [_t["name"], _t["id"], *_t["aliases"]]:
        TOWN_NAMES.setdefault(key(_n), _t["id"])
TOWN_DISPLAY = {key(n): n for n in [*(t["name"] for t in B.DATA["towns"]),
                                    *(a for t in B.DATA["towns"] for a in t["aliases"])]}


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
        splits = [(a, b) for i in range(1, len(words))
                  if (a := _exact(words[:i])) and (b := _exact(words[i:]))]
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
    p = Parsed(toks[first_idx + 1:])
    if verb == "draw":
        if p.cards:  # "draw pig": takes the face-up one
            return {"type": "take", "counter": _one_card(p, "counter", "take pig")}
        return {"type": "draw"}
    if verb == "take":
        if "blind" in toks_clean[1:] and not p.cards:
            return {"type": "draw"}
        if not p.cards:
            raise ParseError("Say which face-up counter, e.g. 'take pig', or 'draw' for a blind draw.",
                             _card_suggestions(p))
        return {"type": "take", "counter": _one_card(p, "counter", "take pig")}
    if verb in ("pass", "end"):
        return {"type": verb}
    if verb == "discard":
        return {"type": "discard", "card": _one_card(p, "card", "discard pig")}
    if verb == "keep":
        if p.none or (not p.cards and not p.hidden):
            if not p.none:
                raise ParseError("Say which counter to keep, e.g. 'keep pig', 'keep hidden dragon' or 'keep none'.")
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
        return {"type": "place", "counter": c, "route": _land_route(a, b, p.types),
                "hidden": _hidden(p, state, seat, c)}
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
        for how, pay in R.payments(state, r, to, hand):
            if how in ("counter", "raft"):
                options.append((r, R._cards_of(pay)))
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
    return [counter] * (B.counter_cost(counter, route) + (1 if route in state["trouble"] else 0))


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
        lines.append("You are not awaited now. Waiting for: "
                     + (", ".join(f"seat {s}" for s in R.waiting_for(state)) or "nobody") + ".")
    if phase == "draw":
        pool = ", ".join(B.WORD[c] for c in state["pool"]) or "none"
        lines += [f"Step 2: draw counters (face up now: {pool}).",
                  "  take pig        take a face-up counter (the pool is refilled)",
                  "  draw            a blind draw from the face-down pile (kept face up)"]
    elif phase == "place":
        lines += ["Step 3: place counters, one per turn, until everyone passes in a row.",
                  "  place pig on Jxara-Virst         a face-up counter",
                  "  place hidden dragon on Beata-Strykhaven   your face-down counter",
                  "  trouble on Jxara-Virst           your Trouble counter, next to a counter",
                  "  pass"]
    elif phase in ("move", "discard"):
        if phase == "move":
            lines += ["Step 4: move your Elf, one route at a time, then 'end'.",
                      "  move to Lapphalya                the counter says which cards",
                      "  move to Virst by river           rafts: 1 down river, 2 up river, 2 on a lake",
                      "  move to Feodor with pig troll raft   a caravan: any 3 cards (4 with Trouble)",
                      "  end"]
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
        lines += ["Step 5: keep at most one counter for the next round.",
                  "  keep pig | keep hidden dragon | keep none"]
    elif phase == "over":
        lines.append("The game is over.")
    return "\n".join(lines)
