"""Replies in: who wrote, what they asked, the answer. In-process (the doors have their own tests)."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.doors import inbox, processing
from pbem.mail import outbound
from pbem.models import Event, Game, InboundMessage, Notice
from pbem.play import services

from .conftest import deliver, hand, send_all
from .replies import STYLES, reply


def received(mailoutbox, to: str, kind: str | None = None):
    """The newest mail sent to `to` (optionally of one notice kind), parsed as a client would."""
    for message in reversed(mailoutbox):
        if message.to == [to]:
            parsed = email.message_from_bytes(message.message().as_bytes(), policy=email.policy.default)
            if kind is None or Notice.objects.get(pk=int(parsed["X-Pbem-Notice"])).kind == kind:
                return parsed
    raise AssertionError(f"no mail to {to}")


def text_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def game_events(game) -> list[str]:
    return list(Event.objects.filter(game=game).exclude(type__startswith="pbem.").values_list("type", flat=True))


@pytest.mark.parametrize("style", STYLES)
def test_a_reply_in_each_style_plays_the_move_and_is_confirmed(style, table, mailoutbox):
    send_all()
    card = hand(table, 0)[1]
    message = deliver(reply(style, received(mailoutbox, "alice@example.org"), f"play {card}"))
    assert (message.status, message.error_code) == ("applied", "applied"), message.outcome
    played = Event.objects.get(game=table, type="CardPlayed")
    assert played.payload == {"seat": 0, "card": card} and played.causation_id == message.message_id
    send_all()
    confirmation = received(mailoutbox, "alice@example.org", "answer")
    body = text_of(confirmation)
    assert f"play {card}" in body and "Next: waiting for Bob" in body
    assert confirmation["In-Reply-To"] == message.message_id
    assert confirmation["Auto-Submitted"] == "auto-replied"
    assert all(len(line) <= 80 for line in body.splitlines()), "plain text for an 80-column reader"


def test_a_code_is_the_option_the_notice_listed(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "bob@example.org")
    third = sorted(hand(table, 1))[2]
    assert f"3  play {third}" in text_of(notice)
    message = deliver(reply("gmail", notice, "3", sender="bob@example.org"))
    assert message.status == "applied", message.outcome
    assert Event.objects.get(game=table, type="CardPlayed").payload == {"seat": 1, "card": third}


def test_several_lines_all_or_none(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    card = hand(table, 0)[0]
    refused = deliver(reply("gmail", notice, "say here goes\nplay 99"))
    assert (refused.status, refused.error_code) == ("refused", "illegal"), refused.outcome
    assert "Line 2: play 99" in refused.outcome
    twice = deliver(reply("gmail", notice, f"say here goes\nplay {card}\nplay {card}"))
    assert (twice.status, twice.error_code) == ("refused", "not_your_turn"), twice.outcome
    assert not Event.objects.filter(game=table, type__in=["pbem.Said", "CardPlayed"]).exists()
    applied = deliver(reply("gmail", notice, f"say here goes\nplay {card}"))
    assert applied.status == "applied"
    assert list(
        Event.objects.filter(game=table, type__in=["pbem.Said", "CardPlayed"]).values_list("type", flat=True)
    ) == ["pbem.Said", "CardPlayed"]


def test_reply_to_an_older_notice_is_refused_when_the_seat_saw_changes(table, mailoutbox):
    send_all()
    old_bob = received(mailoutbox, "bob@example.org")
    # Both play; the round resolves and a new round (or a claim) follows: Bob's view changed.
    services.submit(table.pk, 0, f"play {hand(table, 0)[0]}")
    services.submit(table.pk, 1, f"play {hand(table, 1)[0]}")
    send_all()
    before = game_events(table)
    message = deliver(reply("apple", old_bob, "board", sender="bob@example.org"))
    # "board" changes nothing, yet it answers; a move on the stale notice is refused:
    assert message.status == "answered"
    awaited = Game.objects.get(pk=table.pk).awaited
    command = "take" if 1 in awaited else f"play {hand(table, 1)[0]}"
    stale = deliver(reply("apple", old_bob, command, sender="bob@example.org"))
    assert (stale.status, stale.error_code) == ("refused", "stale"), stale.outcome
    assert game_events(table) == before
    send_all()
    answer = text_of(received(mailoutbox, "bob@example.org", "answer"))
    assert "The board as it stands now" in answer and "Dice Duel - round" in answer


def test_reply_to_an_older_notice_is_applied_when_nothing_changed_for_that_seat(table, mailoutbox):
    send_all()
    bob_notice = received(mailoutbox, "bob@example.org")
    services.submit(table.pk, 0, "say hello")  # table talk: not a change of the board
    message = deliver(reply("outlook", bob_notice, f"play {hand(table, 1)[0]}", sender="bob@example.org"))
    assert message.status == "applied", message.outcome


def test_client_that_dropped_reply_to_is_identified_by_sender_and_subject_code(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    message = deliver(reply("gmail", notice, f"play {hand(table, 0)[0]}", to="seals@pbem.localhost"))
    assert message.status == "applied", message.outcome
    assert message.seat.number == 0


def test_platform_commands_answer_by_mail(table, mailoutbox):
    send_all()
    notice = received(mailoutbox, "alice@example.org")
    for command, expected in [
        ("help", "Commands for every game"),
        ("board", "Your hand"),
        ("history 2", "#"),
        ("notices digest", "notices digest"),
    ]:
        message = deliver(reply("gmail", notice, command))
        assert message.status in ("answered", "applied"), (command, message.outcome)
        send_all()
        assert expected in text_of(received(mailoutbox, "alice@example.org", "answer")), command
    assert table.seats.get(number=0).notice_preference == "digest"


def test_say_is_recorded_and_told_to_the_table(table, mailoutbox):
    send_all()
    services.submit(table.pk, 0, f"play {hand(table, 0)[0]}")  # Alice waits now; she hears news
    deliver(reply("gmail", received(mailoutbox, "bob@example.org"), "say Good luck, Alice!", sender="bob@example.org"))
    said = Event.objects.get(game=table, type="pbem.Said")
    assert said.payload == {"seat": 1, "text": "Good luck, Alice!"}
    send_all()
    news = received(mailoutbox, "alice@example.org", "news")
    assert "Bob says: Good luck, Alice!" in text_of(news)
    assert "Waiting for: Bob" in text_of(news)


def test_the_same_reply_through_two_doors_is_applied_once(table, mailoutbox):
    send_all()
    raw = reply("gmail", received(mailoutbox, "alice@example.org"), f"play {hand(table, 0)[0]}")
    first = deliver(raw, "pipe")
    again = deliver(raw, "smtp")
    assert first.pk == again.pk and InboundMessage.objects.count() == 1
    assert Event.objects.filter(game=table, type="CardPlayed").count() == 1


def test_a_long_absence_of_notices_is_summed_up_not_pasted(table, mailoutbox):
    from django.utils import timezone

    from pbem.play import deadlines

    send_all()
    services.submit(table.pk, 1, "notices digest")
    last = outbound.MAX_SINCE + 4
    for n in range(last + 1):
        services.submit(table.pk, 0, f"say chatter {n}")
    assert deadlines.send_digests(timezone.now().replace(hour=9)) == 1
    send_all()
    body = text_of(received(mailoutbox, "bob@example.org", "digest"))
    assert 'earlier events: reply "history' in body
    assert f"Alice says: chatter {last}" in body and "Alice says: chatter 0\n" not in body


def test_a_reply_costs_a_fixed_handful_of_statements(table, mailoutbox):
    """Store, lock, seat with game, the checks' counts in one query, the append, the answer, the
    row's end state: the reading must not grow a query per check again (each cost the worker
    about a millisecond of CPU to compile)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    send_all()
    card = hand(table, 0)[1]
    raw = reply("gmail", received(mailoutbox, "alice@example.org"), f"play {card}\n\nCheers,\nAlice")
    with CaptureQueriesContext(connection) as queries:
        message, _created = inbox.store_raw(raw, "pipe")
        processing.process(message.pk)
    statements = [
        q["sql"]
        for q in queries.captured_queries
        if not q["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"))
    ]
    assert InboundMessage.objects.get(pk=message.pk).status == "applied"
    # On PostgreSQL the append is one statement of its own (not seen here); SQLite's is four.
    # The five: store, lock, seat with game and the checks' counts, this game's news check, the
    # answer with the message's end state.
    bound = 5 if connection.vendor == "postgresql" else 11
    assert len(statements) <= bound, "\n".join(s[:200] for s in statements)


