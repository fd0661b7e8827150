"""Elfenwizards figures: `python -m bench.game_elfenwizards` (pure Python, no Django)."""

from __future__ import annotations

import json
import time

from games.elfenwizards import GAME
from games.testing import event_from_json, fold, play_random


def run() -> list[str]:
    tables = [play_random(GAME, players, seed=seed) for players in (3, 4, 5) for seed in (1, 2)]
    events = [[event_from_json(json.loads(e)) for e in t.log] for t in tables]
    total = sum(len(evs) for evs in events)
    start = time.perf_counter()
    rounds = 5
    for _ in range(rounds):
        for evs in events:
            fold(GAME, evs)
    replay = rounds * total / (time.perf_counter() - start)

    states = []
    for evs in events:
        state = None
        for i, e in enumerate(evs):
            state = GAME.evolve(state, e)
            if i % 7 == 0 and GAME.waiting_for(state):
                states.append(json.loads(json.dumps(state)))
    start = time.perf_counter()
    calls = 0
    for s in states:
        for seat in GAME.waiting_for(s):
            GAME.legal(s, seat)
            calls += 1
    legal_us = (time.perf_counter() - start) / calls * 1e6

    start = time.perf_counter()
    games = 0
    for seed in range(100, 110):
        play_random(GAME, 4, seed=seed)
        games += 1
    game_ms = (time.perf_counter() - start) / games * 1e3

    sample = tables[0]
    sheet = GAME.score_sheet(sample.state)
    lines = [
        f"elfenwizards: replay {replay:,.0f} events/s over {total} events of 6 bot games",
        f"elfenwizards: legal() {legal_us:.1f} us per call for an awaited seat ({calls} positions)",
        f"elfenwizards: a complete 4-player bot game (with harness checks) {game_ms:.0f} ms",
        f"elfenwizards: events per game {min(len(e) for e in events)}..{max(len(e) for e in events)}",
        "elfenwizards: Master of Seals, 3-player bot game (seed 1):",
    ]
    for line in sheet:
        lines.append(f"  {line.label:<20} {sample.state['colours'][line.seat]:<6} {line.points:+4d}  {line.detail}")
    lines.append(f"  {'total':<20} {sample.state['scores']}")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
