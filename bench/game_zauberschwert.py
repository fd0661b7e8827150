"""Zauberschwert & Drachenei figures: python -m bench.game_zauberschwert (pure Python, no Django)."""

from __future__ import annotations

import json
import time

from games.testing import fold, play_random
from games.zauberschwert import GAME


def run() -> list[str]:
    lines = []
    tables = [play_random(GAME, players, seed=seed) for players in (2, 3, 4) for seed in range(3)]
    events = [e for t in tables for e in t.events]
    start = time.perf_counter()
    for t in tables:
        fold(GAME, t.events)
    took = time.perf_counter() - start
    lines.append(f"zauberschwert: replay {len(events) / took:,.0f} events/s ({len(events)} events, {len(tables)} games)")

    # legal() and decide() on states met in play
    sample = []
    for t in tables[:3]:
        state = None
        for e in t.events:
            state = GAME.evolve(state, e)
            awaited = GAME.waiting_for(state)
            if awaited:
                sample.append((json.loads(json.dumps(state)), awaited[0]))
    start = time.perf_counter()
    for state, seat in sample:
        GAME.legal(state, seat)
    per_legal = (time.perf_counter() - start) / len(sample) * 1e6
    lines.append(f"zauberschwert: legal() {per_legal:,.1f} µs per call ({len(sample)} states)")
    trade = [(s, x) for s, x in sample if s["step"] == "trade"]
    if trade:
        start = time.perf_counter()
        sizes = [len(GAME.legal(s, x)) for s, x in trade]
        per = (time.perf_counter() - start) / len(trade) * 1e6
        lines.append(f"zauberschwert: legal() while trading {per:,.1f} µs, up to {max(sizes)} commands")
    start = time.perf_counter()
    for players in (2, 3, 4):
        play_random(GAME, players, seed=99)
    lines.append(f"zauberschwert: a bot game (2, 3, 4 players) in {(time.perf_counter() - start) / 3 * 1000:,.0f} ms")
    rounds = [t.state["round"] for t in tables]
    lines.append(f"zauberschwert: bot games last {min(rounds)}-{max(rounds)} rounds, "
                 f"{min(len(t.events) for t in tables)}-{max(len(t.events) for t in tables)} events")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
