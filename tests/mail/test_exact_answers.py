"""Exact answers (issue 27): every refusal names its real reason, and the answers' small defects
each have a test named after them."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from pbem.mail import outbound
from pbem.models import Notice
from pbem.play import services

from .conftest import deliver, hand, send_all
from .replies import reply
from .test_replies import received, text_of


def answer_to(mailoutbox, address: str = "alice@example.org") -> str:
    send_all()
    return " ".join(text_of(received(mailoutbox, address, "answer")).split())


def test_a_code_the_notice_did_not_offer_is_refused_as_that_not_as_no_command(table, mailoutbox):
    send_all()
    offered = len(hand(table, 0))
    message = deliver(reply("gmail", received(mailoutbox, "alice@example.org"), str(offered + 5)))
    assert (message.status, message.error_code) == ("refused", "no_such_code"), message.outcome
    body = answer_to(mailoutbox)
    assert f"the notice you answered offered codes 1 to {offered}, not {offered + 5}" in body
    assert "There is no command" not in body


def test_a_code_from_a_seat_that_is_not_awaited_says_whom_the_game_waits_for(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    assert deliver(reply("gmail", notice, "1")).status == "applied"  # Alice has played: Bob is awaited
    message = deliver(reply("gmail", notice, "1", keep_threading=False))  # a new mail: no notice named
    assert (message.status, message.error_code) == ("refused", "no_such_code"), message.outcome
    body = answer_to(mailoutbox)
    assert "your latest notice offered no codes: it is not your move: the game is waiting for Bob" in body
    assert "There is no command" not in body


def test_say_cut_short_in_the_confirmation_ends_with_an_ellipsis(table, mailoutbox):
    send_all()
    words = "I have been thinking about this round for a long while and I am still not sure"
    deliver(reply("gmail", received(mailoutbox, "alice@example.org"), f"say {words}"))
    body = answer_to(mailoutbox)
    assert f"said: {words[:60].rstrip()}…" in body


def test_a_short_say_is_confirmed_whole_without_an_ellipsis(table, mailoutbox):
    send_all()
    deliver(reply("gmail", received(mailoutbox, "alice@example.org"), "say good luck"))
    assert "said: good luck " in answer_to(mailoutbox) + " " and "…" not in answer_to(mailoutbox)


def test_a_stale_reply_from_a_seat_not_awaited_is_not_asked_to_send_its_move_again(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    cards = hand(table, 0)
    assert deliver(reply("gmail", notice, f"play {cards[0]}")).status == "applied"
    message = deliver(reply("gmail", notice, f"play {cards[1]}"))  # to the same, older notice
    assert (message.status, message.error_code) == ("refused", "stale"), message.outcome
    body = answer_to(mailoutbox)
    assert "please send your move again" not in body and "send it again" not in body
    assert "It is not your move now: the game is waiting for Bob" in body


def test_a_stale_reply_from_the_awaited_seat_is_asked_to_send_it_again(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    deliver(reply("gmail", notice, "say hello"))
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")  # Bob's card: Alice's view changed
    message = deliver(reply("gmail", notice, f"play {hand(table, 0)[0]}"))
    if message.status == "refused":  # a move that still means the same may be applied (means_the_same)
        assert "it is still your move: please send it again" in answer_to(mailoutbox)


def test_the_final_standings_name_each_players_colour_as_the_board_does(table, mailoutbox):
    for _round in range(3):
        for seat in (0, 1):
            services.submit(table.pk, seat, f"play {hand(table, seat)[0]}")
        table.refresh_from_db()
        if table.status == "running" and table.awaited:
            services.submit(table.pk, table.awaited[0], "take")
    table.refresh_from_db()
    assert table.status == "finished"
    send_all()
    final = text_of(received(mailoutbox, "alice@example.org", "final"))
    assert "Alice (red)" in final and "Bob (blue)" in final
    assert "Seats: 1 Alice (red), 2 Bob (blue)" in final


def test_another_players_away_day_is_shown_with_the_zone_it_is_in(table, mailoutbox):
    send_all()
    services.submit(table.pk, 0, "zone Europe/Berlin")
    last_day = (timezone.now() + timedelta(days=3)).date().isoformat()
    services.submit(table.pk, 0, f"away until {last_day}")
    send_all()
    news = " ".join(text_of(received(mailoutbox, "bob@example.org", "news")).split())
    assert f"Alice is away until the end of {last_day} (Europe/Berlin)" in news


def test_wrapped_prose_has_no_hanging_indent_and_no_word_alone_on_its_last_line():
    stale = (
        "The game has moved on since the notice you answered: your command was not applied. It is "
        "not your move now: the game is waiting for Bob. Here is the board as it stands; you get a "
        "notice when it is your turn."
    )
    lines = outbound.fit(stale).splitlines()
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines)
    assert not any(line.startswith(" ") for line in lines), "prose goes on at the margin"
    assert len(lines[-1].split()) > 1, "no orphan"
    assert " ".join(" ".join(lines).split()) == " ".join(stale.split())


def test_a_wrapped_list_item_goes_on_under_its_text_not_alone():
    item = "  * " + "Bob moved his elf from Elvenhold to Beata by road with an elfcycle and collected a town"
    lines = outbound.fit(item).splitlines()
    assert lines[1].startswith("    ") and not lines[1].startswith("     ")
    assert len(lines[-1].split()) > 1


def test_the_invitation_wraps_within_80_columns_without_orphans(db, settings, mailoutbox):
    settings.PBEM_NOTICE_DISPATCH = "none"
    from tests.conftest import CAST

    game = services.create_game("diceduel", CAST[:2], {}, invited=True)
    send_all()
    notice = Notice.objects.get(game=game, kind="invitation")
    text = outbound.render(notice).text
    for previous, line in zip(text.splitlines(), text.splitlines()[1:]):
        assert len(line) <= 80
        if len(previous) > 60 and line.strip() and not line.startswith("http"):
            assert len(line.split()) > 1 or line.strip().endswith(":"), f"an orphan: {line!r}"


def test_a_labelled_code_is_read_as_the_code_not_as_the_games_move_help(db, settings, mailoutbox):
    """'move: 9' in Elfenland: the code 9, which the notice did not offer; not Elfenland's help
    for its own 'move' command."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    from tests.conftest import CAST

    game = services.create_game("elfenland", CAST[:3], {})
    send_all()
    game.refresh_from_db()
    address = CAST[game.awaited[0]].email
    message = deliver(reply("gmail", received(mailoutbox, address), "move: 9", sender=address))
    assert (message.status, message.error_code) == ("refused", "no_such_code"), message.outcome
    assert "not 9" in message.outcome and "move to" not in message.outcome
