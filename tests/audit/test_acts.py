"""No act credited to a seat in silence, the verifier's side: `python3 -m pbem.verify --acts`
lists every act the log credits to each seat, with the player who held the seat then, so a player
checks offline that every move under their name was theirs (issue 26)."""

from __future__ import annotations

import json

from pbem.audit import verify

from . import forgery


def acts(doc: dict) -> list[str]:
    return verify.verify_document(doc, spec=forgery.spec_for(doc)).acts


def test_every_act_credited_to_a_seat_is_listed_once_in_order():
    for name in forgery.names():
        doc = forgery.load(name)
        if forgery.kind_of(doc) == "withheld":
            continue
        credited = [ev for ev in doc["events"] if ev["actor_kind"] in ("seat", "standin")]
        listed = acts(doc)
        assert [int(line.split(" #", 1)[1].split()[0]) for line in listed] == [ev["seq"] for ev in credited], name
        for ev, line in zip(credited, listed):
            assert line.startswith(f"seat {ev['actor_seat']} (") and f" {ev['type']} " in line


def test_an_act_names_who_held_the_seat_then_a_replaced_player_keeps_his_own():
    doc = forgery.load("scheme2_elfenland_complete")
    replaced = next(ev["seq"] for ev in doc["events"] if ev["type"] == "pbem.PlayerReplaced")
    lines = [line for line in acts(doc) if line.startswith("seat 1 ")]
    before = [line for line in lines if int(line.split(" #")[1].split()[0]) < replaced]
    after = [line for line in lines if int(line.split(" #")[1].split()[0]) > replaced]
    assert before and all(line.startswith("seat 1 (Bob) #") for line in before)
    assert after and all(line.startswith("seat 1 (Erin) #") for line in after)


def test_an_act_shows_what_was_done_or_that_it_is_hidden_from_this_reader():
    doc = forgery.load("scheme2_elfenland_seat1")
    mine = [line for line in acts(doc) if line.startswith("seat 1 ")]
    theirs = [line for line in acts(doc) if line.startswith("seat 0 ")]
    assert mine and all(line.endswith("}") for line in mine)
    said = next(line for line in acts(doc) if " pbem.Said " in line)
    assert said.endswith('{"seat":0,"text":"good luck, everyone"}')
    hidden = [ev for ev in doc["events"] if ev["payload"] is None and ev["actor_kind"] == "seat"]
    assert all(
        any(f"#{ev['seq']} " in line and "(hidden from this reader)" in line for line in theirs) for ev in hidden
    )


def test_the_command_counts_each_players_acts_and_lists_one_seats_with_acts(tmp_path, capsys):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(forgery.load("scheme2_elfenland_complete")))
    assert verify.main([str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "acts: seat 1 (Bob): 8 acts credited" in out and "acts: seat 1 (Erin): 45 acts credited" in out
    assert verify.main([str(path), "--acts", "2"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("act: ")]
    assert len(listed) == 64 and all(line.startswith("act: seat 2 (Carol) #") for line in listed)


def test_an_act_moved_to_another_seat_shows_under_that_seat_and_fails_against_the_true_head():
    doc = forgery.load("scheme2_elfenland_complete")
    true_head = (doc["head"]["version"], doc["head"]["hash"])
    move = next(ev for ev in doc["events"] if ev["actor_kind"] == "seat" and ev["actor_seat"] == 2)
    move["actor_seat"] = 0
    forgery.reseal(doc)
    found = verify.verify_document(doc, [true_head])
    assert any(line.startswith(f"seat 0 (Alice) #{move['seq']} ") for line in found.acts)
    assert found.problems and "so the log changed after that head was given out" in found.problems[0]


def test_a_move_the_stand_in_made_for_a_seat_is_listed_as_the_stand_ins():
    doc = forgery.load("scheme2_elven_castle_abandoned")
    by_standin = [ev["seq"] for ev in doc["events"] if ev["actor_kind"] == "standin"]
    lines = [line for line in acts(doc) if "(by the stand-in)" in line]
    assert by_standin and [int(line.split(" #")[1].split()[0]) for line in lines] == by_standin
    assert all(line.startswith("seat 1 (Bob) (by the stand-in) #") for line in lines)
