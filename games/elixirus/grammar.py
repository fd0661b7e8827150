"""The text grammar: what a player types in a mail client, and back."""

from __future__ import annotations

import textwrap

from games.base import ParseError, key, match_name, normalize

from . import words as W
from .data_model import COLOURS, CRYSTAL, EFFECTS, FLASKS, VARIETIES
from .lang import N_, _, pgettext
from .rules import SEAT_COLOURS, legal, waiting_for

VERBS = {
    "place": "place",
    "put": "put",
    "add": "put",
    "brew": "put",
    "take": "take",
    "steal": "steal",
    "swap": "swap",
    "draw": "draw",
    "keep": "keep",
    "replace": "replace",
    "dance": "dance",
    "basket": "basket",
    "skip": "skip",
    "pass": "skip",
    "pick": "pick",
    "done": "done",
    "finish": "done",
    "finished": "done",
    "reset": "reset",
    "revise": "reset",
}
FILLERS = {
    "from",
    "for",
    "with",
    "on",
    "in",
    "into",
    "to",
    "the",
    "and",
    "curve",
    "curves",
    "space",
    "spaces",
    "my",
    "a",
    "an",
    "of",
    "piece",
    "forest",
    "flask",
    "at",
    "onto",
    "plus",
    "&",
    # German and French (accents folded, as normalize() leaves them)
    "von",
    "fur",
    "mit",
    "auf",
    "im",
    "ins",
    "aufs",
    "den",
    "die",
    "das",
    "der",
    "dem",
    "und",
    "kurve",
    "kurven",
    "feld",
    "felder",
    "mein",
    "meine",
    "meinen",
    "ein",
    "eine",
    "einen",
    "aus",
    "gegen",
    "zu",
    "nach",
    "waldstuck",
    "wald",
    "flasche",
    "de",
    "du",
    "des",
    "la",
    "le",
    "les",
    "pour",
    "avec",
    "sur",
    "dans",
    "et",
    "courbe",
    "courbes",
    "case",
    "cases",
    "ma",
    "mon",
    "mes",
    "un",
    "une",
    "au",
    "contre",
    "foret",
    "fiole",
}
# The commands, each the English word a command is logged with; the word a reader sees is
# pgettext("command", verb), and every language's word is read (see _verbs).
COMMANDS = (
    "place",
    "put",
    "take",
    "steal",
    "swap",
    "draw",
    "keep",
    "replace",
    "dance",
    "basket",
    "skip",
    "pick",
    "done",
    "reset",
)
ALIASES = {
    "flower": "blossom",
    "flowers": "blossom",
    "blossoms": "blossom",
    "leaves": "leaf",
    "berries": "berry",
    "roots": "root",
    "stems": "stem",
    "seeds": "seed",
    "violet": "purple",
    "lilac": "purple",
}
CRYSTAL_WORDS = {"crystal", "crystals", "joker", "kristall"}
DEST_WORDS = {
    "recipe": "book",
    "recipebook": "book",
    "storage": "bowl",
    "toxic": "poison",
    "poisonflask": "poison",
    "rezeptbuch": "book",
    "giftflasche": "poison",
    "livrederecettes": "book",
}
TRAITS = COLOURS + VARIETIES
DESTS = FLASKS + ("book", "bowl", "poison")
_EXACT: dict[tuple, dict] = {}


def _match(word: str, names, what: str) -> str:
    """match_name with a fast path for exact words (the bot and most people type them exactly)."""
    names = tuple(names)
    table = _EXACT.get(names)
    if table is None:
        table = _EXACT[names] = {key(n): n for n in names}
    hit = table.get(word)
    if hit is not None:
        return hit
    return match_name(word, names, what)


def said(verb: str) -> str:
    """A command's word in the reader's language."""
    return {
        "place": pgettext("command", "place"),
        "put": pgettext("command", "put"),
        "take": pgettext("command", "take"),
        "steal": pgettext("command", "steal"),
        "swap": pgettext("command", "swap"),
        "draw": pgettext("command", "draw"),
        "keep": pgettext("command", "keep"),
        "replace": pgettext("command", "replace"),
        "dance": pgettext("command", "dance"),
        "basket": pgettext("command", "basket"),
        "skip": pgettext("command", "skip"),
        "pick": pgettext("command", "pick"),
        "done": pgettext("command", "done"),
        "reset": pgettext("command", "reset"),
    }.get(verb, verb)


