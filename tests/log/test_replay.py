"""Replay from scratch, the hot path of every cold load (issue 34): the fast fold and decoder
give exactly what the plain ones give."""

from __future__ import annotations

import dataclasses
import json

import msgspec
import pytest

from games.base import Event as GameEvent
from pbem.log import eventlog, fold
from pbem.models import Event
from pbem.play import services

pytestmark = pytest.mark.django_db


def test_an_event_made_for_replay_is_the_same_event_as_one_made_by_its_constructor():
    made = GameEvent.of_row("Played", {"card": 3}, [1, 0], {"seat": 1}, 1)
    built = GameEvent("Played", {"card": 3}, (1, 0), {"seat": 1}, True)
    assert made == built and hash(made.type) == hash(built.type) and made.visible_to == (1, 0)
    assert made.seen_by(0) and not made.seen_by(2) and made.as_seen_by(2).data == {"seat": 1}
    with pytest.raises(AttributeError):
        made.type = "Changed"  # still frozen


def test_replay_from_scratch_gives_the_state_a_fold_event_by_event_gives(make_game):
    game = make_game(2)
    for i in range(12):
        services.submit(game.pk, i % 2, f"say {i}")
    rows = list(Event.objects.filter(game=game).order_by("seq").values_list(*eventlog.ROW_FROM_TEXT))
    by_apply = fold.new_state()
    for seq, etype, payload, public, visible_to, reveals, _schema in rows:
        fold.apply(eventlog.get_game(game.kind), by_apply, etype, payload, visible_to, public, reveals, seq)
    eventlog.cache_clear()
    replayed = eventlog.load(game.pk, use_snapshots=False).state
    assert json.dumps(replayed, sort_keys=True) == json.dumps(by_apply, sort_keys=True)


def test_a_stored_integer_past_64_bits_is_read_as_the_standard_library_reads_it():
    big = 2**70 + 1
    raw = [(1, "Said", json.dumps({"n": big}), None, "[0]", False, 1), (2, "Said", '{"n": 1}', None, None, True, 1)]
    rows = eventlog.rows_from_text(raw)
    assert rows == [(1, "Said", {"n": big}, None, [0], False, 1), (2, "Said", {"n": 1}, None, None, True, 1)]
    assert eventlog.json_loads(json.dumps([big, 1.5, "é"])) == [big, 1.5, "é"]


def _evolved(monkeypatch, kind: str) -> list:
    """The events the game's evolve is given, in order, from here on."""
    spec = eventlog.get_game(kind)
    seen: list = []

    def evolve(state, event):
        seen.append(event)
        return spec.evolve(state, event)

    monkeypatch.setattr(eventlog, "get_game", lambda _kind: dataclasses.replace(spec, evolve=evolve))
    return seen


def test_a_replay_hands_evolve_the_hidden_the_revealing_and_not_the_undone_events_as_stored(make_game, monkeypatch):
    game = make_game(3)
    hand = eventlog.load(game).state["game"]["hands"]
    services.submit(game.pk, 0, f"play {hand[0][0]}")
    services.submit(game.pk, 0, "undo")
    for seat in range(3):
        services.submit(game.pk, seat, f"play {hand[seat][-1]}")  # the last one reveals
    rows = list(Event.objects.filter(game=game).order_by("seq").values_list(*eventlog.ROW_FROM_TEXT))
    undone = fold.undone_in(rows)
    assert undone and any(row[4] for row in rows) and any(row[5] for row in rows)  # hidden, revealing, undone
    expected = [
        GameEvent(etype, payload, None if vis is None else tuple(vis), public, reveals)
        for seq, etype, payload, public, vis, reveals, _schema in rows
        if not etype.startswith(fold.PLATFORM_PREFIX) and seq not in undone
    ]
    seen = _evolved(monkeypatch, game.kind)
    eventlog.cache_clear()
    loaded = eventlog.load(game.pk, use_snapshots=False)
    assert seen == expected and loaded.undone == undone
    assert loaded.state["game"]["played"] == [hand[seat][-1] for seat in range(3)]  # the undone card is not


def test_a_log_msgspec_refuses_is_replayed_through_the_standard_library(make_game, monkeypatch):
    game = make_game(2)
    for i in range(4):
        services.submit(game.pk, i % 2, f"say {i}")
    eventlog.cache_clear()
    expected = eventlog.load(game.pk, use_snapshots=False).state
    calls = []

    def refuse(text):
        calls.append(text)
        raise msgspec.DecodeError("refused")

    monkeypatch.setattr(eventlog, "_decode", refuse)
    eventlog.cache_clear()
    assert eventlog.load(game.pk, use_snapshots=False).state == expected and calls
