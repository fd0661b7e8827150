"""The chooser (`choices`): every legal move once, grouped by piece and labelled by where; the
featured moves (the numbered codes of a turn notice) are the scoring placements of every piece
type in hand, best first, and the careful one; a whole game can be played with them alone."""

from __future__ import annotations

import random
import re

import pytest

from games.elven_castle import GAME, rules, standin, standin_v1
from games.testing import Table, canonical, play_random

from .helpers import given, table, table1
from .test_bots import options_for


def featured(t, seat=None):
    seat = t.state["turn"] if seat is None else seat
    return [c for c in GAME.choices(t.state, seat) if c.featured]


def points(t, command):
    return standin.points(t.state, *standin.place_of(command))


def test_featured_are_the_scoring_placements_of_every_piece_type_most_points_first():
    t = table1(2)
    given(t, 1, "place window a1 north level 0")
    given(t, 1, "place window d1 north level 0")  # a portal's arch a-d, 2 spans
    given(t, 1, "place bridge f1 north level 0")
    given(t, 1, "place bridge h1 north level 0")  # a bridge's (or a balcony's) arch f-h, 1 span
    t.state["turn"] = 0
    offered = featured(t)
    scoring = [c for c in offered if points(t, c.command) > 0]
    gains = [points(t, c.command) for c in scoring]
    assert gains == sorted(gains, reverse=True) and gains[0] == 2
    assert scoring[0].group == "Portal" and scoring[0].note.startswith("scores 2")
    assert {"Portal", "Bridge", "Window", "Balcony"} <= {c.group for c in scoring}  # each type represented
    best_per_kind = {}
    for command in GAME.legal(t.state, 0):
        best_per_kind[command["piece"]] = max(best_per_kind.get(command["piece"], 0), points(t, command))
    for kind, best in best_per_kind.items():  # each type's best placement is among them
        if best:
            assert max(points(t, c.command) for c in scoring if c.command["piece"] == kind) == best
    every_scoring = [c for c in GAME.legal(t.state, 0) if points(t, c) > 0]
    assert sorted(map(canonical, every_scoring)) == sorted(canonical(c.command) for c in scoring)


def test_with_nothing_scoring_each_piece_type_gets_its_careful_placement():
    t = table(3)
    offered = featured(t)
    assert sorted(c.group for c in offered) == ["Balcony", "Bridge", "Portal", "Window"]
    assert offered[0].note == "careful: leaves the next player nothing"


def test_the_careful_placement_is_featured_even_when_it_scores_less():
    t = table(2)
    given(t, 1, "place bridge a1 north level 0")
    given(t, 1, "place bridge c1 north level 0")
    t.state["turn"] = 0
    offered = featured(t)
    careful = [c for c in offered if "careful" in c.note]
    assert len(careful) == 1
    # The careful placement is the one-ply rule's (stand-in version 1's, which its note describes:
    # "leaves the next player at most ..."); version 2 looks further ahead and here picks another.
    legal = GAME.legal(t.state, 0)
    assert careful[0].command == standin_v1.standin(GAME.view(t.state, 0), legal)


def test_every_choice_is_grouped_by_piece_labelled_by_where_and_aims_at_its_square_on_the_plan():
    t = table(3, {"scenario": "legacy", "staircase": True})
    given(t, 0, "place window a4 north level 0")
    seat = t.state["turn"]
    offered = GAME.choices(t.state, seat)
    html = GAME.render_html(GAME.view(t.state, seat))
    assert sorted(canonical(c.command) for c in offered) == sorted(canonical(c) for c in GAME.legal(t.state, seat))
    for c in offered:
        assert c.group == c.command["piece"].capitalize()
        square, direction, level, _on = re.match(r"([a-i][1-9]) (\w+), level (\d+), on (.+)$", c.label).groups()
        # the label alone says where: it reads back as the command
        assert GAME.parse(f"place {c.group} {square} {direction} level {level}", t.state, seat) == c.command
        assert c.target == f"ec-{rules.square(c.command['x'], c.command['y'])}" and f'id="{c.target}"' in html
    # the rest, after the featured ones, come piece type by piece type
    rest = [c.group for c in offered if not c.featured]
    assert rest == sorted(rest, key=lambda g: rules.KINDS.index(g.lower()))


