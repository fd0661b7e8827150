"""Zauberschwert & Drachenei's words in the reader's language: the players' colours, the adventure
cards (creatures, energy orbs, holy sites; the six spells keep their Latin names in every
language), the artifacts and their cards, the symbols, phases and steps, the ends of the game, and
the score sheet's lines. The log and the card data keep the English names ("Spiders",
"Magic wand 1", "sun"); they are said again here, and the grammar reads the words of every
language (see `local_words`).

The German names are those of the German original (Abenteuerkarten, Artefakte, Machtsteine,
Magiepunkte, Spinnen, Goblins, Schatten, Drachen; the artifacts as data/cards.json proposes them,
checked by tests/games/zauberschwert/test_i18n.py)."""

from __future__ import annotations

import re
from functools import cache

from games.base import key
from games.i18n import current

from .lang import CATALOGUE, N_, _
from .rules import ADV, ART, ARTIFACTS

# A player is named by the colour of their wizard ("offer potion to blue", "annehmen Rot").
COLOURS = {"red": N_("red"), "blue": N_("blue"), "green": N_("green"), "yellow": N_("yellow")}
SYMBOLS = {"sun": N_("sun"), "moon": N_("moon"), "star": N_("star")}
# The adventure cards by their English name in the data (creatures in the plural, as printed).
ADVENTURES = {
    "Spiders": N_("Spiders"),
    "Goblins": N_("Goblins"),
    "Shadows": N_("Shadows"),
    "Dragons": N_("Dragons"),
    "Energy orb": N_("Energy orb"),
    "Holy site": N_("Holy site"),
}
TYPES = {
    "creature": N_("Creature"),
    "spell": N_("Spell"),
    "energy_orb": N_("Energy orb"),
    "holy_site": N_("Holy site"),
}
# The spells' effects as the cards describe them (data/cards.json's effect_text, by spell name).
SPELL_EFFECTS = {
    "Addus": N_(
        "Gain +1 magic point in addition to the normal round income (usable even if the owner passes this round)."
    ),
    "Fulmentus": N_(
        "Choose one creature that is being fought this round (by anyone): its strength is raised or lowered by 2 "
        "for this fight (owner's choice)."
    ),
    "Stonex": N_("If the owner gained no power stones this round, the owner gains 1 power stone."),
    "Transformus": N_("Pay 4 magic points to gain 1 power stone."),
    "Retransformus": N_(
        "Discard one of your artifact cards that is not part of a completed two-part artifact, then draw the top "
        "card of the artifact deck."
    ),
    "Harpagarus": N_(
        "Pay 2 magic points to take one artifact card (drawn at random) from among the cards another player "
        "received this round."
    ),
}
# The artifacts by key (data/cards.json "artifact"); a two-part artifact's cards are "NAME 1", "NAME 2".
ARTIFACT_NAMES = {
    "magic_wand": N_("Magic wand"),
    "archmage_staff": N_("Archmage staff"),
    "magic_sword": N_("Magic sword"),
    "crystal_ball": N_("Crystal ball"),
    "dragon_egg": N_("Dragon egg"),
    "dragon_shield": N_("Dragon shield"),
    "spell_book": N_("Spell book"),
    "golden_amulet": N_("Golden amulet"),
    "sun_talisman": N_("Sun talisman"),
    "potion": N_("Potion"),
    "silver_ring": N_("Silver ring"),
    "moon_cloak": N_("Moon cloak"),
    "star_sapphire": N_("Star Sapphire"),
    "star_scroll": N_("Star scroll"),
    "crystal_lantern": N_("Crystal lantern"),
    "elven_boots": N_("Elven boots"),
    "rune_dagger": N_("Rune dagger"),
    "royal_crown": N_("Royal crown"),
    "magic_mirror": N_("Magic mirror"),
    "goblet": N_("Goblet"),
    "phoenix_feather": N_("Phoenix feather"),
    "rune_stone": N_("Rune stone"),
}
# What an artifact's bonus gives (its "bonus" "type"), short and long.
BONUS_SHORT = {"power_stones": N_("PS"), "magic_points": N_("MP"), "choice": N_("PS or MP")}
BONUS_WORDS = {"power_stones": N_("stones"), "magic_points": N_("magic"), "choice": N_("stones or magic")}
PHASES = {
    "A": N_("new adventure cards"),
    "B": N_("magic supply"),
    "C": N_("choose adventures"),
    "D": N_("resolution"),
    "E": N_("lay out artifacts"),
    "F": N_("change of start player"),
    "over": N_("game over"),
}
STEPS = {
    "place": N_("place wizards"),
    "fulmentus": N_("Fulmentus?"),
    "lone": N_("a lone fight"),
    "declare": N_("together or alone?"),
    "auction": N_("auction"),
    "bonus": N_("artifact bonus"),
    "spells": N_("spells"),
    "trade": N_("trading"),
    "layout": N_("laying out artifacts"),
    "over": N_("game over"),
    "refill": N_("new cards"),
    "resolve": N_("resolution"),
    "settle": N_("resolution"),
    "end": N_("end of round"),
}
# The phase a game's summary gives (rules.PHASE_OF_STEP: the rulebook's letters A-F, or "over"), as
# the platform's pages say it (games.i18n.game_text): the letters are the same in every language.
SUMMARY_PHASES = {"over": N_("over")}
# How a creature was defeated (CreatureDefeated's "mode", the score sheet's detail).
MODES = {"alone": N_("alone"), "together": N_("together"), "auction": N_("auction")}

