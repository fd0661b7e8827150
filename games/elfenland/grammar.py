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
from functools import cache

from games.base import MAX_FEATURED, Choice, ParseError, key, match_name, normalize
from games.i18n import current

from . import board as B
from . import drawing as D
from . import rules as R
from . import standin as S
from . import view as V
from .lang import CATALOGUE, _, ngettext, pgettext

# The English words (the log's language: they work whatever the reader's language).
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
# The German and French words beside them (the words describe() uses in each language come from
# the catalogue and are added in _lexicon): "nimm Schwein", "prends cochon".
LOCAL_VERBS = {
    "take": ["nimm", "nehme", "nehmen", "prends", "prendre", "prend"],
    "draw": ["zieh", "ziehe", "ziehen", "pioche", "piocher", "tire", "tirer"],
    "place": ["lege", "leg", "legen", "setze", "setzen", "pose", "poser", "place", "placer"],
    "trouble": ["hindernis", "obstacle"],
    "pass": ["passe", "passen", "passer", "weiter"],
    "move": ["reise", "reisen", "fahre", "fahren", "gehe", "geh", "va", "aller", "voyage", "voyager", "karawane"],
    "end": ["ende", "beende", "beenden", "fertig", "fin", "finir", "termine", "terminer"],
    "discard": ["wirf", "abwerfen", "defausse", "defausser", "jette", "jeter"],
    "keep": ["behalte", "behalten", "garde", "garder"],
}

CARD_ALIASES = {
    "giant_pig": ["pig", "giantpig", "swine", "riesenschwein", "schwein", "cochon", "cochongeant"],
    "elfcycle": ["elfcycle", "cycle", "bike", "bicycle", "elfenrad", "rad", "velo", "veloelfique"],
    "magic_cloud": ["cloud", "magiccloud", "zauberwolke", "wolke", "nuage", "nuagemagique"],
    "unicorn": ["unicorn", "einhorn", "licorne"],
    "troll_wagon": ["troll", "trollwagon", "wagon", "trollwagen", "chariot", "chariotdetrolls"],
    "dragon": ["dragon", "drache", "drachen"],
    "raft": ["raft", "boat", "floss", "flosse", "boot", "radeau", "radeaux", "bateau"],
}
TYPE_ALIASES = {
    "road": ["road", "roads", "plain", "plains", "openroad", "ebene", "strasse", "plaine"],
    "forest": ["forest", "path", "forestpath", "wald", "waldweg", "foret"],
    "desert": ["desert", "track", "deserttrack", "wuste", "wueste", "wustenpiste"],
    "mountain": ["mountain", "mountains", "trail", "mountaintrail", "gebirge", "berg", "berge", "montagne"],
    "river": ["river", "upstream", "downstream", "fluss", "riviere", "fleuve"],
    "lake": ["lake", "maremagnum", "marenebulae", "see", "lac"],
}
# Words that belong together, read as one ("giant pig", "chariot de trolls").
PHRASES = {
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
    ("cochon", "geant"),
    ("cochons", "geants"),
    ("velo", "elfique"),
    ("nuage", "magique"),
    ("chariot", "de", "trolls"),
    ("chariot", "de", "troll"),
    ("face", "cachee"),
    ("face", "visible"),
}
HIDDEN_WORDS = {"hidden", "secret", "facedown", "covered", "verdeckt", "verdeckte", "verdeckten", "cache", "cachee"}
HIDDEN_WORDS |= {"facecachee"}
NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}
NUMBER_WORDS |= {"eins": "1", "zwei": "2", "drei": "3", "vier": "4", "funf": "5"}
NUMBER_WORDS |= {"deux": "2", "trois": "3", "quatre": "4", "cinq": "5"}
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
# German and French small words and nouns a command may carry ("lege Schwein auf Jxara-Virst").
FILLERS |= {"nach", "auf", "mit", "uber", "per", "von", "zu", "zum", "zur", "den", "die", "das", "der", "dem"}
FILLERS |= {"ein", "eine", "einen", "und", "bitte", "ab", "plattchen", "karte", "karten", "strecke", "offen"}
FILLERS |= {"offene", "offenes", "offenen", "mein", "meine", "meinen", "hinauf", "hinab"}
FILLERS |= {"vers", "sur", "avec", "par", "le", "la", "les", "l", "de", "du", "des", "un", "une", "et"}
FILLERS |= {"jeton", "jetons", "carte", "cartes", "en", "au", "aux", "mon", "ma", "mes", "stp", "facevisible"}
NONE_WORDS = {"none", "nothing", "no", "keins", "keine", "keinen", "nichts", "aucun", "aucune", "rien"}
# Halves of a name that mean nothing alone ("giant" of "giant pig").
IGNORED = {"giant", "magic", "open", "face", "mare", "", "geant", "geants", "magique", "elfique"}


