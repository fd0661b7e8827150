"""The text grammar: what a player types in a mail client, and back.

Players are named by their wizard's colour (red, blue, green, yellow); cards by their names
("magic wand 1", "potion"), forgiving of case, accents and apostrophes, with "did you mean".
"""

from __future__ import annotations

from games.base import MAX_FEATURED, Choice, ParseError, key, normalize
from games.base import match_name as _match_name

from .rules import ADV, ART, ARTIFACTS, COLOURS, RULES, SPELL_ID, offers_cap, rules_version, waiting_for
from .rules import legal as _legal

VERBS = [
    "place",
    "pass",
    "fulmentus",
    "skip",
    "fight",
    "withdraw",
    "together",
    "alone",
    "bid",
    "take",
    "cast",
    "done",
    "offer",
    "accept",
    "decline",
    "lay",
]
SYNONYMS = {
    "join": "place",
    "put": "place",
    "raise": "bid",
    "finish": "done",
    "stop": "done",
    "no": "skip",
    "yes": "accept",
    "refuse": "decline",
    "reject": "decline",
    "use": "cast",
    "trade": "offer",
    "share": "together",
    "solo": "alone",
    "retreat": "withdraw",
    "defeat": "fight",
    "attack": "fight",
}
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
        return words[:i], words[i + 1 :]
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
            return {
                "type": "cast",
                "spell": spell,
                "card": _card([w for w in rest[1:] if w not in ("discard", "discarding")]),
            }
        if spell == "Harpagarus":
            target = [w for w in rest[1:] if w not in ("from", "on")]
            if len(target) != 1:
                raise ParseError("Say whom Harpagarus takes from: 'cast harpagarus blue'.")
            return {"type": "cast", "spell": spell, "target": _colour(target[0], state)}
        return {"type": "cast", "spell": spell}
    if verb == "offer":
        give, tail = _split(rest, "to")
        if tail is None:
            raise ParseError(
                "Say 'offer <your card> to <colour> for <card>', e.g. 'offer potion to blue for magic wand 2'."
            )
        who, want = _split(tail, "for")
        if want is None or len(who) != 1:
            raise ParseError(
                "Say 'offer <your card> to <colour> for <card>', e.g. 'offer potion to blue for magic wand 2'."
            )
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
    "place": [
        "place 1        put your wizard on the first card of the display (or 'place 2',",
        "               or the card's name: 'place spiders')",
        "pass           keep your wizard and take 1 magic point",
    ],
    "fulmentus": [
        "fulmentus up   cast Fulmentus: this creature's strength +2 for this fight",
        "fulmentus down cast Fulmentus: strength -2",
        "skip           do not cast Fulmentus on this fight",
    ],
    "lone": [
        "fight          pay the creature's strength in magic points and take the reward",
        "withdraw       take your wizard back; nothing is paid, nothing won",
    ],
    "declare": [
        "together       share the fight: the strength is split equally (rounded up)",
        "alone          claim it alone: the creature is auctioned (bids from its strength)",
    ],
    "auction": [
        "bid 7          bid magic points (more than the last bid, at most what you have)",
        "pass           leave the auction for good (you pay nothing)",
    ],
    "bonus": ["take stones    take the artifact's bonus as power stones", "take magic     take it as magic points"],
    "spells": [
        "cast transformus                 pay 4 magic points for 1 power stone",
        "cast retransformus potion        discard a hand card, draw the top artifact",
        "cast harpagarus blue             pay 2 magic points, take a random card blue",
        "                                 received this round",
        "done                             no (more) spells this round",
    ],
    "trade": [
        "offer potion to blue for magic wand 2   offer a hand card for a card you name",
        "accept red     accept red's offer to you (card for card)",
        "decline red    decline red's offer",
        "done           you make no more offers this round (you still answer offers)",
    ],
    "layout": [
        "lay magic wand  lay out a complete artifact (face up, for bonuses)",
        "done           lay out nothing more this round",
    ],
}


