"""Games register here by being a package under `games/` that exposes `GAME` (a GameSpec).

pbem knows no game by name: it scans the package, plus any module listed in the
PBEM_EXTRA_GAMES setting (the test suite adds its toy game that way).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from django.conf import settings

import games
from games.base import GameSpec


class UnknownGame(LookupError):
    pass


@cache
def all_games() -> dict[str, GameSpec]:
    found: dict[str, GameSpec] = {}
    modules = [f"games.{m.name}" for m in pkgutil.iter_modules(games.__path__) if m.ispkg]
    for name in modules + list(settings.PBEM_EXTRA_GAMES):
        spec = getattr(importlib.import_module(name), "GAME", None)
        if isinstance(spec, GameSpec):
            found[spec.name] = spec
    return dict(sorted(found.items()))


def get_game(kind: str) -> GameSpec:
    try:
        return all_games()[kind]
    except KeyError:
        known = ", ".join(all_games()) or "none"
        raise UnknownGame(f"No game called {kind!r}; the games here are: {known}.") from None
