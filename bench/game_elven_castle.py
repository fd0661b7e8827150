"""Elven Castle figures: python -m bench.game_elven_castle

Replay speed of bot games (evolve only), the time per legal() call (every placement of every
piece the player holds, at every level), per decide() of a placement (which also looks whether
the next player can still place), per render, and how bot games end. Times are CPU time
(time.process_time), so a busy shared machine does not distort them.

Then the stand-in (games/elven_castle/standin.py): its win rate with one stand-in seat (rotated
over the seats) among random-legal players, beside theirs and the fair share, per player count;
how games of stand-ins only end; and the p50/p99 of every render and of the chooser on the views
of bot games.

Games of stand-ins only are deterministic: with the same options every game is the same game
(the seed only draws the first player). So each such game here opens with one random placement
per seat (seeded), and the stand-ins play the rest.

Head to head (issue 29): each stand-in version against the one before it, with the seat-balance
settings (one random opening placement a seat, no scenario, no staircase, no penalties): the stand-in
in play, version 5, against version 3 (`standin.standin_v3`), which it replaced, at 4 players (with 2
and 3 players versions 3, 4 and 5 make version 2's moves: tested), and version 3 against version 2
(`standin.standin_v2`) at 4; with ELVEN_CASTLE_H2H_ALL=1 also the candidate version 4 (not in play)
against version 3 at 4, and version 2 against version 1 (`standin_v1`) at 2, 3 and 4; per table size (ELVEN_CASTLE_H2H_COUNTS limits them, default 2,3,4) and variant
(ELVEN_CASTLE_H2H_VARIANTS, default AB); "clearly better" = the 95 % interval of its wins a seat
lies above 1.00× the fair share. Then the time a decision of each takes.
`python -m bench.game_elven_castle 1000 h2h` prints only these.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import statistics
import sys
import time

from bench.balance import Setting, decision_time_lines, head_to_head, seat_balance
from games.elven_castle import GAME, standin, standin_v1
from games.elven_castle import rules as R
from games.testing import Table, event_from_json, fold, play_random, play_with_standins, winners

SCENARIOS = ["none", *R.SCENARIOS]


def _timed(fn, repeat):
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def options_for(players, seed):
    """Options rotated over the seeds: both variants, the experienced options, the scenarios."""
    opts = {"scoring": "AB"[seed % 2], "staircase": seed % 4 < 2, "penalties": seed % 3 == 0}
    if players >= 3:
        opts["scenario"] = SCENARIOS[(seed // 2) % len(SCENARIOS)]
    return opts


def basics() -> list[str]:
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
    decide_us = (
        sum(_timed(lambda s=s, c=c: GAME.decide(s, s["turn"], c, None), 20) for s, c in zip(mids, cmds))
        / len(mids)
        * 1e6
    )
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


def standin_strength(games: int) -> list[str]:
    """One stand-in seat among random-legal players; a shared first place counts as a share."""
    lines = [
        f"elven_castle: stand-in among random players, {games} games per player count (options rotated):",
        "  players  stand-in wins  each random player  fair share  stand-in moves (us, CPU)",
    ]
    for n in (2, 3, 4):
        won, spent, moves = 0.0, 0.0, 0
        for seed in range(games):
            seat = seed % n
            table, cost, count = _timed_standins(n, [seat], options_for(n, seed), seed)
            spent, moves = spent + cost, moves + count
            first = winners(GAME, table)
            won += (seat in first) / len(first)
        rate = won / games
        lines.append(
            f"  {n:>7}  {rate:>13.1%}  {(1 - rate) / (n - 1):>18.1%}  {1 / n:>10.1%}  "
            f"{spent / max(moves, 1) * 1e6:,.0f}"
        )
    return lines


def _timed_standins(n, seats, opts, seed):
    """play_with_standins, with the stand-in's CPU time and number of moves measured."""
    spent, count = [0.0], [0]
    inner = GAME.standin

    def timed(view, legal):
        start = time.process_time()
        try:
            return inner(view, legal)
        finally:
            spent[0] += time.process_time() - start
            count[0] += 1

    spec = dataclasses.replace(GAME, standin=timed)
    table = play_with_standins(spec, n, seats, opts, seed=seed)
    return table, spent[0], count[0]


def standins_only(n, opts, seed, opening_moves):
    """A game of stand-ins only, after `opening_moves` random placements (seeded)."""
    pick = random.Random(seed)
    table = Table(GAME, n, opts, seed=f"bot-{seed}".encode())
    table.check_mutation = False
    step = 0
    while GAME.waiting_for(table.state):
        seat = GAME.waiting_for(table.state)[0]
        legal = GAME.legal(table.state, seat)
        random_opening = step < opening_moves and table.state["phase"] == "place"
        table.act(seat, pick.choice(legal) if random_opening else GAME.standin(GAME.view(table.state, seat), legal))
        step += 1
    return table


