"""The words a game's summary gives the platform (its phase, its seat colours) reach a German or
French reader in their language (issue 33): the read model keeps them in English, the log's
language, and the notice and the seat page say them through the game's catalogue."""

from __future__ import annotations

import pytest
from django.core import mail

from pbem.mail import pictures
from pbem.models import Seat
from pbem.play import addressing, services

from .conftest import send_all

pytestmark = pytest.mark.django_db

READERS = {
    "de": {"phase": "Runde 1, Plättchen ziehen.", "seats": "Plätze: 1 Alice (rot), 2 Bruno (blau), 3 Chloé (grün)"},
    "fr": {"phase": "manche 1,\npiocher des jetons.", "seats": "1 Alice (rouge), 2 Bruno (bleu), 3 Chloé (vert)"},
    "en": {"phase": "round 1, drawing counters.", "seats": "Seats: 1 Alice (red), 2 Bruno (blue), 3 Chloé (green)"},
}


@pytest.fixture
def game(settings, monkeypatch):
    settings.PBEM_NOTICE_DISPATCH = "none"
    monkeypatch.setattr(pictures, "board_png", lambda *args: None)
    players = [
        services.PlayerSpec("Alice", "alice@example.org", "de"),
        services.PlayerSpec("Bruno", "bruno@example.org", "fr"),
        services.PlayerSpec("Chloé", "chloe@example.org", "en"),
    ]
    return services.create_game("elfenland", players, {})


def text_of(message) -> str:
    return " ".join(message.body.split())  # the text's lines wrapped anywhere: compare words


@pytest.mark.parametrize("language, address", [("de", "alice"), ("fr", "bruno"), ("en", "chloe")])
def test_a_turn_notice_names_the_phase_and_the_seat_colours_in_the_readers_words(game, language, address):
    services.submit(game.pk, 0, "draw")  # Alice draws: now every seat has had a notice
    send_all()
    mine = [m for m in mail.outbox if m.to == [f"{address}@example.org"]]
    assert mine
    text = text_of(mine[0])
    assert " ".join(READERS[language]["phase"].split()) in text
    assert READERS[language]["seats"] in text


def test_the_seat_page_says_the_phase_in_the_readers_words(game, client):
    seat = Seat.objects.get(game=game, number=0)
    page = client.get(f"/play/{addressing.token_for(seat)}/").content.decode()  # Alice reads German
    assert "Plättchen ziehen" in page and "drawing counters" not in page


def test_the_seat_page_names_the_readers_colour_in_their_words(game, client):
    seat = Seat.objects.get(game=game, number=0)
    page = client.get(f"/play/{addressing.token_for(seat)}/").content.decode()  # Alice reads German
    assert "(Platz 1, rot)" in page and "(Platz 1, red)" not in page


def test_the_spectator_page_speaks_the_visitors_language(game, client):
    page = client.get(f"/games/{game.pk}/", headers={"Accept-Language": "fr"}).content.decode()
    assert "Vue spectateur" in page and "Spectator view" not in page
    assert "Alice (rouge)" in page and "Alice (red)" not in page
    assert "Événements récents" in page or "Recent events" not in page
