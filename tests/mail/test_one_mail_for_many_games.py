"""One mail for many games (issue 32): a player awaited in several games, who asked for it, gets
one notice listing them, and answers it in one reply with lines prefixed by the game; each game's
lines are applied together (all or none for that game), a bad line refuses its own game's part
only, and one answer tells each game's outcome."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.models import Event, Game, InboundMessage, Notice, PlayerSettings
from pbem.play import services
from tests.conftest import requires_postgres

from .conftest import deliver, hand, send_all
from .replies import reply


def mails_to(mailoutbox, address: str):
    return [
        email.message_from_bytes(m.message().as_bytes(), policy=email.policy.default)
        for m in mailoutbox
        if m.to == [address]
    ]


def text_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def test_a_reply_answering_three_games_applies_each_games_lines_atomically(make_game, mailoutbox):
    games = [make_game(2) for _ in range(3)]
    services.submit(games[0].pk, 0, "notices combined")
    assert PlayerSettings.objects.get(email="alice@example.org").combined_notices
    send_all()
    alices = mails_to(mailoutbox, "alice@example.org")
    turn = [m for m in alices if "Your move in 3 games" in str(m["Subject"])]
    assert len(turn) == 1, [str(m["Subject"]) for m in alices]
    notice = turn[0]
    body = text_of(notice)
    for game in games:
        assert f"#{game.pk} Dice Duel" in body
    folded = Notice.objects.filter(game__in=games[1:], seat__number=0, kind="turn")
    assert all(n.status == "skipped" and "one mail for several games" in n.last_error for n in folded)
    first, second, third = games
    good = hand(first, 0)[0]
    lines = (
        "Hi all,\n\n"
        f"#{first.pk}: play {good}\n"
        f"#{second.pk}: play {hand(second, 0)[0]}\n"
        f"#{second.pk}: play 99\n"  # a bad line: the second game's part is refused, all of it
        f"#{third.pk}: 1\n"  # a code of the third game's menu
    )
    message = deliver(reply("gmail_company_signature", notice, lines))
    assert message.error_code == "partly", message.outcome
    played = {g.pk: list(Event.objects.filter(game=g, type="CardPlayed", payload__seat=0)) for g in games}
    assert [e.payload["card"] for e in played[first.pk]] == [good]
    assert played[second.pk] == []  # atomic for that game: its good first line is not applied either
    assert len(played[third.pk]) == 1  # the code read on the third game's own menu
    send_all()
    answer = [m for m in mails_to(mailoutbox, "alice@example.org") if m["In-Reply-To"] == message.message_id]
    assert len(answer) == 1
    said = text_of(answer[0])
    assert f"Refused in #{second.pk}" in said
    assert f"#{first.pk} Dice Duel: Applied" in said and f"#{third.pk} Dice Duel: Applied" in said
    assert "play 99" in said


def test_lines_for_a_game_without_a_seat_of_the_sender_are_refused_and_move_nothing(make_game, mailoutbox, cast):
    mine, theirs = make_game(2), services.create_game("diceduel", [cast[1], cast[2]], {})
    services.submit(mine.pk, 0, "notices combined")
    send_all()
    notice = next(m for m in mails_to(mailoutbox, "alice@example.org"))
    message = deliver(
        reply("gmail", notice, f"#{theirs.pk}: play {hand(theirs, 0)[0]}\n#{mine.pk}: play {hand(mine, 0)[0]}")
    )
    assert f"no seat in game #{theirs.pk}" in message.outcome
    assert not Event.objects.filter(game=theirs, type="CardPlayed").exists()
    assert Event.objects.filter(game=mine, type="CardPlayed").count() == 1
    assert InboundMessage.objects.get(pk=message.pk).error_code == "partly"
    assert Game.objects.get(pk=theirs.pk).version == theirs.version


def test_orders_given_in_a_real_looking_reply_are_read_as_orders_not_prose(table, mailoutbox):
    send_all()
    notice = next(m for m in mails_to(mailoutbox, "bob@example.org"))
    lines = "Hello Alice,\n\norders forced on\norder roll\nif Alice take then play 1 else play 2\n\nCheers"
    message = deliver(reply("gmail_company_signature", notice, lines, sender="bob@example.org"))
    assert message.status == "answered" or message.status == "applied", message.outcome
    given = Event.objects.filter(game=table, type="pbem.OrderGiven", payload__seat=1)
    assert [e.payload["order"]["kind"] for e in given.order_by("seq")] == ["forced", "standing", "conditional"]
    assert all(e.visible_to == [1] and e.public == {"seat": 1} for e in given)


def test_prose_starting_with_if_is_not_an_order():
    from pbem.mail import inbound

    assert not inbound.looks_like_platform_order("If you have a minute, look at the board")
    assert inbound.looks_like_platform_order("if Alice take then roll")


@requires_postgres
@pytest.mark.django_db(transaction=True)  # orders are played after a commit (on_commit)
def test_a_move_played_by_an_order_is_marked_automatic_in_the_seats_own_mail_only(table, mailoutbox):
    services.submit(table.pk, 0, "orders forced on")
    for _ in range(2):  # two rounds by hand: 3, then 2 cards, choices
        for seat in (0, 1):
            services.submit(table.pk, seat, f"play {min(hand(table, seat))}")
        table.refresh_from_db()
        if table.phase == "claim":
            services.submit(table.pk, table.awaited[0], "take")
    table.refresh_from_db()
    assert table.round == 3 and table.awaited == [1]  # Alice's last card went by itself
    send_all()
    before_end = "\n".join(text_of(m) for m in mails_to(mailoutbox, "bob@example.org"))
    assert "only legal move" not in before_end and "automatically" not in before_end
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")
    table.refresh_from_db()
    if table.phase == "claim":
        services.submit(table.pk, table.awaited[0], "take")
    send_all()
    alices = "\n".join(text_of(m) for m in mails_to(mailoutbox, "alice@example.org"))
    assert "automatically" in alices and "the only legal move" in alices  # her next notice (the last) says so
