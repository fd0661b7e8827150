"""What the desk shows: games with who is awaited until when, seats with their contacts, and the
log (events with payload, actor, causation and hash; inbound messages; notices)."""

from __future__ import annotations

from django.urls import reverse

from pbem.log import eventlog
from pbem.models import Event, InboundMessage, Notice
from pbem.play import desk, services


def test_game_list_shows_kind_variants_status_and_who_is_awaited_until_when(client, master, game):
    services.submit(game.pk, 0, f"play {eventlog.load(game).state['game']['hands'][0][0]}")
    game.refresh_from_db()
    client.force_login(master)
    page = client.get(reverse("admin:pbem_game_changelist"))
    assert page.status_code == 200
    text = page.text
    assert "diceduel" in text and "rounds=3" in text and "running" in text
    for seat, name in ((1, "Bob"), (2, "Carol")):
        assert f"{name} until {game.deadlines[str(seat)][:16].replace('T', ' ')}" in text
    assert "Alice until" not in text


def test_game_page_shows_seats_contacts_and_the_desk_but_no_edit_form_for_a_master(client, master, game):
    client.force_login(master)
    page = client.get(reverse("admin:pbem_game_change", args=[game.pk]))
    assert page.status_code == 200
    for email in ("alice@example.org", "bob@example.org", "carol@example.org"):
        assert email in page.text
    assert "once per turn of another player" in page.text  # notice preference (the default)
    assert 'id="desk"' in page.text and 'name="_save"' not in page.text
    assert reverse("admin:pbem_game_sheet", args=[game.pk]) in page.text


def test_event_page_shows_payload_actor_causation_and_hash(client, master, game):
    message_id = "<reply-1@mail.example.org>"
    inbound = InboundMessage.objects.create(
        message_id=message_id,
        channel="smtp",
        raw=b"play 3",
        game=game,
        seat=game.seats.get(number=0),
        status="applied",
        outcome="applied: play 3",
    )
    card = eventlog.load(game).state["game"]["hands"][0][0]
    services.submit(game.pk, 0, f"play {card}", causation_id=message_id)
    desk.pause_game(game.pk, services.Actor("admin", user_id=master.pk), "tea break")
    played = Event.objects.get(game=game, type="CardPlayed")
    paused = Event.objects.get(game=game, type="pbem.Paused")
    client.force_login(master)

    page = client.get(reverse("admin:pbem_event_change", args=[played.pk]))
    assert page.status_code == 200
    assert f"&quot;card&quot;: {card}" in page.text  # the full payload, hidden parts included
    assert "seat 1" in page.text and played.hash in page.text and played.prev_hash in page.text
    assert reverse("admin:pbem_inboundmessage_change", args=[inbound.pk]) in page.text

    page = client.get(reverse("admin:pbem_event_change", args=[paused.pk]))
    assert "admin morgan" in page.text and "tea break" in page.text

    page = client.get(reverse("admin:pbem_inboundmessage_change", args=[inbound.pk]))
    assert page.status_code == 200 and "applied: play 3" in page.text and "1 event(s)" in page.text

    log = client.get(reverse("admin:pbem_event_changelist"), {"game": game.pk})
    assert [e.seq for e in log.context["cl"].result_list] == sorted(
        Event.objects.filter(game=game).values_list("seq", flat=True), reverse=True
    )


def test_refused_inbound_messages_show_why(client, master, game):
    InboundMessage.objects.create(
        message_id="<late@mail>",
        channel="smtp",
        raw=b"play 99",
        game=game,
        status="refused",
        outcome="You have no card 99; your hand is [1, 5, 9].",
    )
    client.force_login(master)
    page = client.get(reverse("admin:pbem_inboundmessage_changelist"), {"status": "refused"})
    assert "You have no card 99" in page.text


def test_notices_show_their_status(client, master, game):
    Notice.objects.create(
        game=game,
        seat=game.seats.get(number=1),
        kind="turn",
        version=3,
        to_email="bob@example.org",
        status="bounced",
        last_error="550 no such user",
    )
    client.force_login(master)
    page = client.get(reverse("admin:pbem_notice_changelist"), {"status": "bounced"})
    assert [n.to_email for n in page.context["cl"].result_list] == ["bob@example.org"]
    assert "550 no such user" in page.text


def test_game_list_queries_do_not_grow_with_the_number_of_games(client, root, new_game):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(root)
    new_game(2)
    with CaptureQueriesContext(connection) as one:
        assert client.get(reverse("admin:pbem_game_changelist")).status_code == 200
    for _ in range(4):
        new_game(3)
    with CaptureQueriesContext(connection) as five:
        assert client.get(reverse("admin:pbem_game_changelist")).status_code == 200
    assert len(five) == len(one)
