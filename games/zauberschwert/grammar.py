"""The text grammar: what a player types in a mail client, and back.

Players are named by their wizard's colour (red, blue, green, yellow); cards by their names
("magic wand 1", "potion"), forgiving of case, accents and apostrophes, with "did you mean".
"""

from __future__ import annotations

from functools import cache

from games.base import MAX_FEATURED, Choice, ParseError, key, normalize
from games.base import match_name as _match_name
from games.i18n import current

from . import words as W
from .lang import CATALOGUE, N_, _, ngettext, pgettext
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
# German and French command words (by key: accents folded), besides those describe() writes in
# each language (from the catalogue, see _verbs): imperatives and infinitives.
LOCAL_VERBS = {
    # German
    "setze": "place",
    "setzen": "place",
    "passe": "pass",
    "passen": "pass",
    "verzichte": "skip",
    "verzichten": "skip",
    "kampfe": "fight",
    "kampfen": "fight",
    "kaempfe": "fight",
    "kaempfen": "fight",
    "zuruckziehen": "withdraw",
    "zurueckziehen": "withdraw",
    "ruckzug": "withdraw",
    "rueckzug": "withdraw",
    "gemeinsam": "together",
    "zusammen": "together",
    "allein": "alone",
    "alleine": "alone",
    "biete": "bid",
    "bieten": "bid",
    "nimm": "take",
    "nehmen": "take",
    "wirke": "cast",
    "wirken": "cast",
    "zaubere": "cast",
    "fertig": "done",
    "tausche": "offer",
    "tauschen": "offer",
    "annehmen": "accept",
    "akzeptiere": "accept",
    "ablehnen": "decline",
    "lehne": "decline",
    "lege": "lay",
    "legen": "lay",
    "auslegen": "lay",
    # French
    "placer": "place",
    "passer": "pass",
    "renonce": "skip",
    "renoncer": "skip",
    "combats": "fight",
    "combattre": "fight",
    "retraite": "withdraw",
    "retire": "withdraw",
    "ensemble": "together",
    "seul": "alone",
    "seule": "alone",
    "encheris": "bid",
    "encherir": "bid",
    "mise": "bid",
    "miser": "bid",
    "prends": "take",
    "prendre": "take",
    "lance": "cast",
    "lancer": "cast",
    "fini": "done",
    "termine": "done",
    "propose": "offer",
    "proposer": "offer",
    "echange": "offer",
    "accepte": "accept",
    "accepter": "accept",
    "refuser": "decline",
    "pose": "lay",
    "poser": "lay",
}
SINGLE = ("pass", "skip", "fight", "withdraw", "together", "alone", "done")
# The words between a command's parts, in every language: 'offer A to blue for B', 'tausche A mit
# Blau gegen B', 'propose A à bleu contre B'.
TO_WORDS = ("to", "mit", "an", "a")
FOR_WORDS = ("for", "gegen", "fur", "fuer", "contre", "pour")
FIRST = {"1", "left", "first", "links", "erste", "ersten", "gauche", "premiere", "premier"}
SECOND = {"2", "right", "second", "rechts", "zweite", "zweiten", "droite", "deuxieme", "seconde"}
STONE_WORDS = {"stones", "stone", "power", "ps", "steine", "machtsteine", "ms", "pierres", "pierre", "pouvoir", "pp"}
MAGIC_WORDS = {"magic", "mp", "points", "magie", "magiepunkte", "punkte", "pm"}
UP_WORDS = {"up", "plus", "raise", "+2", "hoch", "rauf", "erhohe", "erhoehe", "hausse", "monte"}
DOWN_WORDS = {"down", "minus", "lower", "-2", "runter", "herab", "senke", "moins", "baisse"}
DISCARD_WORDS = {"discard", "discarding", "ab", "wirf", "defausse", "jette"}
FROM_WORDS = {"from", "on", "von", "bei", "auf", "sur", "a", "chez", "de"}
OFFER_WORDS = {
    "offer",
    "offers",
    "from",
    "of",
    "the",
    "angebot",
    "von",
    "das",
    "ab",
    "an",
    "offre",
    "loffre",
    "de",
    "l",
    "la",
}
PLACE_WORDS = {
    "on",
    "my",
    "wizard",
    "the",
    "auf",
    "meinen",
    "zauberer",
    "die",
    "karte",
    "sur",
    "mon",
    "magicien",
    "la",
    "carte",
}
OUT_WORDS = {"out", "aus"}
SPELL_NAMES = list(SPELL_ID)


