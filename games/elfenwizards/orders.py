"""Standing orders for Elfenwizards (pure).

Every turn has two recoveries of minor spells (phases 4 and 6): each player may take back spent
minor spells, paying for them, and most players answer them the same way every time. A standing
order does: 'order recover all' (as many as can be paid for, the higher dice first) or 'order
recover none'.
"""

from __future__ import annotations

from games.base import ParseError


def parse_order(text, state, seat):
    """'recover all' or 'recover none', in both recoveries of minor spells of every turn"""
    words = " ".join(text.strip().lower().split())
    if words in ("recover all", "recover most", "recover"):
        return {"recover": "all"}
    if words in ("recover none", "recover nothing", "no recovery"):
        return {"recover": "none"}
    raise ParseError("Elfenwizards knows the standing orders 'order recover all' and 'order recover none'.")


def describe_order(order):
    return f"recover {order['recover']}"


def follow_order(order, view, legal):
    """In a recovery (every legal move a 'recover'): the one taking back the most dice, the
    highest first (all), or the one taking back none."""
    if not legal or any(command["type"] != "recover" for command in legal):
        return None
    if order["recover"] == "none":
        return next((c for c in legal if not c["dice"]), None)
    return max(legal, key=lambda c: (len(c["dice"]), sorted(c["dice"], reverse=True)))
