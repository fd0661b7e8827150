"""Web-form submissions go through the same store-then-process pipeline as mail."""

from __future__ import annotations

import json

from pbem.doors import inbox, processing
from pbem.models import Event, InboundMessage
from pbem.play import submissions


def _hand(game, seat):
    from pbem.log import eventlog

    return eventlog.load(game).state["game"]["hands"][seat]


def test_store_submission_stores_first_and_processes_on_commit(make_game, django_capture_on_commit_callbacks):
    game = make_game()
    alice = game.seats.get(number=0)
    card = _hand(game, 0)[0]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        message = inbox.store_submission(alice, f"play {card}", game.version)
    assert json.loads(bytes(message.raw))["text"] == f"play {card}"
    assert message.status == "received" and len(callbacks) == 1
    before = Event.objects.filter(game=game).count()

    processing.process(message.pk)
    message.refresh_from_db()
    assert message.status == "applied", message.outcome
    assert message.error_code == "applied"
    assert f"play {card}" in message.outcome
    assert message.result_version == before + 1
    # Processing again changes nothing: the row is handled, the causation id is recorded.
    processing.process(message.pk)
    assert Event.objects.filter(game=game).count() == before + 1


def test_stale_web_submission_is_refused(make_game):
    game = make_game()
    alice, bob = game.seats.get(number=0), game.seats.get(number=1)
    version = game.version
    processing.process(inbox.store_submission(alice, f"play {_hand(game, 0)[0]}", version).pk)
    # Bob answers a page opened before Alice played: what he may see changed (her card went down).
    stale = inbox.store_submission(bob, f"play {_hand(game, 1)[0]}", version)
    processing.process(stale.pk)
    stale.refresh_from_db()
    assert (stale.status, stale.error_code) == ("refused", "stale")
    assert stale.result_version is None


def test_illegal_web_submission_names_line_and_legal_moves(make_game):
    game = make_game()
    alice = game.seats.get(number=0)
    message = inbox.store_submission(alice, "play 99", game.version)
    processing.process(message.pk)
    message.refresh_from_db()
    assert (message.status, message.error_code) == ("refused", "illegal")
    assert "Line 1: play 99" in message.outcome
    for card in _hand(game, 0):
        assert f"play {card}" in message.outcome
    assert InboundMessage.objects.count() == 1


def test_help_is_answered_without_events(make_game):
    game = make_game()
    alice = game.seats.get(number=0)
    message = inbox.store_submission(alice, "help", game.version)
    processing.process(message.pk)
    message.refresh_from_db()
    assert (message.status, message.error_code) == ("answered", "answered")
    assert "play N" in message.outcome


def test_a_bug_while_processing_marks_the_submission_and_keeps_the_game(make_game, monkeypatch):
    game = make_game()
    alice = game.seats.get(number=0)
    message = inbox.store_submission(alice, "play 1", game.version)

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(submissions.services, "submit", broken)
    processing.process(message.pk)
    message.refresh_from_db()
    assert (message.status, message.error_code) == ("refused", "error")
    assert "nothing was applied" in message.outcome


def test_a_busy_game_leaves_the_submission_for_the_sweep(make_game, monkeypatch):
    from pbem import tasks
    from pbem.play import services

    game = make_game()
    alice = game.seats.get(number=0)
    message = inbox.store_submission(alice, f"play {_hand(game, 0)[0]}", game.version)
    real_submit = services.submit

    def busy(*args, **kwargs):
        raise services.ServiceError("The game is busy; please try again.", "busy")

    monkeypatch.setattr(submissions.services, "submit", busy)
    processing.process(message.pk)
    message.refresh_from_db()
    assert message.status == "received"
    monkeypatch.setattr(submissions.services, "submit", real_submit)
    assert tasks.sweep_inbound(older_than_seconds=0) == 1
    message.refresh_from_db()
    assert message.status == "applied"
