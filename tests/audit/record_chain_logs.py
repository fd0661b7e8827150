"""Records tests/chain_logs/: real exported logs of every game under both chain schemes, played by
the platform itself (bots choosing among the legal commands), for the crafted-log table and the
fuzzer of the offline verifier (tests/audit/test_crafted_logs.py, test_fuzz_verify.py).

Not collected by the suite (its name does not start with test_); run it on purpose:

    PBEM_RECORD_CHAIN_LOGS=1 DATABASE_URL=… .venv/bin/python -m pytest -n 0 tests/audit/record_chain_logs.py

Each game: a seat's export and a spectator's export part way through (table talk, a take-back, a
pause and a player replaced on the way), then the complete export after the end (with a score
correction after it). Every recorded file must verify; the files are written only when all do.
"""

from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path

import pytest
from django.core.management import call_command

from pbem.audit import verify
from pbem.log import chain, eventlog
from pbem.models import Game
from pbem.play import desk, services, standins
from pbem.play.runner import Actor, ServiceError
from pbem.registry import get_game

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not os.environ.get("PBEM_RECORD_CHAIN_LOGS"), reason="records tests/chain_logs on purpose"),
]
LOGS = Path(__file__).resolve().parents[1] / "chain_logs"
CAST = ["Alice", "Bob", "Carol", "Dan"]
# (game, players, options): every game of games/, each with a variant that hides information.
GAMES = [
    ("elfenland", 3, {"home_cities": True}),
    ("elfenwizards", 3, {}),
    ("elixirus", 2, {}),
    ("elven_castle", 3, {"scenario": "library", "staircase": True}),
    ("zauberschwert", 2, {}),
]
DESK = Actor("admin")


@pytest.fixture(autouse=True)
def _quiet(quiet_limits, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"


def exported(game: Game, *args: str) -> dict:
    out = io.StringIO()
    call_command("export_game", str(game.pk), *args, stdout=out)
    return json.loads(out.getvalue())


def bot_move(game: Game, pick: random.Random) -> bool:
    """One random legal move by one awaited seat; False once nobody is awaited."""
    game.refresh_from_db()
    if not game.awaited:
        return False
    seat = pick.choice(game.awaited)
    spec = get_game(game.kind)
    services.submit(game.pk, seat, command=pick.choice(spec.legal(eventlog.load(game).state["game"], seat)))
    return True


def asides(game: Game) -> None:
    """What a real table adds besides moves: talk, a take-back, a pause, a new player."""
    services.submit(game.pk, 0, "say good luck, everyone")
    try:
        services.submit(game.pk, game.awaited[0] if game.awaited else 0, "undo")
    except ServiceError:
        pass  # nothing of this seat's to take back right now: the log simply has no Undone
    desk.pause_game(game.pk, DESK, "a player asked for a break")
    desk.resume_game(game.pk, DESK, "back again")
    desk.replace_player(game.pk, 1, "Erin", "erin@example.org", DESK, "Bob moved away")


def record(kind: str, players: int, options: dict, scheme: int, monkeypatch) -> dict[str, dict]:
    monkeypatch.setattr(chain, "LATEST", scheme)
    cast = [services.PlayerSpec(name, f"{name.lower()}@example.org") for name in CAST[:players]]
    game = services.create_game(kind, cast, options)
    assert game.chain_scheme == scheme
    pick = random.Random(f"{kind}-{scheme}")
    for _ in range(25):
        bot_move(game, pick)
    asides(game)
    game.refresh_from_db()
    docs = {"seat1": exported(game, "--seat", "1"), "spectator": exported(game)}
    while bot_move(game, pick):
        pass
    desk.correct_score(game.pk, 0, 1, DESK, "a miscounted point")
    game.refresh_from_db()
    assert game.status == "finished"
    docs["complete"] = exported(game)
    return docs


@pytest.mark.parametrize("scheme", chain.SCHEMES)
@pytest.mark.parametrize(("kind", "players", "options"), GAMES)
def test_record(kind, players, options, scheme, monkeypatch):
    docs = record(kind, players, options, scheme, monkeypatch)
    for what, doc in docs.items():
        found = verify.verify_document(doc)
        assert found.ok, (what, found.problems)
    for what, doc in docs.items():
        path = LOGS / f"scheme{scheme}_{kind}_{what}.json"
        path.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


@pytest.mark.parametrize("scheme", chain.SCHEMES)
def test_record_abandoned_with_a_stand_in(scheme, monkeypatch):
    """An end of the other kind: Elven Castle with seat 1 played by the stand-in from the start,
    abandoned by the Master of Seals part way (its log ends with pbem.Abandoned and the seed)."""
    monkeypatch.setattr(chain, "LATEST", scheme)
    cast = [services.PlayerSpec(name, f"{name.lower()}@example.org") for name in CAST[:3]]
    game = services.create_game("elven_castle", cast, {}, standin_seats=(1,))
    pick = random.Random(f"abandoned-{scheme}")
    for _ in range(12):
        standins.play(game.pk)
        game.refresh_from_db()
        if not bot_move(game, pick):
            break
    desk.abandon_game(game.pk, DESK, "the players agreed to stop")
    game.refresh_from_db()
    assert game.status == "abandoned"
    doc = exported(game)
    found = verify.verify_document(doc)
    assert found.ok, found.problems
    assert any(ev["actor_kind"] == "standin" for ev in doc["events"])
    path = LOGS / f"scheme{scheme}_elven_castle_abandoned.json"
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