class Lexicon:
    """The words a command may use, in every language at once (a German player's English or
    French words work too, and every language's words make the same command)."""

    def __init__(self):
        self.verbs = dict(VERBS)
        for verb, words in LOCAL_VERBS.items():
            self.verbs.update({w: verb for w in words})
        for verb in set(VERBS.values()):
            self.verbs.update({key(w): verb for w in CATALOGUE.every_language(verb, "command")})
        self.cards: dict[str, str] = {}
        for kind, words in CARD_ALIASES.items():
            said = CATALOGUE.every_language(B.WORD[kind]) + CATALOGUE.every_language(B.LONG[kind])
            for w in [*words, *(key(x) for x in said)]:
                self.cards[w] = self.cards[w + "s"] = kind
        self.types: dict[str, str] = {}
        for kind, words in TYPE_ALIASES.items():
            said = CATALOGUE.every_language(B.TYPE_WORD[kind]) + CATALOGUE.every_language(B.TYPE_LONG[kind])
            self.types.update({w: kind for w in [*words, *(key(x) for x in said)]})
        phrases = set(PHRASES)
        for words in [*B.LONG.values(), *B.TYPE_LONG.values()]:
            for said in CATALOGUE.every_language(words):
                parts = tuple(normalize(said).split())
                if len(parts) > 1:
                    phrases.add(parts)
        self.phrases = phrases
        self.longest = max(len(p) for p in phrases)


@cache
def lexicon() -> Lexicon:
    return Lexicon()


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
    phrases, longest = lexicon().phrases, lexicon().longest
    while i < len(words):
        size = next((k for k in range(longest, 1, -1) if tuple(words[i : i + k]) in phrases), 0)
        if size:
            out.append("".join(words[i : i + size]))
            i += size
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
        words = lexicon()
        for tok in tokens:
            k = key(tok) if tok != "|" else "|"
            k = NUMBER_WORDS.get(k, k)
            if k.isdigit():
                mult = int(k)
                seg = self._close(seg)
            elif k in words.cards:
                self.cards.extend([words.cards[k]] * mult)
                mult = 1
                seg = self._close(seg)
            elif k in words.types:
                self.types.append(words.types[k])
                seg = self._close(seg)
            elif k in HIDDEN_WORDS:
                self.hidden = True
                seg = self._close(seg)
            elif k in NONE_WORDS:
                self.none = True
                seg = self._close(seg)
            elif k in FILLERS or k in IGNORED or k == "|":
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
    return TOWN_NAMES[key(match_name("".join(words), list(TOWN_DISPLAY.values()), _("town")))]


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
    raise ParseError(_("Name the route by its two towns, e.g. 'Jxara-Virst'."))


def _one_card(p: Parsed, what: str, example: str) -> str:
    """The one counter or card named; `what` is the whole request ("Say which counter, e.g. …")."""
    if len(p.cards) != 1:
        raise ParseError(what.format(example=example), _card_suggestions(p))
    return p.cards[0]


def _say_counter() -> str:
    return _("Say which counter, e.g. '{example}'.")


