"""Shared helpers for the Elfenland tests: scenario tables and the invariant check."""

from __future__ import annotations

import json
from collections import Counter

from games.elfenland import GAME
from games.elfenland import board as B
from games.elfenland import rules as R
from games.testing import Table

SECRET = "SECRET-7f3a"


def table(players=3, seed=b"elfenland-test", **options) -> Table:
    return Table(GAME, players, options, seed=seed)


def given(
    players=3,
    phase=None,
    turn=None,
    hands=None,
    elf=None,
    board=None,
    trouble=None,
    up=None,
    down=None,
    seed=b"elfenland-test",
    rules=None,
    **options,
) -> Table:
    """A table whose state is set as a test describes it ('given Ann holds ... and stands at ...').
    `rules=1`: the table plays on as a game set up before rules version 2 would (RULINGS 16).

    `hands` maps seat -> list of card types; cards are moved from/to the deck so every component
    stays conserved. `board` maps route id -> counter type; counters come from the pile.
    """
    t = table(players, seed, **options)
    st = t.state
    if rules == 1:
        del st["rules"]  # a log written before rules version 2 has none
    if hands is not None:
        for seat, cards in hands.items():
            for c, k in st["hands"][seat].items():
                st["deck"][c] += k
            st["hands"][seat] = dict.fromkeys(R.CARDS, 0)
            for c in cards:
                st["hands"][seat][c] += 1
                st["deck"][c] -= 1
    if elf is not None:
        for seat, town in elf.items():
            st["elf"][seat] = town
    for attr, value in (("up", up), ("down", down)):
        if value is not None:
            for seat, counters in value.items():
                for c in st[attr][seat]:
                    st["pile"][c] += 1
                st[attr][seat] = list(counters)
                for c in counters:
                    st["pile"][c] -= 1
    if board is not None:
        for c in st["board"].values():
            st["pile"][c] += 1
        st["board"] = dict(board)
        for c in board.values():
            st["pile"][c] -= 1
    if trouble is not None:
        st["trouble"] = dict(trouble)
        for seat in trouble.values():
            st["trouble_left"][seat] = False
    if phase is not None:
        st["phase"] = phase
        if phase in ("move", "place"):
            # return the face-up pool to the pile, as at the end of step 2
            for c in st["pool"]:
                st["pile"][c] += 1
            st["pool"] = []
        if phase == "move":
            st["step"] = (turn - st["first"]) % players if turn is not None else 0
        if phase == "place":
            st["passes"] = 0
    if turn is not None:
        st["turn"] = turn
    return t


def conserved(st) -> None:
    n = st["n"]
    counters = Counter()
    for c, k in st["pile"].items():
        assert k >= 0, "negative pile"
        counters[c] += k
    counters.update(st["pool"])
    for s in range(n):
        counters.update(st["up"][s])
        counters.update(st["down"][s])
        assert R.held(st, s) <= B.COUNTER_LIMIT, "more than five counters"
    counters.update(st["board"].values())
    assert dict(counters) == B.COUNTER_COUNTS, f"counters not conserved: {dict(counters)}"
    cards = Counter()
    for c, k in st["deck"].items():
        assert k >= 0
        cards[c] += k
    for s in range(n):
        for c, k in st["hands"][s].items():
            assert k >= 0
            cards[c] += k
        assert R.hand_size(st, s) <= B.HAND_SIZE
    assert dict(cards) == B.CARD_COUNTS, "movement cards not conserved"
    assert sum(st["trouble_left"]) + len(st["trouble"]) + st["trouble_used"] == n, "Trouble counters not conserved"
    for route in st["trouble"]:
        assert route in st["board"], "Trouble without a counter"
    for route, c in st["board"].items():
        assert B.allowed(c, route), "counter on a route it may not use"
    for s in range(n):
        towns = [t for t, _ in st["got"][s]]
        assert len(towns) == len(set(towns)) and set(towns) <= set(B.PIECE_TOWNS), "town pieces wrong"


def scores_consistent(st) -> None:
    summary = GAME.summary(st)
    sums = [0] * st["n"]
    for line in GAME.score_sheet(st):
        sums[line.seat] += line.points
    assert sums == summary["scores"], f"score sheet {sums} != summary {summary['scores']}"
    if st["phase"] == "over":
        res = GAME.result(st)
        assert res.scores == summary["scores"]


def no_leaks(st) -> None:
    """Plants a marker in every secret of every seat (its cards, face-down counters, City Card,
    pending keep choice) and checks that no view but that seat's own shows it."""
    n = st["n"]
    spy = R.clone(st)
    for s in range(n):
        mark = f"{SECRET}-{s}-"
        spy["hands"][s] = {**spy["hands"][s], mark + "hand": 0}
        spy["down"][s] = [mark + "down"] * len(spy["down"][s])
        if spy["home"][s] is not None and spy["phase"] != "over":
            spy["home"][s] = mark + "home"
        if spy["keep"][s] is not None and spy["phase"] == "keep":
            spy["keep"][s] = {"counter": mark + "keep", "hidden": False}
    for viewer in [None, *range(n)]:
        text = json.dumps(GAME.view(spy, viewer))
        for s in range(n):
            if s != viewer:
                assert f"{SECRET}-{s}-" not in text, f"seat {viewer} sees a secret of seat {s}"
        if viewer is not None:
            assert f"{SECRET}-{viewer}-hand" in text, "a seat must see its own cards"


def round_rules(st) -> None:
    """What the round's steps promise at any moment."""
    n = st["n"]
    if st["phase"] == "draw":
        assert len(st["pool"]) == B.POOL_SIZE or not sum(st["pile"].values()), "face-up pool not refilled"
    if st["phase"] in ("move", "discard"):
        moved = [(st["first"] + i) % n for i in range(st["step"])]
        assert all(R.hand_size(st, s) <= B.HAND_LIMIT_AFTER_MOVE for s in moved), "a mover kept 5+ cards"
    if st["phase"] in ("draw", "place", "move", "discard", "keep"):
        assert 1 <= st["round"] <= B.ROUNDS
    if st["phase"] == "keep":
        assert all(R.held(st, s) > B.KEEP_LIMIT for s in st["keep_await"])
    if st["phase"] == "over":
        assert st["round"] == B.ROUNDS or st["all20"]
        assert all(R.hand_size(st, s) <= B.HAND_LIMIT_AFTER_MOVE for s in range(n))


def check(t: Table) -> None:
    st = t.state
    conserved(st)
    round_rules(st)
    scores_consistent(st)
    no_leaks(st)
    assert json.loads(json.dumps(st)) == st
    assert GAME.waiting_for(st) or st["phase"] == "over"
    assert st["phase"] in ("draw", "place", "move", "discard", "keep", "over")
    v = GAME.view(st, GAME.waiting_for(st)[0] if GAME.waiting_for(st) else None)
    assert max(len(line) for line in GAME.render_text(v).splitlines()) <= 80


def events_hide_secrets(t: Table) -> None:
    for ev in t.events:
        if ev.visible_to is not None:
            pub = ev.public or {}
            assert not ({"cards", "counter", "card", "town"} & set(pub)), f"{ev.type} public form leaks"
