"""Random bots over legal(): complete games with the game's invariants checked.

Default suite: 50 games per player count (checks every 10th step, describe/parse too).
Soak: 1,000 games per player count, checked after every event: `pytest -m soak tests/games`.
"""

import json
import re

import pytest

from games.testing import play_random
from games.zauberschwert import GAME
from games.zauberschwert.rules import ADV, ART, CAP

GAMES = 50
SOAK_GAMES = 1000


CARD_ID = re.compile(r'"([A-Z]{1,3}\d\d)"')


def card_ids(view):
    """Every card id anywhere in a view (ids are strings like "A05" or "ART12")."""
    return set(CARD_ID.findall(json.dumps(view)))


def check(table):
    s = table.state
    n = s["n"]
    # components conserved: 25 adventure cards, 28 artifact cards, each exactly once
    adventure = s["adv_deck"] + [c for c in s["display"] if c is not None] + s["gone"] + sum(s["spells"], [])
    assert sorted(adventure) == sorted(ADV), "adventure cards not conserved"
    artifacts = s["art_deck"] + sum(s["hand"], []) + sum(s["laid"], []) + s["discards"]
    assert sorted(artifacts) == sorted(ART), "artifact cards not conserved"
    # magic within 0..30, scores consistent with the score sheet and the summary
    assert all(0 <= m <= CAP for m in s["mp"])
    sheet = [0] * n
    for line in GAME.score_sheet(s):
        sheet[line.seat] += line.points
    assert sheet == s["ps"] == GAME.summary(s)["scores"]
    # laid-out artifacts are complete
    for laid in s["laid"]:
        for cid in laid:
            assert all(c in laid for c in ART_CARDS[ART[cid]["artifact"]])
    # no view holds another seat's secret (hand cards, deck order)
    hidden_everywhere = set(s["adv_deck"]) | set(s["art_deck"])
    for viewer in [None, *range(n)]:
        # a card *asked for* in an offer is a wish, not knowledge: leave those names out
        wishes = {o["want"] for o in s["offers"] if viewer in (o["from"], o["to"])}
        seen = card_ids(GAME.view(s, viewer)) - wishes
        assert not (seen & hidden_everywhere), "a view shows face-down deck cards"
        if s["step"] == "over":  # RULINGS.md: at the end every hand is shown to everyone
            assert set(sum(s["hand"], [])) <= seen
            continue
        for owner in range(n):
            if owner == viewer:
                continue
            shown = {o["give"] for o in s["offers"] if o["from"] == owner and o["to"] == viewer}
            leaked = (set(s["hand"][owner]) - shown) & seen
            assert not leaked, f"seat {viewer} sees seat {owner}'s hand cards {leaked}"
    if s["step"] == "over":
        assert GAME.result(s) is not None


ART_CARDS = {}
for _c in ART.values():
    ART_CARDS.setdefault(_c["artifact"], []).append(_c["id"])


def _finish(table):
    result = GAME.result(table.state)
    assert result is not None and result.scores == table.state["ps"]
    text = GAME.render_text(GAME.view(table.state, 0))
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_bots_play_50_complete_games(players):
    for seed in range(GAMES):
        table = play_random(GAME, players, seed=seed, check=check, check_every=10)
        _finish(table)


@pytest.mark.soak
@pytest.mark.parametrize("players", [2, 3, 4])
def test_soak_random_bots_play_1000_complete_games(players, request):
    if "soak" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("soak run: pytest -m soak tests/games")
    for seed in range(10_000, 10_000 + SOAK_GAMES):
        table = play_random(GAME, players, seed=seed, check=check, check_every=1)
        _finish(table)
