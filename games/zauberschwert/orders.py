"""Standing orders for Zauberschwert & Drachenei (pure).

Phase E of every round (trading) goes round the table: each player in turn may offer trades and
then says "done", and must answer every offer made to them. A player who does not mean to trade
answers that phase the same way each round: 'order no offers' says "done" for them whenever the
only choices are to offer or be done (an offer made to them still waits for their own answer),
and 'order decline offers' also declines every offer made to them.
"""

from __future__ import annotations

from games.base import ParseError, normalize

from .lang import CATALOGUE, _

NONE = {"no offers", "no trades", "no trading", "done"}
NONE |= {"keine angebote", "kein tausch", "kein handel", "fertig", "aucune offre", "pas dechange", "fini"}
DECLINE = {"decline offers", "decline", "decline all", "no offers decline"}
DECLINE |= {"angebote ablehnen", "ablehnen", "alle ablehnen", "refuser les offres", "refuser", "tout refuser"}


def parse_order(text, state, seat):
    """'no offers' (done whenever you could only offer), or 'decline offers' (and decline any offer
    made to you); in German ('keine Angebote', 'Angebote ablehnen') and French ('aucune offre',
    'refuser les offres') too"""
    words = normalize(text)
    if words in NONE or words in _said("no offers"):
        return {"trade": "none"}
    if words in DECLINE or words in _said("decline offers"):
        return {"trade": "decline"}
    text = _("Zauberschwert knows the standing orders 'order {none}' and 'order {decline}'.")
    raise ParseError(text.format(none=_("no offers"), decline=_("decline offers")))


def _said(order: str) -> set[str]:
    return {normalize(w) for w in CATALOGUE.every_language(order)}


def describe_order(order):
    return _("no offers") if order["trade"] == "none" else _("decline offers")


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
