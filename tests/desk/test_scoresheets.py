"""Score sheets from the log: the games' own scoring, the desk's corrections, running totals,
final standings with the games' tie-breakers, and the CSV export."""

from __future__ import annotations

import csv
import io
import random

import pytest
from django.urls import reverse

from pbem.desk import scoresheets
from pbem.log import eventlog
from pbem.models import Event
from pbem.play import desk, services
from pbem.registry import all_games, get_game

from .conftest import CAST

ADMIN = services.Actor("admin")


def play_to_the_end(game, seed: int = 7, max_steps: int = 5000):
    """Random legal commands through the platform's one write path until the game is over."""
    spec = get_game(game.kind)
    pick = random.Random(seed)
    for _step in range(max_steps):
        game.refresh_from_db()
        if game.status != "running":
            return eventlog.load(game).state
        seat = pick.choice(game.awaited)
        command = pick.choice(spec.legal(eventlog.load(game).state["game"], seat))
        services.submit(game.pk, seat, command=command)
    raise AssertionError(f"{game.kind} did not end within {max_steps} commands")


@pytest.mark.parametrize("kind", sorted(all_games()))
def test_sheet_equals_the_games_own_scoring_on_a_complete_game(client, root, new_game, kind):
    spec = get_game(kind)
    players = max(spec.min_players, min(3, spec.max_players))
    game = new_game(players, kind=kind)
    state = play_to_the_end(game)
    game.refresh_from_db()
    assert game.status == "finished"
    result = spec.result(state["game"])
    lines = spec.score_sheet(state["game"])
    ended = Event.objects.get(game=game, type="pbem.GameEnded").payload

    sheet = scoresheets.build(game)
    assert sheet.problems == []
    assert sheet.final
    # Every point of the game's own sheet is on ours, and the running totals add up to the
    # game's own result, the read model and what the platform recorded at the end.
    for seat in range(players):
        assert sum(r.points[seat] or 0 for r in sheet.rows) == sum(ln.points for ln in lines if ln.seat == seat)
    assert sheet.totals == list(result.scores) == game.scores == ended["scores"]
    running = [0] * players
    for row in sheet.rows:
        running = [t + (p or 0) for t, p in zip(running, row.points)]
        assert row.totals == running
    assert {(ln.round, ln.label or f"Round {ln.round}") for ln in lines} == {(r.round, r.label) for r in sheet.rows}
    # Final standings: the game's tie-breakers, as the platform ranked them when the game ended.
    places: dict[int, list[int]] = {}
    for s in sheet.standings:
        places.setdefault(s.place, []).append(s.seat)
    assert list(places.values()) == ended["ranking"] == result.ranking()

    client.force_login(root)
    page = client.get(reverse("admin:pbem_game_sheet", args=[game.pk]))
    assert page.status_code == 200 and "Final standings" in page.text
    exported = list(
        csv.reader(io.StringIO(client.get(reverse("admin:pbem_game_sheet_csv", args=[game.pk])).content.decode()))
    )
    last_row = exported[exported.index([]) - 1]
    assert [int(v) for v in last_row[3 : 2 + 2 * players : 2]] == result.scores


