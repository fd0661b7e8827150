"""Stand-in players: a seat whose player has gone is played by its game's stand-in
(`GameSpec.standin`, which sees only that seat's view), through the one write path as its own
actor ("standin"), until the player comes back (any move of theirs, or `back`).

A seat gets a stand-in when it misses `Game.standin_after` deadlines in a row and the table chose
the stand-in (`Game.absence_policy`), when the Master of Seals seats one from the desk, or from
the start in a practice game. Whenever such a seat is awaited, `play` makes its move at once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import connection

from pbem.models import ActorKind, Game, GameStatus
from pbem.play import orders, outbox
from pbem.play.orderbook import orders_of
from pbem.play.runner import Actor, ServiceError, Work, emit_game_events, run, run_group

log = logging.getLogger(__name__)

# Moves one call makes before it queues itself again (a game of stand-ins plays on in steps).
MAX_MOVES = 200


def standin_seats(state: dict) -> list[int]:
    return list(state["meta"].get("standins", ()))


def choose(spec, game_state, seat: int) -> dict | None:
    """The stand-in's command for `seat` now: the game's own stand-in, from the seat's view and
    its legal moves; a game without one plays the rules' minimal action, else its first legal move."""
    legal = spec.legal(game_state, seat)
    if not legal:
        return None
    if spec.standin is not None:
        return spec.standin(spec.view(game_state, seat), legal)
    return spec.timeout(game_state, seat) or legal[0]


def play(game_id: int) -> int:
    """Plays every stand-in seat the game awaits, and every awaited seat's orders given ahead
    (pbem.play.orders), until none moves (or MAX_MOVES); returns the number of moves made."""
    moves = 0
    while moves < MAX_MOVES:
        row = Game.objects.filter(pk=game_id).values("status", "awaited").first()
        if row is None or row["status"] != GameStatus.RUNNING:
            break
        played = 0
        for seat in row["awaited"] or []:
            played += _move(game_id, seat) or orders.play_seat(game_id, seat)
            if moves + played >= MAX_MOVES:
                break
        if not played:
            break
        moves += played
    else:
        outbox.queue_task("pbem.tasks.play_standins", game_id)  # more to play: in another task
    return moves


def _move(game_id: int, seat: int) -> int:
    made = {"moves": 0}

    def body(work: Work):
        made["moves"] = _standin_move(work, seat)

    try:
        run(game_id, Actor(ActorKind.STANDIN, seat), body)
    except ServiceError:
        log.warning("the stand-in for seat %s of game %s could not play", seat, game_id, exc_info=True)
        return 0
    return made["moves"]


def _standin_move(work: Work, seat: int) -> int:
    """The stand-in's move for `seat` emitted on `work`, if it plays that seat and the game awaits
    it (1), else nothing (0)."""
    state = work.state
    if seat not in standin_seats(state) or state["game"] is None or state["meta"]["paused"]:
        return 0
    if seat not in work.spec.waiting_for(state["game"]):
        return 0
    command = choose(work.spec, state["game"], seat)
    if command is None:
        return 0
    rng = work.rng()
    emit_game_events(work, work.spec.decide(state["game"], seat, command, rng), rng)
    return 1


@dataclass
class _Pass:
    """Where play() would be in a game: the awaited seats of its current pass still to try, the
    moves made in this pass and in all."""

    seats: list[int] | None = None  # None: a new pass begins (the awaited seats read again)
    played: int = 0
    moves: int = 0
    version: int = 0  # the version its last round saw (a round that made no move)
    verdict: str = "moved"  # moved, finished, alone (handed to play())


def play_many(game_ids: list[int]) -> int:
    """play() for many games at once (the stand-ins a group of timeouts seated: one task for the
    group, not one a game): in each game the same moves in the same order, each its own append
    as the stand-in of its seat, but in rounds of one move a game, a round's moves appended in one
    transaction (runner.run_group: one commit for the round, not one a move). A game whose turn
    comes to a seat holding orders given ahead, or that a round could not do, is played on its
    own by play(). On PostgreSQL (elsewhere each game goes through play()). Returns the moves made."""
    if connection.vendor != "postgresql":
        return sum(play(game_id) for game_id in game_ids)
    games = {game_id: _Pass() for game_id in sorted(set(game_ids))}
    alone: list[int] = []
    moves = 0
    while games:
        plans = {game_id: _Pass() for game_id in games}  # what this round did (a body may run twice)
        bodies = {game_id: (lambda work, g=game_id, p=plans: _round(work, g, games, p)) for game_id in games}
        try:
            done = run_group(bodies, Actor(ActorKind.STANDIN))
        except Exception:  # noqa: BLE001 - nothing of the round is in: each game on its own, as before
            log.warning("a round of %d stand-in moves failed; playing them one by one", len(games), exc_info=True)
            alone += list(games)
            break
        idle = {game_id: plan.version for game_id, plan in plans.items() if plan.verdict == "finished"}
        if idle:  # judged on a cached state: the game must still be at the version it was judged at
            now = dict(Game.objects.filter(pk__in=list(idle)).values_list("id", "version"))
            for game_id, version in idle.items():
                if now.get(game_id) != version:
                    plans[game_id].verdict = "alone"
        for game_id, plan in plans.items():
            if plan.verdict == "moved" and done.get(game_id) is None:
                plan.verdict = "alone"  # its append did not go in: play() looks again
            if plan.verdict == "moved":
                games[game_id] = plan
                moves += 1
                if plan.moves >= MAX_MOVES:
                    outbox.queue_task("pbem.tasks.play_standins", game_id)  # more to play: in another task
                    del games[game_id]
                continue
            del games[game_id]
            if plan.verdict == "alone":
                alone.append(game_id)
    return moves + sum(play(game_id) for game_id in alone)


def _round(work: Work, game_id: int, games: dict[int, _Pass], plans: dict[int, _Pass]) -> None:
    """A round's body for one game: its next move, from where the rounds before left it."""
    before = games[game_id]
    plans[game_id] = plan = _Pass(None if before.seats is None else list(before.seats), before.played, before.moves)
    _next_move(work, plan)


def _next_move(work: Work, plan: _Pass) -> None:
    """The next move play() would make in the game (one), emitted on `work` as the stand-in of
    its seat; `plan` says where play() is and is told what came of it."""
    plan.version = work.loaded.version
    while True:
        if plan.seats is None:
            if work.game["status"] != GameStatus.RUNNING:
                plan.verdict = "finished"
                return
            plan.seats, plan.played = list(work.game.get("awaited") or []), 0
        if not plan.seats:
            if not plan.played:
                plan.verdict = "finished"
                return
            plan.seats = None  # play() reads the awaited seats again
            continue
        seat = plan.seats.pop(0)
        if seat not in standin_seats(work.state) and orders_of(work.state, seat):
            plan.verdict = "alone"  # orders given ahead: play() plays them (pbem.play.orders)
            return
        work.actor = Actor(ActorKind.STANDIN, seat)
        if _standin_move(work, seat):
            plan.played += 1
            plan.moves += 1
            plan.verdict = "moved"
            if plan.moves >= MAX_MOVES:
                plan.seats = []
            return
