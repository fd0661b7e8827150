"""Elixirus figures: python -m bench.game_elixirus

Replay speed of bot games (evolve only, from the stored log), the time per legal() call in each
stage, decide() per command, and how bot games end (a fourth cork or no ingredients left).
"""

from __future__ import annotations

import json
import time
from collections import Counter

from games.elixirus import GAME
from games.testing import event_from_json, fold, play_random


def run() -> list[str]:
    lines = []
    tables = [play_random(GAME, players, seed=seed) for players in (2, 3, 4, 5) for seed in range(3)]
    logs = [[event_from_json(json.loads(e)) for e in t.log] for t in tables]
    events = sum(len(log) for log in logs)
    start = time.perf_counter()
    for log in logs:
        fold(GAME, log)
    elapsed = time.perf_counter() - start
    lines.append(f"elixirus replay: {events / elapsed:,.0f} events/s ({events} events, {len(logs)} bot games)")

    # legal() per stage, measured on states met while replaying one 4-player game
    by_phase: dict[str, list[float]] = {}
    decide_us = []
    state = None
    for event in logs[7]:
        state = GAME.evolve(state, event)
        awaited = GAME.waiting_for(state)
        if not awaited:
            continue
        snapshot = json.loads(json.dumps(state))
        t0 = time.perf_counter()
        options = GAME.legal(snapshot, awaited[0])
        by_phase.setdefault(state["phase"], []).append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        GAME.decide(snapshot, awaited[0], options[0], _Rng())
        decide_us.append(time.perf_counter() - t0)
    parts = ", ".join(f"{phase} {sum(v) / len(v) * 1e6:.0f}" for phase, v in by_phase.items())
    lines.append(f"elixirus legal(): µs per call by stage: {parts}")
    lines.append(f"elixirus decide(): {sum(decide_us) / len(decide_us) * 1e6:.0f} µs per command (mean)")

    ends = Counter(t.state["end"] for t in tables)
    rounds = sum(t.state["round"] for t in tables) / len(tables)
    lines.append(f"elixirus bot games: {dict(ends)} endings, {rounds:.1f} rounds on average")
    return lines


class _Rng:
    """A stand-in rng for timing decide (the outcomes do not matter here)."""

    def __init__(self):
        import random

        self._r = random.Random(0)

    def randbelow(self, n):
        return self._r.randrange(n)


if __name__ == "__main__":
    for line in run():
        print(line)
