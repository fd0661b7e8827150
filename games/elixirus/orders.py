"""Standing orders for Elixirus (pure).

Stage B of every round (collecting) resolves the signpost's pieces one by one, and each piece's
effect is offered to the player it falls to, with "skip" beside it: the same few questions every
round ("draw?", "take a basket?"). A standing order answers one of them: 'order always draw' or
'order always basket' (the effect, when it is a single move), or 'order never steal' (skip it).
"""

from __future__ import annotations

from games.base import ParseError

EFFECTS = ("draw", "basket", "steal", "swap", "dance", "replace")


def parse_order(text, state, seat):
    """'always EFFECT' or 'never EFFECT' for the optional effects of collecting (draw, basket, steal, swap, dance, replace)"""
    words = text.strip().lower().split()
    if len(words) == 2 and words[0] in ("always", "never") and words[1] in EFFECTS:
        if words[0] == "always" and words[1] not in ("draw", "basket"):
            raise ParseError(f"'{words[1]}' needs a choice each time; only 'never {words[1]}' can stand.")
        return {"effect": words[1], "take": words[0] == "always"}
    raise ParseError(
        "Elixirus knows the standing orders 'order always draw', 'order always basket' and "
        "'order never EFFECT' (" + ", ".join(EFFECTS) + ")."
    )


def describe_order(order):
    return f"{'always' if order['take'] else 'never'} {order['effect']}"


def follow_order(order, view, legal):
    """When the effect is offered with 'skip' beside it and nothing else: the effect (always),
    or skip (never)."""
    kinds = {command["type"] for command in legal}
    if kinds != {order["effect"], "skip"}:
        return None
    if not order["take"]:
        return {"type": "skip"}
    effects = [command for command in legal if command["type"] == order["effect"]]
    return effects[0] if len(effects) == 1 else None
