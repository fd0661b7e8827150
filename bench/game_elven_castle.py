"""Elven Castle figures: python -m bench.game_elven_castle

Replay speed of bot games (evolve only), the time per legal() call (every placement of every
piece the player holds, at every level), per decide() of a placement (which also looks whether
the next player can still place), per render, and how bot games end. Times are CPU time
(time.process_time), so a busy shared machine does not distort them.
"""

from __future__ import annotations

import json
import time

from games.elven_castle import GAME
from games.elven_castle import rules as R
from games.testing import event_from_json, fold, play_random


def _timed(fn, repeat):
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def run() -> list[str]:
    tables = [play_random(GAME, 4, {"staircase": True, "penalties": True}, seed=s) for s in range(6)]
    tables += [play_random(GAME, 4, {"scenario": "library"}, seed=s) for s in range(6)]
    logs = [[event_from_json(json.loads(e)) for e in t.log] for t in tables]
    events = sum(len(log) for log in logs)
    start = time.process_time()
    rounds = 5
    for _ in range(rounds):
        for log in logs:
            fold(GAME, log)
    replay = events * rounds / (time.process_time() - start)

    # mid-game positions: the state after half the events of each game
    mids = [fold(GAME, log[: len(log) // 2]) for log in logs]
    legal_us = sum(_timed(lambda s=s: GAME.legal(s, s["turn"]), 20) for s in mids) / len(mids) * 1e6
    sizes = [len(GAME.legal(s, s["turn"])) for s in mids]
    cmds = [GAME.legal(s, s["turn"])[0] for s in mids]
    decide_us = sum(_timed(lambda s=s, c=c: GAME.decide(s, s["turn"], c, None), 20)
                    for s, c in zip(mids, cmds)) / len(mids) * 1e6
    text_us = sum(_timed(lambda s=s: GAME.render_text(GAME.view(s, 0)), 20) for s in mids) / len(mids) * 1e6
    html_us = sum(_timed(lambda s=s: GAME.render_html(GAME.view(s, 0)), 10) for s in mids) / len(mids) * 1e6
    ends = [t.state["end"]["reason"] for t in tables]
    heights = [max(R.highest(t.state, s) for s in range(4)) for t in tables]
    return [
        f"elven_castle: {replay:,.0f} events replayed/s of CPU time ({events} events in {len(logs)} 4-player bot games)",
        f"elven_castle: legal() {legal_us:,.0f} us mid-game ({min(sizes)}-{max(sizes)} placements listed)",
        f"elven_castle: decide() of a placement {decide_us:,.0f} us (incl. the can-the-next-player-place check)",
        f"elven_castle: render_text {text_us:,.0f} us, render_html {html_us:,.0f} us",
        f"elven_castle: bot games end by {ends.count('no pieces')} x no pieces, {ends.count('no space')} x no "
        f"space; castle height {min(heights)}-{max(heights)} levels",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
