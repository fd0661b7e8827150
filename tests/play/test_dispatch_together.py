"""outbox.dispatch_together: notices written by several parts of one transaction go out by one
task once it commits; a part rolled back (its savepoint) is not counted, a transaction rolled
back queues nothing."""

from __future__ import annotations

import pytest
from django.db import transaction

from pbem.play import outbox


@pytest.fixture
def queued(settings, monkeypatch):
    settings.PBEM_NOTICE_DISPATCH = "on_commit"
    tasks: list = []
    monkeypatch.setattr(outbox, "queue_task", lambda name, *args: tasks.append(args))
    return tasks


def test_several_games_in_one_block_are_one_task_for_all_pending(db, queued, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic(), outbox.dispatch_together():
        for game_id in (3, 1, 2):
            outbox.dispatch_on_commit(game_id)
    assert queued == [(None,)]


def test_one_game_left_is_its_own_task_when_the_others_parts_rolled_back(
    db, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic(), outbox.dispatch_together():
        outbox.dispatch_on_commit(7)
        try:
            with transaction.atomic():
                outbox.dispatch_on_commit(8)
                raise RuntimeError("this game's append failed")
        except RuntimeError:
            pass
    assert queued == [(7,)]


def test_a_transaction_rolled_back_queues_nothing(db, queued, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic(), outbox.dispatch_together():
            outbox.dispatch_on_commit(7)
            raise RuntimeError("the group failed")
    assert queued == []


def test_outside_the_block_each_game_is_its_own_task(db, queued, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        outbox.dispatch_on_commit(1)
        outbox.dispatch_on_commit(2)
    assert queued == [(1,), (2,)]
