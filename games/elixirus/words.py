"""Elixirus's words in the reader's language: ingredients, colours, varieties, pieces of forest
(named by their effect), flasks and the other places of a table, seat colours and the endings.
The log keeps the English names ("red root 2", "steal", "love"); they are said again here, and
the grammar reads the words of every language (see `local_words`)."""

from __future__ import annotations

from functools import cache

from games.base import key
from games.i18n import current

from .data_model import CRYSTAL, INGREDIENTS
from .lang import CATALOGUE, N_, _

# An ingredient's colour is an adjective ("rote Wurzel", "racine rouge"), the seats' a name.
INGREDIENT_COLOURS = {
    "red": N_("red"),
    "orange": N_("orange"),
    "yellow": N_("yellow"),
    "green": N_("green"),
    "blue": N_("blue"),
    "purple": N_("purple"),
}
VARIETY_NAMES = {
    "root": N_("root"),
    "stem": N_("stem"),
    "leaf": N_("leaf"),
    "blossom": N_("blossom"),
    "berry": N_("berry"),
    "seed": N_("seed"),
}
SEATS = {"white": N_("white"), "black": N_("black"), "pink": N_("pink"), "brown": N_("brown"), "grey": N_("grey")}
EFFECTS = {
    "steal": N_("Steal"),
    "swap": N_("Swap"),
    "draw": N_("Draw"),
    "replace": N_("Replace"),
    "dance": N_("Dance"),
    "collect": N_("Collect"),
}
PLACES = {
    "vitality": N_("vitality"),
    "love": N_("love"),
    "recovery": N_("recovery"),
    "fertility": N_("fertility"),
    "healing": N_("healing"),
    "book": N_("book"),
    "bowl": N_("bowl"),
    "poison": N_("poison"),
}
ENDINGS = {
    "cork": N_("a fourth cork was taken"),
    "exhausted": N_("no ingredients are left to collect"),
    "unwanted": N_("nobody would collect the ingredients left"),
}
# German adjectives take the ending of their noun's gender and case (no article: the strong
# declension): rote Wurzel, roter Stängel, rotes Blatt as a subject; "nimm roten Stängel 2" as an
# object (accusative: only the masculine changes); "mit roter Wurzel" (dative). 'orange' and
# 'lila' take none. French ones are given feminine (every variety is: racine, tige, feuille, fleur,
# baie, graine).
GERMAN_GENDERS = {"root": "f", "stem": "m", "leaf": "n", "blossom": "f", "berry": "f", "seed": "m"}
GERMAN_CASE_ENDINGS = {
    "nom": {"f": "e", "m": "er", "n": "es"},
    "acc": {"f": "e", "m": "en", "n": "es"},
    "dat": {"f": "er", "m": "em", "n": "em"},
}
GERMAN_ENDINGS = {variety: GERMAN_CASE_ENDINGS["nom"][gender] for variety, gender in GERMAN_GENDERS.items()}
CASES = tuple(GERMAN_CASE_ENDINGS)
UNINFLECTED = {"orange", "lila"}
FRENCH_MASCULINE = {"vert": "green", "bleu": "blue", "violet": "purple"}


class Said(str):
    """An ingredient's name in the reader's language, carrying its other grammatical cases: a
    translation picks the case its sentence needs by a format spec ("Du legst {ing:acc} auf
    {place}", "nimm {ing:acc}"), and a plain field ("{ing}") is the nominative. Only German
    inflects; in English and French every case is the same text."""

    forms: dict[str, str]

    def __new__(cls, text: str, forms: dict[str, str] | None = None) -> Said:
        said = super().__new__(cls, text)
        said.forms = forms or {}
        return said

    def __format__(self, spec: str) -> str:
        if spec in CASES:
            return self.forms.get(spec, str(self))
        return format(str(self), spec)


