"""The first stand-in (version 1), the baseline the bench measures the stand-in of today against
(bench/game_elixirus.py, issue 29; RULINGS 37). It differs from version 2 (`standin.py`) in one
figure: what an apprentice on the Steal space is worth when it is placed (1.5 points, today 4.5),
so it is today's code with its own guess of the effects. Its decisions are pinned by a test (the
digest of every decision of a game recorded before version 2:
`test_version_1_is_kept_move_for_move` in tests/games/elixirus/test_standin.py): a later change to the shared code
that moved version 1 fails there, and is the time to freeze a copy of version 1 here.
"""

from __future__ import annotations

from . import standin as _today

EFFECT_GUESS = {**_today.EFFECT_GUESS, "steal": 1.5}


class Look(_today.Look):
    effect_guess = EFFECT_GUESS


def standin(view, legal):
    """One of `legal`, chosen from `view` (the seat's own view) alone, as version 1 chose."""
    if len(legal) == 1:
        return legal[0]
    return _today.choose(Look(view), legal)
