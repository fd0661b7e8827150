"""Fewer mails by default (issue 27): news at most once per turn of another player (or per
round, a daily digest, never, or every move: the seat's choice, per game, with a default of the
player's own); a practice game mails only what its player needs; a confirmation that a notice
follows within seconds goes into that notice, and news that a later notice tells is not sent."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from pbem.mail import sending
from pbem.models import Notice, PlayerSettings, Seat
from pbem.play import services, standins
from pbem.registry import get_game

from .conftest import deliver, hand, send_all
from .replies import reply
from .test_replies import received, text_of
from .whole_games import people, standin_choice, state_of


def news_to(game, number: int) -> int:
    return Notice.objects.filter(game=game, seat__number=number, kind="news").count()


def move_by_standin(game) -> int:
    game.refresh_from_db()
    seat = game.awaited[0]
    services.submit(game.pk, seat, get_game(game.kind).describe(standin_choice(game, seat)))
    return seat


def elfenland_at_the_moving_step(**options):
    game = services.create_game("elfenland", people("elfenland"), {}, **options)
    while state_of(game)["game"]["phase"] != "move":
        move_by_standin(game)
    game.refresh_from_db()
    return game


def test_a_new_seat_hears_of_the_others_once_per_turn_by_default(make_game):
    game = make_game(3)
    assert set(Seat.objects.filter(game=game).values_list("notice_preference", flat=True)) == {"turn"}


def test_the_steps_of_one_players_turn_bring_the_others_one_news_mail(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = elfenland_at_the_moving_step()
    mover = game.awaited[0]
    others = [n for n in range(3) if n != mover]
    before = {n: news_to(game, n) for n in others}
    steps = 0
    while True:
        game.refresh_from_db()
        if game.awaited != [mover]:
            break
        move_by_standin(game)
        steps += 1
    assert steps >= 2, "a turn of several steps"
    told = {n: news_to(game, n) - before[n] for n in others}
    next_seat = game.awaited[0] if game.awaited else None
    for n in others:
        # The next player gets a turn notice instead; the other one news, once.
        assert told[n] == (0 if n == next_seat else 1), (steps, told)


def test_a_seat_on_every_move_hears_of_each_step(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = elfenland_at_the_moving_step(notices="every")
    mover = game.awaited[0]
    watcher = next(n for n in range(3) if n != mover)
    before = news_to(game, watcher)
    steps = 0
    while Notice.objects.filter(game=game).exists():
        game.refresh_from_db()
        if game.awaited != [mover]:
            break
        move_by_standin(game)
        steps += 1
    assert news_to(game, watcher) - before >= steps - 1


def test_a_seat_on_once_a_round_hears_only_when_the_round_ends(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("elfenland", people("elfenland"), {}, notices="round")
    at_start = {n: news_to(game, n) for n in range(3)}  # the game began: round 1 is a new round
    assert all(count <= 1 for count in at_start.values())
    rounds = {}
    while game.round < 2 and game.status == "running":
        move_by_standin(game)
        game.refresh_from_db()
        rounds[game.round] = {n: news_to(game, n) - at_start[n] for n in range(3)}
    assert all(count == 0 for count in rounds[1].values()), "nothing during the round"
    assert all(count <= 1 for count in rounds[2].values()) and any(rounds[2].values())


def test_notices_default_is_the_players_choice_for_the_games_they_join_later(make_game, mailoutbox):
    game = make_game(2)
    send_all()
    message = deliver(reply("gmail", received(mailoutbox, "alice@example.org"), "notices default round pictures"))
    assert message.status == "applied", message.outcome
    alice = Seat.objects.get(game=game, number=0)
    assert (alice.notice_preference, alice.news_pictures) == ("round", True)
    assert PlayerSettings.objects.get(email="alice@example.org").notice_preference == "round"
    later = make_game(2)
    assert Seat.objects.get(game=later, number=0).notice_preference == "round"
    assert Seat.objects.get(game=later, number=1).notice_preference == "turn"  # Bob chose nothing


def test_notices_alone_says_the_choice_and_how_to_change_it(table, mailoutbox):
    send_all()
    deliver(reply("gmail", received(mailoutbox, "alice@example.org"), "notices"))
    send_all()
    body = " ".join(text_of(received(mailoutbox, "alice@example.org", "answer")).split())
    assert "You hear of the other players' moves: once per turn of another player." in body
    assert "'notices round'" in body


def test_news_carries_the_board_picture_only_when_the_seat_asked(db, settings, mailoutbox):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("elven_castle", people("elven_castle"), {})
    send_all()
    move_by_standin(game)
    send_all()
    news = [m for m in mailoutbox if "News:" in m.subject]
    assert news and all(not m.pictures for m in news)
    for seat in range(3):
        services.submit(game.pk, seat, "notices pictures")
    mailoutbox.clear()
    move_by_standin(game)
    send_all()
    news = [m for m in mailoutbox if m.subject.startswith("News:")]
    assert news and all(m.pictures for m in news)


@pytest.fixture
def folding(settings):
    settings.PBEM_NOTICE_FOLD_SECONDS = 10


def later(seconds: float = 11) -> None:
    """As if `seconds` had passed: what waits for its fold time is due."""
    Notice.objects.filter(status="pending").update(
        created_at=timezone.now() - timedelta(seconds=seconds),
    )
    Notice.objects.filter(status="pending", next_attempt_at__isnull=False).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )


def mailoutbox_of(game) -> list:
    """The mail of the game's sent notices, as the players' mailboxes hold it."""
    from pbem.mail import outbound

    sent = Notice.objects.filter(game=game, status="sent").select_related("game", "seat").order_by("id")
    return [outbound.make_message(notice) for notice in sent]


def test_a_practice_game_mails_its_player_one_notice_a_turn(db, settings, folding, mailoutbox):
    settings.PBEM_NOTICE_DISPATCH = "none"
    players = [services.PlayerSpec("Alice", "alice@example.org")] + [
        services.PlayerSpec(f"Stand-in {n}", "") for n in (1, 2)
    ]
    game = services.create_game("diceduel", players, {}, standin_seats=(1, 2))
    standins.play(game.pk)
    send_all()
    assert [m.subject.split(":")[0] for m in mailoutbox] == ["Your move"]
    for _turn in range(3):
        notice = received(mailoutbox, "alice@example.org")
        mailoutbox.clear()
        message = deliver(reply("gmail", notice, "1"))
        assert message.status == "applied", message.outcome
        standins.play(game.pk)  # the stand-ins move at once (a task queued when the reply commits)
        send_all()
        later()
        send_all()
        game.refresh_from_db()
        if game.status != "running":
            break
        subjects = [m.subject for m in mailoutbox]
        assert len(subjects) == 1 and subjects[0].startswith("Your move:"), subjects
        body = mailoutbox[0].body
        assert "Your reply:" in body and "Applied:" in body  # the confirmation, folded in


def test_news_that_a_later_notice_tells_is_not_sent(make_game, folding, mailoutbox):
    game = make_game(3)
    send_all()
    mailoutbox.clear()
    services.submit(game.pk, 1, "say here is Bob")  # news of it for Alice and Carol: it waits
    services.submit(game.pk, 2, "say and here Carol")  # more news for Alice, telling both
    assert send_all() == {}  # nothing due yet
    later()
    send_all()
    to_alice = [m for m in mailoutbox if m.to == ["alice@example.org"]]
    assert len(to_alice) == 1
    assert "Bob says: here is Bob" in to_alice[0].body and "Carol says: and here Carol" in to_alice[0].body
    first = Notice.objects.filter(game=game, seat__number=0, kind="news").order_by("id").first()
    assert first.status == "skipped" and first.last_error.startswith("superseded by notice")


def test_a_confirmation_followed_within_seconds_by_a_notice_goes_into_it(make_game, folding, mailoutbox):
    game = make_game(2)
    send_all()
    mailoutbox.clear()
    deliver(reply("gmail", received(mailoutbox_of(game), "alice@example.org"), f"play {hand(game, 0)[0]}"))
    answer = Notice.objects.get(game=game, kind="answer")
    assert answer.next_attempt_at is not None  # held: Alice is no longer awaited, a notice may follow
    services.submit(game.pk, 1, f"play {hand(game, 1)[0]}")  # Bob: the round is decided at once
    game.refresh_from_db()
    if 0 not in game.awaited:  # Bob won it: he takes his points, and the next round awaits Alice
        services.submit(game.pk, 1, "take")
    send_all()
    to_alice = [m for m in mailoutbox if m.to == ["alice@example.org"]]
    assert len(to_alice) == 1 and "Your reply:" in to_alice[0].body and "Applied:" in to_alice[0].body
    answer.refresh_from_db()
    assert answer.status == "skipped" and answer.last_error.startswith("folded into notice")


def test_a_confirmation_with_nothing_to_follow_goes_out_at_once(make_game, folding, mailoutbox):
    game = make_game(2)
    send_all()
    mailoutbox.clear()
    deliver(reply("gmail", received(mailoutbox_of(game), "alice@example.org"), "say hello"))
    answer = Notice.objects.get(game=game, kind="answer")
    assert answer.next_attempt_at is None  # still her move: nothing will follow
    send_all()
    assert [m.to for m in mailoutbox] == [["alice@example.org"]]


def test_the_sweep_sends_what_waited_its_fold_time(make_game, folding, mailoutbox):
    game = make_game(3)
    send_all()
    services.submit(game.pk, 1, "say hello")
    assert sending.send_pending(None) == {}
    later()
    assert sending.send_pending(None) == {"sent": 2}
