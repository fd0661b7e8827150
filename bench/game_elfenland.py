"""Elfenland figures: python -m bench.game_elfenland

Replay speed of bot games, and the time per call of what the issue asks to stay fast on the
full map: legal() during movement, the towns a player can reach this turn with the cards in hand
(also on a worst-case board with a counter on every land route), and Home Cities distances.
"""

from __future__ import annotations

import json
import time

from games.elfenland import GAME
from games.elfenland import board as B
from games.elfenland import rules as R
from games.testing import Table, event_from_json, fold, play_random


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
        state["board"][route] = {"road": "giant_pig", "forest": "elfcycle", "desert": "dragon",
                                 "mountain": "unicorn"}[kind]
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
    lines.append(f"elfenland: legal() during movement {_per_call(GAME.legal, args, 5):.0f} us/call "
                 f"({len(args)} positions from bot games)")
    lines.append(f"elfenland: towns reachable this turn {_per_call(R.reachable, args, 5):.0f} us/call (same positions)")
    worst = [(s, 0) for s in _worst_case_state()]
    lines.append(f"elfenland: worst case (counter on all 35 land routes, 8 cards): legal() "
                 f"{_per_call(GAME.legal, worst, 20):.0f} us/call, reachable {_per_call(R.reachable, worst, 20):.0f} us/call")
    pairs = [(a, b) for a in B.TOWN_IDS for b in B.TOWN_IDS]
    lines.append(f"elfenland: Home Cities shortest-route distance {_per_call(B.distance, pairs, 20):.2f} us/call "
                 f"(all-pairs table built once at import); final scoring "
                 f"{_per_call(R.final_scores, [(tables[0].state,)], 1000):.0f} us")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
