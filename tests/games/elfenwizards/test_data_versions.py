"""Placement data versions (RULINGS.md, "Data version 2" to "Data version 5"):
new games are set up with the current placement table and say so; games set up before replay
unchanged from their own logs and are dealt again under their own version."""

from __future__ import annotations

import json
from pathlib import Path

from games.base import Rng
from games.elfenwizards import GAME
from games.elfenwizards.board import DATA_VERSION, placement
from games.elfenwizards.rules import dealt_rows, setup_with_data
from games.testing import Table, check_golden, event_from_json, fold

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "elfenwizards"
V1_THREE = {
    "red": ["D1", "S3", "N2", "N7", "W1", "W2", "W3"],
    "green": ["D2", "S2", "N3", "N6", "W1", "W2", "W3"],
    "blue": ["S1", "S4", "N1", "N4", "N5", "N8", "W2"],
}
V2_THREE = {
    "red": ["D1", "S3", "N2", "N4", "N5", "W1", "W2"],
    "green": ["D2", "S2", "N3", "N6", "N7", "W1", "W3"],
    "blue": ["S1", "S4", "N1", "N8", "W1", "W2", "W3"],
}
# 5 players, data versions 1 and 2: black starts with two Sorcerers
V2_FIVE = {
    "red": ["D1", "N3", "W1", "W2", "W3", "W4"],
    "green": ["D2", "N6", "W1", "W2", "W3", "W4"],
    "blue": ["S2", "N1", "N4", "N7", "W1", "W3"],
    "yellow": ["S3", "N2", "N5", "N8", "W2", "W4"],
    "black": ["S1", "S4", "W1", "W2", "W3", "W4"],
}
# 5 players, data version 3: every player holds one Druid or Sorcerer title, red both
V3_FIVE = {
    "red": ["D1", "S4", "W1", "W2", "W3", "W4"],
    "green": ["D2", "N6", "W1", "W2", "W3", "W4"],
    "blue": ["S2", "N1", "N4", "N7", "W1", "W3"],
    "yellow": ["S3", "N2", "N5", "W2", "W3", "W4"],
    "black": ["S1", "N3", "N8", "W1", "W2", "W4"],
}
# 5 players, data version 5: other rows, still dealt (version 2's, the S1 S4 row with N7 from the
# S2 row's, the S2 row with N5 from the S3 row's; RULINGS.md, "Data version 5")
V5_FIVE = {
    "red": ["D1", "N3", "W1", "W2", "W3", "W4"],
    "green": ["D2", "N6", "W1", "W2", "W3", "W4"],
    "blue": ["S2", "N1", "N4", "N5", "W1", "W3"],
    "yellow": ["S3", "N2", "N8", "W2", "W3", "W4"],
    "black": ["S1", "S4", "N7", "W1", "W2", "W3"],
}
PAIRS = [("D1", "D2"), ("S1", "S2"), ("S3", "S4"), ("N1", "N2"), ("N3", "N4"), ("N5", "N6"), ("N7", "N8")]


def positions(started) -> dict:
    out: dict = {}
    for (seat, space), _name in zip(started["wizards"], started["names"]):
        out.setdefault(started["colours"][seat], []).append(space)
    return out


def dealt(started, rows: dict = V5_FIVE) -> dict:
    """Each colour's spaces as the row it was dealt: the row under the colour named by "rows"."""
    colours = started["colours"]
    return {colour: rows[colours[row]] for colour, row in zip(colours, started["rows"])}


def test_data_version_2_changed_only_the_three_player_placement_and_3_only_the_five_player():
    assert placement(3, version=1)["positions"] == V1_THREE
    assert placement(3, version=2)["positions"] == V2_THREE == placement(3)["positions"]
    assert placement(4, version=1) == placement(4, version=2) == placement(4)
    assert placement(5, version=1)["positions"] == placement(5, version=2)["positions"] == V2_FIVE
    assert placement(5, version=3)["positions"] == V3_FIVE


def test_data_version_4_keeps_version_3s_rows_and_deals_them_only_at_five_players():
    assert placement(5, version=4)["positions"] == V3_FIVE and placement(5, version=4)["rows_dealt"] is True
    assert "rows_dealt" not in placement(5, version=3)
    for players in (3, 4):
        assert placement(players) == placement(players, version=3)
        assert not placement(players).get("rows_dealt")


