"""Issue 17's small things: the winner line, the round counter at the end, the chain heads on
the audit page, and the project's own 404 and 500 pages with DEBUG off."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.base import may_act
from pbem.log import eventlog
from pbem.models import Event, Notice
from pbem.play import services
from pbem.registry import get_game

from ..conftest import CAST
from .test_pages import play_out

pytestmark = pytest.mark.django_db


def test_a_finished_game_names_its_winner(client, duel):
    game, seats, tokens = duel
    play_out(game)
    game.refresh_from_db()
    best = max(game.scores)
    winners = [s.name for s, score in zip(seats, game.scores, strict=True) if score == best]
    page = client.get(reverse("pbem-game", args=[game.pk])).content.decode()
    if len(winners) == 1:
        line = f"{winners[0]} wins with {best} point{'s' if best != 1 else ''}."
    else:
        line = f"{' and '.join(winners)} share the win with {best} points."
    assert f'<strong class="winner" id="winner">{line}</strong>' in page
    assert line in client.get(reverse("pbem-seat", args=[tokens[0]])).content.decode()


def test_a_running_game_has_no_winner_line(client, duel):
    game, seats, tokens = duel
    assert 'id="winner"' not in client.get(reverse("pbem-game", args=[game.pk])).content.decode()


def test_elven_castle_at_its_end_shows_the_last_round_played(client, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("elven_castle", CAST[:2], {})
    spec = get_game("elven_castle")
    while True:
        game.refresh_from_db()
        if game.status != "running":
            break
        state = eventlog.load(game).state["game"]
        seat = next(s for s in range(2) if may_act(spec, state, s))
        services.submit(game.pk, seat, command=spec.legal(state, seat)[0])
    state = eventlog.load(game).state["game"]
    placed = state["moves"]
    last_round = (placed - 1) // 2 + 1  # two players place in turn: the round of the last placement
    page = client.get(reverse("pbem-game", args=[game.pk])).content.decode()
    assert game.round == last_round and f"round {last_round} ·" in page
    assert f"round {last_round + 1}" not in page


def test_the_audit_page_shows_the_head_now_and_each_head_the_notices_quoted(client, duel, settings):
    game, seats, tokens = duel
    from ..conftest import deliver

    deliver(game)
    game.refresh_from_db()
    quoted = list(
        Notice.objects.filter(game=game, status="sent").exclude(chain_head="").values_list("chain_head", flat=True)
    )
    assert quoted, "no notice quoted a head"
    page = client.get(reverse("pbem-game_audit", args=[game.pk])).content.decode()
    assert f'<code id="head">{game.version}:{game.head_hash}</code>' in page
    assert 'id="mailed-heads"' in page
    for head in quoted:
        version, digest = head.split(":")
        assert Event.objects.filter(game=game, seq=int(version), hash=digest).exists()
        assert f"<code>{head}</code>" in page


def test_an_unknown_page_is_the_projects_own_404(client, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Not found</h1>" in page and "/no/such/page/" in page and 'href="/"' in page
    game = client.get("/games/999999/")
    assert game.status_code == 404 and "There is no game #999999." in game.content.decode()


def test_a_failing_page_is_the_projects_own_500(settings):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.web.failing_urls"
    response = Client(raise_request_exception=False).get("/broken/")
    page = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong on our side" in page and "Nothing you sent was applied" in page
    assert "RuntimeError" not in page and "a bug in a page" not in page


def test_the_favicon_is_served_so_no_page_view_logs_a_404(client, caplog):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert b"".join(response.streaming_content).startswith(b"\x00\x00\x01\x00")  # an ICO file
    assert "max-age" in response["Cache-Control"]
    assert not [r for r in caplog.records if "Not Found" in r.getMessage()]
