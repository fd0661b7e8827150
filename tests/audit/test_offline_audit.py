"""An audit that needs no server: a game exported as one reader may see it, checked offline by
`python -m pbem.verify` (issue 14)."""

from __future__ import annotations

import copy
import io
import json
import random
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from pbem.audit import verify
from pbem.log import eventlog
from pbem.models import Event, Game, Seat
from pbem.play import addressing, services
from pbem.registry import get_game

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
PLAYERS = [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org")]


@pytest.fixture(autouse=True)
def _quiet(quiet_limits, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"


def elfenland(moves: int | None = None) -> Game:
    """Elfenland with Home Cities for Alice and Bob, played by bots to the end (or `moves` moves)."""
    spec = get_game("elfenland")
    game = services.create_game("elfenland", PLAYERS, {"home_cities": True})
    pick = random.Random(5)
    for _ in range(moves if moves is not None else 10_000):
        game.refresh_from_db()
        if not game.awaited:
            break
        seat = pick.choice(game.awaited)
        services.submit(game.pk, seat, command=pick.choice(spec.legal(eventlog.load(game).state["game"], seat)))
    game.refresh_from_db()
    return game


def exported(game: Game, *args) -> dict:
    out = io.StringIO()
    call_command("export_game", str(game.pk), *args, stdout=out)
    return json.loads(out.getvalue())


def problems(doc: dict, *heads) -> list[str]:
    return verify.verify_document(doc, list(heads)).problems


def test_a_finished_game_exported_and_verified_offline_passes(tmp_path):
    game = elfenland()
    assert game.status == "finished"
    path = tmp_path / "game.json"
    call_command("export_game", str(game.pk), "--output", str(path), stderr=io.StringIO())
    head = f"{game.version - 3}:{Event.objects.get(game=game, seq=game.version - 3).hash}"
    run = subprocess.run(
        [sys.executable, "-S", "-m", "pbem.verify", str(path), "--head", head],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout
    lines = run.stdout.splitlines()
    assert lines[-1] == "VERIFIED: everything checked holds"
    assert f"ok: {game.version} events checked link by link from the first" in lines
    assert f"ok: {game.version} payloads checked against their commitments" in lines
    assert "ok: the revealed seed matches the commitment published by the first event" in lines
    assert any(line.startswith("ok: replayed through the rules of Elfenland: same final state") for line in lines)
    assert any(line.startswith("ok: head ") and line.endswith("is in the log") for line in lines)


def test_one_payload_outcome_time_or_order_changed_fails_each_with_its_own_message():
    game = elfenland()
    doc = exported(game)
    assert problems(doc) == []
    hidden = next(i for i, ev in enumerate(doc["events"]) if ev["visible_to"] is not None)
    drawn = next(i for i, ev in enumerate(doc["events"]) if ev["rng"])

    payload = copy.deepcopy(doc)
    payload["events"][hidden]["payload"]["forged"] = True
    outcome = copy.deepcopy(doc)
    n, value = outcome["events"][drawn]["rng"][0]
    outcome["events"][drawn]["rng"][0] = [n, (value + 1) % n]
    time = copy.deepcopy(doc)
    moment = datetime.fromisoformat(time["events"][20]["created_at"]) + timedelta(seconds=1)
    time["events"][20]["created_at"] = moment.isoformat()
    order = copy.deepcopy(doc)
    order["events"][30], order["events"][31] = order["events"][31], order["events"][30]

    seq = hidden + 1
    assert f"event {seq}: its payload differs from what the chain committed to" in problems(payload)
    assert f"event {drawn + 1}: its random outcomes differ from what the chain committed to" in problems(outcome)
    assert f"event {drawn + 1}: its random outcomes do not follow from the seed" in problems(outcome)
    assert [p for p in problems(time) if "time" in p] == [
        f"event 21: its time ({time['events'][20]['created_at']}) differs from the time the chain recorded"
    ]
    assert "the event at position 31 is numbered 32: the events are out of order, or one is missing" in problems(order)
    messages = [set(problems(d)) for d in (payload, outcome, time, order)]
    assert all(m and all(m.isdisjoint(other) for other in messages if other is not m) for m in messages)


def test_a_head_the_log_no_longer_holds_fails_offline():
    game = elfenland(moves=10)
    doc = exported(game)
    wrong = (5, "ab" * 32)
    assert problems(doc, wrong) == [
        f"head 5:{'ab' * 8}… is not in the log: event 5 has hash "
        f"{doc['events'][4]['hash'][:16]}…, so the log changed after that head was given out"
    ]
    assert problems(doc, (999, "ab" * 32))[0].startswith("head 999:")


def test_a_seats_export_before_the_end_checks_what_it_can_and_says_what_must_wait():
    game = elfenland(moves=12)
    assert game.status == "running"
    doc = exported(game, "--seat", "1")
    events = {ev["seq"]: ev for ev in doc["events"]}
    stored = {e.seq: e for e in Event.objects.filter(game=game)}
    assert "seed" not in doc and "final" not in doc and all("rng" not in ev for ev in doc["events"])
    assert game.seed not in json.dumps(doc)
    for seq, event in stored.items():
        if event.visible_to is not None and 1 not in event.visible_to:
            assert events[seq]["payload"] is None and "payload_key" not in events[seq]
        else:
            assert events[seq]["payload"] == event.payload and events[seq]["payload_key"]
    found = verify.verify_document(doc)
    assert found.ok, found.problems
    notes = " ".join(found.notes)
    assert "the seed is still secret" in notes and "seat 1's log before the end" in notes
    assert "payloads hidden from this reader stay sealed" in notes


def test_the_export_on_the_web_and_the_api_is_the_commands(client):
    game = elfenland(moves=8)
    bob = Seat.objects.get(game=game, number=1)
    token = addressing.token_for(bob)
    same = lambda doc: {k: v for k, v in doc.items() if k != "exported_at"}  # noqa: E731
    assert same(client.get(f"/api/games/{game.pk}/export").json()) == same(exported(game))
    assert same(client.get(f"/api/games/{game.pk}/export", headers={"X-Seat-Token": token}).json()) == same(
        exported(game, "--seat", "1")
    )
    page = client.get(f"/games/{game.pk}/log.json")
    assert page["Content-Disposition"] == f'attachment; filename="game{game.pk}-v{game.version}.json"'
    mine = client.get(f"/play/{token}/log.json")
    assert same(json.loads(mine.content)) == same(exported(game, "--seat", "1"))
    assert mine["Referrer-Policy"] == "same-origin"


def test_export_game_refuses_a_game_or_seat_that_does_not_exist(make_game):
    game = make_game(2)
    with pytest.raises(CommandError, match="There is no game #99999"):
        call_command("export_game", "99999")
    with pytest.raises(CommandError, match="seats 0 to 1; there is no seat 2"):
        call_command("export_game", str(game.pk), "--seat", "2")
