"""Standing orders for Elven Castle (pure).

Every turn is the same: place one piece, and score the height of the arch beneath it. A player
who builds high whatever the piece may leave that to a standing order: 'order highest' places on
the highest level open to any of their pieces, or 'order highest bridge' with that kind of piece
only (the first such place in the game's order; nothing when none is open).
"""

from __future__ import annotations

from games.base import ParseError

from .rules import KINDS


def parse_order(text, state, seat):
    """'highest' or 'highest PIECE': place on the highest level open, every turn"""
    words = text.strip().lower().split()
    if words[:1] != ["highest"] or len(words) > 2:
        raise ParseError("Elven Castle knows the standing order 'order highest' (or 'order highest bridge').")
    piece = words[1] if len(words) == 2 else None
    if piece is not None:
        if piece not in KINDS and piece.endswith("s") and piece[:-1] in KINDS:
            piece = piece[:-1]
        if piece not in KINDS:
            raise ParseError(f"There is no piece '{piece}'; the pieces are {', '.join(KINDS)}.")
    return {"highest": piece}


def describe_order(order):
    return "highest" + (f" {order['highest']}" if order["highest"] else "")


def follow_order(order, view, legal):
    """The legal placement on the highest level (of the piece named, if any)."""
    places = [c for c in legal if c.get("type") == "place" and order["highest"] in (None, c.get("piece"))]
    if not places:
        return None
    return max(places, key=lambda c: c["z"])
