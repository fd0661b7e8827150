"""The first stand-in (version 1), the bench's baseline for the stand-in of today
(bench/game_elfenwizards.py, issue 29): today's code (`standin.py`) with `version=1`, which looks
only at a rival's next two spells when it weighs a lead (no war weighed) and counts the others'
titles at their mean against its own at every table size. It decides as the first stand-in's own
module did, move for move (`test_version_1_is_kept_move_for_move`); until 2026-12-07 it was a
frozen copy of that module."""

from __future__ import annotations

from . import standin as _today


def standin(view, legal):
    return _today.standin(view, legal, version=1)