def colour_word(colour: str, variety: str | None = None, case: str = "nom") -> str:
    """An ingredient's colour as an adjective (agreeing with `variety` and `case` in German)."""
    word = _(INGREDIENT_COLOURS[colour]) if colour in INGREDIENT_COLOURS else colour
    if current() == "de" and variety in GERMAN_GENDERS and word not in UNINFLECTED:
        word += GERMAN_CASE_ENDINGS[case][GERMAN_GENDERS[variety]]
    return word


def variety_word(variety: str) -> str:
    return _(VARIETY_NAMES[variety]) if variety in VARIETY_NAMES else variety


def trait(kind_name) -> str:
    """A requirement or a trait, ('colour', 'red') or ('variety', 'root'), as a word."""
    kind, name = kind_name
    return colour_word(name) if kind == "colour" else variety_word(name)


def kind(colour: str, variety: str) -> str:
    """A kind of ingredient without its value: "red root" (a recipe book's special)."""
    return _("{colour} {variety}").format(colour=colour_word(colour, variety), variety=variety_word(variety))


def ingredient(tok: str | None) -> str:
    """An ingredient token ("red root 2", "crystal") in the reader's language: a `Said` whose
    cases a translation may pick ("{ing:acc}")."""
    if tok is None:
        return Said("-")
    if not isinstance(tok, str):
        return Said(str(tok))
    if current() == "en" or tok not in INGREDIENTS:
        return Said(tok)
    if tok == CRYSTAL:
        return Said(_("crystal"))
    c, v, val = INGREDIENTS[tok]
    if c is None or v is None:
        return Said(tok)
    forms = {
        case: _("{colour} {variety} {value}").format(colour=colour_word(c, v, case), variety=variety_word(v), value=val)
        for case in CASES
    }
    return Said(forms["nom"], forms)


def ingredients(toks) -> str:
    """A list of ingredients, its cases each name's ("{ings:acc}")."""
    if not toks:
        return Said(_("nothing"))
    said = [ingredient(t) for t in toks]
    return Said(", ".join(said), {case: ", ".join(format(s, case) for s in said) for case in CASES})


def seat(colour: str) -> str:
    return _(SEATS[colour]) if colour in SEATS else colour


def effect(name: str) -> str:
    """A piece of forest by its effect, capitalised ("Steal", "Stehlen", "Vol")."""
    return _(EFFECTS[name]) if name in EFFECTS else name.capitalize()


def effect_word(name: str) -> str:
    """A piece as a command names it ("steal", "stehlen", "vol")."""
    return effect(name).lower() if current() != "en" else name


def place(name: str) -> str:
    return _(PLACES[name]) if name in PLACES else name


def ending(reason: str) -> str:
    return _(ENDINGS[reason]) if reason in ENDINGS else reason


@cache
def local_words() -> dict[str, dict[str, str]]:
    """Each kind of name's words in every language (by `key`), mapped to the English name: the
    grammar reads any of them whatever the reader's language."""
    out: dict[str, dict[str, str]] = {"trait": {}, "seat": {}, "effect": {}, "place": {}, "crystal": {}}
    for name, msg in INGREDIENT_COLOURS.items():
        for word in CATALOGUE.every_language(msg):
            out["trait"][key(word)] = name
            for e in ("e", "er", "es", "en", "em"):  # German endings
                out["trait"].setdefault(key(word + e), name)
    for word, name in FRENCH_MASCULINE.items():
        out["trait"].setdefault(word, name)
    for name, msg in VARIETY_NAMES.items():
        for word in CATALOGUE.every_language(msg):
            out["trait"][key(word)] = name
    for table, names in (("seat", SEATS), ("effect", EFFECTS), ("place", PLACES)):
        for name, msg in names.items():
            for word in CATALOGUE.every_language(msg):
                out[table][key(word)] = name
    for word in CATALOGUE.every_language("crystal"):
        out["crystal"][key(word)] = CRYSTAL
    return out
