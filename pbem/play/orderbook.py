"""What a seat's orders given ahead are, read from a game's state alone (no write path): the
orders in force and whether they move for the seat now. The write path (pbem.play.runner) asks
it after each append; pbem.play.orders, which plays the orders through the write path, builds on it."""

from __future__ import annotations

from games.base import forced_move

FORCED, STANDING, CONDITIONAL = "forced", "standing", "conditional"


def orders_of(state: dict, seat: int) -> list[dict]:
    """The seat's orders in force, oldest first: {"id": seq, "kind": …, …}."""
    return list(state["meta"].get("orders", {}).get(str(seat), ()))


def has_orders(state: dict, seats) -> bool:
    """Whether any of `seats` holds an order (what the write path asks after each append)."""
    held = state["meta"].get("orders")
    return bool(held) and any(held.get(str(seat)) for seat in seats)


def plays_at_once(spec, state: dict, seat: int) -> bool:
    """Whether the seat's forced-move or standing orders make its move now (read from the state
    alone: a conditional order needs the log, and its seat is told of its turn as usual)."""
    game = state["game"]
    held = [o for o in orders_of(state, seat) if o["kind"] in (FORCED, STANDING)]
    if not held or game is None or seat in state["meta"].get("standins", ()) or state["meta"]["paused"]:
        return False
    if seat not in spec.waiting_for(game):
        return False
    legal = spec.legal(game, seat)
    if spec.follow_order is not None and any(o["kind"] == STANDING for o in held):
        view = spec.view(game, seat)
        for order in held:
            if order["kind"] == STANDING and spec.follow_order(order["order"], view, legal) in legal:
                return True
    return any(o["kind"] == FORCED for o in held) and forced_move(spec, game, seat) is not None