def help(state, seat):
    step = state["step"]
    lines = ["Zauberschwert & Drachenei. Players are named by colour: " + ", ".join(COLOURS[: state["n"]]) + "."]
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
        return (
            f"{ADV[f['card']]['name']}, strength {f['strength']}: together each of the {len(f['seats'])} pays "
            f"{share} (rounded up)."
            if len(f["seats"]) > 1
            else f"{ADV[f['card']]['name']}, strength {f['strength']}."
        )
    if step == "auction" and a:
        low = a["min"] if a["high"] is None else a["high"] + 1
        return f"Auction for {ADV[a['card']]['name']}: the next bid must be at least {low}."
    if step == "bonus" and state["choices"]:
        return f"Bonus of the {ARTIFACTS[state['choices'][0][1]]['name']}: {ARTIFACTS[state['choices'][0][1]]['bonus']['amount']}."
    if step == "trade" and seat is not None:
        cap = offers_cap(state) if rules_version(state) >= 2 else state["offers_limit"]
        if cap is None:
            return "You may make offers to each player with cards (one open offer to each at a time)."
        return f"You may make {max(0, cap - state['made'][seat])} more offer(s) this round."
    return ""


# ---------------------------------------------------------------------------------------------
# the chooser: every legal command once, the moves that matter first
# ---------------------------------------------------------------------------------------------

# How many bids a notice numbers (the lowest few and everything one has); the rest are typed.
FEATURED_BIDS = 4
# How many trade offers a notice numbers: asking for the other half of one's two-part artifacts.
FEATURED_OFFERS = 8


def card_target(slot: int) -> str:
    """The id of display card `slot` (0 or 1) in the board drawing."""
    return f"zs-card-{slot + 1}"


def hand_target(card: str) -> str:
    return f"zs-hand-{card}"


def player_target(seat: int) -> str:
    return f"zs-player-{COLOURS[seat]}"


OFFER_GROUP = {c: f"Offer {ART[c]['card_name']}" for c in ART}
OFFER_LABEL = [{w: f"to {who.capitalize()} for {ART[w]['card_name']}" for w in ART} for who in COLOURS]
HAND_TARGET = {c: hand_target(c) for c in ART}


def _reward(reward: dict) -> str:
    parts = [f"{reward['power_stones']} stones"] if reward["power_stones"] else []
    if reward["artifacts"]:
        parts.append(f"{reward['artifacts']} artifact" + ("s" if reward["artifacts"] > 1 else ""))
    return " + ".join(parts) or "nothing"


def _card_title(cid: str) -> str:
    c = ADV[cid]
    return f"{c['name']} (strength {c['strength']}, {c['symbol']})" if c["type"] == "creature" else c["name"]


