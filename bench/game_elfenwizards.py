"""Elfenwizards figures: `python -m bench.game_elfenwizards` (pure Python, no Django).

Replay speed, legal() per call, a bot game, a Master of Seals sheet; then the stand-in: its win
rate beside the random players' and the fair share, per table size (one stand-in seat, rotated,
the others random-legal), the time per decision; and games of stand-ins only: how they end,
their length in turns, their score spread and the wins per colour with 95 % intervals (the
placement table's fairness: 1.00 = a fair share; bench/balance.py); and how often the stand-in's
move is a numbered code of the chooser. Game counts: ELFENWIZARDS_BENCH_GAMES (default 200 per
table size with one stand-in), ELFENWIZARDS_BENCH_STANDIN_GAMES (default 1,000 of stand-ins only),
ELFENWIZARDS_BENCH_OLD_DATA_GAMES (default 0: the 5-player seats and rows on the placement of data
version 4, version 3's rows dealt, which data version 5 replaced, with the same seeds, to set beside
today's) and
ELFENWIZARDS_BENCH_COVERAGE_GAMES (default 50). Then the stand-in of today (version 2) against the
first one (`standin_v1`), `bench.balance.head_to_head`, over as many games as the seats' table
per table size in ELFENWIZARDS_H2H_COUNTS (default "3,4,5"), and both versions' time per decision.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import time
from collections import Counter

from bench.balance import (
    Outcome,
    Setting,
    chooser_coverage,
    decision_time_lines,
    ending_lines,
    extra_lines,
    head_to_head,
    play_many,
    seat_balance,
    seat_lines,
    spread_lines,
)
from bench.standins import against_random
from games.elfenwizards import GAME, standin_v1
from games.elfenwizards.board import DATA_VERSION, placement
from games.elfenwizards.rules import setup_with_data
from games.testing import event_from_json, fold, play_random

COUNTS = (3, 4, 5)


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
    ends = Counter(t.state["end_reason"] for t in tables)
    lines.append(f"elfenwizards: random bot games end by {dict(ends)}")
    lines += standin_lines(
        int(os.environ.get("ELFENWIZARDS_BENCH_GAMES", "200")),
        int(os.environ.get("ELFENWIZARDS_BENCH_STANDIN_GAMES", "1000")),
    )
    lines += old_data_lines(int(os.environ.get("ELFENWIZARDS_BENCH_OLD_DATA_GAMES", "0")))
    lines += head_to_head_lines(
        int(os.environ.get("ELFENWIZARDS_BENCH_STANDIN_GAMES", "1000")),
        [int(n) for n in os.environ.get("ELFENWIZARDS_H2H_COUNTS", "3,4,5").split(",") if n.strip()],
    )
    lines += coverage_lines(int(os.environ.get("ELFENWIZARDS_BENCH_COVERAGE_GAMES", "50")))
    return lines


def standin_lines(games: int, standin_games: int) -> list[str]:
    lines = against_random(GAME, COUNTS, games)
    lines.append(
        f"elfenwizards: seats (by colour; the first player, the dragon's holder, is drawn), {standin_games} "
        "games of stand-ins only per table size; turns and each place in turn order's share of wins as extras"
    )
    for players in COUNTS if standin_games else ():
        if placement(players).get("rows_dealt"):
            lines += dealt_lines(standin_games, players)
            continue
        setting = Setting(GAME, players, extra=_extras, ending=lambda table: table.state["end_reason"])
        lines += seat_balance(setting, standin_games, names=list(GAME.colours[:players]))
    return lines


def dealt_lines(
    games: int, players: int = 5, version: int = DATA_VERSION, label: str = "", table: dict | None = None
) -> list[str]:
    """The seats' table where the placement rows are dealt to the colours (data version 4 at 5
    players: RULINGS.md): wins per colour (= per seat), then the same games counted per row of the
    table, whichever colour was dealt it; then how games end, the scores and the extras. `table`:
    a candidate row (setup_with_data's), else data version `version`'s."""
    spec = dataclasses.replace(GAME, setup=functools.partial(setup_with_data, version, table=table))
    setting = Setting(spec, players, extra=_extras_with_rows, ending=lambda table: table.state["end_reason"])
    outcomes = play_many(setting, games)
    by_row = [
        Outcome([o.shares[o.extra["rows"].index(k)] for k in range(players)], o.scores, o.ending, {}) for o in outcomes
    ]
    for outcome in outcomes:
        del outcome.extra["rows"]
    table = table or placement(players, version)
    rows = [" ".join(sp for sp in table["positions"][c] if not sp.startswith("W")) for c in table["colours"]]
    how = "rows dealt to the colours" if table.get("rows_dealt") else "each colour on its own row"
    title = label or f"{GAME.title}, {players} players, data version {version} ({how})"
    return [
        f"  {title}: {games} games of stand-ins only",
        *seat_lines(outcomes, players, list(GAME.colours[:players])),
        "    the same games by row of the placement table (its titles), whichever colour was dealt it:",
        *seat_lines(by_row, players, rows),
        *ending_lines(outcomes),
        *spread_lines(outcomes),
        *extra_lines(outcomes),
    ]


def head_to_head_lines(games: int, counts) -> list[str]:
    """Version 2 of the stand-in (today's) in half the seats against version 1 (`standin_v1`) in the
    others, rotated (issue 29: 'clearly' better = the 95 % interval above 1.00×); then the time a
    decision takes with each."""
    lines = ["elfenwizards: stand-in version 2 against version 1 (standin_v1); 'clearly' = the interval above 1.00×"]
    for players in counts if games else ():
        lines += head_to_head(GAME, GAME.standin, standin_v1.standin, players, games)
    versions = [("version 2 (today)", GAME.standin), ("version 1", standin_v1.standin)]
    return lines + decision_time_lines(GAME, versions, sizes=(3, 4, 5))


def old_data_lines(games: int, version: int = 4, players: int = 5) -> list[str]:
    """The seats on an older placement (data version 5 changed the dealt 5-player rows, version 4
    dealt them, version 3 changed the 5-player row: RULINGS.md), the same seeds as today's table."""
    if not games:
        return []
    spec = dataclasses.replace(GAME, setup=functools.partial(setup_with_data, version))
    setting = Setting(spec, players, extra=_extras, ending=lambda table: table.state["end_reason"])
    label = f"Elfenwizards, {players} players, placement of data version {version} (today's: {DATA_VERSION})"
    if placement(players, version).get("rows_dealt") or placement(players, DATA_VERSION).get("rows_dealt"):
        return dealt_lines(games, players, version, label)
    return seat_balance(setting, games, label=label, names=list(GAME.colours[:players]))


def _extras_with_rows(table) -> dict:
    rows = table.events[0].data.get("rows") or list(range(table.state["n"]))
    return {**_extras(table), "rows": list(rows)}


def _extras(table) -> dict:
    """Per game: its length in turns and each place in turn order's share of the win (× a fair
    share; the first player holds the dragon)."""
    state = table.state
    won = GAME.result(state).ranking()[0]
    first, n = table.events[0].data["dragon"], state["n"]
    places = {
        f"wins of the {place + 1}. in turn order, × fair share": ((first + place) % n in won) / len(won) * n
        for place in range(n)
    }
    return {"turns": state["turn"], **places}


def coverage_lines(games: int) -> list[str]:
    lines = ["elfenwizards: the chooser's codes (issue 27)"]
    for players in COUNTS:
        lines += chooser_coverage(GAME, players, games)
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
