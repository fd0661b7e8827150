"""The text grammar: what a player types in a mail client, and back.

Players are named by their wizard's colour (red, blue, green, yellow); cards by their names
("magic wand 1", "potion"), forgiving of case, accents and apostrophes, with "did you mean".
"""

from __future__ import annotations

from games.base import ParseError, key, normalize
from games.base import match_name as _match_name

from .rules import ADV, ART, ARTIFACTS, COLOURS, SPELL_ID, waiting_for

VERBS = ["place", "pass", "fulmentus", "skip", "fight", "withdraw", "together", "alone", "bid", "take", "cast",
         "done", "offer", "accept", "decline", "lay"]
SYNONYMS = {"join": "place", "put": "place", "raise": "bid", "finish": "done", "stop": "done", "no": "skip",
            "yes": "accept", "refuse": "decline", "reject": "decline", "use": "cast", "trade": "offer",
            "share": "together", "solo": "alone", "retreat": "withdraw", "defeat": "fight", "attack": "fight"}
CARD_NAMES = {c["card_name"]: c["id"] for c in ART.values()}
ARTIFACT_NAMES = {a["name"]: k for k, a in ARTIFACTS.items()}
# the German names work too ("Zauberstab 1", "Phönixfeder")
for _c in ART.values():
    _de = _c["name_de_proposed"] + (f" {_c['part']}" if _c["parts"] == 2 else "")
    CARD_NAMES.setdefault(_de, _c["id"])
    ARTIFACT_NAMES.setdefault(_c["name_de_proposed"], _c["artifact"])
SPELL_NAMES = list(SPELL_ID)


_KEYED: dict[tuple, dict] = {}


def match_name(word, names, what="name"):
    """match_name from games.base, with a cached exact-key fast path (parse runs on every bot move)."""
    names = tuple(names)
    keyed = _KEYED.get(names)
    if keyed is None:
        keyed = _KEYED[names] = {key(n): n for n in names}
    found = keyed.get(key(word))
    return found if found is not None else _match_name(word, names, what)


def card_name(cid):
    return ART[cid]["card_name"]


def colour(seat):
    return COLOURS[seat]


def _colour(word, state):
    names = list(COLOURS[: state["n"]])
    return names.index(match_name(word, names, "player colour"))


def _card(words):
    if not words:
        raise ParseError("Name an artifact card, e.g. 'magic wand 1' or 'potion'.")
    return CARD_NAMES[match_name(" ".join(words), list(CARD_NAMES), "artifact card")]


def _split(words, sep):
    if sep in words:
        i = words.index(sep)
        return words[:i], words[i + 1:]
    return words, None


def parse(text, state, seat):
    words = normalize(text).replace(",", " ").split()
    if not words:
        raise ParseError("Empty command. Type 'help' for the commands.")
    head = words[0]
    verb = SYNONYMS.get(head) or match_name(head, VERBS, "command")
    rest = words[1:]
    if verb in ("pass", "skip", "fight", "withdraw", "together", "alone", "done"):
        if verb == "skip" and state.get("step") == "place":
            verb = "pass"
        return {"type": verb}
    if verb == "place":
        if rest and rest[0] == "on":
            rest = rest[1:]
        if not rest:
            raise ParseError("Say where: 'place 1' or 'place 2'.")
        arg = " ".join(rest)
        if arg in ("1", "left", "first"):
            return {"type": "place", "slot": 0}
        if arg in ("2", "right", "second"):
            return {"type": "place", "slot": 1}
        shown = {_adv_name(c): i for i, c in enumerate(state["display"]) if c is not None}
        return {"type": "place", "slot": shown[match_name(arg, list(shown), "card in the display")]}
    if verb == "fulmentus":
        return _fulmentus(rest)
    if verb == "bid":
        if len(rest) != 1 or not rest[0].isdigit():
            raise ParseError("Say how many magic points you bid: 'bid 5'.")
        return {"type": "bid", "amount": int(rest[0])}
    if verb == "take":
        if not rest:
            raise ParseError("Say 'take stones' or 'take magic'.")
        what = match_name(rest[-1], ["stones", "power", "ps", "magic", "mp", "points"], "bonus")
        return {"type": "bonus", "take": "stones" if what in ("stones", "power", "ps") else "magic"}
    if verb == "cast":
        if not rest:
            raise ParseError("Say which spell: 'cast transformus'.", SPELL_NAMES)
        spell = match_name(rest[0], SPELL_NAMES, "spell")
        if spell == "Fulmentus":
            return _fulmentus(rest[1:])
        if spell == "Retransformus":
            return {"type": "cast", "spell": spell, "card": _card([w for w in rest[1:] if w not in ("discard", "discarding")])}
        if spell == "Harpagarus":
            target = [w for w in rest[1:] if w not in ("from", "on")]
            if len(target) != 1:
                raise ParseError("Say whom Harpagarus takes from: 'cast harpagarus blue'.")
            return {"type": "cast", "spell": spell, "target": _colour(target[0], state)}
        return {"type": "cast", "spell": spell}
    if verb == "offer":
        give, tail = _split(rest, "to")
        if tail is None:
            raise ParseError("Say 'offer <your card> to <colour> for <card>', e.g. 'offer potion to blue for magic wand 2'.")
        who, want = _split(tail, "for")
        if want is None or len(who) != 1:
            raise ParseError("Say 'offer <your card> to <colour> for <card>', e.g. 'offer potion to blue for magic wand 2'.")
        return {"type": "offer", "give": _card(give), "to": _colour(who[0], state), "want": _card(want)}
    if verb in ("accept", "decline"):
        rest = [w for w in rest if w not in ("offer", "from", "of")]
        if rest:
            return {"type": verb, "from": _colour(rest[0], state)}
        incoming = [o["from"] for o in state.get("offers", []) if o["to"] == seat]
        if len(incoming) == 1:
            return {"type": verb, "from": incoming[0]}
        raise ParseError(f"Say whose offer: '{verb} red'.")
    if verb == "lay":
        if rest and rest[0] == "out":
            rest = rest[1:]
        if not rest:
            raise ParseError("Say which artifact: 'lay magic wand'.")
        return {"type": "lay", "artifact": ARTIFACT_NAMES[match_name(" ".join(rest), list(ARTIFACT_NAMES), "artifact")]}
    raise ParseError(f"Unknown command '{head}'.")