@cache
def _verbs() -> dict[str, str]:
    """Every command word of every language (by key) -> the English verb."""
    out = {v: v for v in VERBS} | SYNONYMS | LOCAL_VERBS
    for verb in VERBS:
        for word in CATALOGUE.every_language(verb, "command"):
            out.setdefault(key(word), verb)
    return out


_KEYED: dict[tuple, dict] = {}


def match_name(word, names, what="name"):
    """match_name from games.base, with a cached exact-key fast path (parse runs on every bot move)."""
    names = tuple(names)
    keyed = _KEYED.get(names)
    if keyed is None:
        keyed = _KEYED[names] = {key(n): n for n in names}
    found = keyed.get(key(word))
    return found if found is not None else _match_name(word, names, what)


def pick(word, names: dict, what: str):
    """The value of the name in `names` (a name in any language -> what it means) that `word`
    means: an exact name, or a unique prefix, where names that mean the same count once
    ('gob' is the goblins whether named in English or German)."""
    keyed = _keyed_values(tuple(names.items()))
    k = key(word)
    if k in keyed:
        return keyed[k]
    meant = {v for kk, v in keyed.items() if k and kk.startswith(k)}
    if len(meant) == 1:
        return meant.pop()
    return names[match_name(word, list(names), what)]


@cache
def _keyed_values(items: tuple) -> dict:
    return {key(name): value for name, value in items}


def card_name(cid):
    """An artifact card's name as a command writes it, in the reader's language."""
    return W.command_card(cid)


def colour(seat):
    """A player's colour as a command writes it ("blue", "Blau", "bleu")."""
    return W.colour(seat)


def spell_word(spell: str) -> str:
    """A spell's name as a command writes it (lower case but in German)."""
    return spell if current() == "de" else spell.lower()


@cache
def _all_names(table: str) -> dict[str, str]:
    """The names of `table` ("colour", "card", "artifact") in every language -> the English key."""
    sources = {
        "colour": {name: W.COLOURS[name] for name in COLOURS},
        "artifact": W.ARTIFACT_NAMES,
    }
    out: dict[str, str] = {}
    if table == "card":
        for cid, c in ART.items():
            for word in CATALOGUE.every_language(W.ARTIFACT_NAMES[c["artifact"]]):
                out.setdefault(f"{word} {c['part']}" if c["parts"] == 2 else word, cid)
        return out
    for name, msg in sources[table].items():
        for word in CATALOGUE.every_language(msg):
            out.setdefault(word, name)
    return out


def _colour(word, state):
    n = state["n"]
    found = W.local_words()["colour"].get(key(word))
    if found in COLOURS[:n]:
        return COLOURS.index(found)
    names = {w: c for w, c in _all_names("colour").items() if c in COLOURS[:n]}
    return COLOURS.index(pick(word, names, _("player colour")))


def _card(words):
    if not words:
        raise ParseError(_("Name an artifact card, e.g. 'magic wand 1' or 'potion'."))
    found = W.local_words()["card"].get(key(" ".join(words)))
    if found is not None:
        return found
    return pick(" ".join(words), _all_names("card"), _("artifact card"))


def _artifact(words):
    found = W.local_words()["artifact"].get(key(" ".join(words)))
    if found is not None:
        return found
    return pick(" ".join(words), _all_names("artifact"), _("artifact"))


def _split(words, seps):
    for i, w in enumerate(words):
        if w in seps:
            return words[:i], words[i + 1 :]
    return words, None


