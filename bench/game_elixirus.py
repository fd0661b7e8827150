"""Elixirus figures: python -m bench.game_elixirus

Replay speed of bot games (evolve only, from the stored log), the time per legal() call in each
stage, decide() per command, and how bot games end (a fourth cork or no ingredients left).
Then the stand-in: its win rate beside the random players' and the fair share, per table size
(one stand-in seat, rotated, the others random-legal); how games of stand-ins only end, their
length in rounds and their score spread; and p50/p99 of each render and of choices() on the views
of bot games, beside view() itself. Game counts: ELIXIRUS_BENCH_GAMES (default 200 per table
size with one stand-in) and ELIXIRUS_BENCH_STANDIN_GAMES (default 100 of stand-ins only).

Then the tables every game's benchmark shares (bench/balance.py, issue 29): seat shares (by place
from the drawn first start player) with 95 % intervals, how games end and the score spread over
ELIXIRUS_BALANCE_GAMES (default 1,000) games of stand-ins per table size (ELIXIRUS_BALANCE_COUNTS,
default 2-5); the stand-in of today (version 2) against the first one (`standin_v1`, RULINGS 37)
over as many games per table size (ELIXIRUS_H2H_COUNTS, default 2-5), 'clearly' better when the
95 % interval lies above 1.00x; and the time a decision of each takes.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections import Counter

from bench.balance import Setting, decision_time_lines, head_to_head, seat_balance
from bench.standins import against_random, percentile_ms
from games.elixirus import GAME, standin_v1
from games.testing import canonical, event_from_json, fold, play_random, play_with_standins, winners

COUNTS = (2, 3, 4, 5)


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
    lines += standin_lines(
        int(os.environ.get("ELIXIRUS_BENCH_GAMES", "200")), int(os.environ.get("ELIXIRUS_BENCH_STANDIN_GAMES", "100"))
    )
    lines += render_lines(tables)
    lines += balance_lines(
        int(os.environ.get("ELIXIRUS_BALANCE_GAMES", "1000")),
        _counts("ELIXIRUS_BALANCE_COUNTS", "2,3,4,5"),
        _counts("ELIXIRUS_H2H_COUNTS", "2,3,4,5"),
    )
    return lines


def _counts(name: str, default: str) -> list[int]:
    return [int(n) for n in os.environ.get(name, default).split(",") if n.strip()]


def first_player_order(table) -> list[int]:
    """The seats from the first start player (drawn at setup) on."""
    n = table.state["n"]
    start = table.events[0].data["start"]
    return [(start + i) % n for i in range(n)]


PLACES = ["1st to play", "2nd", "3rd", "4th", "5th"]


def balance_lines(games: int, counts, h2h_counts) -> list[str]:
    """Seat shares, endings and spread per table size; the stand-in against the first one; the
    time a decision takes."""
    lines = [f"elixirus: seats by place from the first start player (drawn), {games} games of stand-ins per table size"]
    for players in counts:
        setting = Setting(GAME, players, ending=lambda table: table.state["end"], order=first_player_order)
        lines += seat_balance(setting, games, names=PLACES[:players])
    lines.append(
        "elixirus: stand-in version 2 (today's) against version 1 (standin_v1); 'clearly' = the interval above 1.00×"
    )
    for players in h2h_counts:
        lines += head_to_head(GAME, GAME.standin, standin_v1.standin, players, games, names=("version 2", "version 1"))
    lines += decision_time_lines(GAME, [("version 2 (today)", GAME.standin), ("version 1", standin_v1.standin)])
    return lines


def standin_lines(games: int, standin_games: int) -> list[str]:
    lines = against_random(GAME, COUNTS, games)
    lines.append(
        f"elixirus games of stand-ins only ({standin_games} per size): endings, rounds, score spread "
        "(best minus worst), wins by concoction table (1.00 = fair)"
    )
    for players in COUNTS if standin_games else ():
        ends, rounds, spread = Counter(), [], []
        wins, seated = Counter(), Counter()
        for game in range(standin_games):
            table = play_with_standins(GAME, players, standins=range(players), seed=200_000 + 1000 * players + game)
            state = table.state
            ends[state["end"]] += 1
            rounds.append(state["round"])
            scores = GAME.result(state).scores
            spread.append(max(scores) - min(scores))
            won = winners(GAME, table)
            for s in range(players):
                seated[state["tables"][s]] += 1
                wins[state["tables"][s]] += (s in won) / len(won)
        endings = ", ".join(f"{end} {count / standin_games:.0%}" for end, count in sorted(ends.items()))
        fairness = " ".join(f"{t} {wins[t] / seated[t] * players:.2f}" for t in sorted(seated))
        lines.append(
            f"  {players} players: {endings}; rounds mean {statistics.mean(rounds):.1f} "
            f"(min {min(rounds)}, max {max(rounds)}); spread mean {statistics.mean(spread):.1f} "
            f"(min {min(spread)}, max {max(spread)}); {fairness}"
        )
    return lines


def render_lines(tables) -> list[str]:
    """p50 and p99 over every view of the bot games (the seat awaited, and a spectator) of each
    render with its view(), and of choices() for the awaited seat. Each view is timed three times:
    the fastest of the three is the render's own cost (on a shared machine a single run is often
    preempted); the p99 of the first runs alone is printed too."""
    views = []
    for table in tables:
        state = None
        for event in [event_from_json(json.loads(e)) for e in table.log]:
            state = GAME.evolve(state, event)
            for seat in GAME.waiting_for(state)[:1] + [None]:
                views.append((json.loads(canonical(state)), seat))
    timed = {
        "view() (the baseline)": (lambda st, seat: GAME.view(st, seat), views),
        "render_text": (lambda st, seat: GAME.render_text(GAME.view(st, seat)), views),
        "render_html": (lambda st, seat: GAME.render_html(GAME.view(st, seat)), views),
        "render_svg": (lambda st, seat: GAME.render_svg(GAME.view(st, seat)), views),
        "choices": (lambda st, seat: GAME.choices(st, seat), [(st, seat) for st, seat in views if seat is not None]),
    }
    lines = [f"elixirus renders on {len(views)} views of the bot games, with view() (target p99 < 5 ms):"]
    for name, (fn, cases) in timed.items():
        best, first = [], []
        for st, seat in cases:
            runs = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn(st, seat)
                runs.append(time.perf_counter() - t0)
            best.append(min(runs))
            first.append(runs[0])
        lines.append(
            f"  {name:22} p50 {percentile_ms(best, 0.5):6.2f} ms  p99 {percentile_ms(best, 0.99):6.2f} ms"
            f"  (single runs: p99 {percentile_ms(first, 0.99):6.2f} ms)"
        )
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
