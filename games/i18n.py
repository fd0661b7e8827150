"""The reader's language for everything a game says (issue 33), kept free of Django.

Events are language-neutral data; a narration, a rendered board, a grammar's answer or a parse of
a reply is made in the language of the player who will read (or wrote) it. The platform says which
with `using(language)` around the call; a game asks `current()` (or a translator bound to its own
catalogue, see each game's module) while it renders or parses. English is the default and the
language of the log: a parse in any language yields the same command as the English words do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

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
