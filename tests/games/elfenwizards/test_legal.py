"""legal() lists exactly the commands decide() accepts (checked on positions from bot games)."""

from __future__ import annotations

import random

import pytest

from games.base import Rejected, Rng
from games.elfenwizards import GAME
from games.elfenwizards.board import DIE_SPACES, TITLE_SPACES, WIZARD_SPACES
from games.elfenwizards.rules import my_dice, sub_multisets
from games.testing import Table


def command_space(s, seat):
    cmds = [{"type": "done"}, {"type": "reroll"}, {"type": "pass"}]
    cmds += [{"type": "place", "die": v, "space": sp} for v in range(1, 7) for sp in DIE_SPACES]
    cmds += [{"type": "cast", "spell": sp, "wizard": name} for sp in ["minor", *range(1, 7)] for name in s["names"]]
    dice = sorted(
        {
            tuple(d)
            for d in sub_multisets(my_dice(s["mdice"], seat))
            + sub_multisets(my_dice(s["gdice"], seat))
            + [[6], [5, 5], [1]]
        }
    )
    for kind in ("recover", "remove", "takeback"):
        cmds += [{"type": kind, "dice": list(d)} for d in dice]
    cmds += [{"type": "retire", "source": src, "to": w} for src in (None, "supply", "space") for w in WIZARD_SPACES]
    cmds += [{"type": "claim", "space": sp} for sp in TITLE_SPACES]
    cmds += [{"type": "demote", "to": w} for w in [*WIZARD_SPACES, "GD"]]
    return cmds


@pytest.mark.parametrize("players", [5])
def test_legal_lists_exactly_what_decide_accepts(players):
    pick = random.Random(players)
    table = Table(GAME, players, seed=b"legal")
    checked = set()
    step = 0
    while GAME.waiting_for(table.state):
        s = table.state
        seat = pick.choice(GAME.waiting_for(s))
        legal = GAME.legal(s, seat)
        if step % 25 == 0 or s["phase"] not in checked:
            checked.add(s["phase"])
            for cmd in command_space(s, seat):
                try:
                    GAME.decide(s, seat, cmd, Rng(b"x", 1))
                    accepted = True
                except Rejected:
                    accepted = False
                assert accepted == (cmd in legal), (s["phase"], cmd, accepted)
            for other in range(players):
                if other not in GAME.waiting_for(s):
                    with pytest.raises(Rejected):
                        GAME.decide(s, other, legal[0], Rng(b"x", 1))
        table.act(seat, pick.choice(legal))
        step += 1
    assert {"cast1", "cast2", "compete", "vacant", "demote"} <= checked