def test_data_version_5_changes_only_the_five_player_rows_and_still_deals_them():
    """RULINGS.md, "Data version 5": version 2's rows, the two-Sorcerer row with a Necromancer (N7)
    from the S2 row, which takes N5 from the S3 row; dealt as in version 4; 3 and 4 players
    unchanged."""
    assert DATA_VERSION == 5
    assert placement(5)["positions"] == V5_FIVE and placement(5)["rows_dealt"] is True
    for players in (3, 4):
        assert placement(players) == placement(players, version=4)
    started = GAME.setup(5, {}, Rng(b"five", 0))[0].data
    assert started["data"] == 5 and positions(started) == dealt(started)
    v4 = setup_with_data(4, 5, {}, Rng(b"five", 0))[0].data  # the same seed deals the same shuffle
    assert v4["rows"] == started["rows"] and positions(v4) == dealt(v4, V3_FIVE)


def keeps_the_proposals_rules(table: dict, wizards: int) -> None:
    """14 titles filled, the Grand Druid empty, no player on both spaces of a contested pair,
    `wizards` each, every occupied Wizard space shared by two colours or more."""
    spaces = [sp for held in table.values() for sp in held]
    titles = [sp for sp in spaces if not sp.startswith("W")]
    assert sorted(titles) == sorted(["D1", "D2", "S1", "S2", "S3", "S4"] + [f"N{i}" for i in range(1, 9)])
    assert all(len(held) == wizards for held in table.values())
    for held in table.values():
        assert not any(a in held and b in held for a, b in PAIRS)
    for w in ("W1", "W2", "W3", "W4"):
        colours = {c for c, held in table.items() if w in held}
        assert len(colours) != 1


def test_the_new_placements_keep_the_proposals_rules():
    keeps_the_proposals_rules(placement(3)["positions"], 7)
    keeps_the_proposals_rules(placement(5)["positions"], 6)


def test_data_version_3_gives_no_player_two_sorcerers_at_five_players():
    """The cause of the change (RULINGS.md, "Data version 3"): black's two Sorcerers in version 2."""
    old, new = placement(5, version=2)["positions"], placement(5, version=3)["positions"]
    assert sum(sp.startswith("S") for sp in old["black"]) == 2
    assert all(sum(sp[0] in "DS" for sp in held) >= 1 for held in new.values())
    assert all(sum(sp.startswith("S") for sp in held) <= 1 for held in new.values())


def test_a_new_game_records_its_data_version_and_is_set_up_with_it():
    for players in (3, 4):
        started = Table(GAME, players, seed=b"new").events[0].data
        assert started["data"] == DATA_VERSION == 5
        assert positions(started) == placement(players)["positions"] and "rows" not in started
    started = Table(GAME, 5, seed=b"new").events[0].data
    assert started["data"] == 5 and positions(started) == dealt(started)


def test_data_version_4_deals_the_five_player_rows_to_the_colours_by_a_draw_from_the_seed():
    """RULINGS.md, "Data version 4": a shuffle of the rows from the game's seed, drawn before the
    first player, written into GameStarted ("rows": the index of the row each colour plays, in
    the table's order) with the positions it gives; the same seed deals the same rows."""
    rng = Rng(b"deal", 0)
    started = GAME.setup(5, {}, rng)[0].data
    assert sorted(started["rows"]) == [0, 1, 2, 3, 4]
    assert positions(started) == dealt(started)
    # Fisher-Yates over five rows (one draw of 5, 4, 3 and 2 outcomes), then the first player
    assert [n for n, _ in rng.draws[:5]] == [5, 4, 3, 2, 5] and rng.draws[4][1] == started["dragon"]
    assert GAME.setup(5, {}, Rng(b"deal", 0))[0].data == started
    assert [name[:-1] for name in started["names"]] == [c for c in started["colours"] for _ in range(6)]


def test_under_data_version_4_every_colour_is_dealt_every_row():
    """No colour is favoured ex ante: over 500 seeds each colour plays each of the five rows about
    a fifth of the time (100 expected; the seeds are fixed, so the counts are too)."""
    counts = {(seat, row): 0 for seat in range(5) for row in range(5)}
    table = placement(5)
    for k in range(500):
        for seat, row in enumerate(dealt_rows(table, Rng(f"deal-{k}".encode(), 0))):
            counts[seat, row] += 1
    assert all(70 <= n <= 130 for n in counts.values()), counts
    assert dealt_rows(placement(5, version=3), Rng(b"x", 0)) == [0, 1, 2, 3, 4]


def test_at_three_and_four_players_data_version_4_deals_as_version_3_did():
    """Nothing is drawn for the rows there: the same events, the version number aside."""
    for players in (3, 4):
        new = setup_with_data(4, players, {}, Rng(b"same", 0))
        old = setup_with_data(3, players, {}, Rng(b"same", 0))
        assert [e.data for e in new][1:] == [e.data for e in old][1:]
        assert {**new[0].data, "data": 3} == old[0].data


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
    assert positions(record["events"][0]["data"]) == placement(3, version=2)["positions"]
    check_golden(GAME, record)


