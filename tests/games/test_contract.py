"""The contract every registered game keeps (games/base.py), checked the same way for all."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from games.base import GameSpec
from games.testing import canonical, check_golden, play_random
from pbem.registry import all_games

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = sorted((ROOT / "tests" / "golden").glob("*/*.json"))
FORBIDDEN = ("django", "pbem", "celery", "redis", "psycopg")


def game_names():
    return sorted(all_games())


@pytest.mark.parametrize("path", sorted((ROOT / "games").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_games_import_nothing_from_the_platform_or_its_services(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN, f"{path} imports {name}"


def test_every_game_package_registers_a_spec():
    packages = sorted(p.parent.name for p in (ROOT / "games").glob("*/__init__.py"))
    for package in packages:
        module = __import__(f"games.{package}", fromlist=["GAME"])
        assert isinstance(getattr(module, "GAME", None), GameSpec), f"games/{package} exposes no GAME"


@pytest.mark.parametrize("name", game_names())
def test_bot_games_replay_deterministically_and_events_survive_json(name):
    spec = all_games()[name]
    for players in range(spec.min_players, spec.max_players + 1):
        table = play_random(spec, players, seed=players, check_every=5)
        for event in table.events:
            assert json.loads(json.dumps(event.data)) == event.data
        again = play_random(spec, players, seed=players, check_every=50)
        assert [canonical(e.data) for e in again.events] == [canonical(e.data) for e in table.events]
        assert json.loads(canonical(table.state)) == table.state


@pytest.mark.parametrize("name", game_names())
def test_every_view_is_json_and_spectators_see_no_more_than_players(name):
    spec = all_games()[name]
    table = play_random(spec, spec.min_players, seed=11, check_every=25)
    for seat in [None, *range(spec.min_players)]:
        view = spec.view(table.state, seat)
        assert json.loads(json.dumps(view)) == view
        text = spec.render_text(view)
        assert all(len(line) <= 80 for line in text.splitlines()), f"{name}: render_text wider than 80 columns"
        assert isinstance(spec.render_html(view), str)


def test_every_real_game_has_golden_logs_of_three_table_sizes():
    games = {name for name in game_names() if (ROOT / "games" / name).is_dir()}
    sizes = {name: {json.loads(p.read_text())["players"] for p in GOLDEN if p.parent.name == name} for name in games}
    assert {name: len(s) >= 3 for name, s in sizes.items()} == {name: True for name in games}, sizes


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_logs_replay_to_the_recorded_outcome(path):
    """Complete games recorded with an earlier build replay to the same states and scores (a
    change that would replay a live game differently must bump the game's reducer version)."""
    record = json.loads(path.read_text())
    spec = all_games()[record["game"]]
    assert record["game"] == path.parent.name and record["version"] == spec.version
    check_golden(spec, record)


def test_a_spec_is_assembled_from_its_modules_and_a_missing_function_is_named_at_import():
    import types

    rules = types.SimpleNamespace(**{name: (lambda *a: None) for name in ("setup", "decide", "evolve")})
    with pytest.raises(TypeError, match=r"lonely: no module gives the contract function waiting_for\(\)"):
        GameSpec.from_modules(rules, name="lonely", title="Lonely", min_players=1, max_players=1, version=1)
    elfenland = __import__("games.elfenland", fromlist=["rules", "grammar", "view"])
    assert elfenland.GAME.parse is elfenland.grammar.parse and elfenland.GAME.view is elfenland.view.view
    assert elfenland.GAME.decide is elfenland.rules.decide and elfenland.GAME.can_act is None
