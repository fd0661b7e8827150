"""Random bots over legal(): complete games for every player count and variant, with the game's
invariants checked along the way (components conserved, score sheet = scores, no view shows
another seat's secrets, renders fit), the game ending and the log replaying to the live state.

Default suite: for each player count 2..6, 50 games, 10 with each of five option sets (base, each
variant alone, all three together), so every variant gets at least 50 games. Soak: 1,000 games per
player count and per option set, run with `pytest -m soak tests/games`.
"""

from __future__ import annotations

import pytest

from games.elfenland import GAME
from games.elfenland import rules as R
from games.testing import canonical, play_random

from .common import check, events_hide_secrets

CONFIGS = {
    "base": {},
    "home_cities": {"home_cities": True},
    "lakes": {"lakes": True},
    "boatmen": {"boatmen": True},
    "all": {"home_cities": True, "lakes": True, "boatmen": True},
}


def _play(players, config, seed, check_every):
    tb = play_random(GAME, players, CONFIGS[config], seed=seed, check=check, check_every=check_every)
    check(tb)
    events_hide_secrets(tb)
    st = tb.state
    assert st["phase"] == "over" and (st["round"] == 4 or st["all20"])
    res = GAME.result(st)
    assert res.scores == GAME.summary(st)["scores"]
    return tb


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_bots_complete_games(players, config):
    for seed in range(10):
        _play(players, config, seed=1000 * players + seed, check_every=10)


@pytest.mark.soak
@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_soak_random_bots(players, config, request):
    marks = request.config.getoption("-m") or ""
    if "soak" not in marks or "not soak" in marks:  # also safe where addopts does not deselect it
        pytest.skip("soak run: pytest -m soak tests/games")
    for seed in range(1000):
        _play(players, config, seed=10_000_000 + 10_000 * players + seed, check_every=2)


def _brute_reachable(state, seat):
    """Reference: tries every legal single move, card by card, with real hands."""
    towns = set()
    seen = set()
    stack = [(state["elf"][seat], R._hand_tuple(state["hands"][seat]))]
    while stack:
        town, hand = stack.pop()
        if (town, hand) in seen:
            continue
        seen.add((town, hand))
        for route, other in R.B.EXITS[town]:
            for _how, pay in R.payments(state, route, other, hand):
                towns.add(other)
                stack.append((other, tuple(a - b for a, b in zip(hand, pay))))
    towns.discard(state["elf"][seat])
    return sorted(towns)


@pytest.mark.parametrize("config", ["base", "all"])
def test_reachable_equals_a_brute_force_search(config):
    checked = 0
    for seed in range(3):
        tb = play_random(GAME, 3 + seed, CONFIGS[config], seed=seed)
        # walk the log again, comparing at every movement decision
        state = None
        for ev in tb.events:
            state = GAME.evolve(state, ev) if state is not None else GAME.evolve(None, ev)
            if state["phase"] == "move":
                assert R.reachable(state, state["turn"]) == _brute_reachable(state, state["turn"])
                checked += 1
    assert checked > 30


def test_replay_from_the_log_equals_the_live_state():
    tb = play_random(GAME, 5, CONFIGS["all"], seed=77)
    assert canonical(tb.replayed()) == canonical(tb.state)


def test_reachable_equals_brute_force_on_crowded_boards_with_full_hands():
    import random

    from games.elfenland import board as B

    from .common import given

    rnd = random.Random(5)
    for i in range(12):
        options = [{}, {"lakes": True}, {"boatmen": True}, {"lakes": True, "boatmen": True}][i % 4]
        board = {}
        for route in B.LAND_ROUTES:
            kinds = [c for c in B.COUNTER_TYPES if B.allowed(c, route)]
            if rnd.random() < 0.8:
                board[route] = rnd.choice(kinds)
        trouble = {r: 1 for r in rnd.sample(sorted(board), 3)}
        hand = [rnd.choice(R.CARDS) for _ in range(8)]
        t = given(
            3,
            phase="move",
            turn=0,
            elf={0: rnd.choice(B.TOWN_IDS)},
            hands={0: hand},
            board=board,
            trouble=trouble,
            **options,
        )
        assert R.reachable(t.state, 0) == _brute_reachable(t.state, 0)
