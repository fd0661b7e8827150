"""Zauberschwert & Drachenei figures: python -m bench.game_zauberschwert (pure Python, no Django).

Besides replay and legal(): the stand-in's strength beside random players, how games between
stand-ins end (with the card data of today and, as the baseline of RULINGS.md's data version 2,
of data version 1), and what each render costs on the views of bot games. Then the tables every
game's benchmark shares (bench/balance.py): seat shares with 95 % intervals, how games end and the
score spread over ZAUBERSCHWERT_BALANCE_GAMES (default 1,000) games of stand-ins per table size;
the stand-in (version 2) against the first one (`standin_v1`) over as many games; and how often
the stand-in's move is a numbered code of the chooser.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import statistics
import time
from collections import Counter

from bench.balance import Setting, chooser_coverage, head_to_head, seat_balance
from games.testing import fold, play_random, play_with_standins, winners
from games.zauberschwert import GAME, standin_v1
from games.zauberschwert.board import wrap
from games.zauberschwert.rules import COLOURS, DATA_VERSION, setup_with_data

STANDIN_GAMES = 240  # per player count, the stand-in's seat rotating
ALL_STANDIN_GAMES = 200  # per player count and data version


def run() -> list[str]:
    lines = []
    tables = [play_random(GAME, players, seed=seed) for players in (2, 3, 4) for seed in range(3)]
    events = [e for t in tables for e in t.events]
    start = time.perf_counter()
    for t in tables:
        fold(GAME, t.events)
    took = time.perf_counter() - start
    lines.append(
        f"zauberschwert: replay {len(events) / took:,.0f} events/s ({len(events)} events, {len(tables)} games)"
    )

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
    lines.append(
        f"zauberschwert: bot games last {min(rounds)}-{max(rounds)} rounds, "
        f"{min(len(t.events) for t in tables)}-{max(len(t.events) for t in tables)} events"
    )
    lines += standin_lines()
    lines += ending_lines()
    lines += render_lines()
    lines += balance_lines(int(os.environ.get("ZAUBERSCHWERT_BALANCE_GAMES", "1000")))
    return lines


def old_standin(view, legal):
    """The first stand-in under rules version 2: where the first bid must be made (no pass is
    legal) it is asked as it always was, and its pass becomes the lowest bid (left alone it
    would fall back on the last legal command: all its magic)."""
    if legal and legal[0]["type"] == "bid" and {"type": "pass"} not in legal:
        command = standin_v1.standin(view, legal + [{"type": "pass"}])
        return legal[0] if command == {"type": "pass"} else command
    return standin_v1.standin(view, legal)


def balance_lines(games: int) -> list[str]:
    """Seat shares, endings and spread; the new stand-in against the old; the chooser's codes."""
    lines = [f"zauberschwert: seats (by colour; the first start player is drawn), {games} games per table size"]
    for players in (2, 3, 4):
        setting = Setting(GAME, players, ending=lambda table: table.state["ended"])
        lines += seat_balance(setting, games, names=list(COLOURS[:players]))
    lines.append(
        "zauberschwert: stand-in version 2 against version 1 (a table limit of 2 offers a round, which"
        " version 1 was made for: unlimited, it offers again after every refusal)"
    )
    for players in (2, 3, 4):
        lines += head_to_head(GAME, GAME.standin, old_standin, players, games, options={"offers_per_round": 2})
    lines.append("zauberschwert: the chooser's codes (issue 27)")
    for players in (2, 3, 4):
        lines += chooser_coverage(GAME, players, max(50, games // 10))
    return lines


def standin_lines() -> list[str]:
    """One stand-in beside random players: its share of first places beside theirs (a shared
    first place is split among those sharing it)."""
    lines = ["zauberschwert: stand-in beside random players (win share; fair share 1/n)"]
    for players in (2, 3, 4):
        share = [0.0] * 2  # stand-in, random players
        for game in range(STANDIN_GAMES):
            seat = game % players
            first = winners(GAME, play_with_standins(GAME, players, [seat], seed=game))
            for x in first:
                share[x != seat] += 1 / len(first)
        mine = share[0] / STANDIN_GAMES
        others = share[1] / STANDIN_GAMES / (players - 1)
        lines.append(
            f"  {players} players, {STANDIN_GAMES} games: stand-in {mine:.0%}, each random player "
            f"{others:.0%}, fair share {1 / players:.0%}"
        )
    return lines


def ending_lines() -> list[str]:
    """Games between stand-ins only: how they end, how long, the score spread and who wins by
    seat from the first start player; for today's card data and data version 1."""
    lines = [f"zauberschwert: stand-ins only, {ALL_STANDIN_GAMES} games per table size"]
    for version in (DATA_VERSION, 1):
        spec = dataclasses.replace(GAME, setup=functools.partial(setup_with_data, version))
        for players in (2, 3, 4):
            endings, rounds, spread, by_place = Counter(), [], [], [0.0] * players
            for game in range(ALL_STANDIN_GAMES):
                table = play_with_standins(spec, players, range(players), seed=50_000 + game)
                endings[table.state["ended"]] += 1
                rounds.append(table.state["round"])
                scores = table.state["ps"]
                spread.append(max(scores) - min(scores))
                first_start = table.events[0].data["start"]
                first = winners(spec, table)
                for x in first:
                    by_place[(x - first_start) % players] += 1 / len(first)
            ends = ", ".join(f"{why} {count / ALL_STANDIN_GAMES:.0%}" for why, count in endings.most_common())
            seats = " ".join(f"{w / ALL_STANDIN_GAMES:.0%}" for w in by_place)
            lines.append(
                f"  data {version}, {players} players: ends by {ends}; rounds {statistics.mean(rounds):.1f} "
                f"(min {min(rounds)}, max {max(rounds)}); score spread {statistics.mean(spread):.1f} "
                f"(max {max(spread)}); wins by seat from the first start player: {seats}"
            )
    return lines


def render_lines() -> list[str]:
    """p50 / p99 of each render over every seat's and the spectator's views of bot games."""
    states = []
    for players in (2, 3, 4):
        for seed in range(2):

            def keep(table, states=states):
                if len(table.events) % 3 == 0:
                    states.append(json.loads(json.dumps(table.state)))

            play_random(GAME, players, seed=700 + seed, check=keep)
    views = [(s, x, GAME.view(s, x)) for s in states for x in [None, *range(s["n"])]]
    timings = {"render_html": [], "render_svg": [], "render_text": [], "choices": []}
    for state, seat, view in views:
        for name, render in (
            ("render_html", GAME.render_html),
            ("render_svg", GAME.render_svg),
            ("render_text", GAME.render_text),
        ):
            timings[name].append(_best_of(REPEATS, render, view))
        if seat is not None:
            timings["choices"].append(_best_of(REPEATS, GAME.choices, state, seat))
    lines = [
        f"zauberschwert: renders over {len(views)} views of 6 bot games, each the best of {REPEATS} "
        "(a busy machine's pauses left out), uncached; target: p99 under 5 ms"
    ]
    for name, took in timings.items():
        ordered = sorted(took)
        p50, p99 = ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.99)]
        lines.append(f"  {name:<12} p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms, max {ordered[-1] * 1000:.2f} ms")
    return lines


REPEATS = 3


def _best_of(repeats, call, *args):
    """The fastest of `repeats` calls, each with the board's text-wrapping cache emptied first
    (so a repeat does not time the cached path: this is the cost of a view never drawn before)."""
    best = float("inf")
    for _ in range(repeats):
        wrap.cache_clear()
        start = time.perf_counter()
        call(*args)
        best = min(best, time.perf_counter() - start)
    return best


if __name__ == "__main__":
    print("\n".join(run()))
