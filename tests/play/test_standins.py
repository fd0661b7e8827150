"""Stand-ins: a seat whose player has gone is played by the game's stand-in until the player
comes back, as the table chose when the game was made (issue "no game dies because a player
vanished")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.desk import scoresheets
from pbem.models import Event, Game, Notice
from pbem.play import deadlines, desk, selectors, services
from tests.conftest import CAST, deliver, requires_postgres

# Real commits: the stand-in's moves follow a commit (on_commit), as in production.
pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def table(settings):
    settings.PBEM_NOTICE_DISPATCH = "none"

    def make(players=2, **kw):
        return services.create_game("diceduel", CAST[:players], kw.pop("options", {"rounds": 3}), **kw)

    return make


def miss(game, seat: int) -> str:
    """The seat's deadline passes (its turn notice went out first)."""
    deliver(game)
    return deadlines.timeout_seat(game.pk, seat, now=datetime.now(UTC) + timedelta(days=30))


def _missed_until_standin(game, seat: int) -> None:
    for _ in range(10):
        game.refresh_from_db()
        if seat in game.awaited:
            if miss(game, seat) == "standin":
                return
        else:
            other = game.awaited[0]
            hand = selectors.view(game, other)["hand"]
            services.submit(game.pk, other, "take" if game.phase == "claim" else f"play {hand[0]}")
    raise AssertionError("the stand-in never took over")


def test_after_two_missed_deadlines_the_stand_in_plays_the_seat_as_its_own_actor(table):
    game = table(2, standin_after=2)
    _missed_until_standin(game, 0)
    seated = Event.objects.get(game=game, type="pbem.StandInSeated")
    assert seated.payload == {"seat": 0, "reason": "missed 2 deadlines in a row"}
    assert Event.objects.filter(game=game, type="pbem.TimedOut", payload__seat=0).count() == 2
    moves = Event.objects.filter(game=game, actor_kind="standin", actor_seat=0, seq__gt=seated.seq)
    assert moves.exists() and not moves.filter(type__startswith="pbem.").exists()
    told = Notice.objects.get(game=game, kind="standin")
    assert told.seat.number == 0 and told.context["reason"] == "missed 2 deadlines in a row"
    texts = [item.text for item in selectors.feed(game, 1)]
    assert any(text.endswith("(played by the stand-in for Alice)") for text in texts), texts


def test_the_stand_in_plays_on_by_itself_while_its_seat_is_awaited(table):
    game = table(2, standin_after=1)
    _missed_until_standin(game, 0)
    for _ in range(30):
        game.refresh_from_db()
        if game.status != "running":
            break
        assert game.awaited and 0 not in game.awaited  # the stand-in never keeps the table waiting
        other = game.awaited[0]
        hand = selectors.view(game, other)["hand"]
        services.submit(game.pk, other, "take" if game.phase == "claim" else f"play {hand[0]}")
    assert Game.objects.get(pk=game.pk).status == "finished"


def test_back_takes_the_seat_back_with_a_whole_period_for_the_move_awaited(table):
    game = table(2, standin_after=1)
    _missed_until_standin(game, 0)
    outcome = services.submit(game.pk, 0, "back")
    assert outcome.applied == ["back: you play your seat yourself again"]
    assert Event.objects.filter(game=game, type="pbem.StandInLeft", payload__seat=0).exists()
    # From now on the seat waits for its player again.
    game.refresh_from_db()
    if 1 in game.awaited:
        hand = selectors.view(game, 1)["hand"]
        services.submit(game.pk, 1, "take" if game.phase == "claim" else f"play {hand[0]}")
    game.refresh_from_db()
    if game.status == "running" and 0 in game.awaited:
        assert not Event.objects.filter(game=game, actor_kind="standin", seq__gt=game.version - 1).exists()
        assert Notice.objects.filter(game=game, seat__number=0, kind="turn", version=game.version).exists()