_VERBS: dict[str, str] = {}


def _verbs() -> dict[str, str]:
    """Every command word of every language (and the English synonyms), by key."""
    if not _VERBS:
        from .lang import CATALOGUE

        table = {key(w): v for w, v in VERBS.items()}
        for verb in COMMANDS:
            for word in CATALOGUE.every_language(verb, "command"):
                table.setdefault(key(word), verb)
        _VERBS.update(table)
    return _VERBS


def _words(text: str) -> list[str]:
    text = normalize(text)
    for ch in ',.;:!?()[]"':
        text = text.replace(ch, " ")
    return [w for w in text.split() if w not in FILLERS]


WHAT = {"value": N_("value"), "space": N_("space"), "curve": N_("curve")}


def _int(word: str, what: str, allowed) -> int:
    if not word.isdigit() or int(word) not in allowed:
        raise ParseError(
            _("'{word}' is not a {what} ({allowed}).").format(
                word=word, what=_(WHAT[what]), allowed=", ".join(str(a) for a in allowed)
            )
        )
    return int(word)


def _ingredient(words: list[str], i: int) -> tuple[str, int]:
    """Reads an ingredient ("red root 2", "2 red roots", "crystal") starting at words[i]."""
    if i >= len(words):
        raise ParseError(_("Name an ingredient, e.g. '{example}' or '{crystal}'.").format(**_EXAMPLE()))
    local = W.local_words()
    if words[i] in CRYSTAL_WORDS or key(words[i]) in local["crystal"]:
        return CRYSTAL, i + 1
    col = var = val = None
    j = i
    while j < len(words) and (col is None or var is None or val is None):
        w = words[j]
        if w.isdigit():
            if val is not None:
                break
            val = _int(w, "value", (1, 2, 3))
        else:
            w = local["trait"].get(key(w)) or ALIASES.get(w, w)
            name = _match(w, TRAITS, _("colour or variety"))
            if name in COLOURS:
                if col is not None:
                    break
                col = name
            else:
                if var is not None:
                    break
                var = name
        j += 1
    if col is None or var is None or val is None:
        raise ParseError(
            _("Name an ingredient by colour, variety and value, e.g. '{example}' (or '{crystal}').").format(
                **_EXAMPLE()
            )
        )
    return f"{col} {var} {val}", j


def _EXAMPLE() -> dict[str, str]:
    return {"example": W.ingredient("red root 2"), "crystal": W.ingredient(CRYSTAL)}


def _piece(word: str) -> str:
    local = W.local_words()["effect"].get(key(word))
    return local or _match(word, EFFECTS, _("piece of forest"))


def _dest(word: str) -> str:
    k = key(word)
    if k in DEST_WORDS:
        return DEST_WORDS[k]
    local = W.local_words()["place"].get(k)
    return local or _match(k, DESTS, _("place on your table"))


def _seat(word: str, state) -> int:
    name = W.local_words()["seat"].get(key(word)) or word
    return SEAT_COLOURS.index(_match(name, SEAT_COLOURS[: state["n"]], _("player colour")))


def _end(words, j, example):
    if j != len(words):
        raise ParseError(
            _("I did not understand '{words}'. Example: '{example}'.").format(
                words=" ".join(words[j:]), example=example
            )
        )


def _ex(**command) -> str:
    """A command as the reader would type it (for an error's example)."""
    return describe(command)


def parse(text, state, seat):
    words = _words(text)
    if not words:
        raise ParseError(_("Empty command. Send 'help' for the commands."))
    table = _verbs()
    verb = table[_match(key(words[0]), list(table), _("command"))]
    rest = words[1:]
    phase = state["phase"] if state else None
    if verb in ("place", "put"):
        verb = "put" if phase == "brew" else "place"
    reader = READERS.get(verb)
    if reader is not None:
        return reader(rest, state, seat)
    if rest:
        raise ParseError(_("'{verb}' takes nothing after it.").format(verb=said(verb)))
    return {"type": verb}


def _p_place(rest, _state, _seat):
    if len(rest) != 2:
        example = _ex(type="place", piece="steal", space=2)
        raise ParseError(_("Say the piece of forest and the space: '{example}'.").format(example=example))
    return {"type": "place", "piece": _piece(rest[0]), "space": _int(rest[1], "space", (1, 2, 3))}


