"""The one command service: parsing, checking, deciding, appending; errors change nothing."""

from __future__ import annotations

import pytest

from pbem.log import eventlog
from pbem.models import Event, Notice
from pbem.play import deadlines, selectors, services
from tests.conftest import deliver, hands


def log_size(game):
    return Event.objects.filter(game=game).count()


def test_a_legal_command_is_applied_and_the_read_model_follows(make_game):
    game = make_game(2)
    card = hands(game)[0][0]
    outcome = services.submit(game.pk, 0, f"play {card}")
    game.refresh_from_db()
    assert outcome.applied == [f"play {card}"] and outcome.version == game.version
    assert game.awaited == [1]


def test_a_structured_command_works_like_its_text(make_game):
    game = make_game(2)
    card = hands(game)[1][-1]
    services.submit(game.pk, 1, command={"type": "play", "card": card})
    assert eventlog.load(game).state["game"]["played"][1] == card


@pytest.mark.parametrize(
    "seat, text, code, words",
    [
        (0, "play 99", "illegal", "You have no card 99"),
        (0, "dance", "illegal", "There is no command 'dance'"),
        (0, "plya 3", "illegal", "Did you mean: play?"),
        (5, "play 1", "no_seat", "has no seat 5"),
        (0, "", "empty", "no command"),
    ],
)
def test_bad_input_gets_a_clear_reason_and_changes_nothing(make_game, seat, text, code, words):
    game = make_game(2)
    before = log_size(game)
    with pytest.raises(services.ServiceError) as err:
        services.submit(game.pk, seat, text)
    assert err.value.code == code and words in str(err.value)
    assert log_size(game) == before


def test_a_rejection_says_which_line_and_what_is_legal_now(make_game):
    game = make_game(2)
    mine = hands(game)[0]
    with pytest.raises(services.CommandRejected) as err:
        services.submit(game.pk, 0, "say hi\nplay 99")
    assert (err.value.line, err.value.line_number) == ("play 99", 2)
    assert err.value.legal == [f"play {c}" for c in mine]


def test_a_seat_that_is_not_awaited_is_told_who_is(make_game):
    game = make_game(2)
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    with pytest.raises(services.NotAwaited, match="waiting for Bob"):
        services.submit(game.pk, 0, f"play {hands(game)[0][0]}")


def test_several_lines_are_applied_in_order_all_or_none(make_game):
    game = make_game(2)
    before = log_size(game)
    with pytest.raises(services.CommandRejected):
        services.submit(game.pk, 0, "say first\nplay 1000")
    with pytest.raises(services.NotAwaited):
        services.submit(game.pk, 0, f"say first\nplay {hands(game)[0][0]}\nplay {hands(game)[0][1]}")
    assert log_size(game) == before
    services.submit(game.pk, 0, f"say first\nplay {hands(game)[0][0]}")
    types = list(Event.objects.filter(game=game, seq__gt=before).order_by("seq").values_list("type", flat=True))
    assert types == ["pbem.Said", "CardPlayed"]


def test_the_same_causation_id_is_applied_once(make_game):
    game = make_game(2)
    card = hands(game)[0][0]
    first = services.submit(game.pk, 0, f"play {card}", causation_id="<m1@mail>")
    again = services.submit(game.pk, 0, f"play {card}", causation_id="<m1@mail>")
    assert not first.duplicate and again.duplicate
    assert Event.objects.filter(game=game, causation_id="<m1@mail>").count() == 1


def test_a_stale_expected_version_is_refused_when_the_seat_can_see_the_change(make_game):
    game = make_game(2)
    seen = game.version
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")  # Bob sees "Alice played a card"
    with pytest.raises(services.StaleVersion):
        services.submit(game.pk, 1, f"play {hands(game)[1][0]}", expected_version=seen)


def test_table_talk_does_not_make_a_reply_stale(make_game):
    game = make_game(2)
    seen = game.version
    services.submit(game.pk, 0, "say good luck")
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}", expected_version=seen)


def test_turn_notices_go_to_newly_awaited_seats_in_the_same_transaction(make_game):
    game = make_game(2)
    assert sorted(Notice.objects.filter(game=game, kind="turn").values_list("seat__number", flat=True)) == [0, 1]
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")
    game.refresh_from_db()
    if game.awaited:  # someone won the round and must claim
        winner = game.awaited[0]
        assert Notice.objects.filter(game=game, kind="turn", seat__number=winner, version=game.version).exists()


