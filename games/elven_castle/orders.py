"""Standing orders for Elven Castle (pure).

Every turn is the same: place one piece, and score the height of the arch beneath it. A player
who builds high whatever the piece may leave that to a standing order: 'order highest' places on
the highest level open to any of their pieces, or 'order highest bridge' with that kind of piece
only (the first such place in the game's order; nothing when none is open).
"""

from __future__ import annotations

from games.base import ParseError, normalize

from . import words as W
from .grammar import _piece_words, _singular
from .lang import _
from .rules import KINDS

HIGHEST = {"highest", "hochste", "hoechste", "hochsten", "plushaut", "haut", "sommet"}


def parse_order(text, state, seat):
    """'highest' or 'highest PIECE': place on the highest level open, every turn; in German
    ('höchste Brücke') and French ('plus haut pont') too"""
    words = normalize(text).split()
    if words[:2] == ["plus", "haut"]:
        words = ["plushaut", *words[2:]]
    if words[:1] == [] or words[0] not in HIGHEST or len(words) > 2:
        text = _("Elven Castle knows the standing order 'order {highest}' (or 'order {bridge}').")
        example = describe_order({"highest": "bridge"})
        raise ParseError(text.format(highest=describe_order({"highest": None}), bridge=example))
    piece = None
    if len(words) == 2:
        piece = _piece_words().get(_singular(words[1], _piece_words()))
        if piece is None:
            names = ", ".join(W.piece(k) for k in KINDS)
            raise ParseError(
                _("There is no piece '{piece}'; the pieces are {pieces}.").format(piece=words[1], pieces=names)
            )
    return {"highest": piece}


def describe_order(order):
    if order["highest"]:
        return _("highest {piece}").format(piece=W.piece(order["highest"]))
    return _("highest")


def follow_order(order, view, legal):
    """The legal placement on the highest level (of the piece named, if any)."""
    places = [c for c in legal if c.get("type") == "place" and order["highest"] in (None, c.get("piece"))]
    if not places:
        return None
    return max(places, key=lambda c: c["z"])
