"""The first stand-in (version 1), the baseline the bench measures the stand-in of today against
(bench/game_elven_castle.py, issue 29): the one-ply careful value alone, the first of equal values
taken. It is today's code (`standin.py`) with the look-ahead off; the evaluation it shares was
made faster since, with the same values, so it decides as the first stand-in did, move for move
(`test_version_1_is_kept_move_for_move`). Until 2026-12-07 it was a frozen copy of the first
stand-in's module."""

from __future__ import annotations

from . import standin as _today


def standin(view, legal):
    return _today.standin(view, legal, lookahead=0)
