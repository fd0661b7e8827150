"""The first stand-in (version 1), the bench's baseline for the stand-in of today
(bench/game_zauberschwert.py, issue 29): today's code (`standin.py`) with `version=1`, which
values a magic point at 0.4 of a stone and pays every point at that worth, casts Transformus
whenever its magic would overflow or the end nears, has no rule of its own for an auction it must
open (rules version 2), and offers as long as it finds a swap. It decides as the first stand-in's own
module did, move for move (`test_version_1_is_kept_move_for_move`); until 2026-12-07 it was a
frozen copy of that module."""

from __future__ import annotations

from . import standin as _today


def standin(view: dict, legal: list) -> dict:
    return _today.standin(view, legal, version=1)
