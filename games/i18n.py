"""The reader's language for everything a game says (issue 33), kept free of Django.

Events are language-neutral data; a narration, a rendered board, a grammar's answer or a parse of
a reply is made in the language of the player who will read (or wrote) it. The platform says which
with `using(language)` around the call; a game asks `current()` (or a translator bound to its own
catalogue, see each game's module) while it renders or parses. English is the default and the
language of the log: a parse in any language yields the same command as the English words do.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

# Language codes the service speaks, with each language's name in itself (for choosers).
LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch", "fr": "Français"}
DEFAULT = "en"

_current: ContextVar[str] = ContextVar("pbem_game_language", default=DEFAULT)


def supported(language: str | None) -> str:
    """The supported language a code such as 'de-AT' or 'FR' means; the default for anything else."""
    code = (language or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else DEFAULT


def current() -> str:
    return _current.get()


@contextmanager
def using(language: str | None) -> Iterator[str]:
    """Render or parse in `language` inside the block (a context variable: threads and tasks
    each keep their own)."""
    token = _current.set(supported(language))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


# ---------------------------------------------------------------------------------------------
# Catalogues: each game's own gettext domain (games/<name>/locale/<lang>/LC_MESSAGES/<name>.po;
# games/base.py's few messages in games/locale/…/games.po)
# ---------------------------------------------------------------------------------------------
#
# Each .po has its compiled .mo beside it, committed: the service reads the .mo with the standard
# library's gettext (a millisecond; Babel's reading of a .po took 200 ms and its import 400 ms,
# paid by every short-lived process that parses a reply in another language). `python -m
# games.messages update` writes both, and CI checks that every .mo is its .po compiled
# (tests/games/test_i18n_catalogues.py: also complete, no fuzzy entry, placeholders kept, every
# string the code marks present). A .po without its .mo (edited by hand, not yet compiled) is
# compiled in memory by Babel. Marking: `_("…")` for a text said now, `N_("…")` for a text kept
# in a table and translated where it is said (`_(TABLE[k])`), `pgettext("command", w)` for a
# word of a grammar, `ngettext(one, many, n)` for a count. Texts use str.format fields
# ("{who} took {counter}."), so a translation may order them as its language needs.

# The keywords Babel's extractor looks for (the defaults, spelt out: the tests and the update
# script extract with exactly these).
KEYWORDS: dict[str, tuple | None] = {
    "_": None,
    "N_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
}


def N_(message: str) -> str:
    """Marks a text for the catalogue without translating it here (a table's entry)."""
    return message


@cache
def _translations(path: Path, language: str) -> gettext.NullTranslations:
    """The catalogue at `path` (a .po) as GNUTranslations: its compiled .mo beside it, else the
    .po compiled in memory; an absent catalogue is no translation (English). Cached: each is
    read once per process."""
    mo = path.with_suffix(".mo")
    if mo.is_file():
        with mo.open("rb") as f:
            return gettext.GNUTranslations(f)
    if not path.is_file():
        return gettext.NullTranslations()
    return gettext.GNUTranslations(io.BytesIO(compile_po(path, language)))


def compile_po(path: Path, language: str) -> bytes:
    """The .mo of the .po at `path`, compiled by Babel (fuzzy entries left out: not translations)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        catalog = read_po(f, locale=language, domain=path.stem)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    return compiled.getvalue()


class Catalogue:
    """One gettext domain: `gettext(text)` in the language of `current()`; English returns the
    text itself at once (the log's language costs one context-variable read)."""

    def __init__(self, domain: str, directory: Path):
        self.domain = domain
        self.directory = Path(directory)
        self._loaded: dict[str, gettext.NullTranslations] = {}

    def path(self, language: str) -> Path:
        return self.directory / language / "LC_MESSAGES" / f"{self.domain}.po"

    def translations(self, language: str) -> gettext.NullTranslations:
        loaded = self._loaded.get(language)
        if loaded is None:
            loaded = self._loaded[language] = _translations(self.path(language), language)
        return loaded

    def gettext(self, message: str) -> str:
        language = _current.get()
        if language == DEFAULT or not message:  # gettext("") is the catalogue's header
            return message
        return (self._loaded.get(language) or self.translations(language)).gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        language = _current.get()
        if language == DEFAULT:
            return singular if n == 1 else plural
        return (self._loaded.get(language) or self.translations(language)).ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        language = _current.get()
        if language == DEFAULT:
            return message
        return (self._loaded.get(language) or self.translations(language)).pgettext(context, message)

    def every_language(self, message: str, context: str | None = None) -> list[str]:
        """`message` in every language the service speaks, English first (a grammar accepts
        each of them, whatever the reader's language)."""
        out = [message]
        for language in LANGUAGES:
            if language != DEFAULT:
                tr = self.translations(language)
                out.append(tr.pgettext(context, message) if context else tr.gettext(message))
        return out


# games/base.py's messages (option errors, "did you mean", unknown names).
GAMES = Catalogue("games", Path(__file__).parent / "locale")


_GAME_CATALOGUES: dict[str, Catalogue] = {}


def game_text(game: str, text: str) -> str:
    """A text a game's spec carries (an option's help, its rulebook line) in the reader's
    language, from that game's catalogue (the text itself where the game has no translation): for
    the platform's pages, which know the game only by its name."""
    catalogue = _GAME_CATALOGUES.get(game)
    if catalogue is None:
        catalogue = _GAME_CATALOGUES[game] = Catalogue(game, Path(__file__).parent / game / "locale")
    return catalogue.gettext(text)
