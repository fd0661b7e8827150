"""What a player types: short, case-insensitive commands (parse, describe, help)."""

from __future__ import annotations

from functools import cache

from games.base import ParseError, key, match_name, normalize

from . import words as W
from .board import DIE_SPACES, TITLE_SPACES, WIZARD_SPACES
from .lang import CATALOGUE, _, pgettext
from .rules import PEND_PHASES, order, retire_sources, vacancy_choices

VERBS = [
    "place",
    "done",
    "reroll",
    "cast",
    "pass",
    "recover",
    "take",
    "takeback",
    "remove",
    "retire",
    "claim",
    "demote",
]
# German and French command words beside the English ones (and those of describe() in each
# language, from the catalogue: see _verbs).
LOCAL_VERBS = {
    "lege": "place",
    "setze": "place",
    "pose": "place",
    "place": "place",
    "fertig": "done",
    "fini": "done",
    "termine": "done",
    "neuwurf": "reroll",
    "relance": "reroll",
    "wirke": "cast",
    "lance": "cast",
    "passe": "pass",
    "erhole": "recover",
    "recupere": "recover",
    "nimm": "takeback",
    "reprends": "takeback",
    "entferne": "remove",
    "enleve": "remove",
    "abdanken": "retire",
    "retraite": "retire",
    "beanspruche": "claim",
    "revendique": "claim",
    "herabstufen": "demote",
    "retrograde": "demote",
    # infinitives
    "legen": "place",
    "poser": "place",
    "wirken": "cast",
    "lancer": "cast",
    "passen": "pass",
    "passer": "pass",
    "erholen": "recover",
    "recuperer": "recover",
    "reprendre": "takeback",
    "entfernen": "remove",
    "enlever": "remove",
    "beanspruchen": "claim",
    "revendiquer": "claim",
    "retrograder": "demote",
    "relancer": "reroll",
}
NONE_WORDS = {"none", "nothing", "keine", "nichts", "aucun", "rien"}
FILLER = {
    "on",
    "to",
    "for",
    "from",
    "the",
    "in",
    "at",
    "of",
    "a",
    "my",
    "die",
    "dice",
    "spell",
    "spells",
    "space",
    "and",
    "major",
    # German and French
    "auf",
    "nach",
    "fur",
    "von",
    "aus",
    "dem",
    "den",
    "der",
    "das",
    "zuruck",
    "wurfel",
    "feld",
    "sur",
    "vers",
    "pour",
    "de",
    "du",
    "des",
    "le",
    "la",
    "les",
    "l",
    "un",
    "une",
    "depuis",
    "case",
}
SPACE_ALIASES = {
    "grey": "gray",
    "graymagic": "gray",
    "greymagic": "gray",
    "g": "gray",
    "minorspells": "minor",
    "minorspell": "minor",
    "m": "minor",
    "druids": "druid",
    "sorcerers": "sorcerer",
    "necromancers": "necromancer",
    "wizards": "wizard",
    "necro": "necromancer",
    "d": "druid",
    "s": "sorcerer",
    "n": "necromancer",
    "w": "wizard",
    "grau": "gray",
    "grauemagie": "gray",
    "gris": "gray",
    "grise": "gray",
    "magiegrise": "gray",
    "klein": "minor",
    "kleine": "minor",
    "mineur": "minor",
    "mineurs": "minor",
    "druide": "druid",
    "druiden": "druid",
    "druides": "druid",
    "hexer": "sorcerer",
    "sorcier": "sorcerer",
    "sorciers": "sorcerer",
    "nekromant": "necromancer",
    "nekromanten": "necromancer",
    "necromancien": "necromancer",
    "necromanciens": "necromancer",
    "magier": "wizard",
    "magicien": "wizard",
    "magiciens": "wizard",
}


@cache
def _verbs() -> dict[str, str]:
    """Every command word of every language -> the English verb."""
    out = {v: v for v in VERBS} | LOCAL_VERBS
    for verb in VERBS:
        out.update({key(w): verb for w in CATALOGUE.every_language(verb, "command")})
    return out


@cache
def _space_words() -> dict[str, str]:
    out = dict(SPACE_ALIASES)
    for space, name in W.SPACES.items():
        out.update({key(w): space for w in CATALOGUE.every_language(name)})
    return out


def _words(text: str) -> list[str]:
    return [w for w in normalize(text).replace(",", " ").replace(":", " ").split()]


