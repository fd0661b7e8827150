"""The optional contract (games/base.py): choosers, stand-ins and pictures, checked alike for
every game that has them; every real game must have them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.base import Choice
from games.testing import canonical, play_random, play_with_standins
from pbem.registry import all_games

ROOT = Path(__file__).resolve().parents[2]


def game_names():
    return sorted(all_games())


def real(name: str) -> bool:
    return (ROOT / "games" / name).is_dir()


def _positions(spec, players: int, seed: int, every: int = 7):
    """(state, seat) at every `every`-th decision of a random game."""
    found = []

    def keep(table):
        if len(table.events) % every == 0:
            for seat in spec.waiting_for(table.state):
                found.append((json.loads(canonical(table.state)), seat))

    play_random(spec, players, seed=seed, check=keep)
    return found[:200]


@pytest.mark.parametrize("name", game_names())
def test_the_chooser_offers_every_legal_move_exactly_once(name):
    spec = all_games()[name]
    for state, seat in _positions(spec, spec.min_players, seed=3):
        offered = spec.choices_for(state, seat)
        assert all(isinstance(c, Choice) and c.group and c.label for c in offered)
        assert sorted(canonical(c.command) for c in offered) == sorted(canonical(c) for c in spec.legal(state, seat))
        assert spec.max_featured is None or sum(c.featured for c in offered) <= spec.max_featured


@pytest.mark.parametrize("name", [n for n in game_names() if real(n)])
def test_every_real_game_has_a_stand_in_a_chooser_and_a_picture(name):
    spec = all_games()[name]
    missing = [f for f in ("choices", "standin", "render_svg") if getattr(spec, f) is None]
    assert not missing, f"{name} lacks {', '.join(missing)}"


@pytest.mark.parametrize("name", game_names())
def test_a_stand_in_plays_legal_moves_to_the_end_at_every_table_size(name):
    spec = all_games()[name]
    if spec.standin is None:
        assert not real(name), f"{name} has no stand-in"
        pytest.skip(f"the toy game {name} has no stand-in")
    for players in range(spec.min_players, spec.max_players + 1):
        table = play_with_standins(spec, players, standins=range(players), seed=players)
        again = play_with_standins(spec, players, standins=range(players), seed=players)
        assert table.log == again.log, "a stand-in game is not deterministic"


@pytest.mark.parametrize("name", game_names())
def test_the_picture_is_one_standalone_svg(name):
    spec = all_games()[name]
    if spec.render_svg is None:
        assert not real(name), f"{name} has no picture"
        pytest.skip(f"the toy game {name} has no picture")
    table = play_random(spec, spec.min_players, seed=5)
    svg = spec.render_svg(spec.view(table.state, 0))
    assert svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>") and svg.count("<svg") == 1
    assert 'xmlns="http://www.w3.org/2000/svg"' in svg and ' width="' in svg and ' height="' in svg
