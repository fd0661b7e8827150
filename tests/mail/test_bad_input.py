"""The bad-input corpus: each case is answered as it should be, and changes nothing."""

from __future__ import annotations

import base64
import os

import pytest
from django.contrib.auth import get_user_model

from pbem.mail import outbound
from pbem.models import Event, Game, InboundMessage, Notice
from pbem.play import addressing, desk, services

from .conftest import deliver, hand, send_all
from .replies import corpus, reply
from .test_replies import received, text_of


def board_version(game) -> tuple[int, list]:
    """The game's version and its non-platform events: what "nothing changed" means."""
    game = Game.objects.get(pk=game.pk)
    return game.version, list(
        Event.objects.filter(game=game).exclude(type__startswith="pbem.").values_list("seq", flat=True)
    )


def attachment_5mb() -> str:
    return base64.encodebytes(os.urandom(5 * 1024 * 1024)).decode()


CASES = {
    # name: (builder(game, notice) -> raw, expected status, expected code, answered?, words in the answer)
    "no token": (
        lambda g, n: reply("gmail", n, "play 5", to="seals@pbem.localhost", subject="my move"),
        "refused",
        "no_token",
        True,
        "could not tell which game",
    ),
    # A token that is not ours proves no link to us: recorded, and not answered (no backscatter).
    "forged token": (
        lambda g, n: reply("gmail", n, "play 5", to="play+1-1-aaaaaaaaaaaaaaaa@pbem.localhost"),
        "refused",
        "forged",
        False,
        "",
    ),
    # Answered only to an address that plays here: Alice was replaced, so hers no longer does.
    "revoked token": (None, "refused", "revoked", False, ""),
    "wrong game": (None, "refused", "other_game", True, "another game"),
    # Never answered to the sender (a forged From would make us a mail cannon): Alice, whose
    # reply address it is, is told instead.
    "sender not at the table": (
        lambda g, n: reply("gmail", n, "play 5", sender="eve@example.net"),
        "refused",
        "not_at_table",
        True,
        "A mail from eve@example.net came to your reply address",
    ),
    "not your turn": (None, "refused", "not_your_turn", True, "not your turn"),
    "illegal move": (lambda g, n: reply("gmail", n, "play 99"), "refused", "illegal", True, "Line 1: play 99"),
    "unknown command": (
        lambda g, n: reply("outlook", n, "dance wildly"),
        "refused",
        "illegal",
        True,
        "Line 1: dance wildly",
    ),
    "empty body": (lambda g, n: reply("gmail", n, ""), "refused", "empty", True, "no command"),
    "HTML-only": (lambda g, n: reply("html_only", n, "board"), "answered", "answered", True, "Your hand"),
    "5 MB attachment": (
        lambda g, n: corpus("attachment", n, f"play {hand(g, 0)[0]}", ATTACHMENT=attachment_5mb()),
        "refused",
        "too_large",
        True,
        "without attachments",
    ),
    "broken charset": (lambda g, n: corpus("broken_charset", n, "board"), "refused", "illegal", True, "Line 2: Tr"),
    "auto-reply": (lambda g, n: corpus("auto_reply", n), "ignored", "automatic", False, ""),
    "mailer-daemon bounce": (None, "ignored", "bounce", False, ""),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input(case, table, mailoutbox, make_game):
    builder, status, code, answered, words = CASES[case]
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    if case == "revoked token":
        desk.replace_player(table.pk, 0, "Dora", "dora@example.org", services.SYSTEM, "Alice moved away")
        builder = lambda g, n: reply("gmail", n, "play 5")  # noqa: E731
    elif case == "wrong game":
        other = make_game(2)
        to = addressing.reply_address(other.seats.get(number=0))
        builder = lambda g, n: reply("gmail", n, "play 5", to=to)  # noqa: E731
    elif case == "not your turn":
        services.submit(table.pk, 0, f"play {hand(table, 0)[0]}")
        # Not threaded (no In-Reply-To): no stale guard, so the turn rule itself answers.
        builder = lambda g, n: reply("apple", n, f"play {hand(g, 0)[0]}", keep_threading=False)  # noqa: E731
    elif case == "mailer-daemon bounce":
        get_user_model().objects.create_superuser("seals", "master@example.org", "x")
        bounce_to = outbound.bounce_address(Notice.objects.get(pk=int(notice["X-Pbem-Notice"])))
        builder = lambda g, n: corpus("bounce", n, to=bounce_to)  # noqa: E731
    before = board_version(table)
    answers_before = Notice.objects.filter(kind="answer").count()

    message = deliver(builder(table, notice))

    assert (message.status, message.error_code) == (status, code), message.outcome
    if case != "mailer-daemon bounce":
        assert board_version(table) == before
    assert Notice.objects.filter(kind="answer").count() == answers_before + answered
    if answered:
        send_all()
        assert not [m for m in mailoutbox if "eve@example.net" in m.to]
        answer = received(mailoutbox, "alice@example.org", "answer")
        assert words in text_of(answer), text_of(answer)
        assert answer["Auto-Submitted"] == "auto-replied"


def test_the_same_message_twice_is_applied_and_answered_once(table, mailoutbox):
    send_all()
    raw = reply("gmail", received(mailoutbox, "alice@example.org"), f"play {hand(table, 0)[0]}")
    first = deliver(raw)
    version = board_version(table)
    second = deliver(raw)
    assert first.pk == second.pk and first.status == "applied"
    assert board_version(table) == version
    assert Notice.objects.filter(kind="answer").count() == 1
    assert InboundMessage.objects.count() == 1


def test_a_bounce_is_logged_the_master_told_and_the_deadline_held(table, mailoutbox):
    get_user_model().objects.create_superuser("seals", "master@example.org", "x")
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    row = Notice.objects.get(pk=int(notice["X-Pbem-Notice"]))
    # A relay lost our VERP address: the bounce reaches the plain address, the report quotes our id.
    message = deliver(corpus("bounce", notice, to="seals@pbem.localhost"))
    assert (message.status, message.error_code) == ("ignored", "bounce")
    row.refresh_from_db()
    assert row.status == "bounced" and "User unknown" in row.last_error
    assert Event.objects.filter(game=table, type="pbem.NoticeBounced", payload__seat=0).exists()
    assert "0" not in Game.objects.get(pk=table.pk).deadlines
    send_all()
    told = received(mailoutbox, "master@example.org")
    assert "could not be delivered" in text_of(told) and "User unknown" in text_of(told)
    assert Notice.objects.filter(kind="answer").count() == 0


def test_our_own_notice_coming_back_is_not_answered(table, mailoutbox):
    send_all()
    sent = next(m for m in mailoutbox if m.to == ["alice@example.org"])
    message = deliver(sent.message().as_bytes())
    assert (message.status, message.error_code) == ("ignored", "automatic")
    assert Notice.objects.filter(kind="answer").count() == 0


def test_answers_to_one_address_are_capped_per_hour(table, mailoutbox, settings):
    settings.PBEM_MAIL_ANSWERS_PER_HOUR = 3
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    messages = [deliver(reply("gmail", notice, "dance")) for _ in range(5)]
    assert [m.status for m in messages] == ["refused"] * 5
    assert Notice.objects.filter(kind="answer").count() == 3
    assert "Not answered" in messages[-1].outcome
