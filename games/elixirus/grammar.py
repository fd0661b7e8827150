"""The text grammar: what a player types in a mail client, and back."""

from __future__ import annotations

import textwrap

from games.base import ParseError, key, match_name, normalize

from .data_model import COLOURS, CRYSTAL, EFFECTS, FLASKS, VARIETIES
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
}
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
DEST_WORDS = {"recipe": "book", "recipebook": "book", "storage": "bowl", "toxic": "poison", "poisonflask": "poison"}
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


def _words(text: str) -> list[str]:
    text = normalize(text)
    for ch in ',.;:!?()[]"':
        text = text.replace(ch, " ")
    return [w for w in text.split() if w not in FILLERS]


def _int(word: str, what: str, allowed) -> int:
    if not word.isdigit() or int(word) not in allowed:
        raise ParseError(f"'{word}' is not a {what} ({', '.join(str(a) for a in allowed)}).")
    return int(word)


def _ingredient(words: list[str], i: int) -> tuple[str, int]:
    """Reads an ingredient ("red root 2", "2 red roots", "crystal") starting at words[i]."""
    if i >= len(words):
        raise ParseError("Name an ingredient, e.g. 'red root 2' or 'crystal'.")
    if words[i] in CRYSTAL_WORDS:
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
            w = ALIASES.get(w, w)
            name = _match(w, TRAITS, "colour or variety")
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
        raise ParseError("Name an ingredient by colour, variety and value, e.g. 'red root 2' (or 'crystal').")
    return f"{col} {var} {val}", j


def _piece(word: str) -> str:
    return _match(word, EFFECTS, "piece of forest")


def _dest(word: str) -> str:
    k = key(word)
    if k in DEST_WORDS:
        return DEST_WORDS[k]
    return _match(k, DESTS, "place on your table")


def _end(words, j, example):
    if j != len(words):
        raise ParseError(f"I did not understand '{' '.join(words[j:])}'. Example: '{example}'.")


def parse(text, state, seat):
    words = _words(text)
    if not words:
        raise ParseError("Empty command. Send 'help' for the commands.")
    verb = VERBS[_match(words[0], list(VERBS), "command")]
    rest = words[1:]
    phase = state["phase"] if state else None
    if verb in ("place", "put"):
        verb = "put" if phase == "brew" else "place"
    if verb == "place":
        if len(rest) != 2:
            raise ParseError("Say the piece of forest and the space: 'place steal 2'.")
        return {"type": "place", "piece": _piece(rest[0]), "space": _int(rest[1], "space", (1, 2, 3))}
    if verb == "take":
        if not rest:
            raise ParseError("Say which curves: 'take 2 4'.")
        return {"type": "take", "curves": sorted(_int(w, "curve", (1, 2, 3, 4)) for w in rest)}
    if verb == "steal":
        tok, j = _ingredient(rest, 0)
        if j < len(rest):
            victim = SEAT_COLOURS.index(_match(rest[j], SEAT_COLOURS[: state["n"]], "player colour"))
            _end(rest, j + 1, "steal red root 2 from pink")
        else:
            holders = [s for s in range(state["n"]) if s != seat and tok in state["front"][s]]
            if len(holders) != 1:
                raise ParseError(f"Say from whom: 'steal {tok} from <colour>'.")
            victim = holders[0]
        return {"type": "steal", "ing": tok, "from": victim}
    if verb == "swap":
        tok, j = _ingredient(rest, 0)
        if len(rest) - j != 2:
            raise ParseError("Say what you give and which forest ingredient you take: 'swap red root 2 for draw 3'.")
        return {"type": "swap", "ing": tok, "piece": _piece(rest[j]), "curve": _int(rest[j + 1], "curve", (1, 2, 3, 4))}
    if verb == "keep":
        ings = []
        j = 0
        while j < len(rest):
            tok, j = _ingredient(rest, j)
            ings.append(tok)
        if not 1 <= len(ings) <= 2:
            raise ParseError("Keep 1 or 2 ingredients: 'keep red root 2 and blue leaf 1'.")
        return {"type": "keep", "ings": sorted(ings)}
    if verb == "replace":
        if len(rest) < 2:
            raise ParseError("Say the piece and 1 or 2 curves: 'replace dance 1 3'.")
        return {
            "type": "replace",
            "piece": _piece(rest[0]),
            "curves": sorted(_int(w, "curve", (1, 2, 3, 4)) for w in rest[1:]),
        }
    if verb == "dance":
        if len(rest) != 3:
            raise ParseError("Say the piece and the two spaces: 'dance swap 1 3'.")
        return {
            "type": "dance",
            "piece": _piece(rest[0]),
            "spaces": sorted(_int(w, "space", (1, 2, 3)) for w in rest[1:]),
        }
    if verb == "put":
        tok, j = _ingredient(rest, 0)
        if j >= len(rest):
            raise ParseError("Say where: 'put red root 2 on love' (a flask, book, bowl or poison).")
        return {"type": "put", "ing": tok, "to": _dest(" ".join(rest[j:]))}
    if verb == "pick":
        if len(rest) != 2:
            raise ParseError("Say the piece and the curve: 'pick steal 3'.")
        return {"type": "pick", "piece": _piece(rest[0]), "curve": _int(rest[1], "curve", (1, 2, 3, 4))}
    if rest:
        raise ParseError(f"'{verb}' takes nothing after it.")
    return {"type": verb}


