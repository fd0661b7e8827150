"""Schemathesis against the published OpenAPI schema: every operation, generated requests
(valid and invalid), every answer checked against the schema (status codes, content types,
bodies) and for server errors. Requests go to a real game with a real seat token, so the
deeper paths (parsing, rules, feeds, replays) are exercised too, not only the 404s."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from pbem.models import Seat
from pbem.play import addressing

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def _keep_the_test_connection():
    # Django's test client does the same: the WSGI app must not close the connection that holds
    # the test's transaction at the end of each request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def table(make_game):
    game = make_game(3)
    seat = Seat.objects.get(game=game, number=0)
    return game, addressing.token_for(seat)


# Loaded at collection: producing the schema needs no database. (schemathesis' lazy
# `from_fixture` loader does not work with pytest 9.)
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", WSGIHandler())
# Unknown query parameters are ignored, as nearly every HTTP API does; don't count that.
schema.config.generation.update(allow_extra_parameters=False)


@schema.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)
def test_api_conforms_to_its_schema(case, table):
    game, token = table
    if "game_id" in (case.path_parameters or {}):
        case.path_parameters["game_id"] = game.pk
    if case.headers and "X-Seat-Token" in case.headers:
        case.headers["X-Seat-Token"] = token
    # Requests valid by the schema may still be refused by the rules, which no JSON Schema can
    # state (how many players a game takes, which moves are legal now, an empty command): those
    # answers are 400/422 with a code, so "schema-valid data must be accepted" does not apply.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
