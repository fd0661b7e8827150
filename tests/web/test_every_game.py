"""Every registered game can be set up in the lobby, accepted, and played from its pages."""

from __future__ import annotations

import pytest

from pbem.log import eventlog
from pbem.models import Game, Notice
from pbem.play import addressing, selectors
from pbem.registry import all_games, get_game

from .chooser_walk import reachable_moves

pytestmark = pytest.mark.django_db

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Fay"]


def option_value(option):
    if isinstance(option.default, bool):
        return "on" if option.default else ""
    return str(option.default)


@pytest.mark.parametrize("kind", sorted(all_games()))
def test_lobby_to_seat_page_for_every_game(client, kind, mailoutbox, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    spec = get_game(kind)
    form = client.get("/games/new/", {"kind": kind})
    assert form.status_code == 200
    for option in spec.options:
        assert f'name="opt_{option.name}"' in form.content.decode()
    players = NAMES[: max(spec.min_players, 2)]
    data = {
        "kind": kind,
        "title": f"{kind} table",
        "deadline_hours": 48,
        "notices": "every",
        "invitees": "\n".join(f"{n} <{n.lower()}@example.org>" for n in players),
    }
    data.update({f"opt_{o.name}": option_value(o) for o in spec.options if option_value(o) != ""})
    response = client.post(f"/games/new/?kind={kind}", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    game = Game.objects.get(title=f"{kind} table")
    # The creator's invitation first; their acceptance invites the others.
    assert Notice.objects.filter(game=game, kind="invitation", status="pending").count() == 1
    tokens = [addressing.token_for(s) for s in game.seats.order_by("number")]
    client.post(f"/invite/{tokens[0]}/")
    assert Notice.objects.filter(game=game, kind="invitation", status="pending").count() == len(players)
    for token in tokens[1:]:
        client.post(f"/invite/{token}/")
    game.refresh_from_db()
    assert game.status == "running" and game.awaited
    state = eventlog.load(game).state
    seat = game.awaited[0]
    page = client.get(f"/play/{tokens[seat]}/").content.decode()
    assert "It is your turn." in page
    legal = {spec.describe(c) for c in spec.legal(state["game"], seat)}
    # Every legal move is a button of the chooser, reached through its steps' links.
    assert reachable_moves(client, f"/play/{tokens[seat]}/") == legal
    assert client.get(f"/play/{tokens[seat]}/history/").status_code == 200
    assert client.get(f"/games/{game.pk}/").status_code == 200
    assert client.get(f"/games/{game.pk}/audit/").status_code == 200
    assert selectors.game_over(game) is False