def describe(command):
    t = command["type"]
    if t == "place":
        return f"place {command['piece']} {command['space']}"
    if t == "take":
        return "take " + " ".join(str(c) for c in command["curves"])
    if t == "steal":
        return f"steal {command['ing']} from {SEAT_COLOURS[command['from']]}"
    if t == "swap":
        return f"swap {command['ing']} for {command['piece']} {command['curve']}"
    if t == "keep":
        return "keep " + " and ".join(command["ings"])
    if t == "replace":
        return f"replace {command['piece']} " + " ".join(str(c) for c in command["curves"])
    if t == "dance":
        return f"dance {command['piece']} {command['spaces'][0]} {command['spaces'][1]}"
    if t == "put":
        return f"put {command['ing']} on {command['to']}"
    if t == "pick":
        return f"pick {command['piece']} {command['curve']}"
    return t


_HELP = {
    "place": (
        "place <piece> <space>",
        "put an apprentice on a free space (1, 2 or 3) of a face-up piece of forest (pieces are named by their effect)",
    ),
    "take": (
        "take <curve> [<curve>]",
        "collect exactly as many ingredients as your space has baskets; curve 1 also brings a blind draw from the bag",
    ),
    "steal": ("steal <ingredient> from <colour>", "take 1 ingredient another player collected this round"),
    "swap": (
        "swap <ingredient> for <piece> <curve>",
        "exchange 1 of your collected ingredients with one on the forest",
    ),
    "draw": ("draw", "draw 3 ingredients from the bag (only you see them), then keep 1 or 2"),
    "keep": ("keep <ingredient> [and <ingredient>]", "keep 1 or 2 of the 3 you drew; the rest go back in the bag"),
    "replace": (
        "replace <piece> <curve> [<curve>]",
        "put 1 or 2 ingredients of another piece back in the bag and draw replacements",
    ),
    "dance": ("dance <piece> <space> <space>", "swap two apprentices of different colours on another piece"),
    "basket": ("basket", "take the basket tile (use it in the concocting stage with 'pick')"),
    "skip": ("skip", "do not use the effect"),
    "put": ("put <ingredient> on <flask|book|bowl|poison>", "flasks fill bottom to top, colour or variety must match"),
    "pick": ("pick <piece> <curve>", "use the basket tile: collect 1 leftover ingredient from the forest"),
    "done": ("done", "you have placed everything (you may 'reset' until the last player is done)"),
    "reset": ("reset", "take back this round's concocting and start it again"),
}


def help(state, seat):
    phase = state["phase"]
    if phase == "over":
        return "The game is over."
    lines = []
    if seat is None or seat not in waiting_for(state):
        if phase == "brew" and seat is not None and state["done"][seat]:
            lines.append("You are done concocting; waiting for the others.")
            lines.append("  reset")
            lines.append("      " + _HELP["reset"][1])
            return "\n".join(lines)
        lines.append(
            "You are not awaited now. Stage: "
            + {
                "place": "A, placing apprentices",
                "collect": "B, collecting ingredients",
                "brew": "C, concocting potions",
            }.get(phase, phase)
        )
        return "\n".join(lines)
    options = legal(state, seat)
    kinds: dict[str, list[dict]] = {}
    for cmd in options:
        kinds.setdefault(cmd["type"], []).append(cmd)
    lines.append("Commands now (case does not matter; ingredients as 'red root 2' or 'crystal'):")
    for kind, cmds in kinds.items():
        form, text = _HELP[kind]
        lines.append(f"  {form}")
        lines += textwrap.wrap(text, 78, initial_indent="      ", subsequent_indent="      ")
        examples = ", ".join(f"'{describe(c)}'" for c in cmds[:2])
        lines += textwrap.wrap(f"e.g. {examples}", 78, initial_indent="      ", subsequent_indent="      ")
    if phase == "brew":
        lines.append("  reset")
        lines.append("      " + _HELP["reset"][1])
        lines.append("Send all your lines in one reply; nobody sees them until everyone is done.")
    return "\n".join(lines)
