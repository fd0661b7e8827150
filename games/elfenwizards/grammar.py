"""What a player types: short, case-insensitive commands (parse, describe, help)."""

from __future__ import annotations

from games.base import ParseError, key, match_name, normalize

from .board import DIE_SPACES, TITLE_SPACES, WIZARD_SPACES
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
}


def _words(text: str) -> list[str]:
    return [w for w in normalize(text).replace(",", " ").replace(":", " ").split()]


def _die(word: str) -> int:
    if word.isdigit() and 1 <= int(word) <= 6:
        return int(word)
    raise ParseError(f"'{word}' is not a die face (1 to 6).")


def _dice(words: list[str], verb: str) -> list[int]:
    if not words or words == ["none"] or words == ["nothing"]:
        if not words:
            raise ParseError(f"Say which dice: e.g. '{verb} 6 2', or '{verb} none'.")
        return []
    return sorted((_die(w) for w in words), reverse=True)


def _space(word: str) -> str:
    if word in DIE_SPACES:
        return word
    k = key(word)
    if k in SPACE_ALIASES:
        return SPACE_ALIASES[k]
    try:
        return match_name(word, DIE_SPACES, "space")
    except ParseError as err:
        raise ParseError(
            f"There is no space '{word}' (dice go on: {', '.join(DIE_SPACES)}).", err.suggestions
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
        raise ParseError("Say for which wizard: e.g. 'cast 5 on red3' or 'cast minor on N4'.")
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
        raise ParseError(f"There is no wizard on {first}.")
    if first in WIZARD_SPACES:
        here = [(w, o) for w, (o, sp, _g) in enumerate(state["wiz"]) if sp == first]
        if len(words) > 1:
            colour = match_name(words[1], state["colours"], "colour")
            here = [(w, o) for w, o in here if state["colours"][o] == colour]
        if len(here) == 1:
            return names[here[0][0]]
        if not here:
            raise ParseError(f"No such wizard on {first}.")
        raise ParseError(f"Several wizards stand on {first}: name one.", [names[w] for w, _o in here][:5])
    return match_name(" ".join(words), names, "wizard")


def parse(text, state, seat):
    words = _words(text)
    if not words:
        raise ParseError("Empty command.")
    verb = words[0] if words[0] in VERBS else match_name(words[0], VERBS, "command")
    rest = [w for w in words[1:] if w not in FILLER]
    if verb == "place":
        if len(rest) < 2:
            raise ParseError(
                "Say which die and where: e.g. 'place 6 on druid' (druid, sorcerer, necromancer, wizard, minor, gray)."
            )
        return {"type": "place", "die": _die(rest[0]), "space": _space(" ".join(rest[1:]))}
    if verb in ("done", "reroll", "pass"):
        return {"type": verb}
    if verb == "cast":
        if not rest:
            raise ParseError("Say which spell and for whom: e.g. 'cast 5 on red3' or 'cast minor on N4'.")
        first = rest[0]
        if key(first) in ("minor", "m", "min", "minorspell"):
            spell = "minor"
        elif first.isdigit():
            spell = _die(first)
        else:
            raise ParseError(f"'{first}' is not a spell: give a die face (1-6) or 'minor'.", ["minor"])
        return {"type": "cast", "spell": spell, "wizard": _target(rest[1:], state)}
    if verb in ("take", "takeback"):
        if rest and rest[0] == "back":
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
            if k in ("from", "to", "the", "a", "my", "spells", "spell", "on", "of", "wizard", "grand", "druid"):
                continue
            if k in ("supply", "front", "hand"):
                source = "supply"
            elif k in ("space", "board", "minorspells", "minor"):
                source = "space"
            else:
                to = match_name(w, WIZARD_SPACES, "Wizard space")
        if to is None:
            raise ParseError("Say where your Grand Druid goes: e.g. 'retire from supply to W2'.")
        if source is None and state is not None and seat is not None:
            allowed = retire_sources(state, seat)
            if len(allowed) == 1:
                source = allowed[0]
            else:
                raise ParseError(
                    "Say where the minor spell comes from: 'retire from supply to W2' or 'retire from space to W2'."
                )
        return {"type": "retire", "source": source, "to": to}
    if verb == "claim":
        if not rest:
            raise ParseError("Say which vacant title: e.g. 'claim S2'.")
        return {"type": "claim", "space": match_name(rest[0], TITLE_SPACES, "title space")}
    if verb == "demote":
        if not rest:
            raise ParseError("Say which Wizard space: e.g. 'demote to W3'.")
        return {"type": "demote", "to": match_name(rest[0], WIZARD_SPACES, "Wizard space")}
    raise ParseError(f"Unknown command '{words[0]}'.")


def _remove(rest: list[str], state, seat) -> dict:
    """'remove 5 2 1 from red3 red5': the dice, then (rules version 2) the wizards that lose the
    tokens. Without names the game picks them (RULINGS.md 16), unless there is only one way."""
    from .rules import gain, gray_of, rules_version, token_choices

    if rest and rest[0] in ("none", "nothing"):
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
    return " ".join(str(v) for v in dice) if dice else "none"


def describe(cmd):
    t = cmd["type"]
    if t == "place":
        return f"place {cmd['die']} on {cmd['space']}"
    if t == "cast":
        return f"cast {cmd['spell']} on {cmd['wizard']}"
    if t == "takeback":
        return f"take back {_dtext(cmd['dice'])}"
    if t in ("recover", "remove"):
        named = f" from {' '.join(cmd['from'])}" if cmd.get("from") else ""
        return f"{t} {_dtext(cmd['dice'])}{named}"
    if t == "retire":
        if cmd["source"]:
            return f"retire from {cmd['source']} to {cmd['to']}"
        return f"retire to {cmd['to']}"
    if t == "claim":
        return f"claim {cmd['space']}"
    if t == "demote":
        return f"demote to {cmd['to']}"
    return t


def _context(state, seat) -> list[str]:
    """What the player has to work with now."""
    from .board import LEVEL_NAME, MAJOR_LEVELS
    from .rules import gray_of, my_dice

    ph = state["phase"]
    if ph in ("cast1", "cast2"):
        return [f"Your roll: {_dtext(state['rolled'] or [])}."]
    if ph == "compete":
        dice = [
            f"{LEVEL_NAME[lv]} {_dtext(my_dice(state['major'][lv], seat))}"
            for lv in MAJOR_LEVELS
            if my_dice(state["major"][lv], seat)
        ]
        return [f"Your spells: {state['supply'][seat]} minor; major: {', '.join(dice) or 'none'}."]
    if ph in ("recover4", "recover6"):
        return [
            f"Your dice in the Minor Spells space: {_dtext(my_dice(state['mdice'], seat))}; "
            f"your spent minor spells there: {state['mspace'][seat]}."
        ]
    if ph == "gray9":
        return [
            f"Your dice in the Gray Magic space: {_dtext(my_dice(state['gdice'], seat))}; "
            f"your gray magic tokens: {gray_of(state, seat)}."
        ]
    return []


def help(state, seat):
    from .rules import waiting_for

    ph = state["phase"]
    lines = []
    if seat is not None and seat not in waiting_for(state):
        who = ", ".join(state["colours"][s] for s in waiting_for(state)) or "nobody"
        lines.append(f"You are not awaited now (waiting for: {who}). Table talk: say <text>.")
    if ph == "retire":
        lines += [
            "retire from supply to W2   a minor spell from your supply onto the turn counter,",
            "                           your Grand Druid to Wizard space W2",
            "retire from space to W1    the minor spell comes from the Minor Spells space",
        ]
    elif ph in ("cast1", "cast2"):
        lines += [
            "place 6 on druid      put a rolled die on a space: druid, sorcerer, necromancer,",
            "                      wizard (the four Major Spells spaces), minor, gray",
            "place 2 on minor      2 pips there recover one minor spell in phases 4 and 6",
            "place 4 on gray       4 pips there remove a gray magic token in phase 9",
        ]
        if ph == "cast1":
            lines.append("done                  keep the other dice for phase 3")
        else:
            lines.append("reroll                pay a minor spell to reroll all remaining dice (once, before placing)")
    elif ph == "compete":
        lines += [
            "cast 5 on red3        a die from your Major Spells space of red3's level, for red3",
            "cast minor on N4      a minor spell (1 point) for the wizard on N4",
            "cast 3 on W2 green    the green wizard on Wizard space W2",
            "pass                  stop casting for the rest of this turn (final)",
            "Each turn you cast two spells (one if you have only one left).",
        ]
    elif ph in PEND_PHASES:
        if ph == "gray9":
            lines += [
                "remove 4              spend dice from the Gray Magic space: each "
                f"{state.get('gray_cost', 4)} pips remove a token",
                "remove 5 2 1 from red3 red5   ... and which of your wizards lose the tokens",
                "remove none           keep them",
            ]
        else:
            lines += [
                "recover 6 2           spend dice from the Minor Spells space: 2 pips per spell",
                "recover none          keep them there",
            ]
        if ph != "recover4":
            lines += [
                "take back 3 1         take unused dice back in front of you",
                "take back none        leave them in the space for the next turn",
            ]
    elif ph == "vacant":
        ex = (vacancy_choices(state) or ["S2"])[0]
        lines += [f"claim {ex:<15} the vacant title your routed wizard takes"]
    elif ph == "demote":
        lines += ["demote to W3          the Wizard space your routed wizard goes to"]
    else:
        lines.append("The game is over." if ph == "over" else "Nothing to type now.")
    if seat is not None and seat in waiting_for(state):
        lines += _context(state, seat)
    lines.append("Wizards are named by colour and number (red3); spaces: GD, D1-D2, S1-S4, N1-N8, W1-W4.")
    if ph not in ("over",):
        seats = order(state)
        lines.append("Turn order: " + ", ".join(state["colours"][s] for s in seats) + ".")
    return "\n".join(lines)