for _c in ADV.values():  # every adventure card has its words here
    assert _c["type"] == "spell" or _c["name"] in ADVENTURES, _c["name"]
assert set(ARTIFACT_NAMES) == set(ARTIFACTS)


def colour(seat_or_name) -> str:
    """A player's colour ("red", "Rot", "rouge"), by seat or by the English name."""
    from .rules import COLOURS as SEATS

    name = SEATS[seat_or_name] if isinstance(seat_or_name, int) else seat_or_name
    return _(COLOURS[name]) if name in COLOURS else name


def player(seat: int) -> str:
    """A player as a render names them: their colour, capitalised ("Red", "Rot", "Rouge")."""
    word = colour(seat)
    return word[:1].upper() + word[1:]


def symbol(name: str) -> str:
    return _(SYMBOLS[name]) if name in SYMBOLS else name


def symbols(names) -> str:
    return "/".join(symbol(s) for s in names)


def adventure(cid: str) -> str:
    """An adventure card's name ("Spiders", "Spinnen", "Addus")."""
    name = ADV[cid]["name"]
    return _(ADVENTURES[name]) if name in ADVENTURES else name


def adventure_name(name: str) -> str:
    """An adventure card's English name (as the sheet keeps it) in the reader's language."""
    return _(ADVENTURES[name]) if name in ADVENTURES else name


def card_type(kind: str) -> str:
    return _(TYPES[kind]) if kind in TYPES else kind


def spell_effect(cid: str) -> str:
    name = ADV[cid]["name"]
    return _(SPELL_EFFECTS[name]) if name in SPELL_EFFECTS else ADV[cid]["effect_text"]


def artifact(key_: str) -> str:
    """An artifact's name ("Magic wand", "Zauberstab", "Baguette magique")."""
    return _(ARTIFACT_NAMES[key_]) if key_ in ARTIFACT_NAMES else ARTIFACTS[key_]["name"]


def card(cid: str) -> str:
    """An artifact card's name: the artifact's, with the part of a two-part one ("Zauberstab 1")."""
    c = ART[cid]
    name = artifact(c["artifact"])
    return f"{name} {c['part']}" if c["parts"] == 2 else name


def cards(ids, sep: str = ", ") -> str:
    return sep.join(card(c) for c in ids)


def command_card(cid: str) -> str:
    """A card's name as a command writes it: lower case in English and French, as spelt in German
    (its nouns are capitalised)."""
    return card(cid) if current() == "de" else card(cid).lower()