def test_the_staircase_offer_is_two_featured_choices():
    t = table1(2, {"staircase": True})
    given(t, 1, "place bridge a1 north level 0")
    given(t, 1, "place bridge c1 north level 0")
    t.state["scores"][0] = 7
    given(t, 0, "place bridge a2 east level 1")
    offered = GAME.choices(t.state, 0)
    assert [c.command for c in offered] == [{"type": "staircase"}, {"type": "decline"}]
    assert all(c.featured and c.group == "Staircase" for c in offered)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_is_played_with_the_featured_codes_alone(players):
    pick = random.Random(players)
    t = Table(GAME, players, {"staircase": True, "penalties": True}, seed=b"mail")
    while GAME.waiting_for(t.state):
        seat = GAME.waiting_for(t.state)[0]
        offered = featured(t, seat)
        assert offered
        t.act(seat, pick.choice(offered).command)
    assert GAME.result(t.state) is not None


def test_over_a_bot_game_every_scoring_piece_type_is_featured_with_its_best_placement():
    """The testers' game: 893 codes in 34 notices, all bridges, none that scored."""
    codes = notices = 0
    seen_scoring = set()

    def look(table_):
        nonlocal codes, notices
        seat = table_.state["turn"]
        if table_.state["phase"] != "place" or not GAME.waiting_for(table_.state):
            return
        offered = [c for c in GAME.choices(table_.state, seat) if c.featured]
        codes += len(offered)
        notices += 1
        legal = GAME.legal(table_.state, seat)
        scoring = {canonical(c) for c in legal if standin.points(table_.state, *standin.place_of(c)) > 0}
        if scoring:  # every scoring placement, and the careful one (which may score nothing)
            careful = canonical(standin_v1.standin(GAME.view(table_.state, seat), legal))
            assert {canonical(c.command) for c in offered} == scoring | {careful}
        best = {}
        for command in GAME.legal(table_.state, seat):
            gain = standin.points(table_.state, *standin.place_of(command))
            best[command["piece"]] = max(best.get(command["piece"], 0), gain)
        for kind, gain in best.items():
            if gain > 0:
                top = max(
                    standin.points(table_.state, *standin.place_of(c.command))
                    for c in offered
                    if c.command["piece"] == kind
                )
                assert top == gain, f"the best {kind} placement (scores {gain}) is not featured"
                seen_scoring.add(kind)

    for seed in range(3):
        play_random(GAME, 2, options_for(2, "B", seed), seed=seed, check=look)
    assert seen_scoring >= {"bridge", "window"}
    assert notices and codes >= notices


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_scoring_placement_is_a_numbered_code_in_stand_in_games(players):
    """Issue 29: the notices offered 1-4 codes a turn, none that scored. Over stand-in games of
    rules version 2 (one random opening placement a seat), every scoring placement is featured,
    however many there are."""
    scoring_turns = 0
    for seed in range(2):
        t = Table(GAME, players, {"scoring": "AB"[seed]}, seed=f"codes-{seed}".encode())
        t.check_mutation = False
        pick, step = random.Random(seed), 0
        while GAME.waiting_for(t.state):
            seat = GAME.waiting_for(t.state)[0]
            legal = GAME.legal(t.state, seat)
            if t.state["phase"] == "place":
                codes = [c.command for c in GAME.choices(t.state, seat) if c.featured]
                scoring = [c for c in legal if points(t, c) > 0]
                assert all(c in codes for c in scoring), "a scoring placement is not a code"
                scoring_turns += bool(scoring)
            opening = step < players and t.state["phase"] == "place"
            t.act(seat, pick.choice(legal) if opening else GAME.standin(GAME.view(t.state, seat), legal))
            step += 1
    assert scoring_turns > 10