def _die(word: str) -> int:
    if word.isdigit() and 1 <= int(word) <= 6:
        return int(word)
    raise ParseError(_("'{word}' is not a die face (1 to 6).").format(word=word))


def _dice(words: list[str], verb: str) -> list[int]:
    if not words or (len(words) == 1 and words[0] in NONE_WORDS):
        if not words:
            kind = "takeback" if verb == "take back" else verb
            example = describe({"type": kind, "dice": [6, 2]})
            none = describe({"type": kind, "dice": []})
            raise ParseError(_("Say which dice: e.g. '{example}', or '{none}'.").format(example=example, none=none))
        return []
    return sorted((_die(w) for w in words), reverse=True)


def _space(word: str) -> str:
    if word in DIE_SPACES:
        return word
    k = key(word)
    if k in _space_words():
        return _space_words()[k]
    try:
        return match_name(word, DIE_SPACES, _("space"))
    except ParseError as err:
        spaces = ", ".join(W.space(s) for s in DIE_SPACES)
        raise ParseError(
            _("There is no space '{word}' (dice go on: {spaces}).").format(word=word, spaces=spaces), err.suggestions
        ) from None


_KEYS: dict[tuple, dict] = {}


def _name_keys(names) -> dict:
    k = tuple(names)
    if k not in _KEYS:
        _KEYS[k] = {key(n): n for n in names}
    return _KEYS[k]


def _target(words: list[str], state) -> str:
    names = state["names"]
    if not words:
        raise ParseError(_("Say for which wizard: e.g. 'cast 5 on red3' or 'cast minor on N4'."))
    by_key = _name_keys(names)
    joined = "".join(words)
    if joined not in by_key:
        joined = key(joined)
    if joined in by_key:
        return by_key[joined]
    first = words[0].upper()
    if first in TITLE_SPACES:
        here = [state["names"][w] for w, (_o, sp, _g) in enumerate(state["wiz"]) if sp == first]
        if len(here) == 1:
            return here[0]
        raise ParseError(_("There is no wizard on {space}.").format(space=first))
    if first in WIZARD_SPACES:
        here = [(w, o) for w, (o, sp, _g) in enumerate(state["wiz"]) if sp == first]
        if len(words) > 1:
            colour = match_name(words[1], state["colours"], _("colour"))
            here = [(w, o) for w, o in here if state["colours"][o] == colour]
        if len(here) == 1:
            return names[here[0][0]]
        if not here:
            raise ParseError(_("No such wizard on {space}.").format(space=first))
        raise ParseError(
            _("Several wizards stand on {space}: name one.").format(space=first), [names[w] for w, _o in here][:5]
        )
    return match_name(" ".join(words), names, _("wizard"))


def parse(text, state, seat):
    words = _words(text)
    if not words:
        raise ParseError(_("Empty command."))
    verbs = _verbs()
    verb = verbs[words[0]] if words[0] in verbs else match_name(words[0], VERBS, _("command"))
    rest = [w for w in words[1:] if w not in FILLER]
    if verb == "place":
        if len(rest) < 2:
            raise ParseError(
                _(
                    "Say which die and where: e.g. 'place 6 on druid' (druid, sorcerer, necromancer, wizard, minor, "
                    "gray)."
                )
            )
        return {"type": "place", "die": _die(rest[0]), "space": _space(" ".join(rest[1:]))}
    if verb in ("done", "reroll", "pass"):
        return {"type": verb}
    if verb == "cast":
        if not rest:
            raise ParseError(_("Say which spell and for whom: e.g. 'cast 5 on red3' or 'cast minor on N4'."))
        first = rest[0]
        if key(first) in ("minor", "m", "min", "minorspell") or _space_words().get(key(first)) == "minor":
            spell = "minor"
        elif first.isdigit():
            spell = _die(first)
        else:
            text = _("'{word}' is not a spell: give a die face (1-6) or 'minor'.")
            raise ParseError(text.format(word=first), [W.space("minor")])
        return {"type": "cast", "spell": spell, "wizard": _target(rest[1:], state)}
    if verb in ("take", "takeback"):
        if rest and rest[0] in ("back", "zuruck"):
            rest = rest[1:]
        return {"type": "takeback", "dice": _dice(rest, "take back")}
    if verb == "recover":
        return {"type": verb, "dice": _dice(rest, verb)}
    if verb == "remove":
        return _remove(rest, state, seat)
    if verb == "retire":
        source = None
        to = None
        for w in words[1:]:
            k = key(w)
            if k in RETIRE_FILLER:
                continue
            if k in ("supply", "front", "hand", "vorrat", "reserve"):
                source = "supply"
            elif k in ("space", "board", "minorspells", "minor", "feld", "case"):
                source = "space"
            else:
                to = match_name(w, WIZARD_SPACES, _("Wizard space"))
        if to is None:
            raise ParseError(_("Say where your Grand Druid goes: e.g. 'retire from supply to W2'."))
        if source is None and state is not None and seat is not None:
            allowed = retire_sources(state, seat)
            if len(allowed) == 1:
                source = allowed[0]
            else:
                raise ParseError(
                    _("Say where the minor spell comes from: 'retire from supply to W2' or 'retire from space to W2'.")
                )
        return {"type": "retire", "source": source, "to": to}
    if verb == "claim":
        if not rest:
            raise ParseError(_("Say which vacant title: e.g. 'claim S2'."))
        return {"type": "claim", "space": match_name(rest[0], TITLE_SPACES, _("title space"))}
    if verb == "demote":
        if not rest:
            raise ParseError(_("Say which Wizard space: e.g. 'demote to W3'."))
        return {"type": "demote", "to": match_name(rest[0], WIZARD_SPACES, _("Wizard space"))}
    raise ParseError(_("Unknown command '{word}'.").format(word=words[0]))


