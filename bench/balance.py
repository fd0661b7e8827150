"""Seat balance and stand-in strength: the tables every game's benchmark prints.

`seat_balance` plays games of stand-ins only and prints, per seat, its share of wins against the
fair share with a 95 % interval (a tie counts as a share), how the games ended, the spread of the
scores and any figure the game adds (Elven Castle: games with at least one arch).
`head_to_head` seats a new stand-in against an old one (alternating seats, rotated) and prints the
new one's share of wins beside the fair share.

Games run in worker processes (fork), one per core; a game is a pure function of its seed, so the
figures are the same however many processes play them.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.standins import percentile_ms
from games.base import GameSpec
from games.testing import Table

Z95 = 1.96


@dataclass(frozen=True)
class Setting:
    """What a batch of games is: the game, the table size, its options, who plays each seat (a
    stand-in function per seat; None: the game's own stand-in) and how many random opening moves
    each seat makes first (stand-in-only games are often the same game every time)."""

    spec: GameSpec
    players: int
    options: dict = field(default_factory=dict)
    players_of: tuple = ()
    random_opening: int = 0
    extra: Callable[[Table], dict] | None = None
    ending: Callable[[Table], str] | None = None
    # The seats in the order they play, first player first (a game that draws its first player,
    # such as Elven Castle): the tables then count seats by that order. None: seat numbers.
    order: Callable[[Table], list[int]] | None = None


@dataclass
class Outcome:
    shares: list[float]
    scores: list[float]
    ending: str
    extra: dict


def play(setting: Setting, seed: int, max_steps: int = 50_000) -> Outcome:
    """One game of stand-ins (each seat's own, or the game's), after `random_opening` random moves
    per seat."""
    spec = setting.spec
    pick = random.Random(seed)
    table = Table(spec, setting.players, setting.options, seed=f"balance-{seed}".encode())
    table.check_mutation = False  # the contract tests check it; here it would only cost time
    openings = [setting.random_opening] * setting.players
    for _ in range(max_steps):
        awaited = spec.waiting_for(table.state)
        if not awaited:
            break
        seat = pick.choice(awaited)
        legal = spec.legal(table.state, seat)
        if openings[seat] > 0:
            openings[seat] -= 1
            command = pick.choice(legal)
        else:
            standin = (setting.players_of[seat] if setting.players_of else None) or spec.standin
            command = standin(spec.view(table.state, seat), legal)
        table.act(seat, command)
    else:
        raise AssertionError(f"{spec.name}: a game did not end within {max_steps} steps (seed {seed})")
    result = spec.result(table.state)
    first = result.ranking()[0]
    shares = [(1 / len(first) if seat in first else 0.0) for seat in range(setting.players)]
    scores = [float(score) for score in result.scores]
    ending = setting.ending(table) if setting.ending else _last_event(table)
    if setting.order:
        seats = setting.order(table)
        shares, scores = [shares[s] for s in seats], [scores[s] for s in seats]
    return Outcome(shares, scores, ending, setting.extra(table) if setting.extra else {})


def _last_event(table: Table) -> str:
    return table.events[-1].type


_SETTING: Setting | None = None


def _play_one(seed: int) -> Outcome:
    assert _SETTING is not None
    return play(_SETTING, seed)


def play_many(setting: Setting, games: int, first_seed: int = 1) -> list[Outcome]:
    """`games` games with seeds first_seed…, in as many processes as there are cores."""
    global _SETTING
    _SETTING = setting
    seeds = range(first_seed, first_seed + games)
    processes = min(os.cpu_count() or 1, 8)
    if processes == 1 or games < 20:
        return [_play_one(seed) for seed in seeds]
    with mp.get_context("fork").Pool(processes) as pool:
        return pool.map(_play_one, seeds, chunksize=max(1, games // (processes * 8)))


def share_interval(samples: list[float]) -> tuple[float, float, float]:
    """Mean of per-game shares (each 0…1) and its 95 % interval (normal approximation)."""
    n = len(samples)
    mean = sum(samples) / n
    spread = statistics.pstdev(samples) if n > 1 else 0.0
    half = Z95 * spread / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def seat_lines(outcomes: list[Outcome], players: int, names: list[str] | None = None) -> list[str]:
    """Per seat: wins as a multiple of the fair share, with the 95 % interval, and a verdict."""
    fair = 1 / players
    lines = ["    seat            wins   × fair share  (95 % interval)"]
    for seat in range(players):
        mean, low, high = share_interval([o.shares[seat] for o in outcomes])
        flag = ""
        if low / fair > 1.0 and mean / fair > 1.25:
            flag = "  favoured beyond noise"
        elif high / fair < 1.0 and mean / fair < 0.8:
            flag = "  disfavoured beyond noise"
        name = names[seat] if names else f"{seat + 1}"
        lines.append(
            f"    {name:<12} {mean:7.1%}   {mean / fair:5.2f}        ({low / fair:4.2f}–{high / fair:4.2f}){flag}"
        )
    return lines


def ending_lines(outcomes: list[Outcome]) -> list[str]:
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.ending] = counts.get(outcome.ending, 0) + 1
    told = ", ".join(f"{ending} {count / len(outcomes):.1%}" for ending, count in sorted(counts.items()))
    return [f"    how games end: {told}"]


def spread_lines(outcomes: list[Outcome]) -> list[str]:
    """The winner's margin over the runner-up, and how often first place is tied on points."""
    margins, tied, zero = [], 0, 0
    for outcome in outcomes:
        ordered = sorted(outcome.scores, reverse=True)
        margins.append(ordered[0] - ordered[1])
        tied += ordered[0] == ordered[1]
        zero += ordered[0] == 0
    winning = statistics.mean(max(o.scores) for o in outcomes)
    return [
        f"    scores: the winner's {winning:.1f} on average; margin over the runner-up median "
        f"{statistics.median(margins):g}, mean {statistics.mean(margins):.1f}; first place tied on "
        f"points {tied / len(outcomes):.1%}; nobody scored {zero / len(outcomes):.1%}"
    ]


def extra_lines(outcomes: list[Outcome]) -> list[str]:
    keys = sorted({key for outcome in outcomes for key in outcome.extra})
    lines = []
    for key in keys:
        values = [float(outcome.extra.get(key, 0)) for outcome in outcomes]
        if all(v in (0.0, 1.0) for v in values):
            lines.append(f"    {key}: {sum(values) / len(values):.1%}")
        elif "× fair share" in key:  # a seat's share by another measure (e.g. place in turn order)
            mean = statistics.mean(values)
            half = Z95 * statistics.pstdev(values) / math.sqrt(len(values))
            lines.append(f"    {key}: {mean:.2f} (95 % interval {mean - half:.2f}–{mean + half:.2f})")
        else:
            lines.append(f"    {key}: mean {statistics.mean(values):.2f}, median {statistics.median(values):g}")
    return lines


def seat_balance(setting: Setting, games: int, label: str = "", names: list[str] | None = None) -> list[str]:
    """The whole table for one game and table size."""
    outcomes = play_many(setting, games)
    title = label or f"{setting.spec.title}, {setting.players} players"
    opening = f", {setting.random_opening} random opening move(s) a seat" if setting.random_opening else ""
    return [
        f"  {title}: {games} games of stand-ins only{opening}",
        *seat_lines(outcomes, setting.players, names),
        *ending_lines(outcomes),
        *spread_lines(outcomes),
        *extra_lines(outcomes),
    ]


def head_to_head(
    spec: GameSpec,
    new: Callable,
    old: Callable,
    players: int,
    games: int,
    options: dict | None = None,
    random_opening: int = 0,
    names: tuple[str, str] = ("new", "old"),
) -> list[str]:
    """The new stand-in in half the seats (rounded down, at least one), the old in the rest,
    rotated game by game; the new one's share of wins per seat it held, beside the fair share."""
    new_seats = max(1, players // 2)
    shares: list[float] = []
    for rotation in range(players):
        held = {(rotation + k) % players for k in range(new_seats)}
        who = tuple(new if seat in held else old for seat in range(players))
        setting = Setting(spec, players, options or {}, who, random_opening)
        count = games // players + (rotation < games % players)
        for outcome in play_many(setting, count, first_seed=10_000 * (rotation + 1)):
            shares.append(sum(outcome.shares[seat] for seat in held) / new_seats)
    mean, low, high = share_interval(shares)
    fair = 1 / players
    return [
        f"  {spec.title}, {players} players, {names[0]} stand-in in {new_seats} seat(s) against the {names[1]}: "
        f"{mean:.1%} of wins a seat against a fair {fair:.1%} = {mean / fair:.2f}× "
        f"(95 % interval {low / fair:.2f}–{high / fair:.2f}×; {len(shares)} games)"
    ]


def chooser_coverage(spec: GameSpec, players: int, games: int, first_seed: int = 1) -> list[str]:
    """How well the chooser's codes cover the game (issue 27): over games of stand-ins only, the
    share of decisions where the move the stand-in makes is one of the numbered codes (featured
    choices) of the mail notice, per kind of move; and whether every legal move is offered exactly
    once, as a group and a label (two steps of the web chooser)."""
    global _SETTING
    _SETTING = Setting(spec, players)
    seeds = range(first_seed, first_seed + games)
    if (os.cpu_count() or 1) > 1 and games >= 20:
        with mp.get_context("fork").Pool(min(os.cpu_count() or 1, 8)) as pool:
            counts = pool.map(_coverage_one, seeds, chunksize=max(1, games // 16))
    else:
        counts = [_coverage_one(seed) for seed in seeds]
    total: dict[str, list[int]] = {}
    missing = 0
    for per_kind, lost in counts:
        missing += lost
        for kind, (hit, seen) in per_kind.items():
            row = total.setdefault(kind, [0, 0])
            row[0] += hit
            row[1] += seen
    hits, seen = sum(r[0] for r in total.values()), sum(r[1] for r in total.values())
    kinds = ", ".join(f"{kind} {hit / n:.0%} of {n}" for kind, (hit, n) in sorted(total.items()))
    return [
        f"  {spec.title}, {players} players, {games} games of stand-ins: the stand-in's move is a numbered "
        f"code in {hits / seen:.1%} of {seen} decisions (target 95 %); by move: {kinds}",
        f"    every legal move offered exactly once, as group then label (two steps): "
        f"{'yes' if not missing else f'no, {missing} decisions with a move missing or twice'}",
    ]


def _coverage_one(seed: int) -> tuple[dict, int]:
    assert _SETTING is not None
    spec = _SETTING.spec
    pick = random.Random(seed)
    table = Table(spec, _SETTING.players, {}, seed=f"balance-{seed}".encode())
    table.check_mutation = False
    per_kind: dict[str, list[int]] = {}
    missing = 0
    while awaited := spec.waiting_for(table.state):
        seat = pick.choice(awaited)
        legal = spec.legal(table.state, seat)
        command = spec.standin(spec.view(table.state, seat), legal)
        if len(legal) > 1:
            offered = spec.choices_for(table.state, seat)
            numbered = [c.command for c in offered if c.featured]
            row = per_kind.setdefault(str(command.get("type")), [0, 0])
            row[0] += command in numbered
            row[1] += 1
            listed = [c.command for c in offered]
            missing += len(listed) != len(legal) or any(listed.count(c) != 1 for c in legal)
        table.act(seat, command)
    return per_kind, missing


def decision_time_lines(
    spec: GameSpec, standins: list[tuple[str, Callable]], games_per_size: int = 4, sizes: tuple = (2, 3, 4)
) -> list[str]:
    """Each stand-in's time per decision over games of stand-ins only at 2, 3 and 4 players (or
    `sizes`; a stand-in also plays for a timed-out seat in production: a few ms is the target)."""
    lines = [
        f"{spec.name}: time per stand-in decision, {games_per_size} games of stand-ins per table size "
        f"({sizes[0]}-{sizes[-1]} players)"
    ]
    for name, standin in standins:
        spent: list[float] = []

        def timed(view, legal, standin=standin, spent=spent):
            start = time.perf_counter()
            command = standin(view, legal)
            spent.append(time.perf_counter() - start)
            return command

        for players in sizes:
            setting = Setting(spec, players, players_of=(timed,) * players)
            for seed in range(games_per_size):
                play(setting, 900 + seed)
        lines.append(
            f"  {name:18} mean {statistics.mean(spent) * 1e3:.2f} ms, p50 {percentile_ms(spent, 0.5):.2f} ms, "
            f"p99 {percentile_ms(spent, 0.99):.1f} ms, max {max(spent) * 1e3:.0f} ms ({len(spent)} decisions)"
        )
    return lines
