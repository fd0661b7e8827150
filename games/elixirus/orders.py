"""Standing orders for Elixirus (pure).

Stage B of every round (collecting) resolves the signpost's pieces one by one, and each piece's
effect is offered to the player it falls to, with "skip" beside it: the same few questions every
round ("draw?", "take a basket?"). A standing order answers one of them: 'order always draw' or
'order always basket' (the effect, when it is a single move), or 'order never steal' (skip it).
"""

from __future__ import annotations

from games.base import ParseError, key

from .lang import CATALOGUE, _, pgettext

EFFECTS = ("draw", "basket", "steal", "swap", "dance", "replace")


def _said(word: str) -> str:
    """'always', 'never' or an effect's command word in the reader's language."""
    return {
        "always": pgettext("order", "always"),
        "never": pgettext("order", "never"),
        "draw": pgettext("command", "draw"),
        "basket": pgettext("command", "basket"),
        "steal": pgettext("command", "steal"),
        "swap": pgettext("command", "swap"),
        "dance": pgettext("command", "dance"),
        "replace": pgettext("command", "replace"),
    }.get(word, word)


def _english(word: str, context: str, names) -> str | None:
    """The English word (of `names`) that `word` is in any language."""
    for name in names:
        if any(key(w) == key(word) for w in CATALOGUE.every_language(name, context)):
            return name
    return None


def parse_order(text, state, seat):
    """'always EFFECT' or 'never EFFECT' for the optional effects of collecting (draw, basket, steal, swap, dance, replace)"""
    words = text.strip().lower().split()
    if len(words) == 2:
        when = _english(words[0], "order", ("always", "never"))
        effect = _english(words[1], "command", EFFECTS)
        if when is not None and effect is not None:
            if when == "always" and effect not in ("draw", "basket"):
                raise ParseError(
                    _("'{effect}' needs a choice each time; only '{never} {effect}' can stand.").format(
                        effect=_said(effect), never=_said("never")
                    )
                )
            return {"effect": effect, "take": when == "always"}
    raise ParseError(
        _(
            "Elixirus knows the standing orders 'order {always} {draw}', 'order {always} {basket}' and "
            "'order {never} EFFECT' ({effects})."
        ).format(
            always=_said("always"),
            never=_said("never"),
            draw=_said("draw"),
            basket=_said("basket"),
            effects=", ".join(_said(e) for e in EFFECTS),
        )
    )


def describe_order(order):
    return f"{_said('always' if order['take'] else 'never')} {_said(order['effect'])}"


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