# Words a retirement may carry besides its source and Wizard space, in every language.
RETIRE_FILLER = {"from", "to", "the", "a", "my", "spells", "spell", "on", "of", "wizard", "grand", "druid"}
RETIRE_FILLER |= {"von", "aus", "nach", "dem", "den", "der", "auf", "depuis", "vers", "de", "du", "la", "le", "sur"}


def _remove(rest: list[str], state, seat) -> dict:
    """'remove 5 2 1 from red3 red5': the dice, then (rules version 2) the wizards that lose the
    tokens. Without names the game picks them (RULINGS.md 16), unless there is only one way."""
    from .rules import gain, gray_of, rules_version, token_choices

    if rest and rest[0] in NONE_WORDS:
        dice, names = [], rest[1:]
    else:
        count = next((i for i, w in enumerate(rest) if not w.isdigit()), len(rest))
        dice, names = _dice(rest[:count], "remove"), rest[count:]
    command: dict = {"type": "remove", "dice": dice}
    if state is None or rules_version(state) < 2:
        return command
    if names:
        command["from"] = [_target([w], state) for w in names]
        return command
    count = gain(dice, state["gray_cost"], gray_of(state, seat)) if dice and seat is not None else 0
    ways = token_choices(state, seat, count) if seat is not None else []
    if count == 0 or len(ways) == 1:
        command["from"] = ways[0] if ways else []
    return command


def _dtext(dice) -> str:
    return " ".join(str(v) for v in dice) if dice else _("none")


def describe(cmd):
    t = cmd["type"]
    if t == "place":
        return _("place {die} on {space}").format(die=cmd["die"], space=W.space(cmd["space"]))
    if t == "cast":
        spell = W.space("minor") if cmd["spell"] == "minor" else cmd["spell"]
        return _("cast {spell} on {wizard}").format(spell=spell, wizard=cmd["wizard"])
    if t == "takeback":
        return _("take back {dice}").format(dice=_dtext(cmd["dice"]))
    if t in ("recover", "remove"):
        if t == "recover":
            text = _("recover {dice} from {wizards}") if cmd.get("from") else _("recover {dice}")
        else:
            text = _("remove {dice} from {wizards}") if cmd.get("from") else _("remove {dice}")
        return text.format(dice=_dtext(cmd["dice"]), wizards=" ".join(cmd.get("from") or []))
    if t == "retire":
        if cmd["source"]:
            return _("retire from {source} to {space}").format(source=W.source(cmd["source"]), space=cmd["to"])
        return _("retire to {space}").format(space=cmd["to"])
    if t == "claim":
        return _("claim {space}").format(space=cmd["space"])
    if t == "demote":
        return _("demote to {space}").format(space=cmd["to"])
    if t in ("done", "reroll", "pass"):
        return _command_word(t)
    return t


def _command_word(verb: str) -> str:
    words = {"done": pgettext("command", "done"), "reroll": pgettext("command", "reroll")}
    return words.get(verb) or pgettext("command", "pass")


