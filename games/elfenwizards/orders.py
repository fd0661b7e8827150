"""Standing orders for Elfenwizards (pure).

Every turn has two recoveries of minor spells (phases 4 and 6): each player may take back spent
minor spells, paying for them, and most players answer them the same way every time. A standing
order does: 'order recover all' (as many as can be paid for, the higher dice first) or 'order
recover none'.
"""

from __future__ import annotations

from games.base import ParseError, normalize

from .grammar import _verbs
from .lang import _

ALL_WORDS = {"all", "most", "alle", "alles", "tout", "tous", "toutes"}
NONE_WORDS = {"none", "nothing", "keine", "nichts", "aucun", "aucune", "rien"}


def parse_order(text, state, seat):
    """'recover all' or 'recover none', in both recoveries of minor spells of every turn; in
    German ('erhole alle', 'erhole keine') and French ('récupère tout', 'récupère aucun') too"""
    words = normalize(text).split()
    if words in (["no", "recovery"], ["keine", "erholung"], ["aucune", "recuperation"]):
        return {"recover": "none"}
    if words and _verbs().get(words[0]) == "recover" and len(words) <= 2:
        if len(words) == 1 or words[1] in ALL_WORDS:
            return {"recover": "all"}
        if words[1] in NONE_WORDS:
            return {"recover": "none"}
    text = _("Elfenwizards knows the standing orders 'order {all}' and 'order {none}'.")
    raise ParseError(text.format(all=describe_order({"recover": "all"}), none=describe_order({"recover": "none"})))


def describe_order(order):
    return _("recover all") if order["recover"] == "all" else _("recover none")


def follow_order(order, view, legal):
    """In a recovery (every legal move a 'recover'): the one taking back the most dice, the
    highest first (all), or the one taking back none."""
    if not legal or any(command["type"] != "recover" for command in legal):
        return None
    if order["recover"] == "none":
        return next((c for c in legal if not c["dice"]), None)
    return max(legal, key=lambda c: (len(c["dice"]), sorted(c["dice"], reverse=True)))