def test_csv_export_content(client, root, new_game):
    game = services.create_game(
        "diceduel", [CAST[0], services.PlayerSpec("=Bob", "bob@example.org")], {"rounds": 2}, title="Club night"
    )
    hands = eventlog.load(game).state["game"]["hands"]
    winners, how = [], ["take", "roll"]
    for rnd in range(2):
        cards = [max(hands[0]), max(hands[1])]
        for seat in (0, 1):
            hands[seat].remove(cards[seat])
            services.submit(game.pk, seat, f"play {cards[seat]}")
        winner = 0 if cards[0] > cards[1] else 1
        winners.append(winner)
        services.submit(game.pk, winner, how[rnd])
    rolled = Event.objects.filter(game=game, type="PointsTaken").order_by("seq").last().payload["points"]
    points = [2, rolled]
    desk.correct_score(game.pk, 1, -1, ADMIN, 'scored a die twice, "sorry"')
    game.refresh_from_db()

    client.force_login(root)
    response = client.get(reverse("admin:pbem_game_sheet_csv", args=[game.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="game-{game.pk}-score-sheet.csv"'

    names = ["Alice", "'=Bob"]  # a name that a spreadsheet would run as a formula is quoted
    totals = [0, 0]
    expected = [f"Game #{game.pk},Club night,diceduel,finished", "round,entry,Alice,Alice total,'=Bob,'=Bob total,note"]
    for rnd, winner in enumerate(winners):
        totals[winner] += points[rnd]
        cells = [str(points[rnd]) if seat == winner else "" for seat in (0, 1)]
        expected.append(
            f"{rnd + 1},Round {rnd + 1},{cells[0]},{totals[0]},{cells[1]},{totals[1]},{names[winner]}: {how[rnd]}"
        )
    totals[1] -= 1
    expected.append(f'2,Correction,,{totals[0]},-1,{totals[1]},"scored a die twice, ""sorry"""')
    expected += ["", "Final standings", "place,seat,player,score,tiebreak"]
    # Highest score first; a tie goes to the higher card left in hand (Dice Duel's tie-breaker).
    order = sorted((0, 1), key=lambda s: (totals[s], hands[s][0]), reverse=True)
    for place, seat in enumerate(order, start=1):
        expected.append(f"{place},{seat + 1},{names[seat]},{totals[seat]},{hands[seat][0]}")
    assert response.content.decode() == "\r\n".join(expected) + "\r\n"


def test_standings_break_a_tie_with_the_games_tiebreaker(new_game):
    game = new_game(2, options={"rounds": 2})
    play_to_the_end(game, seed=3)
    game.refresh_from_db()
    scores = list(game.scores)
    if scores[0] != scores[1]:
        low = 0 if scores[0] < scores[1] else 1
        desk.correct_score(game.pk, low, abs(scores[0] - scores[1]), ADMIN, "level the scores for the test")
        game.refresh_from_db()
    assert game.scores[0] == game.scores[1]
    left = [hand[0] for hand in eventlog.load(game).state["game"]["hands"]]
    sheet = scoresheets.build(game)
    assert sheet.problems == []
    better = 0 if left[0] > left[1] else 1
    assert [(s.place, s.seat, s.tied, s.tiebreak) for s in sheet.standings] == [
        (1, better, False, [left[better]]),
        (2, 1 - better, False, [left[1 - better]]),
    ]


def test_exact_ties_share_a_place():
    standings = scoresheets._standings([5, 7, 5, 1], [[2], [0], [2], [9]], ["A", "B", "C", "D"])
    assert [(s.place, s.name, s.tied) for s in standings] == [
        (1, "B", False),
        (2, "A", True),
        (2, "C", True),
        (4, "D", False),
    ]


def test_a_correction_is_placed_in_the_round_it_was_made(new_game):
    game = new_game(2, options={"rounds": 3})
    spec = get_game("diceduel")
    # Play round 1 to its end, then correct during round 2, then finish.
    while eventlog.load(game).state["game"]["round"] == 1:
        game.refresh_from_db()
        seat = game.awaited[0]
        services.submit(game.pk, seat, command=spec.legal(eventlog.load(game).state["game"], seat)[0])
    desk.correct_score(game.pk, 0, 4, ADMIN, "bonus for hosting")
    play_to_the_end(game)
    sheet = scoresheets.build(game)
    assert sheet.problems == []
    kinds = [(r.round, r.kind) for r in sheet.rows]
    assert (2, "correction") in kinds
    assert all(rnd <= 2 for rnd, _kind in kinds[: kinds.index((2, "correction"))])
    assert all(rnd >= 2 for rnd, _kind in kinds[kinds.index((2, "correction")) :])
    correction = next(r for r in sheet.rows if r.kind == "correction")
    assert correction.points == [4, None] and correction.reason == "bonus for hosting"


def test_an_abandoned_game_has_provisional_standings(new_game):
    game = new_game(2)
    desk.abandon_game(game.pk, ADMIN, "no one came back")
    game.refresh_from_db()
    sheet = scoresheets.build(game)
    assert not sheet.final and sheet.rows == [] and sheet.totals == [0, 0]
    assert "Standings so far (provisional)" in scoresheets.to_csv(sheet)


def test_after_a_mid_round_replacement_each_point_goes_to_the_player_who_scored_it(new_game):
    """Bob is replaced by Bert in round 2, after Bob's bid there and a correction in his favour:
    the correction stays Bob's (the sheet credited the whole round to Bert), the claim Bert makes
    is Bert's, and the header, the standings and Bert's welcome mail say the same."""
    from pbem.mail import outbound
    from pbem.models import Notice
    from pbem.play import selectors

    game = new_game(2)  # Alice and Bob, Dice Duel
    hands = lambda: eventlog.load(game).state["game"]["hands"]  # noqa: E731
    services.submit(game.pk, 0, f"play {min(hands()[0])}")
    services.submit(game.pk, 1, f"play {max(hands()[1])}")
    state = eventlog.load(game).state["game"]
    if state["phase"] == "claim":
        services.submit(game.pk, state["winner"], "take")
    assert eventlog.load(game).state["game"]["round"] == 2
    # Round 2: Bob bids his highest card and is credited 5 by the desk, then leaves mid-round.
    services.submit(game.pk, 1, f"play {max(hands()[1])}")
    desk.correct_score(game.pk, 1, 5, ADMIN, "a point Bob earned")
    desk.replace_player(game.pk, 1, "Bert", "bert@example.org", ADMIN, "Bob moved away")
    services.submit(game.pk, 0, f"play {min(hands()[0])}")
    state = eventlog.load(game).state["game"]
    claimed_by = state["winner"]
    if state["phase"] == "claim":
        services.submit(game.pk, claimed_by, "take")  # Bert, if Bob's card won: Bert's own move

    sheet = scoresheets.build(game)
    assert sheet.names[1] == "Bob, then Bert (took the seat in round 2)"
    correction = next(row for row in sheet.rows if row.kind == "correction")
    assert correction.round == 2 and correction.players[1] == "Bob"
    round_two = [row for row in sheet.rows if row.kind == "game" and row.round == 2 and row.points[1] is not None]
    if claimed_by == 1:
        assert [row.players[1] for row in round_two] == ["Bert"]  # Bert made the claim that scored
    assert all(row.players[1] == "Bob" for row in sheet.rows if row.round < 2)
    standing = next(s for s in sheet.standings if s.seat == 1)
    by_player = dict(standing.by_player)
    assert by_player["Bob"] == 5 + sum(row.points[1] or 0 for row in sheet.rows if row.kind == "game" and row.round < 2)
    assert sum(by_player.values()) == standing.score
    welcome = Notice.objects.get(game=game, kind="welcome")
    text = " ".join(outbound.render(welcome).text.split())
    assert "you take over Bob's seat" in text and ", round 2" in text
    assert "What was played before you stays Bob's in the history and on the score sheet" in text
    assert selectors.occupancy(game.pk).spans[1][1][1] == "Bert"
