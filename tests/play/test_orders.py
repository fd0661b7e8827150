"""Orders given ahead (issue 32): forced moves played, standing and conditional orders, played
through the one write path as the seat's own move, and secret until played."""

from __future__ import annotations

import pytest

from pbem.log import eventlog
from pbem.models import Event, Game, PlayerSettings
from pbem.play import selectors, services
from pbem.registry import get_game
from tests.conftest import CAST, requires_postgres
from tests.mail.whole_games import seeded

# Real commits: orders are played after a commit (on_commit), as in production.
pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def table(settings):
    settings.PBEM_NOTICE_DISPATCH = "none"

    def make(players=2, **kw):
        return services.create_game("diceduel", CAST[:players], kw.pop("options", {"rounds": 3}), **kw)

    return make


# A secret seed whose deal lets Alice (bidding her highest card) win a round, so her standing
# order for the claim is played: with a random seed some deals never give her one.
DEAL_ALICE_WINS = "ab" * 32


def hand(game, seat):
    return eventlog.load(Game.objects.get(pk=game.pk)).state["game"]["hands"][seat]


def play_round(game, lowest=(True, True)):
    """Both seats bid (each its lowest or highest card); the winner, if still awaited, takes."""
    for seat in (0, 1):
        game.refresh_from_db()
        if seat in game.awaited:
            cards = hand(game, seat)
            services.submit(game.pk, seat, f"play {min(cards) if lowest[seat] else max(cards)}")
    game.refresh_from_db()
    if game.phase == "claim":
        services.submit(game.pk, game.awaited[0], "take")


def test_a_lone_legal_move_is_played_for_a_seat_that_opted_in_and_never_a_choice(table):
    game = table(2)
    services.submit(game.pk, 0, "orders forced on")
    play_round(game)
    assert not Event.objects.filter(game=game, type="pbem.OrderPlayed").exists()  # 3 then 2 cards: choices
    play_round(game)
    game.refresh_from_db()
    assert game.round == 3 and game.awaited == [1]  # Alice's last card went by itself
    played = Event.objects.get(game=game, type="pbem.OrderPlayed")
    assert (played.actor_kind, played.actor_seat) == ("seat", 0)
    assert played.visible_to == [0] and played.public == {"seat": 0}
    assert played.payload["kind"] == "forced"
    # Round 3 began with the append before: Bob was told it is his turn, Alice not (her move followed).
    from pbem.models import Notice

    began = Notice.objects.filter(game=game, kind="turn", version=played.seq - 1)
    assert sorted(began.values_list("seat__number", flat=True)) == [1]
    card = Event.objects.get(game=game, seq=played.seq + 1)
    # The move itself is stored exactly as the typed one would be: hidden from Bob.
    assert card.type == "CardPlayed" and card.visible_to == [0] and card.public == {"seat": 0}
    assert (card.actor_kind, card.actor_seat) == ("seat", 0)
    mine = [item.text for item in selectors.feed(game, 0)]
    assert any("automatically" in text and "the only legal move" in text for text in mine), mine
    theirs = [item.text for item in selectors.feed(game, 1)]
    assert not any("only legal" in text or "forced" in text for text in theirs), theirs


def test_forced_moves_are_off_unless_asked_for(table):
    game = table(2)
    for _ in range(2):
        play_round(game)
    game.refresh_from_db()
    assert 0 in game.awaited
    assert not Event.objects.filter(game=game, type="pbem.OrderPlayed").exists()


def test_the_players_default_turns_forced_moves_on_in_the_games_they_join(table):
    first = table(2)
    services.submit(first.pk, 1, "orders forced on default")
    assert PlayerSettings.objects.get(email="bob@example.org").forced_moves
    game = table(2)
    given = Event.objects.get(game=game, type="pbem.OrderGiven")
    assert given.payload == {"seat": 1, "order": {"kind": "forced"}} and given.visible_to == [1]
    outcome = services.submit(game.pk, 1, "orders")
    assert "orders forced on" in outcome.answers[0]


def test_every_round_won_is_claimed_by_a_standing_order_as_the_seats_own_move(table):
    with seeded(DEAL_ALICE_WINS):  # a random deal may not let Alice's highest card win round 1
        game = table(2)
    services.submit(game.pk, 0, "order take")
    play_round(game, lowest=(False, True))  # Alice bids her highest: she wins the round
    game.refresh_from_db()
    assert game.phase != "claim" and game.round == 2
    played = Event.objects.get(game=game, type="pbem.OrderPlayed")
    assert played.payload["kind"] == "standing" and played.payload["move"] == "take"
    taken = Event.objects.get(game=game, seq=played.seq + 1)
    assert taken.type == "PointsTaken" and taken.payload["how"] == "take" and taken.actor_seat == 0