def _context(state, seat) -> list[str]:
    """What the player has to work with now."""
    from .board import MAJOR_LEVELS
    from .rules import gray_of, my_dice

    ph = state["phase"]
    if ph in ("cast1", "cast2"):
        return [_("Your roll: {dice}.").format(dice=_dtext(state["rolled"] or []))]
    if ph == "compete":
        dice = [
            f"{W.level(lv)} {_dtext(my_dice(state['major'][lv], seat))}"
            for lv in MAJOR_LEVELS
            if my_dice(state["major"][lv], seat)
        ]
        text = _("Your spells: {minor} minor; major: {major}.")
        return [text.format(minor=state["supply"][seat], major=", ".join(dice) or _("none"))]
    if ph in ("recover4", "recover6"):
        text = _("Your dice in the Minor Spells space: {dice}; your spent minor spells there: {n}.")
        return [text.format(dice=_dtext(my_dice(state["mdice"], seat)), n=state["mspace"][seat])]
    if ph == "gray9":
        text = _("Your dice in the Gray Magic space: {dice}; your gray magic tokens: {n}.")
        return [text.format(dice=_dtext(my_dice(state["gdice"], seat)), n=gray_of(state, seat))]
    return []


def _help_phase(state) -> list[str]:
    """The commands of the phase, with examples."""
    ph = state["phase"]
    if ph == "retire":
        return [
            _("retire from supply to W2   a minor spell from your supply onto the turn counter,"),
            _("                           your Grand Druid to Wizard space W2"),
            _("retire from space to W1    the minor spell comes from the Minor Spells space"),
        ]
    if ph in ("cast1", "cast2"):
        lines = [
            _("place 6 on druid      put a rolled die on a space: druid, sorcerer, necromancer,"),
            _("                      wizard (the four Major Spells spaces), minor, gray"),
            _("place 2 on minor      2 pips there recover one minor spell in phases 4 and 6"),
            _("place 4 on gray       4 pips there remove a gray magic token in phase 9"),
        ]
        if ph == "cast1":
            return lines + [_("done                  keep the other dice for phase 3")]
        return lines + [
            _("reroll                pay a minor spell to reroll all remaining dice (once, before placing)")
        ]
    if ph == "compete":
        return [
            _("cast 5 on red3        a die from your Major Spells space of red3's level, for red3"),
            _("cast minor on N4      a minor spell (1 point) for the wizard on N4"),
            _("cast 3 on W2 green    the green wizard on Wizard space W2"),
            _("pass                  stop casting for the rest of this turn (final)"),
            _("Each turn you cast two spells (one if you have only one left)."),
        ]
    if ph in PEND_PHASES:
        return _help_pending(state)
    if ph == "vacant":
        ex = (vacancy_choices(state) or ["S2"])[0]
        return [_("claim {space:<15} the vacant title your routed wizard takes").format(space=ex)]
    if ph == "demote":
        return [_("demote to W3          the Wizard space your routed wizard goes to")]
    return [_("The game is over.") if ph == "over" else _("Nothing to type now.")]


def _help_pending(state) -> list[str]:
    ph = state["phase"]
    if ph == "gray9":
        lines = [
            _("remove 4              spend dice from the Gray Magic space: each {cost} pips remove a token").format(
                cost=state.get("gray_cost", 4)
            ),
            _("remove 5 2 1 from red3 red5   ... and which of your wizards lose the tokens"),
            _("remove none           keep them"),
        ]
    else:
        lines = [
            _("recover 6 2           spend dice from the Minor Spells space: 2 pips per spell"),
            _("recover none          keep them there"),
        ]
    if ph != "recover4":
        lines += [
            _("take back 3 1         take unused dice back in front of you"),
            _("take back none        leave them in the space for the next turn"),
        ]
    return lines


def help(state, seat):
    from .rules import waiting_for

    ph = state["phase"]
    lines = []
    if seat is not None and seat not in waiting_for(state):
        who = W.colours(state["colours"][s] for s in waiting_for(state)) or _("nobody")
        lines.append(_("You are not awaited now (waiting for: {colours}). Table talk: say <text>.").format(colours=who))
    lines += _help_phase(state)
    if seat is not None and seat in waiting_for(state):
        lines += _context(state, seat)
    lines.append(_("Wizards are named by colour and number (red3); spaces: GD, D1-D2, S1-S4, N1-N8, W1-W4."))
    if ph not in ("over",):
        seats = order(state)
        lines.append(_("Turn order: {colours}.").format(colours=W.colours(state["colours"][s] for s in seats)))
    return "\n".join(lines)