def _card_suggestions(p: Parsed) -> list[str]:
    out = []
    words = [B.word(c) for c in B.WORD]
    for seg in p.segments:
        for w in seg:
            try:
                out.append(match_name(w, words, _("counter")))
            except ParseError as e:
                out.extend(e.suggestions)
    return out[:3]


def _land_route(a: str, b: str, types: list[str]) -> str:
    if any(t in B.WATER for t in types):
        raise ParseError(_("Counters and Trouble go on land routes only: rivers and lakes are travelled by raft."))
    routes = [r for r in B.BETWEEN.get((a, b), []) if B.ROUTES[r]["type"] in B.LAND]
    if not routes:
        raise ParseError(_("No land route joins {a} and {b}.").format(a=B.name(a), b=B.name(b)))
    return routes[0]


def parse(text, state, seat):
    toks = _tokens(text or "")
    toks_clean = [t for t in toks if t != "|"]
    if not toks_clean:
        raise ParseError(_("Empty command. Try 'help'."))
    verbs = lexicon().verbs
    verb = verbs.get(toks_clean[0]) or verbs[match_name(toks_clean[0], _verb_names(), _("command"))]
    first_idx = toks.index(toks_clean[0])
    p = Parsed(toks[first_idx + 1 :])
    if verb == "draw":
        if p.cards:  # "draw pig": takes the face-up one
            return {"type": "take", "counter": _one_card(p, _say_counter(), _example("take"))}
        return {"type": "draw"}
    if verb == "take":
        if any(verbs.get(t) == "draw" and t != "draw" for t in toks_clean[1:]) and not p.cards:
            return {"type": "draw"}
        if not p.cards:
            raise ParseError(
                _("Say which face-up counter, e.g. '{example}', or '{draw}' for a blind draw.").format(
                    example=_example("take"), draw=pgettext("command", "draw")
                ),
                _card_suggestions(p),
            )
        return {"type": "take", "counter": _one_card(p, _say_counter(), _example("take"))}
    if verb in ("pass", "end"):
        return {"type": verb}
    if verb == "discard":
        return {"type": "discard", "card": _one_card(p, _("Say which card, e.g. '{example}'."), _example("discard"))}
    if verb == "keep":
        if p.none or (not p.cards and not p.hidden):
            if not p.none:
                if state is not None and R.rules_version(state) >= 2:
                    text = _("Say which counter to keep, e.g. '{keep}', '{hidden}'.")
                else:
                    text = _("Say which counter to keep, e.g. '{keep}', '{hidden}' or '{none}'.")
                raise ParseError(text.format(keep=_example("keep"), hidden=_keep_hidden("dragon"), none=_keep_none()))
            return {"type": "keep", "counter": None, "hidden": False}
        if not p.cards:  # "keep hidden": the only face-down one
            downs = sorted(set(state["down"][seat])) if seat is not None else []
            if len(downs) != 1:
                raise ParseError(
                    _("Say which face-down counter, e.g. '{example}'.").format(example=_keep_hidden("giant_pig"))
                )
            return {"type": "keep", "counter": downs[0], "hidden": True}
        c = _one_card(p, _say_counter(), _example("keep"))
        return {"type": "keep", "counter": c, "hidden": _hidden(p, state, seat, c)}
    if verb == "trouble":
        a, b = _two_towns(p)
        return {"type": "trouble", "route": _land_route(a, b, p.types)}
    if verb == "place":
        c = _one_card(p, _say_counter(), _example("place"))
        a, b = _two_towns(p)
        return {
            "type": "place",
            "counter": c,
            "route": _land_route(a, b, p.types),
            "hidden": _hidden(p, state, seat, c),
        }
    if verb == "move":
        return _parse_move(p, state, seat)
    raise ParseError(_("Unknown command. Try 'help'."))


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
        raise ParseError(
            _("Say where to, e.g. '{example}' or '{river}'.").format(
                example=_("move to Lapphalya"),
                river=_("move to Virst by river with raft"),
            )
        )
    to = towns[0]
    if here is None:
        raise ParseError(_("Only a seated player can move."))
    routes = B.BETWEEN.get((here, to), [])
    if not routes:
        near = ", ".join(B.name(o) for _route, o in B.EXITS[here])
        text = _("No route joins {a} and {b}. From here: {near}.")
        raise ParseError(text.format(a=B.name(here), b=B.name(to), near=near))
    if p.types:
        want = p.types[-1]
        routes = [r for r in routes if B.ROUTES[r]["type"] == want]
        if not routes:
            have = _(" or ").join(B.type_word(B.ROUTES[r]["type"]) for r in B.BETWEEN[(here, to)])
            text = _("The route from {a} to {b} is a {kind}.")
            raise ParseError(text.format(a=B.name(here), b=B.name(to), kind=have))
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
    by = _("'by {kind}'")
    kinds = _(" or ").join(by.format(kind=B.type_word(B.ROUTES[r]["type"])) for r in B.BETWEEN[(here, to)])
    return _("{a} and {b} are joined twice: say {kinds}, and the cards.").format(
        a=B.name(here), b=B.name(to), kinds=kinds
    )