def parse(text, state, seat):
    words = normalize(text).replace(",", " ").split()
    if not words:
        raise ParseError(_("Empty command. Type 'help' for the commands."))
    head = words[0]
    verbs = _verbs()
    verb = verbs.get(key(head)) or match_name(head, VERBS, _("command"))
    rest = words[1:]
    if verb in SINGLE:
        if verb == "skip" and state.get("step") == "place":
            verb = "pass"
        return {"type": verb}
    if verb == "place":
        return _place(rest, state)
    if verb == "fulmentus":
        return _fulmentus(rest)
    if verb == "bid":
        if len(rest) != 1 or not rest[0].isdigit():
            raise ParseError(_("Say how many magic points you bid: 'bid 5'."))
        return {"type": "bid", "amount": int(rest[0])}
    if verb == "take" and len(rest) > 1 and rest[-1] == "an":  # 'nimm das Angebot von Rot an'
        verb = "accept"
    if verb == "take":
        if not rest:
            raise ParseError(_("Say 'take stones' or 'take magic'."))
        last = key(rest[-1])
        if last in STONE_WORDS:
            return {"type": "bonus", "take": "stones"}
        if last in MAGIC_WORDS:
            return {"type": "bonus", "take": "magic"}
        what = match_name(rest[-1], sorted(STONE_WORDS | MAGIC_WORDS), _("bonus"))
        return {"type": "bonus", "take": "stones" if what in STONE_WORDS else "magic"}
    if verb == "cast":
        return _cast(rest, state)
    if verb == "offer":
        give, tail = _split(rest, TO_WORDS)
        who, want = _split(tail or [], FOR_WORDS)
        if tail is None or want is None or len(who) != 1:
            raise ParseError(
                _("Say 'offer <your card> to <colour> for <card>', e.g. 'offer potion to blue for magic wand 2'.")
            )
        return {"type": "offer", "give": _card(give), "to": _colour(who[0], state), "want": _card(want)}
    if verb in ("accept", "decline"):
        rest = [w for w in rest if w not in OFFER_WORDS]
        if rest:
            return {"type": verb, "from": _colour(rest[0], state)}
        incoming = [o["from"] for o in state.get("offers", []) if o["to"] == seat]
        if len(incoming) == 1:
            return {"type": verb, "from": incoming[0]}
        example = describe({"type": verb, "from": 0})
        raise ParseError(_("Say whose offer: '{example}'.").format(example=example))
    if verb == "lay":
        while rest and rest[0] in OUT_WORDS:
            rest = rest[1:]
        while rest and rest[-1] in OUT_WORDS:
            rest = rest[:-1]
        if not rest:
            raise ParseError(_("Say which artifact: 'lay magic wand'."))
        return {"type": "lay", "artifact": _artifact(rest)}
    raise ParseError(_("Unknown command '{word}'.").format(word=head))


def _place(rest, state):
    rest = [w for w in rest if w not in PLACE_WORDS]
    if not rest:
        raise ParseError(_("Say where: 'place 1' or 'place 2'."))
    arg = " ".join(rest)
    if arg in FIRST:
        return {"type": "place", "slot": 0}
    if arg in SECOND:
        return {"type": "place", "slot": 1}
    shown = {}
    for i, c in enumerate(state["display"]):
        if c is not None:
            for name in _adv_names(c):
                shown.setdefault(name, i)
    return {"type": "place", "slot": pick(arg, shown, _("card in the display"))}


def _cast(rest, state):
    if not rest:
        raise ParseError(_("Say which spell: 'cast transformus'."), SPELL_NAMES)
    spell = match_name(rest[0], SPELL_NAMES, _("spell"))
    if spell == "Fulmentus":
        return _fulmentus(rest[1:])
    if spell == "Retransformus":
        return {"type": "cast", "spell": spell, "card": _card([w for w in rest[1:] if w not in DISCARD_WORDS])}
    if spell == "Harpagarus":
        target = [w for w in rest[1:] if w not in FROM_WORDS]
        if len(target) != 1:
            raise ParseError(_("Say whom Harpagarus takes from: 'cast harpagarus blue'."))
        return {"type": "cast", "spell": spell, "target": _colour(target[0], state)}
    return {"type": "cast", "spell": spell}


def _fulmentus(rest):
    rest = [w for w in rest if w not in ("by", "um", "de", "2", "two", "zwei", "deux", "strength", "starke", "force")]
    if len(rest) == 1 and rest[0] in UP_WORDS:
        return {"type": "fulmentus", "delta": 2}
    if len(rest) == 1 and rest[0] in DOWN_WORDS:
        return {"type": "fulmentus", "delta": -2}
    if len(rest) != 1:
        raise ParseError(_("Say 'fulmentus up' (strength +2) or 'fulmentus down' (strength -2)."))
    word = match_name(rest[0], sorted(UP_WORDS | DOWN_WORDS), _("direction"))
    return {"type": "fulmentus", "delta": 2 if word in UP_WORDS else -2}


