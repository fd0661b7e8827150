"""The smaller attacks: a double-clicked form applied twice, a mail without Message-ID applied
twice through two relays, a 10 MB API body ending in a 500, a Master of Seals seating himself."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from pbem.desk.permissions import MASTER_GROUP
from pbem.models import Event, Game, InboundMessage
from pbem.play import desk, services

from ..mail.conftest import deliver
from ..web.conftest import process_last

pytestmark = pytest.mark.django_db


def key_in(page: str, form_id: str) -> str:
    form = page.split(f'id="{form_id}"', 1)[1].split("</form>", 1)[0]
    return re.search(r'name="submission_key" value="([^"]+)"', form).group(1)


def test_a_double_clicked_table_talk_form_is_applied_once(client, duel, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game, seats, tokens = duel
    page = client.get(f"/play/{tokens[0]}/").content.decode()
    data = {"message": "good luck", "submission_key": key_in(page, "say-form")}
    first, second = client.post(f"/play/{tokens[0]}/", data), client.post(f"/play/{tokens[0]}/", data)
    assert first.status_code == second.status_code == 302 and first["Location"] == second["Location"]
    process_last(seats[0])
    assert Event.objects.filter(game=game, type="pbem.Said").count() == 1
    assert InboundMessage.objects.count() == 1


def test_a_double_clicked_move_form_is_stored_once(client, duel):
    game, seats, tokens = duel
    page = client.get(f"/play/{tokens[0]}/").content.decode()
    data = {"text": "help", "expected_version": game.version, "submission_key": key_in(page, "move-form")}
    client.post(f"/play/{tokens[0]}/", data)
    client.post(f"/play/{tokens[0]}/", data)
    assert InboundMessage.objects.count() == 1


def test_a_form_with_a_broken_key_is_refused_with_a_reason(client, duel):
    game, seats, tokens = duel
    response = client.post(f"/play/{tokens[0]}/", {"message": "hi", "submission_key": "not a key!"})
    assert response.status_code == 400 and "reload the page" in response.content.decode()
    assert InboundMessage.objects.count() == 0


def test_a_double_clicked_new_game_form_makes_one_game(client, db):
    page = client.get("/games/new/", {"kind": "diceduel"}).content.decode()
    key = re.search(r'name="submission_key" value="([^"]+)"', page).group(1)
    data = {
        "kind": "diceduel",
        "invitees": "a@example.org\nb@example.org",
        "deadline_hours": 48,
        "notices": "every",
        "opt_rounds": 1,
        "submission_key": key,
    }
    first = client.post("/games/new/?kind=diceduel", data)
    second = client.post("/games/new/?kind=diceduel", data)
    assert Game.objects.count() == 1 and first["Location"] == second["Location"]


def without_message_id(to: str, relay: str) -> bytes:
    return (
        f"Received: from {relay} by mx.pbem.localhost; Mon, 1 Dec 2026 10:00:00 +0000\r\n"
        f"Return-Path: <alice@example.org>\r\nFrom: alice@example.org\r\nTo: {to}\r\n"
        "Subject: hello\r\nDate: Mon, 1 Dec 2026 09:59:00 +0000\r\n\r\nsay hello\r\n"
    ).encode()


def test_a_mail_without_message_id_through_another_relay_is_applied_once(duel):
    game, seats, tokens = duel
    to = f"play+{tokens[0]}@pbem.localhost"
    first = deliver(without_message_id(to, "relay1.example.org"))
    second = deliver(without_message_id(to, "relay2.example.org").replace(b"\r\n", b"\n"))
    assert first.pk == second.pk and first.status == "applied"
    assert Event.objects.filter(game=game, type="pbem.Said").count() == 1


def test_a_10_mb_api_body_answers_413_in_the_api_error_shape(client, duel):
    game, seats, tokens = duel
    body = json.dumps({"text": "say " + "x" * 10_000_000})
    response = client.post(
        f"/api/games/{game.pk}/commands", body, content_type="application/json", HTTP_X_SEAT_TOKEN=tokens[0]
    )
    assert response.status_code == 413 and response.json()["code"] == "too_large"
    assert Game.objects.get(pk=game.pk).version == game.version


@pytest.fixture
def morgan(django_user_model):
    user = django_user_model.objects.create_user("morgan", "morgan@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name=MASTER_GROUP)[0])
    return user


def test_a_master_of_seals_cannot_seat_himself_through_replace_a_player(client, duel, morgan):
    game, seats, tokens = duel
    game.masters.add(morgan)
    client.force_login(morgan)
    game.refresh_from_db()
    response = client.post(
        reverse("admin:pbem_game_desk", args=[game.pk, "replace"]),
        {
            "seat": 1,
            "name": "Morgan",
            "email": "MORGAN@example.org",
            "reason": "Bob left",
            "seen_version": game.version,
        },
    )
    assert response.status_code == 200 and "does not run the game" in response.content.decode()
    assert game.seats.get(number=1).email == "bob@example.org"
    assert not Event.objects.filter(game=game, type="pbem.PlayerReplaced").exists()


def test_a_superuser_cannot_seat_himself_either(duel, django_user_model):
    game, seats, tokens = duel
    root = django_user_model.objects.create_superuser("root", "root@example.org", "pw")
    with pytest.raises(services.ServiceError) as refused:
        desk.replace_player(game.pk, 1, "Root", "root@example.org", services.Actor("admin", user_id=root.pk), "x")
    assert refused.value.code == "master_seat"
