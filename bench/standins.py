"""What the games' benchmarks share about stand-ins: one stand-in against random-legal players at
every table size (its seat rotated, a tie counted as a share), and how long its decisions take."""

from __future__ import annotations

import dataclasses
import statistics
import time

from games.base import GameSpec
from games.testing import play_with_standins, winners


def percentile_ms(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1e3


def against_random(spec: GameSpec, counts, games: int) -> list[str]:
    """The table of wins: the stand-in's, each random player's, and a fair share."""
    lines = [
        f"{spec.name} stand-in against random players ({games} games per size, its seat rotated; "
        "a tie counts as a share):",
        "  players  stand-in wins  each random player  fair share",
    ]
    spent: list[float] = []
    standin = spec.standin
    assert standin is not None, f"{spec.name} has no stand-in"

    def timed_standin(view, legal):
        t0 = time.perf_counter()
        command = standin(view, legal)
        spent.append(time.perf_counter() - t0)
        return command

    timed = dataclasses.replace(spec, standin=timed_standin)
    for players in counts if games else ():
        mine = theirs = 0.0
        for game in range(games):
            seat = game % players
            table = play_with_standins(timed, players, standins=[seat], seed=100_000 + 1000 * players + game)
            won = winners(spec, table)
            mine += (seat in won) / len(won)
            theirs += sum(1 for s in won if s != seat) / len(won)
        lines.append(
            f"  {players:7}  {mine / games:13.1%}  {theirs / games / (players - 1):18.1%}  {1 / players:10.1%}"
        )
    if spent:
        lines.append(
            f"  a stand-in decision takes {statistics.mean(spent) * 1e3:.1f} ms on average, "
            f"p99 {percentile_ms(spent, 0.99):.1f} ms, max {max(spent) * 1e3:.0f} ms ({len(spent)} decisions)"
        )
    return lines