def _fulmentus(rest):
    rest = [w for w in rest if w not in ("by", "2", "two", "strength")]
    if len(rest) != 1:
        raise ParseError("Say 'fulmentus up' (strength +2) or 'fulmentus down' (strength -2).")
    word = match_name(rest[0], ["up", "down", "plus", "minus", "raise", "lower", "+2", "-2"], "direction")
    return {"type": "fulmentus", "delta": 2 if word in ("up", "plus", "raise", "+2") else -2}


def _adv_name(cid):
    c = ADV[cid]
    # with the symbol, so that two spiders of strength 4 (sun and moon) have different names
    return f"{c['name']} {c['strength']} {c['symbol']}" if c["type"] == "creature" else c["name"]


def describe(cmd):
    t = cmd["type"]
    if t == "place":
        return f"place {cmd['slot'] + 1}"
    if t == "fulmentus":
        return "fulmentus up" if cmd["delta"] > 0 else "fulmentus down"
    if t == "bid":
        return f"bid {cmd['amount']}"
    if t == "bonus":
        return f"take {cmd['take']}"
    if t == "cast":
        if cmd["spell"] == "Retransformus":
            return f"cast retransformus {card_name(cmd['card']).lower()}"
        if cmd["spell"] == "Harpagarus":
            return f"cast harpagarus {colour(cmd['target'])}"
        return f"cast {cmd['spell'].lower()}"
    if t == "offer":
        return f"offer {card_name(cmd['give']).lower()} to {colour(cmd['to'])} for {card_name(cmd['want']).lower()}"
    if t in ("accept", "decline"):
        return f"{t} {colour(cmd['from'])}"
    if t == "lay":
        return f"lay {ARTIFACTS[cmd['artifact']]['name'].lower()}"
    return t


HELP = {
    "place": ["place 1        put your wizard on the first card of the display (or 'place 2',",
              "               or the card's name: 'place spiders')",
              "pass           keep your wizard and take 1 magic point"],
    "fulmentus": ["fulmentus up   cast Fulmentus: this creature's strength +2 for this fight",
                  "fulmentus down cast Fulmentus: strength -2",
                  "skip           do not cast Fulmentus on this fight"],
    "lone": ["fight          pay the creature's strength in magic points and take the reward",
             "withdraw       take your wizard back; nothing is paid, nothing won"],
    "declare": ["together       share the fight: the strength is split equally (rounded up)",
                "alone          claim it alone: the creature is auctioned (bids from its strength)"],
    "auction": ["bid 7          bid magic points (more than the last bid, at most what you have)",
                "pass           leave the auction for good (you pay nothing)"],
    "bonus": ["take stones    take the artifact's bonus as power stones",
              "take magic     take it as magic points"],
    "spells": ["cast transformus                 pay 4 magic points for 1 power stone",
               "cast retransformus potion        discard a hand card, draw the top artifact",
               "cast harpagarus blue             pay 2 magic points, take a random card blue",
               "                                 received this round",
               "done                             no (more) spells this round"],
    "trade": ["offer potion to blue for magic wand 2   offer a hand card for a card you name",
              "accept red     accept red's offer to you (card for card)",
              "decline red    decline red's offer",
              "done           you make no more offers this round (you still answer offers)"],
    "layout": ["lay magic wand  lay out a complete artifact (face up, for bonuses)",
               "done           lay out nothing more this round"],
}


def help(state, seat):
    step = state["step"]
    lines = ["Zauberschwert & Drachenei. Players are named by colour: "
             + ", ".join(COLOURS[: state["n"]]) + "."]
    if step == "over":
        return "\n".join(lines + ["The game is over."])
    context = _context(state, seat)
    if context:
        lines.append(context)
    if seat is not None and seat not in waiting_for(state):
        lines.append("You are not awaited now. Commands of this phase:")
    lines += HELP.get(step, [])
    return "\n".join(lines)


def _context(state, seat):
    step = state["step"]
    f, a = state["fight"], state["auction"]
    if step == "place":
        shown = [f"{i + 1}) {_adv_name(c)}" for i, c in enumerate(state["display"]) if c is not None]
        return "The display: " + ", ".join(shown) + "."
    if step in ("lone", "declare", "fulmentus") and f:
        share = -(-f["strength"] // max(1, len(f["seats"])))
        return (f"{ADV[f['card']]['name']}, strength {f['strength']}: together each of the {len(f['seats'])} pays "
                f"{share} (rounded up)." if len(f["seats"]) > 1 else
                f"{ADV[f['card']]['name']}, strength {f['strength']}.")
    if step == "auction" and a:
        low = a["min"] if a["high"] is None else a["high"] + 1
        return f"Auction for {ADV[a['card']]['name']}: the next bid must be at least {low}."
    if step == "bonus" and state["choices"]:
        return f"Bonus of the {ARTIFACTS[state['choices'][0][1]]['name']}: {ARTIFACTS[state['choices'][0][1]]['bonus']['amount']}."
    if step == "trade" and seat is not None:
        limit = state["offers_limit"] - state["made"][seat]
        return f"You may make {max(0, limit)} more offer(s) this round."
    return ""