def _p_take(rest, _state, _seat):
    if not rest:
        raise ParseError(_("Say which curves: '{example}'.").format(example=_ex(type="take", curves=[2, 4])))
    return {"type": "take", "curves": sorted(_int(w, "curve", (1, 2, 3, 4)) for w in rest)}


def _p_steal(rest, state, seat):
    tok, j = _ingredient(rest, 0)
    if j < len(rest):
        victim = _seat(rest[j], state)
        _end(rest, j + 1, _ex(type="steal", ing="red root 2", **{"from": 2}))
    else:
        holders = [s for s in range(state["n"]) if s != seat and tok in state["front"][s]]
        if len(holders) != 1:
            example = _("{steal} {ingredient} from <colour>").format(steal=said("steal"), ingredient=W.ingredient(tok))
            raise ParseError(_("Say from whom: '{example}'.").format(example=example))
        victim = holders[0]
    return {"type": "steal", "ing": tok, "from": victim}


def _p_swap(rest, _state, _seat):
    tok, j = _ingredient(rest, 0)
    if len(rest) - j != 2:
        example = _ex(type="swap", ing="red root 2", piece="draw", curve=3)
        raise ParseError(
            _("Say what you give and which forest ingredient you take: '{example}'.").format(example=example)
        )
    return {"type": "swap", "ing": tok, "piece": _piece(rest[j]), "curve": _int(rest[j + 1], "curve", (1, 2, 3, 4))}


def _p_keep(rest, _state, _seat):
    ings = []
    j = 0
    while j < len(rest):
        tok, j = _ingredient(rest, j)
        ings.append(tok)
    if not 1 <= len(ings) <= 2:
        example = _ex(type="keep", ings=["blue leaf 1", "red root 2"])
        raise ParseError(_("Keep 1 or 2 ingredients: '{example}'.").format(example=example))
    return {"type": "keep", "ings": sorted(ings)}


def _p_replace(rest, _state, _seat):
    if len(rest) < 2:
        example = _ex(type="replace", piece="dance", curves=[1, 3])
        raise ParseError(_("Say the piece and 1 or 2 curves: '{example}'.").format(example=example))
    return {
        "type": "replace",
        "piece": _piece(rest[0]),
        "curves": sorted(_int(w, "curve", (1, 2, 3, 4)) for w in rest[1:]),
    }


def _p_dance(rest, _state, _seat):
    if len(rest) != 3:
        example = _ex(type="dance", piece="swap", spaces=[1, 3])
        raise ParseError(_("Say the piece and the two spaces: '{example}'.").format(example=example))
    return {"type": "dance", "piece": _piece(rest[0]), "spaces": sorted(_int(w, "space", (1, 2, 3)) for w in rest[1:])}


def _p_put(rest, _state, _seat):
    tok, j = _ingredient(rest, 0)
    if j >= len(rest):
        example = _ex(type="put", ing="red root 2", to="love")
        raise ParseError(_("Say where: '{example}' (a flask, book, bowl or poison).").format(example=example))
    return {"type": "put", "ing": tok, "to": _dest(" ".join(rest[j:]))}


def _p_pick(rest, _state, _seat):
    if len(rest) != 2:
        example = _ex(type="pick", piece="steal", curve=3)
        raise ParseError(_("Say the piece and the curve: '{example}'.").format(example=example))
    return {"type": "pick", "piece": _piece(rest[0]), "curve": _int(rest[1], "curve", (1, 2, 3, 4))}


# The commands that take words after them, each read by its own function.
READERS = {
    "place": _p_place,
    "take": _p_take,
    "steal": _p_steal,
    "swap": _p_swap,
    "keep": _p_keep,
    "replace": _p_replace,
    "dance": _p_dance,
    "put": _p_put,
    "pick": _p_pick,
}


def describe(command):
    """A command as a player types it, in the reader's language ("put red root 2 on love")."""
    t = command["type"]
    verb = said(t)
    if t in ("place", "pick", "swap", "replace", "dance"):
        piece = W.effect_word(command["piece"])
    if t == "place":
        return f"{verb} {piece} {command['space']}"
    if t == "take":
        return f"{verb} " + " ".join(str(c) for c in command["curves"])
    if t == "steal":
        return _("{steal} {ingredient} from {colour}").format(
            steal=verb, ingredient=W.ingredient(command["ing"]), colour=W.seat(SEAT_COLOURS[command["from"]])
        )
    if t == "swap":
        return _("{swap} {ingredient} for {piece} {curve}").format(
            swap=verb, ingredient=W.ingredient(command["ing"]), piece=piece, curve=command["curve"]
        )
    if t == "keep":
        return f"{verb} " + _(" and ").join(format(W.ingredient(i), "acc") for i in command["ings"])
    if t == "replace":
        return f"{verb} {piece} " + " ".join(str(c) for c in command["curves"])
    if t == "dance":
        return f"{verb} {piece} {command['spaces'][0]} {command['spaces'][1]}"
    if t == "put":
        return _("{put} {ingredient} on {place}").format(
            put=verb, ingredient=W.ingredient(command["ing"]), place=W.place(command["to"])
        )
    if t == "pick":
        return f"{verb} {piece} {command['curve']}"
    return verb


