"""Stand-in players: a seat whose player has gone is played by its game's stand-in
(`GameSpec.standin`, which sees only that seat's view), through the one write path as its own
actor ("standin"), until the player comes back (any move of theirs, or `back`).

A seat gets a stand-in when it misses `Game.standin_after` deadlines in a row and the table chose
the stand-in (`Game.absence_policy`), when the Master of Seals seats one from the desk, or from
the start in a practice game. Whenever such a seat is awaited, `play` makes its move at once.
"""

from __future__ import annotations

import logging

from pbem.models import ActorKind, Game, GameStatus
from pbem.play import orders, outbox
from pbem.play.runner import Actor, ServiceError, Work, emit_game_events, run

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
        state = work.state
        if seat not in standin_seats(state) or state["game"] is None or state["meta"]["paused"]:
            return
        if seat not in work.spec.waiting_for(state["game"]):
            return
        command = choose(work.spec, state["game"], seat)
        if command is None:
            return
        rng = work.rng()
        emit_game_events(work, work.spec.decide(state["game"], seat, command, rng), rng)
        made["moves"] = 1

    try:
        run(game_id, Actor(ActorKind.STANDIN, seat), body)
    except ServiceError:
        log.warning("the stand-in for seat %s of game %s could not play", seat, game_id, exc_info=True)
        return 0
    return made["moves"]
