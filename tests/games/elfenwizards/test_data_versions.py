"""Placement data versions (RULINGS.md, "Data version 2"): new games are set up with the current
placement table and say so; games set up before replay unchanged from their own logs."""

from __future__ import annotations

import json
from pathlib import Path

from games.elfenwizards import GAME
from games.elfenwizards.board import DATA_VERSION, placement
from games.testing import Table, check_golden

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "elfenwizards"
V1_THREE = {
    "red": ["D1", "S3", "N2", "N7", "W1", "W2", "W3"],
    "green": ["D2", "S2", "N3", "N6", "W1", "W2", "W3"],
    "blue": ["S1", "S4", "N1", "N4", "N5", "N8", "W2"],
}


def positions(started) -> dict:
    out: dict = {}
    for (seat, space), _name in zip(started["wizards"], started["names"]):
        out.setdefault(started["colours"][seat], []).append(space)
    return out


def test_data_version_2_changes_only_the_three_player_placement():
    assert DATA_VERSION == 2
    assert placement(3, version=1)["positions"] == V1_THREE
    assert placement(3)["positions"] == {
        "red": ["D1", "S3", "N2", "N4", "N5", "W1", "W2"],
        "green": ["D2", "S2", "N3", "N6", "N7", "W1", "W3"],
        "blue": ["S1", "S4", "N1", "N8", "W1", "W2", "W3"],
    }
    for players in (4, 5):
        assert placement(players, version=1) == placement(players)


def test_the_new_three_player_placement_keeps_the_proposals_rules():
    """14 titles filled, the Grand Druid empty, no player on both spaces of a contested pair,
    7 wizards each, every occupied Wizard space shared by two colours or more."""
    table = placement(3)["positions"]
    spaces = [sp for held in table.values() for sp in held]
    titles = [sp for sp in spaces if not sp.startswith("W")]
    assert sorted(titles) == sorted(["D1", "D2", "S1", "S2", "S3", "S4"] + [f"N{i}" for i in range(1, 9)])
    assert all(len(held) == 7 for held in table.values())
    pairs = [("D1", "D2"), ("S1", "S2"), ("S3", "S4"), ("N1", "N2"), ("N3", "N4"), ("N5", "N6"), ("N7", "N8")]
    for held in table.values():
        assert not any(a in held and b in held for a, b in pairs)
    for w in ("W1", "W2", "W3", "W4"):
        colours = {c for c, held in table.items() if w in held}
        assert len(colours) != 1


def test_a_new_game_records_its_data_version_and_is_set_up_with_it():
    for players in (3, 4, 5):
        started = Table(GAME, players, seed=b"new").events[0].data
        assert started["data"] == 2
        assert positions(started) == placement(players)["positions"]


def test_old_games_were_set_up_with_data_version_1_and_replay_unchanged():
    for name in ("three_players.json", "four_players_translator_variant.json", "five_players.json"):
        record = json.loads((GOLDEN / name).read_text())
        started = record["events"][0]["data"]
        assert "data" not in started  # recorded before data versions: version 1
        assert positions(started) == placement(record["players"], version=1)["positions"]
        check_golden(GAME, record)


def test_the_golden_game_of_stand_ins_on_data_version_2_replays():
    record = json.loads((GOLDEN / "three_players_data2_standins.json").read_text())
    assert record["events"][0]["data"]["data"] == 2
    assert positions(record["events"][0]["data"]) == placement(3)["positions"]
    check_golden(GAME, record)
