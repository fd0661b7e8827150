"""Lock-outs: a valid seat link is never refused because of someone else's guesses; failures
are counted per client (found through trusted proxies only) and per seat attacked."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

BAD = [f"{n}-1-{'a' * 15}{c}" for n, c in zip(range(1, 40), "abcdefghijklmnopqrstuvwxyz234567abcdefg", strict=False)]


def test_twenty_bad_tokens_from_one_address_do_not_lock_out_the_valid_links_of_that_address(client, duel):
    game, seats, tokens = duel
    for token in BAD[:21]:
        assert client.get(f"/play/{token}/").status_code in (403, 429)
    assert client.get(f"/play/{tokens[0]}/").status_code == 200
    assert client.get(f"/api/games/{game.pk}/seat", HTTP_X_SEAT_TOKEN=tokens[1]).status_code == 200
    assert client.get(f"/play/{BAD[25]}/").status_code == 429  # the guesser is still slowed down


def test_behind_a_trusted_proxy_one_bad_client_locks_out_no_other(duel, settings):
    settings.PBEM_TRUSTED_PROXIES = ["10.0.0.0/24"]
    game, seats, tokens = duel
    guesser = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5")
    for token in BAD[:21]:
        guesser.get(f"/play/{token}/")
    assert guesser.get(f"/play/{BAD[22]}/").status_code == 429
    neighbour = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert neighbour.get(f"/play/{BAD[30]}/").status_code == 403  # a mistake of its own, not a lock-out
    assert neighbour.get(f"/play/{tokens[0]}/").status_code == 200


def test_x_forwarded_for_is_believed_only_from_a_trusted_proxy(duel, settings):
    settings.PBEM_TRUSTED_PROXIES = ["10.0.0.1"]
    # A client that writes its own X-Forwarded-For (and one that adds hops before the proxy's)
    # is still counted by the address it comes from.
    for n, token in enumerate(BAD[:21]):
        Client(REMOTE_ADDR="198.51.100.9", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").get(f"/play/{token}/")
    assert (
        Client(REMOTE_ADDR="198.51.100.9", HTTP_X_FORWARDED_FOR="192.0.2.200").get(f"/play/{BAD[22]}/").status_code
        == 429
    )
    spoofed = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.99, 198.51.100.9")
    assert spoofed.get(f"/play/{BAD[23]}/").status_code == 429  # the proxy's hop names the client


def test_guesses_against_one_seat_are_limited_whoever_makes_them(duel):
    game, seats, tokens = duel
    target = seats[0].pk
    for n in range(21):
        Client(REMOTE_ADDR=f"192.0.2.{n}").get(f"/play/{target}-1-{'b' * 15}{'abcdefghijklmnopqrstu'[n]}/")
    assert Client(REMOTE_ADDR="192.0.2.250").get(f"/play/{target}-1-{'c' * 16}/").status_code == 429
    assert Client(REMOTE_ADDR="192.0.2.251").get(f"/play/{tokens[0]}/").status_code == 200
