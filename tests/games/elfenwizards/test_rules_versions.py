"""Rules version 2 (RULINGS.md): new games record it in GameStarted and follow the rulebook's letter
(any dice may be spent, the player says which wizard loses a gray magic token, anyone may cast for
a lone candidate); a game whose log has no version keeps the rules it was started with."""

from __future__ import annotations

import json
from pathlib import Path

from games.elfenwizards import GAME
from games.elfenwizards.rules import RULES_VERSION, rules_version
from games.testing import Table, check_golden, event_from_json

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "elfenwizards"


def test_a_new_game_records_rules_version_2():
    t = Table(GAME, 4)
    assert RULES_VERSION == 2
    assert t.events[0].data["rules"] == 2 and rules_version(t.state) == 2


def test_a_log_written_before_rules_version_2_replays_unchanged_under_the_old_rules():
    record = json.loads((GOLDEN / "five_players.json").read_text())
    check_golden(GAME, record)  # the same final state as when it was recorded
    state, removals = None, []
    for raw in record["events"]:
        state = GAME.evolve(state, event_from_json(raw))
        assert "rules" not in state and rules_version(state) == 1
        for seat in GAME.waiting_for(state):
            legal = GAME.legal(state, seat)
            if legal and legal[0]["type"] == "remove":
                removals.append((json.loads(json.dumps(state)), seat, legal))
    assert removals, "the golden game has a removal of gray magic to look at"
    for old_state, seat, legal in removals:
        assert all("from" not in command for command in legal)  # version 1: the game picks
        old_state["rules"] = 2  # the same moment in a game of today's rules
        assert all("from" in command for command in GAME.legal(old_state, seat))
