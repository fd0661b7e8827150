"""What a game shows a seat at one version, kept in this process (issue 34): its move menu and
its text board, computed once however many notices, pages and replies read them.

The log is append-only, so what a version shows never changes: the key holds the game, the
version, the seat and the languages it is written in, and a newer version is a new key, never
served an older value. A cache is never the truth: anything not kept (evicted, another process)
is computed again from the state at that version, as before. Values are shared, not copied:
the callers only read them (choosing.Menu is frozen; a board is a str).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from django.utils.translation import get_language

from games import i18n

T = TypeVar("T")
SIZE = 2048  # entries: a menu of a few dozen choices, a board of a few kB

_kept: OrderedDict[tuple, object] = OrderedDict()
_lock = threading.Lock()


def kept(what: str, game_id: int, version: int, seat: int | None, compute: Callable[[], T]) -> T:
    """`compute()` of (game_id, version, seat), once per `what` and languages (the platform's and
    the games'). `version` must be the version of the state `compute` reads, and no later than
    the game's head (eventlog.load(at=v) beyond the head gives the head's state as version v:
    keyed so, it would be served when the game reaches v)."""
    key = (what, game_id, version, seat, get_language(), i18n.current())
    with _lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]  # type: ignore[return-value]
    value = compute()
    with _lock:
        _kept[key] = value
        while len(_kept) > SIZE:
            _kept.popitem(last=False)
    return value


def clear() -> None:
    with _lock:
        _kept.clear()