def endings(games: int) -> list[str]:
    lines = [
        f"elven_castle: stand-ins only, {games} games per player count and variant "
        "(one random opening placement per seat, options rotated):",
        "  players variant  no pieces  no space  rounds mean (min-max)  score spread mean (max)  "
        "top score  0-0 games  wins by seat from the first",
    ]
    for n in (2, 3, 4):
        for variant in "AB":
            ends, rounds, spreads, tops, blank = [], [], [], [], 0
            by_seat = [0.0] * n
            for seed in range(games):
                opts = dict(options_for(n, seed), scoring=variant)
                state = standins_only(n, opts, seed, opening_moves=n).state
                ends.append(state["end"]["reason"])
                rounds.append(GAME.summary(state)["round"])
                scores = state["scores"]
                spreads.append(max(scores) - min(scores))
                tops.append(max(scores))
                blank += max(scores) <= 0
                first = GAME.result(state).ranking()[0]
                for s in first:
                    by_seat[(s - state["first"]) % n] += 1 / len(first)
            seats = " ".join(f"{w / games:.0%}" for w in by_seat)
            lines.append(
                f"  {n:>7} {variant:>7}  {ends.count('no pieces') / games:>9.0%}  "
                f"{ends.count('no space') / games:>8.0%}  {statistics.mean(rounds):>10.1f} "
                f"({min(rounds)}-{max(rounds)})  {statistics.mean(spreads):>17.1f} ({max(spreads)})  "
                f"{statistics.mean(tops):>9.1f}  {blank / games:>9.0%}  {seats}"
            )
    return lines


def render_speed() -> list[str]:
    """p50/p99 of every render and of the chooser over the views of bot games (CPU time)."""
    positions = []
    for n in (2, 3, 4):
        for seed in range(4):
            table = play_with_standins(GAME, n, [seed % n], options_for(n, seed), seed=seed)
            state = None
            for event in table.events:
                state = GAME.evolve(state, event)
                if event.type in ("PiecePlaced", "GameEnded"):
                    positions.append(json.loads(json.dumps(state)))
    views = [GAME.view(s, 0) for s in positions]
    calls = {
        "render_html": [lambda v=v: GAME.render_html(v) for v in views],
        "render_svg": [lambda v=v: GAME.render_svg(v) for v in views],
        "render_text": [lambda v=v: GAME.render_text(v) for v in views],
        "choices": [lambda s=s: GAME.choices(s, s["turn"]) for s in positions if GAME.waiting_for(s)],
        "(legal)": [lambda s=s: GAME.legal(s, s["turn"]) for s in positions if GAME.waiting_for(s)],
    }
    lines = [
        f"elven_castle: per call over {len(views)} positions of bot games (CPU time, target p99 < 5 ms; "
        "legal() as the baseline of this run):"
    ]
    for name, fns in calls.items():
        times = []
        for fn in fns:
            start = time.process_time()
            fn()
            times.append((time.process_time() - start) * 1e3)
        times.sort()
        p50, p99 = times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]
        lines.append(f"  {name:<12} p50 {p50:.2f} ms  p99 {p99:.2f} ms  max {times[-1]:.2f} ms")
    sizes = [len(GAME.render_html(v)) for v in views]
    lines.append(f"  render_html size {statistics.median(sizes) / 1000:.1f} kB median, {max(sizes) / 1000:.1f} kB max")
    return lines


# --- Rules version 2 against version 1, seat balance, the careful stand-in against a greedy one ---


def _setup_version_1(players, options, rng):
    """The deal of a game started before rules version 2 (no "rules" in GameStarted)."""
    events = R.setup(players, options, rng)
    first = events[0]
    return [dataclasses.replace(first, data={k: v for k, v in first.data.items() if k != "rules"}), *events[1:]]


VERSION_1 = dataclasses.replace(GAME, setup=_setup_version_1)


def greedy(view, legal):
    """A greedy architect: the placement that scores most now (with the stand-in's preferences),
    whatever it leaves the next player (the stand-in without its look at the reply)."""
    if view["phase"] == "staircase":
        return standin.standin(view, legal)
    state = standin.state_from_view(view)
    judged = standin.Evaluation(state, view["turn"], [standin.place_of(c) for c in legal])
    judged.replies = None
    return legal[judged.best()]


def in_turn_order(table):
    first = table.state["first"]
    return [(first + k) % table.players for k in range(table.players)]


def arches(table):
    """Whether a placement scored (an arch built)."""
    sheet = [line for line in table.state["sheet"] if line[4] == ""]
    return {"games with at least one arch": float(any(line[2] > 0 for line in sheet))}