def _place_note(state, seat, slot) -> str:
    cid = state["display"][slot]
    c = ADV[cid]
    there = [COLOURS[x].capitalize() for x in range(state["n"]) if state["wizard"][x] == slot and x != seat]
    beside = f"{' and '.join(there)} there: " if there else ""
    if c["type"] == "energy_orb":
        return f"+{c['reward_each_attached_wizard']['magic_points']} magic each"
    if c["type"] == "holy_site":
        return _reward(c["reward_each_attached_wizard"]) + " each"
    if c["type"] == "spell":
        return beside + ("auction for the spell" if there else "the spell free")
    if not there:
        return f"alone: {_reward(c['reward_one_wizard'])} for {c['strength']} magic"
    share = -(-c["strength"] // (len(there) + 1))
    return f"{beside}shared {_reward(c['reward_two_wizards_each'])} each for {share} magic, or an auction"


def choices(state, seat):
    """The legal moves as the chooser offers them (games.base.Choice): group = what (the wizard,
    a spell, an offered card), label = where or how, featured = worth a code in a turn notice."""
    legal = _legal(state, seat)
    if not legal:
        return []
    step = state["step"]
    build = _CHOOSERS.get(step)
    out = build(state, seat, legal) if build else [Choice(c, c["type"].capitalize(), describe(c), True) for c in legal]
    featured = 0
    capped = []
    for choice in out:  # never more than MAX_FEATURED codes in a notice
        if choice.featured:
            featured += 1
            if featured > MAX_FEATURED:
                choice = Choice(choice.command, choice.group, choice.label, False, choice.target, choice.note)
        capped.append(choice)
    return capped


def _choose_place(state, seat, legal):
    out = []
    for c in legal:
        if c["type"] == "place":
            slot = c["slot"]
            out.append(
                Choice(
                    c,
                    "Place your wizard",
                    f"on card {slot + 1}: {_card_title(state['display'][slot])}",
                    True,
                    card_target(slot),
                    _place_note(state, seat, slot),
                )
            )
    out.append(
        Choice({"type": "pass"}, "Pass", "keep your wizard back", True, None, f"+{RULES['pass_bonus']} magic point")
    )
    return out


def _choose_fulmentus(state, seat, legal):
    f = state["fight"]
    target = card_target(f["slot"])
    strength = f["strength"]
    mine = seat in f["seats"]
    return [
        Choice(
            {"type": "fulmentus", "delta": -2},
            "Fulmentus",
            f"down: strength {strength} to {max(0, strength - 2)}",
            True,
            target,
            "your fight costs less" if mine else "the fight costs them less",
        ),
        Choice(
            {"type": "fulmentus", "delta": 2},
            "Fulmentus",
            f"up: strength {strength} to {strength + 2}",
            True,
            target,
            "" if mine else "they pay more, or cannot pay",
        ),
        Choice({"type": "skip"}, "Skip", f"keep the strength at {strength}", True, target, "Fulmentus stays unused"),
    ]


def _choose_lone(state, seat, legal):
    f = state["fight"]
    target = card_target(f["slot"])
    reward = _reward(ADV[f["card"]]["reward_one_wizard"])
    return [
        Choice({"type": "fight"}, "Fight", f"pay {f['strength']} magic", True, target, reward),
        Choice({"type": "withdraw"}, "Withdraw", "take your wizard back", True, target, "pay and win nothing"),
    ]


def _choose_declare(state, seat, legal):
    f = state["fight"]
    c = ADV[f["card"]]
    target = card_target(f["slot"])
    share = -(-f["strength"] // len(f["seats"]))
    return [
        Choice(
            {"type": "together"},
            "Together",
            f"share the fight: {share} magic each",
            True,
            target,
            _reward(c["reward_two_wizards_each"]) + " each",
        ),
        Choice(
            {"type": "alone"},
            "Alone",
            f"claim it: an auction from {f['strength']} magic",
            True,
            target,
            _reward(c["reward_one_wizard"]) + " for the winner",
        ),
    ]


def _choose_auction(state, seat, legal):
    a = state["auction"]
    target = card_target(a["slot"])
    what = ADV[a["card"]]["name"]
    bids = [c for c in legal if c["type"] == "bid"]
    top = bids[-1]["amount"] if bids else None
    lead = [c for c in bids[: FEATURED_BIDS - 1]] + ([bids[-1]] if len(bids) >= FEATURED_BIDS else [])
    rest = [c for c in bids if c not in lead]

    def bid(c, featured):
        note = "all your magic" if c["amount"] == top else ("the lowest bid" if c is bids[0] else "")
        return Choice(c, "Bid", f"bid {c['amount']} for {what}", featured, target, note)

    passing = [Choice({"type": "pass"}, "Pass", "leave the auction for good", True, target, "you pay nothing")]
    return [bid(c, True) for c in lead] + (passing if {"type": "pass"} in legal else []) + [bid(c, False) for c in rest]


def _choose_bonus(state, seat, legal):
    art = ARTIFACTS[state["choices"][0][1]]
    amount = art["bonus"]["amount"]
    return [
        Choice(
            {"type": "bonus", "take": "stones"},
            f"{art['name']} bonus",
            f"take {amount} power stones",
            True,
            None,
            "stones are the score",
        ),
        Choice({"type": "bonus", "take": "magic"}, f"{art['name']} bonus", f"take {amount} magic points", True),
    ]


def _choose_spells(state, seat, legal):
    out = []
    for c in legal:
        if c["type"] != "cast":
            continue
        spell = c["spell"]
        effect = ADV[SPELL_ID[spell]]["effect"]
        if spell == "Transformus":
            out.append(
                Choice(c, "Cast Transformus", f"pay {effect['pay_mp']} magic for {effect['gain_ps']} power stone", True)
            )
        elif spell == "Retransformus":
            out.append(
                Choice(
                    c,
                    "Cast Retransformus",
                    f"discard {card_name(c['card'])}, draw the top artifact",
                    True,
                    hand_target(c["card"]),
                )
            )
        else:
            got = [x for x in state["received"][c["target"]] if x in state["hand"][c["target"]]]
            out.append(
                Choice(
                    c,
                    "Cast Harpagarus",
                    f"take a card from {colour(c['target']).capitalize()}",
                    True,
                    player_target(c["target"]),
                    f"pay 2 magic; they received {len(got)} this round",
                )
            )
    out.append(Choice({"type": "done"}, "Done", "no more spells this round", True))
    return out


def _choose_trade(state, seat, legal):
    out = []
    offers = {(o["from"], o["to"]): o for o in state["offers"]}
    for c in legal:
        if c["type"] in ("accept", "decline"):
            o = offers[(c["from"], seat)]
            who = colour(c["from"]).capitalize()
            label = (
                f"accept: give {card_name(o['want'])}, get {card_name(o['give'])}"
                if c["type"] == "accept"
                else f"decline: keep {card_name(o['want'])}"
            )
            out.append(Choice(c, f"Answer {who}'s offer", label, True, player_target(c["from"])))
    if {"type": "done"} in legal:
        out.append(
            Choice(
                {"type": "done"},
                "Done",
                "make no more offers this round",
                True,
                None,
                "you still answer offers made to you",
            )
        )
    hand = state["hand"][seat]
    missing = {p for c in hand for p in ARTIFACTS[ART[c]["artifact"]]["cards"] if p not in hand}
    wanted = []
    plain = []
    for c in legal:  # hundreds of offers: the strings come from tables made once
        if c["type"] != "offer":
            continue
        give, want = c["give"], c["want"]
        choice = Choice(c, OFFER_GROUP[give], OFFER_LABEL[c["to"]][want], False, HAND_TARGET[give])
        if want in missing and ART[give]["artifact"] != ART[want]["artifact"]:
            wanted.append(choice)
        else:
            plain.append(choice)
    # featured: asking each player for a missing half, for the card worth least to this seat
    # (the stand-in's measure), never a half of an artifact it holds complete
    worth = _card_worths(state, seat)
    best = {}
    for choice in sorted(wanted, key=lambda ch: worth[ch.command["give"]]):
        pair = (choice.command["to"], choice.command["want"])
        if pair not in best and not _paired(choice.command["give"], hand):
            best[pair] = choice
    lead = [
        Choice(
            ch.command,
            ch.group,
            ch.label,
            True,
            ch.target,
            f"the other half of your {ARTIFACTS[ART[ch.command['want']]['artifact']]['name']}",
        )
        for ch in _own_first(state, seat, legal, wanted + plain, list(best.values()))[:FEATURED_OFFERS]
    ]
    chosen = {id(ch.command) for ch in lead}
    return out + lead + [ch for ch in wanted if id(ch.command) not in chosen] + plain


def _own_first(state, seat, legal, offers, featured):
    """The featured offers with the one the stand-in would make first (so a notice numbers it)."""
    from .standin import standin
    from .view import view

    own = standin(view(state, seat), legal)
    if own.get("type") != "offer":
        return featured
    mine = [ch for ch in offers if ch.command == own][:1]
    return mine + [ch for ch in featured if ch.command != own]


def _paired(card, hand):
    """Whether `card` is half of a two-part artifact whose other half is in `hand` too."""
    return ART[card]["parts"] == 2 and all(p in hand for p in ARTIFACTS[ART[card]["artifact"]]["cards"])


def _card_worths(state, seat):
    from .standin import Seen  # the stand-in's measure of a card (it imports no grammar)
    from .view import view

    seen = Seen.of(view(state, seat))
    return {c: seen.card_worth(c, seen.hand) for c in seen.hand}


def _choose_layout(state, seat, legal):
    out = []
    for c in legal:
        if c["type"] == "lay":
            art = ARTIFACTS[c["artifact"]]
            bonus = art["bonus"]
            what = {"power_stones": "stones", "magic_points": "magic", "choice": "stones or magic"}[bonus["type"]]
            out.append(
                Choice(
                    c,
                    "Lay out",
                    f"{art['name']} ({'/'.join(art['symbols'])})",
                    True,
                    hand_target(art["cards"][0]),
                    f"+{bonus['amount']} {what} on {'/'.join(art['symbols'])} creatures",
                )
            )
    out.append(Choice({"type": "done"}, "Done", "lay out nothing more this round", True))
    return out


_CHOOSERS = {
    "place": _choose_place,
    "fulmentus": _choose_fulmentus,
    "lone": _choose_lone,
    "declare": _choose_declare,
    "auction": _choose_auction,
    "bonus": _choose_bonus,
    "spells": _choose_spells,
    "trade": _choose_trade,
    "layout": _choose_layout,
}