def _adv_name(cid):
    """A display card's name in the reader's language, with a creature's strength and symbol (two
    spiders of strength 4, sun and moon, have different names)."""
    c = ADV[cid]
    if c["type"] != "creature":
        return W.adventure(cid)
    return f"{W.adventure(cid)} {c['strength']} {W.symbol(c['symbol'])}"


@cache
def _adv_names(cid) -> tuple[str, ...]:
    """A display card's name in every language (the English first)."""
    c = ADV[cid]
    if c["type"] == "spell":
        return (c["name"],)
    names = CATALOGUE.every_language(W.ADVENTURES[c["name"]])
    if c["type"] != "creature":
        return tuple(names)
    symbols = CATALOGUE.every_language(W.SYMBOLS[c["symbol"]])
    return tuple(f"{n} {c['strength']} {s}" for n, s in zip(names, symbols, strict=True))


def describe(cmd):
    t = cmd["type"]
    if t == "place":
        return _("place {n}").format(n=cmd["slot"] + 1)
    if t == "fulmentus":
        return _("fulmentus up") if cmd["delta"] > 0 else _("fulmentus down")
    if t == "bid":
        return _("bid {n}").format(n=cmd["amount"])
    if t == "bonus":
        return _("take stones") if cmd["take"] == "stones" else _("take magic")
    if t == "cast":
        spell = spell_word(cmd["spell"])
        if cmd["spell"] == "Retransformus":
            return _("cast {spell} {card}").format(spell=spell, card=card_name(cmd["card"]))
        if cmd["spell"] == "Harpagarus":
            return _("cast {spell} {colour}").format(spell=spell, colour=colour(cmd["target"]))
        return _("cast {spell}").format(spell=spell)
    if t == "offer":
        text = _("offer {card} to {colour} for {wanted}")
        return text.format(card=card_name(cmd["give"]), colour=colour(cmd["to"]), wanted=card_name(cmd["want"]))
    if t == "accept":
        return _("accept {colour}").format(colour=colour(cmd["from"]))
    if t == "decline":
        return _("decline {colour}").format(colour=colour(cmd["from"]))
    if t == "lay":
        name = W.artifact(cmd["artifact"])
        return _("lay {artifact}").format(artifact=name if current() == "de" else name.lower())
    if t in SINGLE:
        return _command_word(t)
    return t


def _command_word(verb: str) -> str:
    words = {
        "pass": pgettext("command", "pass"),
        "skip": pgettext("command", "skip"),
        "fight": pgettext("command", "fight"),
        "withdraw": pgettext("command", "withdraw"),
        "together": pgettext("command", "together"),
        "alone": pgettext("command", "alone"),
    }
    return words.get(verb) or pgettext("command", "done")


HELP = {
    "place": [
        N_("place 1        put your wizard on the first card of the display (or 'place 2',"),
        N_("               or the card's name: 'place spiders')"),
        N_("pass           keep your wizard and take 1 magic point"),
    ],
    "fulmentus": [
        N_("fulmentus up   cast Fulmentus: this creature's strength +2 for this fight"),
        N_("fulmentus down cast Fulmentus: strength -2"),
        N_("skip           do not cast Fulmentus on this fight"),
    ],
    "lone": [
        N_("fight          pay the creature's strength in magic points and take the reward"),
        N_("withdraw       take your wizard back; nothing is paid, nothing won"),
    ],
    "declare": [
        N_("together       share the fight: the strength is split equally (rounded up)"),
        N_("alone          claim it alone: the creature is auctioned (bids from its strength)"),
    ],
    "auction": [
        N_("bid 7          bid magic points (more than the last bid, at most what you have)"),
        N_("pass           leave the auction for good (you pay nothing)"),
    ],
    "bonus": [
        N_("take stones    take the artifact's bonus as power stones"),
        N_("take magic     take it as magic points"),
    ],
    "spells": [
        N_("cast transformus                 pay 4 magic points for 1 power stone"),
        N_("cast retransformus potion        discard a hand card, draw the top artifact"),
        N_("cast harpagarus blue             pay 2 magic points, take a random card blue"),
        N_("                                 received this round"),
        N_("done                             no (more) spells this round"),
    ],
    "trade": [
        N_("offer potion to blue for magic wand 2   offer a hand card for a card you name"),
        N_("accept red     accept red's offer to you (card for card)"),
        N_("decline red    decline red's offer"),
        N_("done           you make no more offers this round (you still answer offers)"),
    ],
    "layout": [
        N_("lay magic wand  lay out a complete artifact (face up, for bonuses)"),
        N_("done           lay out nothing more this round"),
    ],
}


