"""Random bots over legal(): complete games for every player count and variant, with the game's
invariants checked after every event. Soak: `pytest -m soak tests/games`."""

from __future__ import annotations

import json

import pytest

from games.elfenwizards import GAME
from games.elfenwizards.board import DICE_PER_PLAYER, GRAY_TOKENS, MINOR_PER_PLAYER, TITLE_SPACES, TURNS
from games.elfenwizards.rules import SPACE_LEVEL, order
from games.testing import play_random

CONFIGS = [(n, variant) for n in (3, 4, 5) for variant in (False, True)]
PUBLIC_ONLY = ("seat", "you")
TITLES = set(TITLE_SPACES)


def invariants(s):
    n = s["n"]
    dice = list(s["front"])
    minor = [a + b for a, b in zip(s["supply"], s["mspace"])]
    if s["rolled"] is not None and s["cur"] < n:
        dice[order(s)[s["cur"]]] += len(s["rolled"])
    for pairs in (*s["major"].values(), s["mdice"], s["gdice"]):
        for st, _v in pairs:
            dice[st] += 1
    for _w, st, v in s["cast"]:
        if v:
            dice[st] += 1
        else:
            minor[st] += 1
    for _t, st in s["counter"]:
        minor[st] += 1
    assert dice == [DICE_PER_PLAYER] * n, "major spells not conserved"
    assert minor == [MINOR_PER_PLAYER] * n, "minor spells not conserved"
    assert min(s["front"]) >= 0 and min(s["supply"]) >= 0 and min(s["mspace"]) >= 0
    gray = s["gsupply"]
    seen = set()
    for _o, sp, g in s["wiz"]:
        assert g >= 0 and sp in SPACE_LEVEL
        gray += g
        if sp in TITLES:
            assert sp not in seen, f"two wizards on {sp}"
            seen.add(sp)
    assert gray == GRAY_TOKENS and s["gsupply"] >= 0
    scores = [0] * n
    for row in s["sheet"]:
        scores[row[1]] += row[2]
    assert scores == s["scores"]
    assert 1 <= s["turn"] <= TURNS
    assert s["no_gd"] <= 2 and max(s["gd_count"]) <= 2
    assert len(s["counter"]) <= s["turn"]


def make_check(players, every=40):
    steps = {"n": 0}

    def check(table):
        s = table.state
        invariants(s)
        steps["n"] += 1
        if steps["n"] % every and GAME.result(s) is None:
            return
        # Everything in Elfenwizards is public: every seat sees exactly what a spectator sees.
        public = GAME.view(s, None)
        for seat in range(players):
            v = GAME.view(s, seat)
            assert {k: x for k, x in v.items() if k not in PUBLIC_ONLY} == {
                k: x for k, x in public.items() if k not in PUBLIC_ONLY
            }
            assert json.loads(json.dumps(v)) == v
        text = GAME.render_text(public)
        assert max(len(line) for line in text.splitlines()) <= 80
        assert "<svg" in GAME.render_html(public)
        summary = GAME.summary(s)
        assert summary["scores"] == s["scores"]
        sheet = GAME.score_sheet(s)
        assert [sum(x.points for x in sheet if x.seat == p) for p in range(players)] == s["scores"]

    return check


def run_games(players, variant, count, first_seed=0, every=1):
    for seed in range(first_seed, first_seed + count):
        table = play_random(
            GAME, players, {"translator_variant": variant}, seed=seed, check=make_check(players), check_every=every
        )
        result = GAME.result(table.state)
        assert result is not None and result.scores == table.state["scores"]
        for e in table.events:
            GAME.narrate(e, [f"P{i}" for i in range(players)])


@pytest.mark.parametrize("players, variant", CONFIGS)
def test_random_bots_play_50_complete_games(players, variant):
    run_games(players, variant, 50, every=2)


@pytest.mark.soak
@pytest.mark.parametrize("players, variant", CONFIGS)
def test_soak_random_bots_play_1000_complete_games(players, variant, request):
    if "soak" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("soak run: pytest -m soak tests/games")
    run_games(players, variant, 1000, first_seed=10_000)