def route_text(route: str) -> str:
    r = B.ROUTES[route]
    return f"{B.name(r['a'])}-{B.name(r['b'])}"


def _verb_names() -> list[str]:
    """The command words suggested on a near miss: English and the reader's language."""
    return list(dict.fromkeys([*VERBS, *(pgettext("command", v) for v in dict.fromkeys(VERBS.values()))]))


def _example(verb: str) -> str:
    """An example of a command with a pig, in the reader's language ("take pig", "nimm Schwein")."""
    if verb == "place":
        return describe({"type": "place", "counter": "giant_pig", "route": EXAMPLE_ROUTE, "hidden": False})
    if verb == "discard":
        return describe({"type": "discard", "card": "giant_pig"})
    if verb == "keep":
        return describe({"type": "keep", "counter": "giant_pig", "hidden": False})
    return describe({"type": "take", "counter": "giant_pig"})


def _keep_hidden(kind: str) -> str:
    return describe({"type": "keep", "counter": kind, "hidden": True})


def _keep_none() -> str:
    return describe({"type": "keep", "counter": None, "hidden": False})


EXAMPLE_ROUTE = next(r for r in B.BETWEEN.get(("jxara", "virst"), []) if B.ROUTES[r]["type"] in B.LAND)


def command_words() -> list[str]:
    """The command words as describe() says them, in the reader's language (marked here for the
    catalogue: describe() and the lexicon look them up by the English word)."""
    return [
        pgettext("command", "take"),
        pgettext("command", "draw"),
        pgettext("command", "place"),
        pgettext("command", "trouble"),
        pgettext("command", "pass"),
        pgettext("command", "move"),
        pgettext("command", "end"),
        pgettext("command", "discard"),
        pgettext("command", "keep"),
    ]


def describe(command):
    t = command["type"]
    if t == "take":
        return _("take {counter}").format(counter=B.word(command["counter"]))
    if t in ("draw", "pass", "end"):
        return pgettext("command", t)
    if t == "place":
        text = _("place hidden {counter} on {route}") if command.get("hidden") else _("place {counter} on {route}")
        return text.format(counter=B.word(command["counter"]), route=route_text(command["route"]))
    if t == "trouble":
        return _("trouble on {route}").format(route=route_text(command["route"]))
    if t == "move":
        r = B.ROUTES[command["route"]]
        cards = " ".join(B.word(c) for c in command["cards"])
        text = _("move to {town} by {kind} with {cards}") if cards else _("move to {town} by {kind}")
        return text.format(town=B.name(command["to"]), kind=B.type_word(r["type"]), cards=cards)
    if t == "discard":
        return _("discard {card}").format(card=B.word(command["card"]))
    if t == "keep":
        if command["counter"] is None:
            return _("keep none")
        text = _("keep hidden {counter}") if command["hidden"] else _("keep {counter}")
        return text.format(counter=B.word(command["counter"]))
    return t


