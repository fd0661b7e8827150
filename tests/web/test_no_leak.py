"""No page and no API answer shows another seat's hidden information or the seed before the end.

For every registered game: bots play a few random legal moves through the platform, then every
seat (and a spectator) reads every page and API answer that shows the game: the seat page, the
replay at the newest event and at each hidden event, the API's seat view, feed and state at N.
What each must not contain: the seed; the narration of an event hidden from that reader (when it
says more than the event's public form); the hidden payload itself in any feed item. And the
views handed out are exactly the game's own `view` for that reader, nothing added.
"""

from __future__ import annotations

import html
import json
import random

import pytest
from django.urls import reverse

from pbem.log import eventlog
from pbem.models import Event, Game, Seat
from pbem.play import addressing, selectors, services
from pbem.registry import all_games, get_game

pytestmark = pytest.mark.django_db

PLAYERS = [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in ("Alice", "Bob", "Carol", "Dave", "Erin")]
MOVES = 6
HIDDEN_SEQS_CHECKED = 4


def bot_game(kind: str, seed: int) -> Game:
    spec = get_game(kind)
    players = max(spec.min_players, min(3, spec.max_players))
    game = services.create_game(kind, PLAYERS[:players], {})
    rng = random.Random(seed)
    for _ in range(MOVES):
        game.refresh_from_db()
        if not game.awaited:
            break
        seat = rng.choice(game.awaited)
        state = eventlog.load(game).state["game"]
        legal = spec.legal(state, seat)
        assert legal, f"{kind}: seat {seat} is awaited but has no legal command"
        services.submit(game.pk, seat, command=rng.choice(legal))
    game.refresh_from_db()
    return game


def hidden_from(game: Game, reader: int | None) -> list[dict]:
    """Events this reader may not see, with their narrations (full and public)."""
    spec = get_game(game.kind)
    names = selectors.seat_names(game)
    out = []
    rows = Event.objects.filter(game=game).exclude(visible_to=None).order_by("seq")
    for ev in rows:
        if reader is not None and reader in ev.visible_to:
            continue
        full = selectors.narrate(spec, ev.type, ev.payload, ev.visible_to, ev.public, ev.reveals, names)
        public = selectors.narrate(spec, ev.type, ev.public or {}, ev.visible_to, ev.public, ev.reveals, names)
        out.append({"seq": ev.seq, "payload": ev.payload, "public": ev.public, "full": full, "public_text": public})
    return out


def assert_clean(text: str, game: Game, hidden: list[dict], where: str) -> None:
    plain = html.unescape(text)
    assert game.seed not in plain, f"{where}: the seed shows before the end"
    for h in hidden:
        if h["full"] != h["public_text"] and h["full"] not in h["public_text"]:
            assert h["full"] not in plain, f"{where}: shows hidden event #{h['seq']}: {h['full']!r}"


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.PBEM_NOTICE_DISPATCH = "none"


@pytest.mark.parametrize("kind", sorted(all_games()))
def test_nothing_hidden_leaks_to_another_seat_or_a_spectator(client, kind):
    game = bot_game(kind, seed=len(kind))
    if selectors.game_over(game):
        pytest.skip(f"{kind} ended within {MOVES} moves: nothing is hidden any more")
    spec = get_game(kind)
    state = eventlog.load(game).state
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    readers: list[Seat | None] = [*seats, None]
    if kind == "diceduel":  # the toy game deals hands face down: the check must have work to do
        assert hidden_from(game, 0) and hidden_from(game, None)
    for seat in readers:
        number = seat.number if seat else None
        token = addressing.token_for(seat) if seat else None
        hidden = hidden_from(game, number)
        who = f"{kind} as {'seat ' + str(number) if seat else 'spectator'}"
        headers = {"X-Seat-Token": token} if token else {}
        hidden_seqs = [h["seq"] for h in hidden][-HIDDEN_SEQS_CHECKED:]

        if seat:
            page = client.get(reverse("pbem-seat", args=[token]))
            history = reverse("pbem-seat_history", args=[token])
            assert page.status_code == 200
            assert_clean(page.content.decode(), game, hidden, f"{who}: seat page")
        else:
            page = client.get(reverse("pbem-game", args=[game.pk]))
            history = reverse("pbem-game_history", args=[game.pk])
            assert_clean(page.content.decode(), game, hidden, f"{who}: spectator page")
            detail = client.get(f"/api/games/{game.pk}").json()
            assert detail["view"] == json.loads(json.dumps(spec.view(state["game"], None)))
            assert_clean(json.dumps(detail), game, hidden, f"{who}: API game")
        for at in [game.version, *hidden_seqs]:
            replay = client.get(history, {"at": at})
            assert replay.status_code == 200
            assert_clean(replay.content.decode(), game, hidden, f"{who}: replay at {at}")
            api_state = client.get(f"/api/games/{game.pk}/state", {"at": at}, headers=headers).json()
            at_state = selectors.state_at(game, at)["game"]
            expected = spec.view(at_state, number) if at_state is not None else None
            assert api_state["view"] == json.loads(json.dumps(expected)), f"{who}: API state at {at}"
            assert_clean(json.dumps(api_state), game, hidden, f"{who}: API state at {at}")

        feed = client.get(f"/api/games/{game.pk}/events", headers=headers).json()
        assert_clean(json.dumps(feed), game, hidden, f"{who}: API feed")
        by_seq = {item["seq"]: item for item in feed["items"]}
        for h in hidden:
            item = by_seq[h["seq"]]
            assert item["data"] == (h["public"] or {}), f"{who}: feed item #{h['seq']} is not the public form"
            assert item["rng"] is None
        assert all(item["rng"] is None for item in feed["items"]), f"{who}: random draws before the end"
        if seat:
            mine = client.get(f"/api/games/{game.pk}/seat", headers=headers).json()
            assert mine["view"] == json.loads(json.dumps(spec.view(state["game"], number)))
            assert_clean(json.dumps(mine), game, hidden, f"{who}: API seat view")
        audit = client.get(f"/api/games/{game.pk}/audit").content.decode()
        assert game.seed not in audit
        assert game.seed not in client.get(reverse("pbem-game_audit", args=[game.pk])).content.decode()


def test_the_toy_games_hands_stay_private(client, make_game):
    """Dice Duel hides hands: each seat sees its own hand and no other, anywhere."""
    game = make_game(3)
    hands = eventlog.load(game).state["game"]["hands"]
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    for seat in seats:
        token = addressing.token_for(seat)
        pages = [
            client.get(reverse("pbem-seat", args=[token])).content.decode(),
            client.get(reverse("pbem-seat_history", args=[token]), {"at": game.version}).content.decode(),
            client.get(f"/api/games/{game.pk}/seat", headers={"X-Seat-Token": token}).content.decode(),
            client.get(f"/api/games/{game.pk}/events", headers={"X-Seat-Token": token}).content.decode(),
        ]
        for other, hand in enumerate(hands):
            dealt = f"{seat_name(seats, other)} was dealt {', '.join(map(str, hand))}."
            for page in pages:
                if other == seat.number:
                    continue
                assert dealt not in page and f"Your hand: {' '.join(map(str, hand))}" not in page
        assert f"Your hand: {' '.join(map(str, hands[seat.number]))}" in pages[0]
        # The deal's shuffle is recorded on the public setup event; its draws would give every hand.
        assert all(item.rng is None for item in selectors.feed(game, seat.number))
        assert f"{seat.name} was dealt {', '.join(map(str, hands[seat.number]))}." in pages[1]


def seat_name(seats, number):
    return seats[number].name