def help(state, seat):
    step = state["step"]
    colours = ", ".join(W.colour(x) for x in range(state["n"]))
    lines = [_("Zauberschwert & Drachenei. Players are named by colour: {colours}.").format(colours=colours)]
    if step == "over":
        return "\n".join(lines + [_("The game is over.")])
    context = _context(state, seat)
    if context:
        lines.append(context)
    if seat is not None and seat not in waiting_for(state):
        lines.append(_("You are not awaited now. Commands of this phase:"))
    lines += [_(line) for line in HELP.get(step, [])]
    return "\n".join(lines)


def _context(state, seat):
    step = state["step"]
    f, a = state["fight"], state["auction"]
    if step == "place":
        shown = [f"{i + 1}) {_adv_name(c)}" for i, c in enumerate(state["display"]) if c is not None]
        return _("The display: {cards}.").format(cards=", ".join(shown))
    if step in ("lone", "declare", "fulmentus") and f:
        creature = W.adventure(f["card"])
        if len(f["seats"]) > 1:
            share = -(-f["strength"] // len(f["seats"]))
            text = _("{creature}, strength {strength}: together each of the {n} pays {share} (rounded up).")
            return text.format(creature=creature, strength=f["strength"], n=len(f["seats"]), share=share)
        return _("{creature}, strength {strength}.").format(creature=creature, strength=f["strength"])
    if step == "auction" and a:
        low = a["min"] if a["high"] is None else a["high"] + 1
        text = _("Auction for {card}: the next bid must be at least {low}.")
        return text.format(card=W.adventure(a["card"]), low=low)
    if step == "bonus" and state["choices"]:
        art = state["choices"][0][1]
        text = _("Bonus of the {artifact}: {n}.")
        return text.format(artifact=W.artifact(art), n=ARTIFACTS[art]["bonus"]["amount"])
    if step == "trade" and seat is not None:
        cap = offers_cap(state) if rules_version(state) >= 2 else state["offers_limit"]
        if cap is None:
            return _("You may make offers to each player with cards (one open offer to each at a time).")
        return _("You may make {n} more offer(s) this round.").format(n=max(0, cap - state["made"][seat]))
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


@cache
def _offer_texts(language: str) -> tuple[dict, list[dict]]:
    """The chooser's offer groups and labels in `language` (hundreds of offers: made once a language)."""
    group = {c: _("Offer {card}").format(card=W.card(c)) for c in ART}
    label = [
        {w: _("to {who} for {card}").format(who=W.player(seat), card=W.card(w)) for w in ART}
        for seat in range(len(COLOURS))
    ]
    return group, label


HAND_TARGET = {c: hand_target(c) for c in ART}


def _reward(reward: dict) -> str:
    parts = []
    if reward["power_stones"]:
        n = reward["power_stones"]
        parts.append(ngettext("{n} stone", "{n} stones", n).format(n=n))
    if reward["artifacts"]:
        n = reward["artifacts"]
        parts.append(ngettext("{n} artifact", "{n} artifacts", n).format(n=n))
    return " + ".join(parts) or _("nothing")


def _card_title(cid: str) -> str:
    c = ADV[cid]
    if c["type"] != "creature":
        return W.adventure(cid)
    text = _("{creature} (strength {strength}, {symbol})")
    return text.format(creature=W.adventure(cid), strength=c["strength"], symbol=W.symbol(c["symbol"]))


def _place_note(state, seat, slot) -> str:
    cid = state["display"][slot]
    c = ADV[cid]
    there = [W.player(x) for x in range(state["n"]) if state["wizard"][x] == slot and x != seat]
    if c["type"] == "energy_orb":
        return _("+{n} magic each").format(n=c["reward_each_attached_wizard"]["magic_points"])
    if c["type"] == "holy_site":
        return _("{reward} each").format(reward=_reward(c["reward_each_attached_wizard"]))
    beside = _("{who} there: ").format(who=_and(there)) if there else ""
    if c["type"] == "spell":
        return beside + (_("auction for the spell") if there else _("the spell free"))
    if not there:
        return _("alone: {reward} for {n} magic").format(reward=_reward(c["reward_one_wizard"]), n=c["strength"])
    share = -(-c["strength"] // (len(there) + 1))
    text = _("shared {reward} each for {n} magic, or an auction")
    return beside + text.format(reward=_reward(c["reward_two_wizards_each"]), n=share)


def _and(names: list[str]) -> str:
    return W.who(names, range(len(names)))


def choices(state, seat):
    """The legal moves as the chooser offers them (games.base.Choice): group = what (the wizard,
    a spell, an offered card), label = where or how, featured = worth a code in a turn notice."""
    legal = _legal(state, seat)
    if not legal:
        return []
    step = state["step"]
    build = _CHOOSERS.get(step)
    out = (
        build(state, seat, legal) if build else [Choice(c, describe(c).capitalize(), describe(c), True) for c in legal]
    )
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
                    _("Place your wizard"),
                    _("on card {n}: {card}").format(n=slot + 1, card=_card_title(state["display"][slot])),
                    True,
                    card_target(slot),
                    _place_note(state, seat, slot),
                )
            )
    out.append(
        Choice(
            {"type": "pass"},
            _("Pass"),
            _("keep your wizard back"),
            True,
            None,
            ngettext("+{n} magic point", "+{n} magic points", RULES["pass_bonus"]).format(n=RULES["pass_bonus"]),
        )
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
            _("down: strength {strength} to {n}").format(strength=strength, n=max(0, strength - 2)),
            True,
            target,
            _("your fight costs less") if mine else _("the fight costs them less"),
        ),
        Choice(
            {"type": "fulmentus", "delta": 2},
            "Fulmentus",
            _("up: strength {strength} to {n}").format(strength=strength, n=strength + 2),
            True,
            target,
            "" if mine else _("they pay more, or cannot pay"),
        ),
        Choice(
            {"type": "skip"},
            _("Skip"),
            _("keep the strength at {n}").format(n=strength),
            True,
            target,
            _("Fulmentus stays unused"),
        ),
    ]