def test_an_order_is_shown_and_cancelled_by_mail_words(table):
    game = table(2)
    services.submit(game.pk, 0, "order roll")
    shown = services.submit(game.pk, 0, "orders").answers[0]
    number = Event.objects.get(game=game, type="pbem.OrderGiven").seq
    assert f"{number}: order roll" in shown
    services.submit(game.pk, 0, f"orders cancel {number}")
    assert "no orders" in services.submit(game.pk, 0, "orders").answers[0]
    with pytest.raises(services.CommandRejected, match="no order 999"):
        services.submit(game.pk, 0, "orders cancel 999")
    with pytest.raises(services.CommandRejected, match="order take"):
        services.submit(game.pk, 0, "order fly")


def test_orders_are_set_shown_and_cancelled_by_the_api_for_the_seat_alone(table, client, quiet_limits):
    from pbem.models import Seat
    from pbem.play import addressing

    game = table(2)
    alice, bob = (addressing.token_for(s) for s in Seat.objects.filter(game=game).order_by("number"))
    url = f"/api/games/{game.pk}/orders"
    given = client.post(url, {"text": "order roll"}, content_type="application/json", headers={"X-Seat-Token": alice})
    assert given.status_code == 200, given.content
    (order,) = given.json()["orders"]
    assert order["kind"] == "standing" and order["text"] == "order roll"
    assert client.get(url, headers={"X-Seat-Token": bob}).json()["orders"] == []
    refused = client.post(url, {"text": "order fly"}, content_type="application/json", headers={"X-Seat-Token": alice})
    assert refused.status_code == 422 and "order take" in refused.json()["message"]
    not_order = client.post(url, {"text": "play 3"}, content_type="application/json", headers={"X-Seat-Token": alice})
    assert not_order.status_code == 400
    gone = client.delete(f"{url}/{order['id']}", headers={"X-Seat-Token": alice})
    assert gone.status_code == 200 and gone.json()["orders"] == []


def test_the_seat_page_shows_its_own_orders_only(table, client, quiet_limits):
    from django.urls import reverse

    from pbem.models import Seat
    from pbem.play import addressing

    game = table(2)
    services.submit(game.pk, 0, "order roll")
    alice, bob = (addressing.token_for(s) for s in Seat.objects.filter(game=game).order_by("number"))
    mine = client.get(reverse("pbem-seat", args=[alice])).content.decode()
    assert "order roll" in mine and 'id="orders-form"' in mine
    theirs = client.get(reverse("pbem-seat", args=[bob])).content.decode()
    assert "order roll" not in theirs and "You have no orders" in theirs


def _everything_others_may_read(game, seat, client) -> str:
    """What `seat` (None: a spectator) can read of the game: its feed (texts and data), the API's
    events and board, its own log export, and its mail so far."""
    import json

    from django.core import mail

    from pbem.audit import export
    from pbem.models import Seat
    from pbem.play import addressing
    from tests.conftest import deliver

    game = Game.objects.get(pk=game.pk)
    parts = [json.dumps([(i.text, i.data, i.public) for i in selectors.feed(game, seat)])]
    headers = {}
    if seat is not None:
        headers = {"X-Seat-Token": addressing.token_for(Seat.objects.get(game=game, number=seat))}
    urls = [f"/api/games/{game.pk}/events", f"/api/games/{game.pk}/state", f"/api/games/{game.pk}"]
    urls += [f"/games/{game.pk}/", f"/games/{game.pk}/audit/", "/heads.json"]  # the pages, the heads feed
    if seat is not None:
        urls.append(f"/play/{headers['X-Seat-Token']}/")  # the seat's own page, its picture of the board
    for url in urls:
        parts.append(client.get(url, headers=headers).content.decode())
    parts.append(json.dumps(export.document(game, seat)))
    deliver(game)
    parts += [m.body for m in mail.outbox if seat is not None and f"{CAST[seat].email}" in m.to]
    return "\n".join(parts)


def test_orders_are_secret_from_every_other_seat_and_spectator_until_the_end_then_verified(
    table, client, quiet_limits, settings
):
    """A standing and a conditional order leak through no feed, API answer, log export or mail
    to another seat or a spectator while the game runs; after the end the offline verifier holds
    every played order to its words."""
    from pbem.audit import export, verify

    settings.PBEM_NOTICE_DISPATCH = "none"
    with seeded(DEAL_ALICE_WINS):  # a deal in which Alice, bidding high, wins a round to claim
        game = table(2)
    services.submit(game.pk, 0, "order roll")
    services.submit(game.pk, 0, "orders forced on")
    services.submit(game.pk, 1, "if Alice take then roll")  # Bob's: about Alice's next claim
    for seat in (1, None):
        seen = _everything_others_may_read(game, seat, client)
        assert '"claim"' not in seen and "order roll" not in seen and '"kind": "forced"' not in seen, seat
    seen = _everything_others_may_read(game, 0, client)
    assert '"then"' not in seen and "Alice take" not in seen  # Bob's order, from Alice
    assert "order roll" in seen and '"claim"' in seen  # her own: the check reads where orders show
    for _ in range(6):
        game.refresh_from_db()
        if game.status != "running":
            break
        play_round(game, lowest=(False, True))
    game.refresh_from_db()
    assert game.status == "finished"
    kinds = {e.payload["kind"] for e in Event.objects.filter(game=game, type="pbem.OrderPlayed")}
    assert {"standing", "forced"} <= kinds
    found = verify.verify_document(export.document(game), spec=get_game("diceduel"))
    assert found.ok, found.problems


