"""Elfenland figures: python -m bench.game_elfenland

Replay speed of bot games, and the time per call of what the issue asks to stay fast on the
full map: legal() during movement, the towns a player can reach this turn with the cards in hand
(also on a worst-case board with a counter on every land route), and Home Cities distances.

The stand-in: its win rate with one stand-in seat (rotated) among random players, beside the
random players' and the fair share, per table size; in games of stand-ins only, how the games
end, their length in rounds, the scores and the spread, and the wins by seat. The renders:
p50/p99 of render_html, render_svg, render_text and choices() on the views of bot games (the
fastest of five runs per view, and the single-run p99 too: the machine is shared), and the
mail picture's PNG size. Game counts: ELFENLAND_BENCH_GAMES (default 200 per table size with one
stand-in) and ELFENLAND_BENCH_STANDIN_GAMES (default 100 per table size of stand-ins only).

Then the tables every game's benchmark shares (bench/balance.py, issue 29): seat shares with 95 %
intervals, how games end and the score spread over ELFENLAND_BALANCE_GAMES (default 1,000) games
of stand-ins per table size (2 to 6 players; ELFENLAND_BALANCE_COUNTS to choose), the stand-in of
today (version 3) against the previous one over as many games per table size (2 to 6 players,
as the seat tables; ELFENLAND_H2H_COUNTS to choose): at 2 players version 2
(`standin.standin_v2`: version 3 changed only the duel), at 3 to 6 players version 1
(`standin_v1`; there versions 3 and 2 decide alike), and the time a decision of each takes
(mean and p99).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections import Counter

from bench.balance import Setting, decision_time_lines, head_to_head, seat_balance
from games.elfenland import GAME, standin, standin_v1
from games.elfenland import board as B
from games.elfenland import rules as R
from games.testing import Table, canonical, event_from_json, fold, play_random, play_with_standins, winners


def _per_call(fn, args_list, repeat=1):
    start = time.perf_counter()
    calls = 0
    for _ in range(repeat):
        for args in args_list:
            fn(*args)
            calls += 1
    return (time.perf_counter() - start) / max(calls, 1) * 1e6


def _worst_case_state():
    """Six players; a counter on every land route (the transport each route takes best), Trouble on six,
    and 8 cards in hand: the largest search the movement step can meet."""
    table = Table(GAME, 6, {"boatmen": True, "lakes": True}, seed=b"bench")
    state = R.clone(table.state)
    for route in B.LAND_ROUTES:
        kind = B.ROUTES[route]["type"]
        state["board"][route] = {"road": "giant_pig", "forest": "elfcycle", "desert": "dragon", "mountain": "unicorn"}[
            kind
        ]
    for route in B.LAND_ROUTES[:6]:
        state["trouble"][route] = 0
    state["phase"], state["turn"] = "move", 0
    state["hands"][0] = dict.fromkeys(R.CARDS, 0)
    for c in ["giant_pig", "giant_pig", "elfcycle", "dragon", "unicorn", "raft", "raft", "troll_wagon"]:
        state["hands"][0][c] += 1
    for town in ("lapphalya", "elvenhold", "jxara"):
        state["elf"][0] = town
        yield R.clone(state)


def run() -> list[str]:
    lines = []
    tables = [play_random(GAME, n, {"home_cities": n % 2 == 0}, seed=n) for n in range(2, 7)]
    logs = [[event_from_json(json.loads(e)) for e in t.log] for t in tables]
    n_events = sum(len(log) for log in logs)
    start = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        for log in logs:
            fold(GAME, log)
    rate = n_events * rounds / (time.perf_counter() - start)
    lines.append(f"elfenland: replay {rate:,.0f} events/s ({len(logs)} bot games, 2-6 players)")

    move_states = []
    for log in logs:
        state = None
        for ev in log:
            state = GAME.evolve(state, ev)
            if state["phase"] == "move":
                move_states.append(R.clone(state))
    args = [(s, s["turn"]) for s in move_states]
    lines.append(
        f"elfenland: legal() during movement {_per_call(GAME.legal, args, 5):.0f} us/call "
        f"({len(args)} positions from bot games)"
    )
    lines.append(f"elfenland: towns reachable this turn {_per_call(R.reachable, args, 5):.0f} us/call (same positions)")
    worst = [(s, 0) for s in _worst_case_state()]
    lines.append(
        f"elfenland: worst case (counter on all 35 land routes, 8 cards): legal() "
        f"{_per_call(GAME.legal, worst, 20):.0f} us/call, reachable {_per_call(R.reachable, worst, 20):.0f} us/call"
    )
    pairs = [(a, b) for a in B.TOWN_IDS for b in B.TOWN_IDS]
    lines.append(
        f"elfenland: Home Cities shortest-route distance {_per_call(B.distance, pairs, 20):.2f} us/call "
        f"(all-pairs table built once at import); final scoring "
        f"{_per_call(R.final_scores, [(tables[0].state,)], 1000):.0f} us"
    )
    lines += standin_lines(
        int(os.environ.get("ELFENLAND_BENCH_GAMES", "200")), int(os.environ.get("ELFENLAND_BENCH_STANDIN_GAMES", "100"))
    )
    lines += render_lines()
    lines += balance_lines(
        int(os.environ.get("ELFENLAND_BALANCE_GAMES", "1000")),
        _counts("ELFENLAND_BALANCE_COUNTS", "2,3,4,5,6"),
        _counts("ELFENLAND_H2H_COUNTS", "2,3,4,5,6"),
    )
    return lines


def _counts(name: str, default: str) -> list[int]:
    return [int(n) for n in os.environ.get(name, default).split(",") if n.strip()]


def ending(table) -> str:
    """How a game ended: after round 4, or early because someone collected all 20 town pieces."""
    st = table.state
    if st["all20"] and st["round"] < B.ROUNDS:
        return "all 20 town pieces before round 4"
    return "after round 4, someone with all 20" if st["all20"] else "after round 4"


def balance_lines(games: int, counts, h2h_counts) -> list[str]:
    """Seat shares, endings and spread per table size; the stand-in against the first one; the
    time a decision takes."""
    lines = [f"elfenland: seats (seat 1 is the first player of round 1), {games} games of stand-ins per table size"]
    for players in counts:
        lines += seat_balance(Setting(GAME, players, ending=ending), games)
    lines.append(
        "elfenland: stand-in version 3 against the previous one that decides otherwise at that table size "
        "(2 players: version 2; 3-6 players: version 1); 'clearly' = the interval above 1.00×"
    )
    for players in h2h_counts:
        old, name = (standin.standin_v2, "version 2") if players == 2 else (standin_v1.standin, "version 1")
        lines += head_to_head(GAME, GAME.standin, old, players, games, names=("version 3", f"{name} stand-in"))
    lines += decision_time_lines(
        GAME,
        [("version 3 (today)", GAME.standin), ("version 2", standin.standin_v2), ("version 1", standin_v1.standin)],
    )
    return lines


def standin_lines(games: int, all_games: int) -> list[str]:
    lines = [
        f"stand-in among random players ({games} games per table size, its seat rotated; "
        "a shared first place counts as a share):",
        "  players  stand-in wins  each random player  fair share",
    ]
    for players in range(2, 7):
        mine = others = 0.0
        for game in range(games):
            seat = game % players
            tb = play_with_standins(GAME, players, [seat], seed=100_000 + 1000 * players + game)
            first = winners(GAME, tb)
            mine += (seat in first) / len(first)
            others += sum(1 for s in first if s != seat) / len(first)
        lines.append(
            f"  {players:7}  {mine / games:13.1%}  {others / games / (players - 1):18.1%}  {1 / players:10.1%}"
        )
    lines.append(f"stand-ins only ({all_games} games per table size): endings, rounds, scores")
    for players in range(2, 7):
        lines += _all_standin_line(players, all_games)
    return lines


def _all_standin_line(players, games) -> list[str]:
    endings, decided = Counter(), Counter()
    rounds, spreads, tops = [], [], []
    seat_wins = [0.0] * players
    for game in range(games):
        tb = play_with_standins(GAME, players, range(players), seed=200_000 + 1000 * players + game)
        st = tb.state
        result = GAME.result(st)
        early = st["all20"] and st["round"] < B.ROUNDS
        endings[
            "all 20 town pieces before round 4"
            if early
            else "after round 4, someone with all 20"
            if st["all20"]
            else "after round 4"
        ] += 1
        first = result.ranking()[0]
        best = max(result.scores)
        level = [s for s in range(players) if result.scores[s] == best]
        decided["shared" if len(first) > 1 else "on the tie-break" if len(level) > 1 else "outright"] += 1
        rounds.append(st["round"])
        spreads.append(best - min(result.scores))
        tops.append(best)
        for s in first:
            seat_wins[s] += 1 / len(first)
    share = ", ".join(f"{k} {v / games:.0%}" for k, v in endings.most_common())
    how = ", ".join(f"{k} {v / games:.0%}" for k, v in decided.most_common())
    seats = " ".join(f"{w / games:.0%}" for w in seat_wins)
    return [
        f"  {players} players: ends {share}; won {how}",
        f"    rounds mean {statistics.mean(rounds):.2f} min {min(rounds)} max {max(rounds)}; "
        f"winner's town pieces mean {statistics.mean(tops):.1f} min {min(tops)} max {max(tops)}; "
        f"spread (first - last) mean {statistics.mean(spreads):.1f} min {min(spreads)} max {max(spreads)}",
        f"    wins by seat (fair {1 / players:.0%}): {seats}",
    ]


def _bot_positions():
    """(state, seat) at every decision of bot games at every table size, with and without the
    variants, every third taken."""
    found = []
    for players in range(2, 7):
        for options in ({}, {"home_cities": True, "lakes": True, "boatmen": True}):

            def keep(table):
                for seat in GAME.waiting_for(table.state):
                    found.append((json.loads(canonical(table.state)), seat))

            play_random(GAME, players, options, seed=players, check=keep)
    return found[::3]


def _percentiles(fn, args_list):
    best, single = [], []
    for args in args_list:
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            fn(*args)
            runs.append(time.perf_counter() - start)
        best.append(min(runs))
        single.append(runs[0])
    best.sort()
    single.sort()
    at = int(len(best) * 0.99)
    return best[len(best) // 2] * 1e3, best[at] * 1e3, single[at] * 1e3


def render_lines() -> list[str]:
    positions = _bot_positions()
    views = [(GAME.view(state, seat),) for state, seat in positions]
    links = []
    for (v,), (state, seat) in zip(views, positions):
        links.append((v, {c.target: f"/pick/{i}" for i, c in enumerate(GAME.choices(state, seat)) if c.target}))
    lines = [
        f"renders on {len(views)} views of bot games, 2-6 players (target: p99 under 5 ms each); "
        "ms, fastest of 5 runs per view (single-run p99 in brackets):"
    ]
    for name, fn, args in (
        ("view() itself", GAME.view, positions),
        ("render_html", GAME.render_html, [(v,) for v, _ in links]),
        ("render_html with links", GAME.render_html, links),
        ("render_svg", GAME.render_svg, views),
        ("render_text", GAME.render_text, views),
        ("choices", GAME.choices, positions),
    ):
        p50, p99, single = _percentiles(fn, args)
        lines.append(f"  {name:24} p50 {p50:5.2f}  p99 {p99:5.2f}  ({single:5.2f})")
    try:
        import resvg_py
    except ImportError:
        return lines + ["  (resvg-py missing: no PNG sizes)"]
    sizes = sorted(len(bytes(resvg_py.svg_to_bytes(svg_string=GAME.render_svg(v)))) for (v,) in views[::15])
    lines.append(
        f"  mail picture PNG (600 px wide, {len(sizes)} views): median {sizes[len(sizes) // 2] / 1000:.0f} kB, "
        f"max {sizes[-1] / 1000:.0f} kB (limit 150 kB)"
    )
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
