"""Card data versions (RULINGS.md, "Data version 2") and the hands shown at the end of a game."""

from __future__ import annotations

import json
from pathlib import Path

from games.testing import Table, check_golden, deep_contains, play_random
from games.zauberschwert import GAME
from games.zauberschwert.rules import ART, DATA_VERSION, LETTER_COUNTS, letters, next_letter

from .helpers import BLUE, GREEN, RED, table_at

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "zauberschwert"
ADDUS, STONEX, TRANSFORMUS, HARPAGARUS = "A01", "A03", "B01", "C01"


def pile_of(position):
    """The pile a card dealt at `position` of the adventure deck came from (A on B on C)."""
    return "A" if position < LETTER_COUNTS["A"] else "B" if position < LETTER_COUNTS["A"] + LETTER_COUNTS["B"] else "C"


def test_data_version_2_stacks_addus_in_b_stonex_in_c_and_transformus_and_harpagarus_in_a():
    assert DATA_VERSION == 2
    moved = {c: (letters(1)[c], letters(2)[c]) for c in letters(1) if letters(1)[c] != letters(2)[c]}
    assert moved == {ADDUS: ("A", "B"), STONEX: ("A", "C"), TRANSFORMUS: ("B", "A"), HARPAGARUS: ("C", "A")}
    for version in (1, 2):  # the piles keep their sourced sizes: 9 A, 9 B, 7 C
        counts = {letter: list(letters(version).values()).count(letter) for letter in "ABC"}
        assert counts == LETTER_COUNTS


def test_a_new_game_records_its_data_version_and_is_dealt_with_it():
    for seed in (b"one", b"two", b"three"):
        table = Table(GAME, 3, seed=seed)
        started, shuffled = table.events[0], table.events[1]
        assert started.data["data"] == 2
        deal = shuffled.data["adventure"]
        assert [pile_of(deal.index(c)) for c in (ADDUS, STONEX, TRANSFORMUS, HARPAGARUS)] == ["B", "C", "A", "A"]
        assert [letters(2)[c] for c in deal] == ["A"] * 9 + ["B"] * 9 + ["C"] * 7


def test_old_games_were_dealt_with_data_version_1_and_replay_unchanged():
    for name in ("two_players.json", "three_players.json", "four_players.json"):
        record = json.loads((GOLDEN / name).read_text())
        started, shuffled = record["events"][0], record["events"][1]
        assert "data" not in started["data"]  # recorded before data versions: version 1
        deal = shuffled["data"]["adventure"]
        assert [letters(1)[c] for c in deal] == ["A"] * 9 + ["B"] * 9 + ["C"] * 7
        assert pile_of(deal.index(STONEX)) == pile_of(deal.index(ADDUS)) == "A"
        check_golden(GAME, record)


def test_the_golden_log_of_data_version_2_replays():
    record = json.loads((GOLDEN / "three_players_data2.json").read_text())
    assert record["events"][0]["data"]["data"] == 2
    check_golden(GAME, record)


def test_the_back_letter_of_the_next_card_follows_from_its_place_in_the_deck_in_every_version():
    for name in ("two_players.json", "three_players_data2.json"):
        deal = json.loads((GOLDEN / name).read_text())["events"][1]["data"]["adventure"]
        version = 2 if "data2" in name else 1
        for dealt in range(len(deal)):
            assert next_letter(len(deal) - dealt) == letters(version)[deal[dealt]]
    assert next_letter(0) is None


# ---------------------------------------------------------------------------------------------
# the end of the game: every hand is shown
# ---------------------------------------------------------------------------------------------


def test_hidden_hands_are_shown_to_everyone_once_the_game_is_over():
    table = play_random(GAME, 3, seed=5)
    state = table.state
    assert state["step"] == "over" and sum(len(h) for h in state["hand"]) >= 2
    for viewer in (None, RED, BLUE, GREEN):
        v = GAME.view(state, viewer)
        for seat in (RED, BLUE, GREEN):
            assert v["players_info"][seat]["hand"] == state["hand"][seat]
        text = " ".join(GAME.render_text(v).split())
        for seat in (RED, BLUE, GREEN):
            if seat != viewer:
                for card in state["hand"][seat]:
                    assert ART[card]["card_name"] in text


def test_hidden_hands_stay_hidden_until_the_game_is_over():
    table = table_at(players=3, display=("A04", "B03"), hand=[["ART01"], ["ART16", "ART17"], []])
    for viewer in (RED, GREEN, None):
        v = GAME.view(table.state, viewer)
        assert v["players_info"][BLUE]["hand"] is None
        assert not deep_contains(v, "ART16") and not deep_contains(v, "ART17")
    assert GAME.view(table.state, BLUE)["players_info"][BLUE]["hand"] == ["ART16", "ART17"]


def test_an_old_game_is_dealt_again_under_the_card_data_it_recorded():
    """The offline verifier deals a finished game again from its seed (GAME.setup_as_logged): a game
    of data version 1 gets its version-1 piles, not today's."""
    from games.base import Rng
    from games.zauberschwert.rules import setup_with_data

    old = GAME.setup_as_logged(3, {}, Rng(b"old", 0), {"data": 1})
    assert old == setup_with_data(1, 3, {}, Rng(b"old", 0))
    assert old != setup_with_data(DATA_VERSION, 3, {}, Rng(b"old", 0))
    assert GAME.setup_as_logged(3, {}, Rng(b"new", 0), {"data": DATA_VERSION}) == GAME.setup(3, {}, Rng(b"new", 0))
