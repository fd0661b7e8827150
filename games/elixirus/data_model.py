"""Component data for Elixirus, read from data/components.json (see RULINGS.md for our changes)."""

from __future__ import annotations

import json
from pathlib import Path

DATA = json.loads((Path(__file__).parent / "data" / "components.json").read_text())

COLOURS = tuple(DATA["colours"])
VARIETIES = tuple(DATA["varieties"])
FLASKS = tuple(DATA["sourced_facts"]["flask_types"])
CRYSTAL = "crystal"

# Ingredient tokens are their names: "red root 2" (unique) or "crystal" (six alike).
INGREDIENTS: dict[str, tuple[str | None, str | None, int]] = {}
for _ing in DATA["ingredients"]:
    INGREDIENTS[f"{_ing['colour']} {_ing['variety']} {_ing['value']}"] = (
        _ing["colour"],
        _ing["variety"],
        _ing["value"],
    )
INGREDIENTS[CRYSTAL] = (None, None, 0)
ALL_TOKENS: list[str] = [t for t in INGREDIENTS if t != CRYSTAL] + [CRYSTAL] * DATA["crystals"]


def value(tok: str) -> int:
    return INGREDIENTS[tok][2]


def colour(tok: str):
    return INGREDIENTS[tok][0]


def variety(tok: str):
    return INGREDIENTS[tok][1]


def _req(spec: dict) -> tuple[str, str]:
    if "colour" in spec:
        return ("colour", spec["colour"])
    return ("variety", spec["variety"])


# Concoction tables: id -> {"flasks": {flask: [(kind, name), ...bottom to top]}, "special": [tok-prefix...],
#                           "enchanted": (kind, name), "cursed": (kind, name)}
TABLES: dict[str, dict] = {}
for _t in DATA["concoction_tables"]:
    book = _t["recipe_book"]
    TABLES[_t["id"]] = {
        "flasks": {f["flask"]: [_req(s["requires"]) for s in f["spaces_bottom_to_top"]] for f in _t["flasks"]},
        "special": [(s["colour"], s["variety"]) for s in book["special_ingredients"]],
        "enchanted": _req(book["enchanted_plus1"]),
        "cursed": _req(book["cursed_minus1"]),
    }
TABLE_IDS = tuple(TABLES)

PIECES: dict[str, dict] = {}
for _p in DATA["forest_pieces"]:
    PIECES[_p["id"]] = {
        "effect": _p["effect"].lower(),
        "baskets": [s["baskets"] for s in _p["spaces"]],
        "text": _p["effect_text"],
        "bag_curve": _p["bag_draw_curve"] - 1,
    }
PIECE_IDS = tuple(PIECES)
EFFECTS = tuple(PIECES[p]["effect"] for p in PIECE_IDS)
PIECE_BY_EFFECT = {PIECES[p]["effect"]: p for p in PIECE_IDS}
CURVES = 4
SPACES = 3
APPRENTICES = 3
CORK_FIRST = DATA["scoring"]["corks"]["first_of_type_same_round"]
CORK_LATER = DATA["scoring"]["corks"]["later"]
CORKS_TO_END = 4


def matches(tok: str, req: tuple[str, str]) -> bool:
    """Whether an ingredient may go on a space requiring `req` (a colour or a variety)."""
    c, v, _ = INGREDIENTS[tok]
    if c is None:
        return True  # a crystal can be used as any ingredient
    return (c if req[0] == "colour" else v) == req[1]


def has_trait(tok: str, trait: tuple[str, str]) -> bool:
    """Enchanted/cursed: the ingredient's own colour or variety (a crystal has neither)."""
    c, v, _ = INGREDIENTS[tok]
    if c is None:
        return False
    return (c if trait[0] == "colour" else v) == trait[1]


def book_slot(table_id: str, tok: str) -> int | None:
    """The recipe-book slot a special ingredient belongs to (crystals never: see RULINGS)."""
    c, v, _ = INGREDIENTS[tok]
    if c is None:
        return None
    for i, (sc, sv) in enumerate(TABLES[table_id]["special"]):
        if sc == c and sv == v:
            return i
    return None
