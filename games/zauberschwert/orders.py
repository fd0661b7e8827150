"""Standing orders for Zauberschwert & Drachenei (pure).

Phase E of every round (trading) goes round the table: each player in turn may offer trades and
then says "done", and must answer every offer made to them. A player who does not mean to trade
answers that phase the same way each round: 'order no offers' says "done" for them whenever the
only choices are to offer or be done (an offer made to them still waits for their own answer),
and 'order decline offers' also declines every offer made to them.
"""

from __future__ import annotations

from games.base import ParseError


def parse_order(text, state, seat):
    """'no offers' (done whenever you could only offer), or 'decline offers' (and decline any offer made to you)"""
    words = " ".join(text.strip().lower().split())
    if words in ("no offers", "no trades", "no trading", "done"):
        return {"trade": "none"}
    if words in ("decline offers", "decline", "decline all", "no offers decline"):
        return {"trade": "decline"}
    raise ParseError("Zauberschwert knows the standing orders 'order no offers' and 'order decline offers'.")


def describe_order(order):
    return "no offers" if order["trade"] == "none" else "decline offers"


def follow_order(order, view, legal):
    """Only in trading (a 'done' beside offers or answers to offers): decline the first offer made
    to you (with 'decline offers'), else 'done' when nobody's offer waits for your answer."""
    kinds = {command["type"] for command in legal}
    if "done" not in kinds or not kinds <= {"done", "offer", "accept", "decline"}:
        return None
    declines = [command for command in legal if command["type"] == "decline"]
    if declines:
        return declines[0] if order["trade"] == "decline" else None
    return {"type": "done"}