def help(state, seat):
    phase = state["phase"]
    lines = []
    if seat is None or seat not in R.waiting_for(state):
        # Seats are not numbered here: the platform names whom it waits for.
        lines.append(_("You are not awaited now."))
    lines += _HELP[phase](state, seat) if phase in _HELP else []
    return "\n".join(lines)


def _help_draw(state, _seat):
    pool = ", ".join(B.word(c) for c in state["pool"]) or _("none")
    return [
        _("Step 2: draw counters (face up now: {pool}).").format(pool=pool),
        _("  take pig        take a face-up counter (the pool is refilled)"),
        _("  draw            a blind draw from the face-down pile (kept face up)"),
    ]


def _help_place(_state, _seat):
    return [
        _("Step 3: place counters, one per turn, until everyone passes in a row."),
        _("  place pig on Jxara-Virst         a face-up counter"),
        _("  place hidden dragon on Beata-Strykhaven   your face-down counter"),
        _("  trouble on Jxara-Virst           your Trouble counter, next to a counter"),
        "  " + pgettext("command", "pass"),
    ]


def _help_move(state, seat):
    lines = [
        _("Step 4: move your Elf, one route at a time, then 'end'."),
        _("  move to Lapphalya                the counter says which cards"),
        _("  move to Virst by river           rafts: 1 down river, 2 up river, 2 on a lake"),
        _("  move to Feodor with pig troll raft   a caravan: any 3 cards (4 with Trouble)"),
        "  " + pgettext("command", "end"),
    ]
    if seat is not None and seat == state["turn"]:
        reach = ", ".join(B.name(t) for t in R.reachable(state, seat)) or _("nowhere")
        lines.append(_("  You can reach this turn: {towns}.").format(towns=reach))
        opts = [describe(c) for c in R.legal(state, seat) if c["type"] == "move"]
        plain = [o for o in opts if o.count(" ") <= 7][:6]
        if plain:
            lines.append(_("  For example: {moves}.").format(moves="; ".join(plain)))
    return lines


def _help_discard(_state, _seat):
    return [_("You hold more than four cards: discard one at a time."), "  " + _example("discard")]


def _help_keep(state, _seat):
    if R.rules_version(state) >= 2:  # "must discard down to 1 counter"
        return [
            _("Step 5: keep one counter for the next round."),
            f"  {_example('keep')} | {_keep_hidden('dragon')}",
        ]
    return [
        _("Step 5: keep at most one counter for the next round."),
        f"  {_example('keep')} | {_keep_hidden('dragon')} | {_keep_none()}",
    ]


def _help_over(_state, _seat):
    return [_("The game is over.")]


_HELP = {
    "draw": _help_draw,
    "place": _help_place,
    "move": _help_move,
    "discard": _help_discard,
    "keep": _help_keep,
    "over": _help_over,
}


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


def _cards_note(k, kind):
    """ "you hold 2 pig cards" and its kin: how many cards of a kind (the counter's short word)."""
    return ngettext("{n} {kind} card", "{n} {kind} cards", k).format(n=k, kind=B.word(kind))


def _draw_choices(v, legal):
    hand = v["hand"]
    out = []
    for cmd in legal:
        if cmd["type"] == "take":
            c = cmd["counter"]
            held = hand.get(c, 0)
            note = _("you hold {cards}").format(cards=_cards_note(held, c)) if held else ""
            out.append(Choice(cmd, _("Take a face-up counter"), B.long(c), True, f"pool-{c}", note))
        else:
            pile = _("{n} in the pile").format(n=v["pile"])
            out.append(Choice(cmd, _("Draw blind"), _("a face-down counter from the pile"), True, "pile", pile))
    out.sort(key=lambda c: (c.command["type"] != "take", -hand.get(c.command.get("counter"), 0)))
    return out


