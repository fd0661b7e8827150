"""Rules version 2 (RULINGS.md): new games record it in GameStarted and follow the rulebook's letter
(a contested spell is always sold; trade offers are free unless the table limits them); a game
whose log has no version keeps the rules it was started with."""

from __future__ import annotations

import json
from pathlib import Path

from games.testing import Table, check_golden, event_from_json
from games.zauberschwert import GAME
from games.zauberschwert.rules import RULES_VERSION, rules_version

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "zauberschwert"


def test_a_new_game_records_rules_version_2_and_no_offer_limit():
    t = Table(GAME, 3)
    assert RULES_VERSION == 2
    assert t.events[0].data["rules"] == 2 and rules_version(t.state) == 2
    assert t.events[0].data["options"] == {"offers_per_round": 0}


def test_a_log_written_before_rules_version_2_replays_unchanged_under_the_old_rules():
    record = json.loads((GOLDEN / "three_players.json").read_text())
    check_golden(GAME, record)  # the same final state as when it was recorded
    state, openings, offers = None, 0, 0
    for raw in record["events"]:
        state = GAME.evolve(state, event_from_json(raw))
        assert "rules" not in state and rules_version(state) == 1 and state["offers_limit"] == 2
        awaited = GAME.waiting_for(state)
        if state["step"] == "auction" and state["auction"]["high"] is None:
            openings += 1  # version 1: the first bidder may pass
            assert {"type": "pass"} in GAME.legal(state, awaited[0])
        if state["step"] == "trade" and state["offers"]:
            offers += 1  # version 1: an offerer waits for the answer
            waiting = {o["from"] for o in state["offers"]} - {o["to"] for o in state["offers"]}
            assert not waiting & set(awaited)
    assert openings and offers
