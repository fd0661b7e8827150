"""For every game: one seat silent from its first turn; after two missed deadlines the stand-in
plays it, its player takes it back by mail halfway ("back", as a reply to the stand-in's
notice), falls silent again, and the stand-in finishes the game for them."""

from __future__ import annotations

import email
import email.policy
import random
from datetime import UTC, datetime, timedelta

import pytest

from pbem.log import eventlog
from pbem.mail import outbound
from pbem.models import Event, Game, Notice
from pbem.play import deadlines, services
from pbem.registry import all_games
from tests.conftest import CAST, requires_postgres
from tests.conftest import deliver as send_due

from .conftest import deliver
from .replies import reply

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]

PLAYERS = CAST + [services.PlayerSpec("Dora", "dora@example.org"), services.PlayerSpec("Erin", "erin@example.org")]


def _miss(game) -> str:
    send_due(game)
    return deadlines.timeout_seat(game.pk, 0, now=datetime.now(UTC) + timedelta(days=365))


def _others_move(game, pick) -> bool:
    """One move of a seat other than 0 (random legal); False when only seat 0 is awaited."""
    state = eventlog.load(game).state
    spec = all_games()[game.kind]
    others = [s for s in game.awaited if s != 0]
    if not others:
        return False
    seat = pick.choice(others)
    services.submit(game.pk, seat, command=pick.choice(spec.legal(state["game"], seat)))
    return True


def _play(game, pick, until) -> None:
    for _ in range(20000):
        game.refresh_from_db()
        if game.status != "running" or until(game):
            return
        standins = eventlog.load(game).state["meta"].get("standins", [])
        if 0 in game.awaited and 0 not in standins:
            _miss(game)
        elif not _others_move(game, pick):
            raise AssertionError(f"only the stand-in's seat is awaited, yet it did not move ({game.phase})")
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("kind", sorted(all_games()))
def test_a_silent_seat_is_played_to_the_end_by_the_stand_in_and_taken_back_by_mail(kind, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    spec = all_games()[kind]
    players = max(spec.min_players, 2)
    options = {"home_cities": True} if kind == "elfenland" else {}
    game = services.create_game(kind, PLAYERS[:players], options, standin_after=2)
    pick = random.Random(kind)

    def seated(g):
        return Event.objects.filter(game=g, type="pbem.StandInSeated", payload__seat=0).exists()

    _play(game, pick, until=seated)
    assert seated(game), "two missed deadlines and no stand-in"
    # Alice answers the stand-in's notice, by mail: "back".
    notice = Notice.objects.filter(game=game, kind="standin", seat__number=0).latest("id")
    send_due(game)
    parsed = email.message_from_bytes(outbound.make_message(notice).message().as_bytes(), policy=email.policy.default)
    message = deliver(reply("gmail", parsed, "back"))
    assert message.status == "applied", message.outcome
    assert Event.objects.filter(game=game, type="pbem.StandInLeft", payload__seat=0).exists()
    _play(game, pick, until=lambda g: Event.objects.filter(game=g, type="pbem.StandInSeated").count() == 2)
    _play(game, pick, until=lambda g: False)
    game.refresh_from_db()
    assert game.status == "finished"
    assert Event.objects.filter(game=game, actor_kind="standin", actor_seat=0).count() > 0
    assert (
        not Event.objects.filter(game=game, actor_kind="seat", actor_seat=0)
        .exclude(type="pbem.StandInLeft")
        .exclude(type__startswith="pbem.")
        .exists()
    )  # Alice herself never moved
    assert Game.objects.get(pk=game.pk).status == "finished"