def test_a_forged_reference_to_another_seats_notice_or_version_sets_no_stale_guard(table, mailoutbox):
    """The version a reply answers is trusted only from a notice we sent to that seat, at the
    version its Message-ID names (a Message-ID is not signed): read with the seat, in one query."""
    from pbem.mail import inbound, outbound, replies

    send_all()
    alice_notice = received(mailoutbox, "alice@example.org")
    alices = Notice.objects.get(pk=int(alice_notice["X-Pbem-Notice"]))
    bobs = Notice.objects.filter(game=table, seat__number=1).latest("id")

    def expected_for(in_reply_to: str):
        raw = reply("gmail", alice_notice, "help")
        raw = raw.replace(str(alice_notice["Message-ID"]).encode(), in_reply_to.encode())
        parsed = inbound.parse(raw)
        seat, facts = replies.identify_with_facts(parsed)
        assert seat.number == 0
        return replies._expected_version(parsed, seat, facts)

    assert expected_for(outbound.notice_message_id(alices)) == alices.version
    assert expected_for(outbound.notice_message_id(bobs)) is None  # Bob's notice, named by Alice
    forged_version = outbound.notice_message_id(alices).replace(f".v{alices.version}.", f".v{alices.version + 7}.")
    assert expected_for(forged_version) is None
