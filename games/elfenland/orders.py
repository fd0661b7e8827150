"""Standing orders for Elfenland (pure): what the rulebook makes a player say again and again.

Phase 2 of every round (drawing transport counters) has each player take one counter at a time,
in turn, until each holds four: several mails a round that mostly say "draw" or "take the troll".
A standing order answers them: 'order draw blind' (always draw from the face-down stack), or
'order take troll or cloud' (a face-up counter of these kinds if one lies there, the first named
first, else draw blind). It says nothing in any other phase.
"""

from __future__ import annotations

from games.base import ParseError, normalize

from . import board as B
from .grammar import lexicon, parse
from .lang import _

# "or" between the counters of an order, and the words of a blind draw, in every language.
OR_WORDS = {"or", "oder", "ou"}
BLIND_WORDS = {"draw", "blind", "zieh", "ziehe", "ziehen", "verdeckt", "pioche", "piocher", "face", "cachee"}


def parse_order(text, state, seat):
    """'draw blind', or 'take COUNTER [or COUNTER …]' (else draw blind), in the drawing phase;
    in German ('zieh verdeckt', 'nimm Troll oder Wolke') and French ('pioche face cachée',
    'prends troll ou nuage') too."""
    words = normalize(text.replace(",", " or ")).split()
    if words and all(w in BLIND_WORDS for w in words):
        return {"take": []}
    if len(words) < 2 or lexicon().verbs.get(words[0]) != "take":
        raise ParseError(
            _("Elfenland knows the standing orders '{blind}' and '{take}'.").format(
                blind=describe_order({"take": []}), take=describe_order({"take": ["troll_wagon", "magic_cloud"]})
            )
        )
    wanted: list[str] = []
    names: list[list[str]] = [[]]
    for w in words[1:]:
        if w in OR_WORDS:
            names.append([])
        else:
            names[-1].append(w)
    for name in (" ".join(n) for n in names):
        if not name or all(w in BLIND_WORDS for w in name.split()):
            continue
        command = parse(f"take {name}", state, seat)
        if command.get("type") != "take":
            raise ParseError(_("'{name}' is not a transport counter.").format(name=name))
        if command["counter"] not in wanted:
            wanted.append(command["counter"])
    if not wanted:
        example = describe_order({"take": ["troll_wagon", "magic_cloud"]})
        raise ParseError(_("Name a counter to take, e.g. 'order {example}'.").format(example=example))
    return {"take": wanted}


def describe_order(order):
    if not order["take"]:
        return _("draw blind")
    names = _(" or ").join(B.word(c) for c in order["take"])
    return _("take {counters}").format(counters=names)


def follow_order(order, view, legal):
    """In the drawing phase (a 'draw' among the legal moves): the first wanted face-up counter
    that can be taken, else a blind draw; in any other phase nothing."""
    draw = {"type": "draw"}
    if draw not in legal:
        return None
    for counter in order["take"]:
        take = {"type": "take", "counter": counter}
        if take in legal:
            return take
    return draw