def test_help_board_and_history_answer_without_changing_the_log(make_game):
    game = make_game(2)
    before = log_size(game)
    outcome = services.submit(game.pk, 0, "help\nboard\nhistory 3")
    assert "play N" in outcome.answers[0] and "say TEXT" in outcome.answers[0]
    assert "Your hand:" in outcome.answers[1]
    assert len(outcome.answers[2].splitlines()) == 3
    assert log_size(game) == before


def test_a_played_game_ends_with_standings_and_the_seed_revealed(make_game):
    game = make_game(2, options={"rounds": 1})
    services.submit(game.pk, 0, f"play {max(hands(game)[0])}")
    services.submit(game.pk, 1, f"play {min(hands(game)[1])}")
    game.refresh_from_db()
    for seat in game.awaited:
        services.submit(game.pk, seat, "take")
    game.refresh_from_db()
    assert game.status == "finished" and game.awaited == []
    ended = Event.objects.get(game=game, type="pbem.GameEnded").payload
    assert ended["scores"] == game.scores and len(ended["ranking"]) >= 1
    seed = Event.objects.get(game=game, type="pbem.SeedRevealed").payload["seed"]
    assert seed == game.seed
    assert Notice.objects.filter(game=game, kind="final").count() == 2
    with pytest.raises(services.ServiceError, match="over"):
        services.submit(game.pk, 0, "take")


def test_away_is_limited_by_the_games_allowance_of_days(make_game):
    import datetime

    game = make_game(2)  # 21 days by default
    day = lambda n: (datetime.date.today() + datetime.timedelta(days=n)).isoformat()  # noqa: E731
    services.submit(game.pk, 0, f"away until {day(14)}")
    services.submit(game.pk, 0, "back")  # unused days come back
    services.submit(game.pk, 0, f"away until {day(18)}")
    with pytest.raises(services.CommandRejected, match="days of absence left"):
        services.submit(game.pk, 1, "away until 2099-01-01")


def test_away_then_back(make_game):
    import datetime

    game = make_game(2)
    soon = (datetime.date.today() + datetime.timedelta(days=5)).isoformat()
    services.submit(game.pk, 0, f"away until {soon}")
    game.refresh_from_db()
    assert game.deadlines["0"] > game.deadlines["1"]
    services.submit(game.pk, 0, "back")
    names = [i.text for i in selectors.feed(game, 1)]
    assert any("is away until" in n for n in names) and any("is back" in n for n in names)


def test_a_timeout_plays_the_games_pass_and_says_so(make_game):
    import datetime

    game = make_game(2)
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=30)
    deliver(game)
    assert deadlines.timeout_seat(game.pk, 0, now=later) == "passed"
    timed = Event.objects.get(game=game, type="pbem.TimedOut")
    assert timed.actor_kind == "system" and timed.payload["command"].startswith("play ")
    assert deadlines.timeout_seat(game.pk, 0, now=later) == "not_due"  # no longer awaited


def test_a_nul_character_is_dropped_from_text_and_refused_in_a_structured_command(make_game):
    game = make_game(2)
    services.submit(game.pk, 0, "say hel\x00lo")
    assert Event.objects.filter(game=game, type="pbem.Said").get().payload["text"] == "hello"
    with pytest.raises(services.ServiceError) as err:
        services.submit(game.pk, 0, command={"type": "play", "card": "1\x00"})
    assert err.value.code == "bad_input"


def test_table_talk_reaches_every_other_player_even_those_still_choosing(make_game):
    game = make_game(3)
    before = Notice.objects.count()
    services.submit(game.pk, 0, "say I will play low this round")
    told = set(
        Notice.objects.filter(pk__gt=Notice.objects.order_by("pk")[before - 1].pk if before else 0).values_list(
            "seat__number", flat=True
        )
    )
    assert told == {1, 2}


def test_a_missed_deadline_without_a_pass_is_reported_once(make_game, monkeypatch):
    import dataclasses
    import datetime

    from pbem.registry import get_game

    game = make_game(2, absence="minimal")  # a table that chose no stand-in: the Master decides
    spec = get_game("diceduel")
    no_pass = dataclasses.replace(spec, timeout=lambda state, seat: None)
    monkeypatch.setattr(services, "get_game", lambda kind: no_pass)
    from pbem.log import eventlog as el

    monkeypatch.setattr(el, "get_game", lambda kind: no_pass)
    el.cache_clear()
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=30)
    deliver(game)
    assert deadlines.timeout_seat(game.pk, 0, now=later) == "reported"
    assert deadlines.timeout_seat(game.pk, 0, now=later) == "not_due"
    assert Event.objects.filter(game=game, type="pbem.DeadlineMissed").count() == 1
    assert Notice.objects.filter(game=game, kind="overdue").count() == 1