def bonus_short(kind: str) -> str:
    return _(BONUS_SHORT[kind])


def bonus_words(kind: str) -> str:
    return _(BONUS_WORDS[kind])


def phase(name: str) -> str:
    return _(PHASES[name]) if name in PHASES else name


def step(name: str) -> str:
    return _(STEPS[name]) if name in STEPS else name


def mode(name: str) -> str:
    return _(MODES[name]) if name in MODES else name


def semicolon() -> str:
    """A list's "; " as the reader's language sets it (French: a no-break space before it)."""
    return "\u00a0; " if current() == "fr" else "; "


def who(names, seats) -> str:
    """Players joined for a sentence: "Anna and Bruno", "nobody"."""
    if not seats:
        return _("nobody")
    said = [names[x] for x in seats]
    if len(said) == 1:
        return said[0]
    return _("{some} and {last}").format(some=", ".join(said[:-1]), last=said[-1])


# The score sheet's details, as rules.py writes them into the state (the log keeps them English).
CREATURE_DETAIL = re.compile(r"^(\w+) \((alone|together|auction)\)$")
BONUS_DETAIL = re.compile(r"^Artifact bonus \((.+)\)$")
BY_ARTIFACT_NAME = {a["name"]: k for k, a in ARTIFACTS.items()}


def sheet_detail(detail: str) -> str:
    """A score sheet line's detail ("Spiders (alone)", "Artifact bonus (Potion)", "Holy site",
    "Transformus") in the reader's language."""
    if m := CREATURE_DETAIL.match(detail):
        return _("{creature} ({how})").format(creature=adventure_name(m.group(1)), how=mode(m.group(2)))
    if m := BONUS_DETAIL.match(detail):
        name = m.group(1)
        said = artifact(BY_ARTIFACT_NAME[name]) if name in BY_ARTIFACT_NAME else name
        return _("Artifact bonus ({artifact})").format(artifact=said)
    if detail == "Artifact bonus":
        return _("Artifact bonus")
    return adventure_name(detail)


def sheet_label(round_: int) -> str:
    return _("Round {n}").format(n=round_)


# ---------------------------------------------------------------------------------------------
# the words of every language, for the grammar
# ---------------------------------------------------------------------------------------------


def _keys(word: str) -> set[str]:
    """The keys a name may be typed as (French œ also as oe, German ä also as ae)."""
    out = {key(word)}
    folded = word.lower().replace("œ", "oe").replace("æ", "ae")
    out.add(key(folded))
    for umlaut, spelt in (("ä", "ae"), ("ö", "oe"), ("ü", "ue")):
        folded = folded.replace(umlaut, spelt)
    out.add(key(folded))
    return out


@cache
def local_words() -> dict[str, dict[str, str]]:
    """Each kind of name's words in every language (by `key`), mapped to the English name or
    key: the grammar reads any of them whatever the reader's language."""
    out: dict[str, dict[str, str]] = {"colour": {}, "artifact": {}, "card": {}, "adventure": {}, "symbol": {}}
    for name, msg in COLOURS.items():
        for word in CATALOGUE.every_language(msg):
            for k in _keys(word):
                out["colour"][k] = name
    for name, msg in SYMBOLS.items():
        for word in CATALOGUE.every_language(msg):
            for k in _keys(word):
                out["symbol"][k] = name
    for name, msg in ADVENTURES.items():
        for word in CATALOGUE.every_language(msg):
            for k in _keys(word):
                out["adventure"][k] = name
    for art, msg in ARTIFACT_NAMES.items():
        for word in CATALOGUE.every_language(msg):
            for k in _keys(word):
                out["artifact"][k] = art
    for cid, c in ART.items():
        for word in CATALOGUE.every_language(ARTIFACT_NAMES[c["artifact"]]):
            said = f"{word} {c['part']}" if c["parts"] == 2 else word
            for k in _keys(said):
                out["card"][k] = cid
    return out