@cache
def _route_label_in(route, _language) -> str:
    r = B.ROUTES[route]
    return _("on {a}–{b} ({kind})").format(a=B.name(r["a"]), b=B.name(r["b"]), kind=B.type_long(r["type"]))


def _route_label(route) -> str:
    return _route_label_in(route, current())


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
                    cmd,
                    _("Pass"),
                    _("pass (place nothing this turn)"),
                    True,
                    note=_("you may still place on your next turn"),
                )
            )
        elif kind == "trouble":
            route = cmd["route"]
            word = B.word(v["board"][route])
            out.append(
                Choice(
                    cmd,
                    _("Place your Trouble counter"),
                    _("{route}, next to the {counter}").format(route=_route_label(route), counter=word),
                    route == trouble,
                    D.target_of_route(route),
                    _("one card more to travel it"),
                )
            )
        else:
            c, route = cmd["counter"], cmd["route"]
            group = (_("Place your face-down {counter}") if cmd["hidden"] else _("Place {counter}")).format(
                counter=B.long(c)
            )
            cost = B.counter_cost(c, route)
            usual = cmd["hidden"] == (c not in seat.up)  # the face-up one when both are held
            featured = cmd == first or usual and ((route, c) in planned or (route, c) in near)
            if (route, c) in planned:
                note = _("on your best route")
            else:
                note = _("{cards} to travel it").format(cards=_cards_note(cost, c))
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
                    _("End the move"),
                    _("stay in {town}").format(town=B.name(here)),
                    True,
                    note="" if first != cmd else _("nothing more worth the cards"),
                )
            )
            continue
        route, to = cmd["route"], cmd["to"]
        twin = len(B.BETWEEN[(here, to)]) > 1
        if twin:
            group = _("Move to {town} by {kind}").format(town=B.name(to), kind=B.type_word(B.ROUTES[route]["type"]))
        else:
            group = _("Move to {town}").format(town=B.name(to))
        note = _("collects a town piece") if to in B.PIECE_TOWNS and to not in mine else _("already collected")
        if cmd == first:
            note += _("; the best plan")
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
    cards = " ".join(B.word(c) for c in cmd["cards"])
    how = _how(v, cmd)
    if how == "raft":
        r = B.ROUTES[cmd["route"]]
        if r["type"] == "river":
            if r["downstream_to"] == cmd["to"]:
                return _("with {cards} (down river)").format(cards=cards)
            return _("with {cards} (up river)").format(cards=cards)
        return _("with {cards} (across {lake})").format(cards=cards, lake=r["lake"])
    if how == "boatmen":
        return _("Boatmen: {cards}").format(cards=cards)
    if how == "caravan":
        return _("caravan: {cards}").format(cards=cards)
    return _("with {cards}").format(cards=cards)


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
        Choice(
            cmd,
            _("Discard a card"),
            B.long(cmd["card"]),
            True,
            f"card-{cmd['card']}",
            _("you hold {n}").format(n=hand[cmd["card"]]),
        )
        for cmd in legal
    ]
    return _ordered(out, first)


def _keep_choices(v, legal):
    first = S.choose_keep(v, legal)
    out = []
    for cmd in legal:
        c = cmd["counter"]
        if c is None:
            out.append(Choice(cmd, _("Keep a counter"), _("none (keep no counter)"), True))
        elif cmd["hidden"]:
            label = _("your face-down {counter}").format(counter=B.long(c))
            out.append(Choice(cmd, _("Keep a counter"), label, True, f"counter-hidden-{c}", _("stays secret")))
        else:
            out.append(Choice(cmd, _("Keep a counter"), B.long(c), True, f"counter-{c}"))
    return _ordered(out, first)


_CHOOSERS = {
    "draw": _draw_choices,
    "place": _place_choices,
    "move": _move_choices,
    "discard": _discard_choices,
    "keep": _keep_choices,
}