_HELP = {
    "place": (
        N_("place <piece> <space>"),
        N_(
            "put an apprentice on a free space (1, 2 or 3) of a face-up piece of forest (pieces are named by their effect)"
        ),
    ),
    "take": (
        N_("take <curve> [<curve>]"),
        N_(
            "collect exactly as many ingredients as your space has baskets; curve 1 also brings a blind draw from the bag"
        ),
    ),
    "steal": (N_("steal <ingredient> from <colour>"), N_("take 1 ingredient another player collected this round")),
    "swap": (
        N_("swap <ingredient> for <piece> <curve>"),
        N_("exchange 1 of your collected ingredients with one on the forest"),
    ),
    "draw": (N_("draw"), N_("draw 3 ingredients from the bag (only you see them), then keep 1 or 2")),
    "keep": (
        N_("keep <ingredient> [and <ingredient>]"),
        N_("keep 1 or 2 of the 3 you drew; the rest go back in the bag"),
    ),
    "replace": (
        N_("replace <piece> <curve> [<curve>]"),
        N_("put 1 or 2 ingredients of another piece back in the bag and draw replacements"),
    ),
    "dance": (N_("dance <piece> <space> <space>"), N_("swap two apprentices of different colours on another piece")),
    "basket": (N_("basket"), N_("take the basket tile (use it in the concocting stage with 'pick')")),
    "skip": (N_("skip"), N_("do not use the effect")),
    "put": (
        N_("put <ingredient> on <flask|book|bowl|poison>"),
        N_("flasks fill bottom to top, colour or variety must match"),
    ),
    "pick": (N_("pick <piece> <curve>"), N_("use the basket tile: collect 1 leftover ingredient from the forest")),
    "done": (N_("done"), N_("you have placed everything (you may 'reset' until the last player is done)")),
    "reset": (N_("reset"), N_("take back this round's concocting and start it again")),
}
STAGE_NAMES = {
    "place": N_("A, placing apprentices"),
    "collect": N_("B, collecting ingredients"),
    "brew": N_("C, concocting potions"),
}


def help(state, seat):
    phase = state["phase"]
    if phase == "over":
        return _("The game is over.")
    lines = []
    if seat is None or seat not in waiting_for(state):
        if phase == "brew" and seat is not None and state["done"][seat]:
            lines.append(_("You are done concocting; waiting for the others."))
            lines.append("  " + _(_HELP["reset"][0]))
            lines.append("      " + _(_HELP["reset"][1]))
            return "\n".join(lines)
        stage = _(STAGE_NAMES[phase]) if phase in STAGE_NAMES else phase
        lines.append(_("You are not awaited now. Stage: {stage}").format(stage=stage))
        return "\n".join(lines)
    options = legal(state, seat)
    kinds: dict[str, list[dict]] = {}
    for cmd in options:
        kinds.setdefault(cmd["type"], []).append(cmd)
    lines.append(
        _("Commands now (case does not matter; ingredients as '{example}' or '{crystal}'):").format(**_EXAMPLE())
    )
    for kind, cmds in kinds.items():
        form, text = _HELP[kind]
        lines.append("  " + _(form))
        lines += textwrap.wrap(_(text), 78, initial_indent="      ", subsequent_indent="      ")
        examples = ", ".join(f"'{describe(c)}'" for c in cmds[:2])
        lines += textwrap.wrap(
            _("e.g. {examples}").format(examples=examples), 78, initial_indent="      ", subsequent_indent="      "
        )
    if phase == "brew":
        lines.append("  " + _(_HELP["reset"][0]))
        lines.append("      " + _(_HELP["reset"][1]))
        lines.append(_("Send all your lines in one reply; nobody sees them until everyone is done."))
    return "\n".join(lines)
