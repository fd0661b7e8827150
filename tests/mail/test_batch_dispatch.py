"""The SMTP listener's batch task (pbem.tasks.process_inbound_batch): replies stored together are
processed each in its own transaction, and the notices they cause go out by one sending task
once the batch is through, not by one task a reply; a reply that fails takes nothing with it."""

from __future__ import annotations

import pytest

from pbem import tasks
from pbem.doors import inbox, processing
from pbem.models import InboundMessage, Notice
from pbem.play import outbox

from .conftest import send_all
from .replies import reply
from .test_replies import received

SEND = "pbem.tasks.send_pending_notices"


@pytest.fixture
def queued(settings, monkeypatch):
    """The tasks queued (name, args), none run: what the worker would find on the broker."""
    settings.PBEM_NOTICE_DISPATCH = "on_commit"
    settings.PBEM_NOTICE_FOLD_SECONDS = 0
    found: list = []
    monkeypatch.setattr(outbox, "queue_task", lambda name, *args: found.append((name, args)))
    return found


def stored_reply(game, mailoutbox, command: str = "say on my way") -> int:
    """Alice's reply to her newest mail of `game`, stored as the listener stores it (no task)."""
    notice = next(m for m in reversed(mailoutbox) if m.to == ["alice@example.org"] and f"#{game.pk}" in str(m.subject))
    parsed = received([notice], "alice@example.org")
    raw = reply("gmail", parsed, command, message_id=f"<batch-{game.pk}-{len(mailoutbox)}@example.org>")
    message, created = inbox.store_raw(raw, "smtp", publish=False)
    assert created
    return message.pk


def test_replies_of_several_games_in_one_batch_cause_one_sending_task(
    make_game, mailoutbox, queued, django_capture_on_commit_callbacks
):
    games = [make_game(2), make_game(2), make_game(2)]
    send_all()
    ids = [stored_reply(game, mailoutbox) for game in games]
    with django_capture_on_commit_callbacks(execute=True):
        counts = tasks.process_inbound_batch(ids)
    assert counts == {"applied": 3}, list(InboundMessage.objects.values_list("outcome", flat=True))
    assert [q for q in queued if q[0] == SEND] == [(SEND, (None,))]
    # Each reply's answer waits in the outbox for that one task.
    assert {n.game_id for n in Notice.objects.filter(status="pending", kind="answer")} == {g.pk for g in games}


def test_a_batch_of_one_game_queues_that_games_task(make_game, mailoutbox, queued, django_capture_on_commit_callbacks):
    game, other = make_game(2), make_game(2)
    send_all()
    ids = [stored_reply(game, mailoutbox)]
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.process_inbound_batch(ids) == {"applied": 1}
    assert [q for q in queued if q[0] == SEND] == [(SEND, (game.pk,))]
    assert not Notice.objects.filter(game=other, status="pending").exists()


def test_a_reply_that_fails_in_a_batch_sends_nothing_of_its_own_and_the_others_go_out(
    make_game, mailoutbox, queued, monkeypatch, django_capture_on_commit_callbacks
):
    good, bad = make_game(2), make_game(2)
    send_all()
    ids = [stored_reply(bad, mailoutbox), stored_reply(good, mailoutbox)]
    real = processing.process

    def process(inbound_id):
        if inbound_id == ids[0]:
            real_atomic_then_fail(inbound_id)
        return real(inbound_id)

    def real_atomic_then_fail(inbound_id):
        from django.db import transaction

        with transaction.atomic():  # its notices were written, then the database went away
            outbox.dispatch_on_commit(bad.pk)
            raise RuntimeError("the database went away")

    monkeypatch.setattr(processing, "process", process)
    with django_capture_on_commit_callbacks(execute=True):
        counts = tasks.process_inbound_batch(ids)
    assert counts == {"failed": 1, "applied": 1}
    assert [q for q in queued if q[0] == SEND] == [(SEND, (good.pk,))]
    assert InboundMessage.objects.get(pk=ids[0]).status == "received"  # for the sweep


def test_one_reply_causes_one_sending_task(make_game, mailoutbox, queued, django_capture_on_commit_callbacks):
    game = make_game(2)
    send_all()
    inbound_id = stored_reply(game, mailoutbox)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.process_inbound(inbound_id) == "applied"
    assert [q for q in queued if q[0] == SEND] == [(SEND, (game.pk,))]
    assert Notice.objects.filter(game=game, status="pending", kind="answer").exists()
