"""Standing orders for Elfenland (pure): what the rulebook makes a player say again and again.

Phase 2 of every round (drawing transport counters) has each player take one counter at a time,
in turn, until each holds four: several mails a round that mostly say "draw" or "take the troll".
A standing order answers them: 'order draw blind' (always draw from the face-down stack), or
'order take troll or cloud' (a face-up counter of these kinds if one lies there, the first named
first, else draw blind). It says nothing in any other phase.
"""

from __future__ import annotations

from games.base import ParseError

from .grammar import describe, parse


def parse_order(text, state, seat):
    """'draw blind', or 'take COUNTER [or COUNTER …]' (else draw blind), in the drawing phase"""
    words = text.strip().lower().replace(",", " or ").split()
    if words in (["draw"], ["draw", "blind"], ["blind"]):
        return {"take": []}
    if not words or words[0] != "take" or len(words) < 2:
        raise ParseError("Elfenland knows the standing orders 'order draw blind' and 'order take troll or cloud'.")
    wanted: list[str] = []
    for name in " ".join(words[1:]).split(" or "):
        name = name.strip()
        if not name or name in ("draw", "draw blind", "blind"):
            continue
        command = parse(f"take {name}", state, seat)
        if command.get("type") != "take":
            raise ParseError(f"'{name}' is not a transport counter.")
        if command["counter"] not in wanted:
            wanted.append(command["counter"])
    if not wanted:
        raise ParseError("Name a counter to take, e.g. 'order take troll or cloud'.")
    return {"take": wanted}


def describe_order(order):
    if not order["take"]:
        return "draw blind"
    names = " or ".join(describe({"type": "take", "counter": c}).removeprefix("take ") for c in order["take"])
    return f"take {names}"


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
