"""Timeouts, pause and resume, replacements and corrections: the desk keeps history and every
player concerned hears of it (issue "one truth across processes")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.desk import scoresheets
from pbem.models import Event, Game, Notice
from pbem.play import deadlines, desk, selectors, services
from tests.conftest import deliver, hands


def _far_future() -> datetime:
    return datetime.now(UTC) + timedelta(days=30)


def test_a_seat_timed_out_and_awaited_again_gets_a_notice_and_a_whole_new_period(make_game):
    """Dice Duel: the late bidder plays its lowest card; when that wins the round, the same seat
    must now claim. It is told so and has a full period again: the timer does not play for it a
    second time a minute later without a word."""
    game = make_game(2, deadline_seconds=3600)
    low = [min(h) for h in hands(game)]
    late, early = (0, 1) if low[0] > low[1] else (1, 0)
    services.submit(game.pk, early, f"play {low[early]}")
    deliver(game)
    desk.extend_deadline(game.pk, late, datetime.now(UTC) - timedelta(seconds=1), services.SYSTEM, "time is up")
    assert deadlines.timeout_seat(game.pk, late) == "passed"
    game.refresh_from_db()
    assert game.awaited == [late] and game.phase == "claim"
    fresh = datetime.fromisoformat(game.deadlines[str(late)])
    assert fresh >= datetime.now(UTC) + timedelta(seconds=3600 - 5)  # a whole period from the timeout
    turn = Notice.objects.filter(game=game, seat__number=late, kind="turn").order_by("-id").first()
    timed_out = Event.objects.get(game=game, type="pbem.TimedOut")
    assert turn is not None and turn.version > timed_out.seq
    deliver(game)
    assert deadlines.timeout_seat(game.pk, late, now=datetime.now(UTC) + timedelta(minutes=1)) == "not_due"


def test_a_deadline_does_not_run_out_before_the_turn_notice_went_out(make_game):
    game = make_game(2)  # its turn notices wait in the outbox (the mail server is down, say)
    assert deadlines.timeout_seat(game.pk, 0, now=_far_future()) == "not_due"
    deliver(game)
    assert deadlines.timeout_seat(game.pk, 0, now=_far_future()) == "passed"


def test_a_turn_notice_that_goes_out_late_gives_the_seat_a_whole_period(make_game):
    game = make_game(2, deadline_seconds=3600)
    desk.extend_deadline(game.pk, 0, datetime.now(UTC) + timedelta(minutes=5), services.SYSTEM, "short")
    deliver(game)
    game.refresh_from_db()
    assert datetime.fromisoformat(game.deadlines["0"]) > datetime.now(UTC) + timedelta(minutes=55)
    assert Event.objects.filter(
        game=game, type="pbem.DeadlineExtended", payload__reason="the turn notice reached the player late"
    ).exists()


def test_the_master_of_seals_is_told_of_every_missed_deadline_with_the_count_in_a_row(make_game):
    game = make_game(2, options={"rounds": 3})
    for _ in range(2):
        game.refresh_from_db()
        seat = game.awaited[0]
        deliver(game)
        assert deadlines.timeout_seat(game.pk, seat, now=_far_future()) == "passed"
    told = list(Notice.objects.filter(game=game, kind="timedout").order_by("id"))
    assert len(told) == 2 and all(n.seat_id is None for n in told)
    assert told[0].context["command"].startswith("play ")


def test_pause_then_resume_gives_back_each_seats_remaining_time_extensions_included(make_game):
    game = make_game(2, deadline_seconds=48 * 3600)
    extended = datetime.now(UTC) + timedelta(days=10)
    desk.extend_deadline(game.pk, 1, extended, services.SYSTEM, "a long trip")
    game.refresh_from_db()
    left = {seat: datetime.fromisoformat(iso) - datetime.now(UTC) for seat, iso in game.deadlines.items()}
    desk.pause_game(game.pk, services.SYSTEM, "the club is closed for a week")
    game.refresh_from_db()
    assert game.status == "paused" and game.deadlines == {}
    desk.resume_game(game.pk, services.SYSTEM, "open again")
    game.refresh_from_db()
    now = datetime.now(UTC)
    for seat, remaining in left.items():
        given = datetime.fromisoformat(game.deadlines[seat]) - now
        assert abs((given - remaining).total_seconds()) < 5, (seat, given, remaining)
    assert given > timedelta(days=9)  # the extension survived the pause


def test_a_replaced_players_moves_stay_hers_in_the_history(make_game):
    game = make_game(2)
    card = hands(game)[0][0]
    services.submit(game.pk, 0, f"play {card}")
    desk.replace_player(game.pk, 0, "Dave", "dave@example.org", services.SYSTEM, "Alice moved away")
    game.refresh_from_db()
    lines = selectors.history_lines(game.pk, 0)
    assert any(line.endswith(f"Alice played {card} face down.") for line in lines), lines
    assert not any("Dave played" in line for line in lines)
    assert any("Dave takes over seat 1 from Alice: Alice moved away" in line for line in lines)
    assert selectors.feed(game, None)[-1].text.startswith("Dave takes over seat 1 from Alice")


def test_a_replacement_is_mailed_to_the_one_who_leaves_the_newcomer_and_the_table(make_game):
    game = make_game(3)
    desk.replace_player(game.pk, 1, "Dave", "dave@example.org", services.SYSTEM, "Bob left the club")
    replaced = Event.objects.get(game=game, type="pbem.PlayerReplaced")
    notices = {(n.kind, n.to_email) for n in Notice.objects.filter(game=game, version=replaced.seq)}
    assert ("replaced", "bob@example.org") in notices
    assert ("welcome", "dave@example.org") in notices
    assert {("news", "alice@example.org"), ("news", "carol@example.org")} <= notices
    assert not any(email == "dave@example.org" and kind != "welcome" for kind, email in notices)


def test_the_score_sheet_keeps_each_players_points_apart_after_a_replacement(make_game):
    game = make_game(2, options={"rounds": 3})
    # Round 1 by Alice and Bob, then Alice is replaced by Dave for the rest.
    _play_round(game)
    desk.replace_player(game.pk, 0, "Dave", "dave@example.org", services.SYSTEM, "Alice left")
    while Game.objects.get(pk=game.pk).status == "running":
        _play_round(game)
    sheet = scoresheets.build(Game.objects.get(pk=game.pk))
    assert sheet.names[0] == "Alice, then Dave (took the seat in round 2)" and sheet.names[1] == "Bob"
    first = next(row for row in sheet.rows if row.round == 1)
    assert first.players[0] == "Alice" and all(row.players[0] == "Dave" for row in sheet.rows if row.round > 1)
    standing = next(s for s in sheet.standings if s.seat == 0)
    assert sum(points for _name, points in standing.by_player) == standing.score
    assert [name for name, _points in standing.by_player] == ["Alice", "Dave"]
    assert "of which Alice" in scoresheets.to_csv(sheet)


def _play_round(game):
    game.refresh_from_db()
    start = game.round
    while game.status == "running" and game.round == start:
        seat = game.awaited[0]
        services.submit(game.pk, seat, "take" if game.phase == "claim" else f"play {hands(game)[seat][0]}")
        game.refresh_from_db()


def test_a_score_correction_is_mailed_to_the_player_it_changes(make_game):
    game = make_game(2)
    desk.correct_score(game.pk, 1, 3, services.SYSTEM, "a miscounted die")
    correction = Notice.objects.get(game=game, kind="correction")
    assert correction.seat.number == 1 and correction.context == {"points": 3, "reason": "a miscounted die"}


@pytest.mark.parametrize(
    "seconds, text",
    [(48 * 3600, "48 hours"), (60, "1 minute"), (90, "90 seconds"), (7 * 86400, "7 days"), (5400, "90 minutes")],
)
def test_a_deadline_reads_in_its_largest_whole_unit(seconds, text):
    assert Game(deadline_seconds=seconds).deadline_text == text
