"""Shared fixtures: a fixed cast (alice, bob, carol) at a table of the toy game Dice Duel."""

from __future__ import annotations

import pytest
from django.db import connection

from pbem import eventlog, services


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    # The in-process cache must not carry states across tests (each test has its own database).
    eventlog.cache_clear()
    yield
    eventlog.cache_clear()


CAST = [services.PlayerSpec("Alice", "alice@example.org"), services.PlayerSpec("Bob", "bob@example.org"),
        services.PlayerSpec("Carol", "carol@example.org")]


@pytest.fixture
def cast():
    return list(CAST)


@pytest.fixture
def make_game(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"

    def make(players: int = 2, kind: str = "diceduel", options=None, **kw):
        return services.create_game(kind, CAST[:players], options or {}, **kw)

    return make


def hands(game):
    return eventlog.load(game).state["game"]["hands"]


requires_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (set DATABASE_URL, as .ci/run does)"
)