def _choose_lone(state, seat, legal):
    f = state["fight"]
    target = card_target(f["slot"])
    reward = _reward(ADV[f["card"]]["reward_one_wizard"])
    return [
        Choice({"type": "fight"}, _("Fight"), _("pay {n} magic").format(n=f["strength"]), True, target, reward),
        Choice({"type": "withdraw"}, _("Withdraw"), _("take your wizard back"), True, target, _("pay and win nothing")),
    ]


def _choose_declare(state, seat, legal):
    f = state["fight"]
    c = ADV[f["card"]]
    target = card_target(f["slot"])
    share = -(-f["strength"] // len(f["seats"]))
    return [
        Choice(
            {"type": "together"},
            _("Together"),
            _("share the fight: {n} magic each").format(n=share),
            True,
            target,
            _("{reward} each").format(reward=_reward(c["reward_two_wizards_each"])),
        ),
        Choice(
            {"type": "alone"},
            _("Alone"),
            _("claim it: an auction from {n} magic").format(n=f["strength"]),
            True,
            target,
            _("{reward} for the winner").format(reward=_reward(c["reward_one_wizard"])),
        ),
    ]


def _choose_auction(state, seat, legal):
    a = state["auction"]
    target = card_target(a["slot"])
    what = W.adventure(a["card"])
    bids = [c for c in legal if c["type"] == "bid"]
    top = bids[-1]["amount"] if bids else None
    lead = [c for c in bids[: FEATURED_BIDS - 1]] + ([bids[-1]] if len(bids) >= FEATURED_BIDS else [])
    rest = [c for c in bids if c not in lead]

    def bid(c, featured):
        note = _("all your magic") if c["amount"] == top else (_("the lowest bid") if c is bids[0] else "")
        return Choice(c, _("Bid"), _("bid {n} for {card}").format(n=c["amount"], card=what), featured, target, note)

    passing = [Choice({"type": "pass"}, _("Pass"), _("leave the auction for good"), True, target, _("you pay nothing"))]
    return [bid(c, True) for c in lead] + (passing if {"type": "pass"} in legal else []) + [bid(c, False) for c in rest]


def _choose_bonus(state, seat, legal):
    key_ = state["choices"][0][1]
    amount = ARTIFACTS[key_]["bonus"]["amount"]
    group = _("{artifact} bonus").format(artifact=W.artifact(key_))
    return [
        Choice(
            {"type": "bonus", "take": "stones"},
            group,
            ngettext("take {n} power stone", "take {n} power stones", amount).format(n=amount),
            True,
            None,
            _("stones are the score"),
        ),
        Choice(
            {"type": "bonus", "take": "magic"},
            group,
            ngettext("take {n} magic point", "take {n} magic points", amount).format(n=amount),
            True,
        ),
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
                Choice(
                    c,
                    _("Cast {spell}").format(spell=spell),
                    _("pay {magic} magic for {power} power stone").format(
                        magic=effect["pay_mp"], power=effect["gain_ps"]
                    ),
                    True,
                )
            )
        elif spell == "Retransformus":
            out.append(
                Choice(
                    c,
                    _("Cast {spell}").format(spell=spell),
                    _("discard {card}, draw the top artifact").format(card=W.card(c["card"])),
                    True,
                    hand_target(c["card"]),
                )
            )
        else:
            got = [x for x in state["received"][c["target"]] if x in state["hand"][c["target"]]]
            out.append(
                Choice(
                    c,
                    _("Cast {spell}").format(spell=spell),
                    _("take a card from {who}").format(who=W.player(c["target"])),
                    True,
                    player_target(c["target"]),
                    _("pay {magic} magic; they received {n} this round").format(magic=effect["pay_mp"], n=len(got)),
                )
            )
    out.append(Choice({"type": "done"}, _("Done"), _("no more spells this round"), True))
    return out


def _choose_trade(state, seat, legal):
    out = []
    offers = {(o["from"], o["to"]): o for o in state["offers"]}
    for c in legal:
        if c["type"] in ("accept", "decline"):
            o = offers[(c["from"], seat)]
            who = W.player(c["from"])
            label = (
                _("accept: give {card}, get {other}").format(card=W.card(o["want"]), other=W.card(o["give"]))
                if c["type"] == "accept"
                else _("decline: keep {card}").format(card=W.card(o["want"]))
            )
            out.append(Choice(c, _("Answer {who}'s offer").format(who=who), label, True, player_target(c["from"])))
    if {"type": "done"} in legal:
        out.append(
            Choice(
                {"type": "done"},
                _("Done"),
                _("make no more offers this round"),
                True,
                None,
                _("you still answer offers made to you"),
            )
        )
    hand = state["hand"][seat]
    missing = {p for c in hand for p in ARTIFACTS[ART[c]["artifact"]]["cards"] if p not in hand}
    wanted = []
    plain = []
    offer_group, offer_label = _offer_texts(current())
    for c in legal:  # hundreds of offers: the strings come from tables made once
        if c["type"] != "offer":
            continue
        give, want = c["give"], c["want"]
        choice = Choice(c, offer_group[give], offer_label[c["to"]][want], False, HAND_TARGET[give])
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
            _("the other half of your {artifact}").format(artifact=W.artifact(ART[ch.command["want"]]["artifact"])),
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
            what = W.bonus_words(bonus["type"])
            signs = W.symbols(art["symbols"])
            out.append(
                Choice(
                    c,
                    _("Lay out"),
                    f"{W.artifact(c['artifact'])} ({signs})",
                    True,
                    hand_target(art["cards"][0]),
                    _("+{n} {what} on {symbols} creatures").format(n=bonus["amount"], what=what, symbols=signs),
                )
            )
    out.append(Choice({"type": "done"}, _("Done"), _("lay out nothing more this round"), True))
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
