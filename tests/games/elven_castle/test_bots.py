"""Random bots over legal(): complete games for every player count and scoring variant, with the
experienced-player options and the scenarios rotating over the seeds, checking the game's
invariants and that no view leaks; 1,000 games per configuration in the soak run
(`pytest -m soak tests/games`)."""

from __future__ import annotations

import pytest

from games.elven_castle import GAME, rules
from games.testing import play_random

from .helpers import check

SCENARIO_NAMES = ["none"] + list(rules.SCENARIOS)


def options_for(n, variant, seed):
    """Seed-rotated options: staircase and penalties on every other game, each scenario in turn."""
    opts = {"scoring": variant, "staircase": seed % 2 == 0, "penalties": seed % 4 < 2}
    if n >= 3:
        opts["scenario"] = SCENARIO_NAMES[(seed // 2) % len(SCENARIO_NAMES)]
    return opts


CONFIGS = [(n, v) for n in (2, 3, 4) for v in ("A", "B")]


def _play(n, opts, seed, check_every):
    table = play_random(GAME, n, opts, seed=seed, check=check, check_every=check_every)
    check(table)
    assert table.state["end"]["reason"] in ("no pieces", "no space")
    result = GAME.result(table.state)
    assert len(result.scores) == n and result.ranking()
    return table


@pytest.mark.parametrize("config", CONFIGS, ids=[f"{n}p-variant{v}" for n, v in CONFIGS])
def test_random_bots_play_50_complete_games_per_player_count_and_variant(config):
    n, variant = config
    for seed in range(50):
        _play(n, options_for(n, variant, seed), seed, check_every=7)


def test_random_bots_make_and_place_staircases():
    made = placed = 0
    for seed in range(200, 230):
        table = _play(4, {"scoring": "B", "staircase": True, "penalties": True}, seed, check_every=7)
        made += sum(1 for e in table.events if e.type == "StaircaseMade")
        placed += sum(1 for e in table.events if e.type == "PiecePlaced" and e.data["kind"] == "staircase")
        if made and placed:
            break
    assert made and placed, "the bots never made and placed a staircase: the option is not exercised"


@pytest.mark.parametrize("scenario", list(rules.SCENARIOS))
def test_random_bots_play_each_scenario_50_times_in_all(scenario):
    # the rotation above gives each scenario about 33 games; these make it at least 50
    for seed in range(17):
        n = 3 + seed % 2
        _play(
            n,
            {"scenario": scenario, "scoring": "AB"[seed % 2], "staircase": True, "penalties": True},
            100 + seed,
            check_every=7,
        )


@pytest.mark.soak
@pytest.mark.parametrize("config", CONFIGS, ids=[f"{n}p-variant{v}" for n, v in CONFIGS])
def test_soak_random_bots_play_1000_games_per_player_count_and_variant(config, request):
    if "soak" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("soak run only: pytest -m soak tests/games")
    n, variant = config
    for seed in range(1000, 2000):
        _play(n, options_for(n, variant, seed), seed, check_every=3)