def test_a_seat_the_stand_in_plays_is_told_how_to_take_it_back(table):
    game = table(2)
    services.submit(game.pk, 0, f"play {selectors.view(game, 0)['hand'][0]}")
    desk.seat_standin(game.pk, 0, services.SYSTEM, "Alice asked for it")
    with pytest.raises(services.NotAwaited) as refused:
        services.submit(game.pk, 0, "take")
    assert "The stand-in is playing your seat: reply 'back' to play it yourself again." in str(refused.value)


def test_minimal_action_policy_never_seats_the_stand_in(table):
    game = table(2, absence="minimal", standin_after=1)
    for _ in range(6):
        game.refresh_from_db()
        if game.status != "running":
            break
        assert miss(game, game.awaited[0]) == "passed"
    assert not Event.objects.filter(game=game, type="pbem.StandInSeated").exists()


def test_master_policy_tells_the_master_instead_of_passing_again(table):
    game = table(2, absence="master", standin_after=2)
    verdicts = []
    while len(verdicts) < 2:
        game.refresh_from_db()
        if 0 in game.awaited:
            verdicts.append(miss(game, 0))
        else:  # Bob plays on; Alice stays silent
            services.submit(
                game.pk, 1, "take" if game.phase == "claim" else f"play {selectors.view(game, 1)['hand'][0]}"
            )
    assert verdicts == ["passed", "reported"]  # the rules' minimal action once, then a person decides
    assert Notice.objects.filter(game=game, kind="overdue").exists()
    assert not Event.objects.filter(game=game, type="pbem.StandInSeated").exists()


def test_the_master_of_seals_can_seat_a_stand_in_and_the_sheet_marks_its_rounds(table):
    game = table(2)
    desk.seat_standin(game.pk, 1, services.SYSTEM, "Bob asked for it during his exams")
    with pytest.raises(services.ServiceError):
        desk.seat_standin(game.pk, 1, services.SYSTEM, "twice")
    while True:  # Alice plays; the stand-in answers for Bob
        game.refresh_from_db()
        if game.status != "running":
            break
        assert game.awaited == [0]
        services.submit(game.pk, 0, "take" if game.phase == "claim" else f"play {selectors.view(game, 0)['hand'][0]}")
    assert Event.objects.filter(game=game, actor_kind="standin", actor_seat=1).exists()
    sheet = scoresheets.build(game)
    assert sheet.rows and all(row.standin == [False, True] for row in sheet.rows)


def test_a_practice_game_invites_only_its_player_and_the_stand_ins_play_at_once(table):
    players = [
        services.PlayerSpec("Nina", "nina@example.org"),
        services.PlayerSpec("Stand-in 1", ""),
        services.PlayerSpec("Stand-in 2", ""),
    ]
    game = services.create_game("diceduel", players, {"rounds": 1}, invited=True, standin_seats=(1, 2))
    assert [n.seat.number for n in Notice.objects.filter(game=game, kind="invitation")] == [0]
    services.accept_invitation(game.seats.get(number=0))
    game.refresh_from_db()
    assert game.status == "running" and game.awaited == [0]  # both stand-ins have bid already
    assert not Notice.objects.filter(game=game, seat__number__in=[1, 2]).exists()


def test_where_the_rules_allow_no_pass_the_stand_in_takes_over_at_the_first_missed_deadline(table, monkeypatch):
    import dataclasses

    from pbem.log import eventlog
    from pbem.registry import all_games

    spec = all_games()["diceduel"]
    monkeypatch.setitem(all_games(), "diceduel", dataclasses.replace(spec, timeout=lambda state, seat: None))
    eventlog.cache_clear()
    game = table(2, standin_after=3)
    assert miss(game, 0) == "standin"
    seated = Event.objects.get(game=game, type="pbem.StandInSeated")
    assert seated.payload["reason"] == "missed a deadline where the rules allow no pass"