def balance_lines(games: int, show: bool = False) -> list[str]:
    """Rules version 2 over `games` games per player count and variant; version 1 and the head to
    head over ELVEN_CASTLE_BEFORE_GAMES (default half as many)."""
    before = int(os.environ.get("ELVEN_CASTLE_BEFORE_GAMES", str(games // 2)))
    seats = ["first", "second", "third", "fourth"]
    lines = [
        f"elven_castle: seat balance, {games} games of stand-ins per player count and variant, seats in "
        "the order they play (the first player is drawn); one random opening placement a seat; no "
        "scenario, no staircase, no penalties. Rules version 2 (the game today) and version 1 (before):"
    ]
    for players in (2, 3, 4):
        for variant in "AB":
            for label, spec in (("rules 2", GAME), ("rules 1", VERSION_1)):
                if label == "rules 1" and os.environ.get("ELVEN_CASTLE_V1", "1") == "0":
                    continue
                setting = Setting(
                    spec,
                    players,
                    {"scoring": variant},
                    random_opening=1,
                    extra=arches,
                    ending=lambda t: t.state["end"]["reason"],
                    order=in_turn_order,
                )
                title = f"Elven Castle, {players} players, variant {variant}, {label}"
                block = seat_balance(setting, games if label == "rules 2" else before, title, seats[:players])
                lines += block
                if show:
                    print("\n".join(block), flush=True)
    lines.append(
        "elven_castle: the stand-in (careful: points now minus the next player's best reply) against a "
        "greedy one (points now only), rules version 2:"
    )
    for players in (2, 3, 4):
        for variant in "AB":
            lines += head_to_head(
                GAME,
                standin.standin,
                greedy,
                players,
                before,
                {"scoring": variant},
                random_opening=1,
                names=(f"variant {variant}: careful", "greedy"),
            )
            if show:
                print(lines[-1], flush=True)
    return lines


# Each version against the one before it, and the table sizes where their moves can differ.
VERSIONS = (
    (("version 5", standin.standin_v5), ("version 3", standin.standin_v3), (4,)),
    (("version 3", standin.standin_v3), ("version 2", standin.standin_v2), (4,)),
    (("version 4 (candidate)", standin.standin_v4), ("version 3", standin.standin_v3), (4,)),
    (("version 2", standin.standin_v2), ("version 1", standin_v1.standin), (2, 3, 4)),
)


def h2h_lines(games: int, show: bool = False) -> list[str]:
    """Each stand-in version against the one before it per table size and variant, and the time a
    decision of each takes."""
    counts = [int(n) for n in os.environ.get("ELVEN_CASTLE_H2H_COUNTS", "2,3,4").split(",") if n.strip()]
    variants = os.environ.get("ELVEN_CASTLE_H2H_VARIANTS", "AB")
    lines = []
    # The stand-in in play (version 5) against the one it replaced (3), and 3 against 2.
    pairs = VERSIONS if os.environ.get("ELVEN_CASTLE_H2H_ALL") == "1" else VERSIONS[:2]
    for (new_name, new), (old_name, old), sizes in pairs:
        lines.append(
            f"elven_castle: stand-in {new_name} against {old_name}, {games} games per table size and "
            "variant, one random opening placement a seat; 'clearly' = the interval above 1.00×"
        )
        for players in (n for n in counts if n in sizes):
            for variant in variants:
                lines += head_to_head(
                    GAME,
                    new,
                    old,
                    players,
                    games,
                    {"scoring": variant},
                    random_opening=1,
                    names=(f"variant {variant}: {new_name}", old_name),
                )
                if show:
                    print(lines[-1], flush=True)
    times = decision_time_lines(
        GAME,
        [
            ("version 5 (today)", standin.standin),
            ("version 4 (candidate)", standin.standin_v4),
            ("version 3", standin.standin_v3),
            ("version 2", standin.standin_v2),
            ("version 1", standin_v1.standin),
        ],
    )
    if show:
        print("\n".join(times), flush=True)
    return lines + times


def run(games: int = 200) -> list[str]:
    balance = int(os.environ.get("ELVEN_CASTLE_BALANCE_GAMES", "1000"))
    lines = basics() + standin_strength(games) + endings(games // 2) + render_speed() + balance_lines(balance)
    return lines + h2h_lines(balance)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "balance":
        balance_lines(int(sys.argv[1]), show=True)
    elif len(sys.argv) > 2 and sys.argv[2] == "h2h":
        h2h_lines(int(sys.argv[1]), show=True)
    else:
        print("\n".join(run(int(sys.argv[1]) if len(sys.argv) > 1 else 200)))