def test_an_old_five_player_game_on_data_version_2_replays_unchanged():
    """Recorded (stand-ins at every seat) before data version 3: its GameStarted says version 2
    and holds the old positions, and it replays to the very same final state and scores."""
    record = json.loads((GOLDEN / "five_players_data2_standins.json").read_text())
    started = record["events"][0]["data"]
    assert started["data"] == 2
    assert positions(started) == V2_FIVE != placement(5)["positions"]
    check_golden(GAME, record)
    state = fold(GAME, [event_from_json(e) for e in record["events"]])
    assert state["end_reason"]  # a whole game, played to one of the rulebook's endings


def test_an_old_five_player_game_on_data_version_3_replays_unchanged():
    """Recorded (stand-ins at every seat) before data version 4 dealt the rows: its GameStarted
    says version 3, gives each colour the row under its own name and draws no deal, and it
    replays to the very same final state and scores."""
    record = json.loads((GOLDEN / "five_players_data3_standins.json").read_text())
    started = record["events"][0]["data"]
    assert started["data"] == 3 and "rows" not in started
    assert positions(started) == V3_FIVE
    check_golden(GAME, record)
    state = fold(GAME, [event_from_json(e) for e in record["events"]])
    assert state["end_reason"]


def test_an_old_five_player_game_on_data_version_4_replays_unchanged():
    """Recorded (stand-ins at every seat) before data version 5 changed the dealt rows: its
    GameStarted says version 4 and deals version 3's rows, and it replays to the very same final
    state and scores."""
    record = json.loads((GOLDEN / "five_players_data4_standins.json").read_text())
    started = record["events"][0]["data"]
    assert started["data"] == 4 and positions(started) == dealt(started, V3_FIVE)
    check_golden(GAME, record)
    assert fold(GAME, [event_from_json(e) for e in record["events"]])["end_reason"]


def test_a_setup_with_an_older_data_version_uses_that_placement_and_records_it():
    """setup_with_data (the bench compares placements with it) sets a game up as an old version did."""
    events = setup_with_data(2, 5, {}, Rng(b"old", 0))
    assert events[0].data["data"] == 2 and positions(events[0].data) == V2_FIVE


def test_a_setup_with_a_candidate_row_places_the_wizards_as_the_row_says():
    """The bench screens candidate placements (RULINGS.md, "5 players: the cause studied again")
    through setup_with_data's `table`; the version recorded is the one named."""
    row = {**placement(5, 3), "positions": {**V3_FIVE, "green": V3_FIVE["blue"], "blue": V3_FIVE["green"]}}
    events = setup_with_data(DATA_VERSION, 5, {}, Rng(b"candidate", 0), table=row)
    assert positions(events[0].data) == row["positions"] != placement(5)["positions"]
    assert events[0].data["data"] == DATA_VERSION and "rows" not in events[0].data
    assert setup_with_data(DATA_VERSION, 5, {}, Rng(b"candidate", 0)) == GAME.setup(5, {}, Rng(b"candidate", 0))


def test_an_old_game_is_dealt_again_under_the_data_version_it_recorded():
    """The offline verifier deals a finished game again from its seed (GAME.setup_as_logged): a
    5-player game of version 2 keeps its version-2 placement, one from before data versions were
    recorded its version 1, and a new one today's."""
    old = GAME.setup_as_logged(5, {}, Rng(b"old", 0), {"data": 2})
    assert old == setup_with_data(2, 5, {}, Rng(b"old", 0))
    assert positions(old[0].data) == V2_FIVE
    assert GAME.setup_as_logged(5, {}, Rng(b"old", 0), {}) == setup_with_data(1, 5, {}, Rng(b"old", 0))
    three = GAME.setup_as_logged(5, {}, Rng(b"old", 0), {"data": 3})
    assert three == setup_with_data(3, 5, {}, Rng(b"old", 0))
    assert positions(three[0].data) == V3_FIVE and "rows" not in three[0].data
    four = GAME.setup_as_logged(5, {}, Rng(b"old", 0), {"data": 4})
    assert four == setup_with_data(4, 5, {}, Rng(b"old", 0)) and positions(four[0].data) == dealt(four[0].data, V3_FIVE)
    today = GAME.setup_as_logged(5, {}, Rng(b"new", 0), {"data": DATA_VERSION})
    assert today == GAME.setup(5, {}, Rng(b"new", 0)) and "rows" in today[0].data