def test_the_verifier_finds_an_order_played_against_its_words(table, quiet_limits):
    from pbem.audit import export, verify

    game = table(2)
    services.submit(game.pk, 0, "orders forced on")
    for _ in range(6):
        game.refresh_from_db()
        if game.status != "running":
            break
        play_round(game)
    doc = export.document(Game.objects.get(pk=game.pk))
    played = next(ev for ev in doc["events"] if ev["type"] == "pbem.OrderPlayed")
    given = next(ev for ev in doc["events"] if ev["type"] == "pbem.OrderGiven")
    # A forger's change of the words: not forced moves, but a standing order (of no words).
    given["payload"]["order"] = {"kind": "standing", "order": {"claim": "take"}}
    assert not verify.verify_document(doc, spec=get_game("diceduel")).ok  # the chain no longer holds
    # And the replay alone, as if the chain held: the order's words do not give the move logged.
    found = verify.Findings()
    verify.check_replay(verify.Log(doc, (), get_game("diceduel"), None), found)
    assert any(f"event {played['seq']}" in p and "gives no legal move" in p for p in found.problems), found.problems


def test_a_conditional_order_plays_then_or_else_by_the_named_seats_next_move(table):
    game = table(2)
    names = ("Alice", "Bob")
    hands_now = [hand(game, 0), hand(game, 1)]
    winner = 0 if max(hands_now[0]) > max(hands_now[1]) else 1  # holds the highest card: wins round 1
    loser = 1 - winner
    low = sorted(hands_now[loser])
    services.submit(game.pk, winner, f"play {max(hands_now[winner])}")
    with pytest.raises(services.CommandRejected, match="not your own"):
        services.submit(game.pk, loser, f"if {names[loser]} take then roll")
    with pytest.raises(services.CommandRejected, match="player's name"):
        services.submit(game.pk, loser, "if Zed take then roll")
    services.submit(game.pk, loser, f"if {names[winner]} take then play {low[2]} else play {low[1]}")
    services.submit(game.pk, loser, f"play {low[0]}")  # by hand: the condition is not read yet
    assert not Event.objects.filter(game=game, type="pbem.OrderPlayed").exists()
    game.refresh_from_db()
    assert game.phase == "claim" and game.awaited == [winner]
    services.submit(game.pk, winner, "take")
    played = Event.objects.get(game=game, type="pbem.OrderPlayed")
    assert played.payload["branch"] == "then" and played.payload["move"] == f"play {low[2]}"
    assert (played.actor_kind, played.actor_seat) == ("seat", loser)
    assert not eventlog.load(Game.objects.get(pk=game.pk)).state["meta"]["orders"]  # played once


def test_a_condition_on_a_move_of_a_hidden_kind_is_refused_the_same_whatever_the_hand(table):
    game = table(2)
    for card in (1, 12):  # held by Alice or not: the same refusal, which shows nothing of her hand
        with pytest.raises(services.CommandRejected, match="of that kind is partly hidden") as refused:
            services.submit(game.pk, 1, f"if Alice play {card} then play {hand(game, 1)[0]}")
        assert str(card) not in str(refused.value)


def test_the_log_format_holds_an_order_to_its_seat_alone_and_its_move_to_the_seats_own(table, quiet_limits):
    """pbem-log-1.schema.json: an order's events are seen by one seat (others: which seat only),
    and a move an order plays is the seat's own (actor kind seat), whatever a forger writes."""
    from pbem.audit import export, schema, verify

    game = table(2)
    services.submit(game.pk, 0, "orders forced on")
    for _ in range(6):
        game.refresh_from_db()
        if game.status != "running":
            break
        play_round(game)
    doc = export.document(Game.objects.get(pk=game.pk))
    validator = schema.load(verify.SCHEMA_FILE)
    assert validator.holds(doc), validator.errors(doc)
    played = next(ev for ev in doc["events"] if ev["type"] == "pbem.OrderPlayed")
    played["actor_kind"] = "standin"
    assert validator.errors(doc)
    played["actor_kind"], played["visible_to"] = "seat", None
    assert validator.errors(doc)
    played["visible_to"] = [0]
    assert validator.holds(doc)
