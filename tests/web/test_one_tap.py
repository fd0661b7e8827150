"""A move in one tap (issue 27): each code a turn notice offers is a link, signed for the seat,
the game's version and the move, that opens a page showing the move and asking to confirm it.
Opening it changes nothing (mail scanners and previews follow links); only the confirmation
plays, against the notice's version: a link the game has moved past is refused, as is one that
has expired, been tampered with, or belongs to a seat that has a new player."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, unquote, urlparse

from pbem.log import eventlog
from pbem.mail import outbound
from pbem.models import Event, Game, InboundMessage, Notice
from pbem.play import desk, services, taps
from pbem.play.runner import Actor

from .conftest import process_last


def turn_notice_html(game, number: int) -> tuple[Notice, str]:
    notice = Notice.objects.select_related("game", "seat").get(game=game, kind="turn", seat__number=number)
    return notice, outbound.render(notice).html


def tap_links(html: str) -> dict[int, str]:
    """{code: link} of the notice's one-tap buttons."""
    found = re.findall(r'<a href="(http[^"]+/tap/[^"]+/)"[^>]*>(\d+)</a>', html)
    return {int(code): link for link, code in found}


def path_of(link: str) -> str:
    return urlparse(link).path


def test_each_offered_code_is_a_link_to_its_move(duel):
    game, seats, _tokens = duel
    notice, html = turn_notice_html(game, 0)
    links = tap_links(html)
    assert sorted(links) == list(range(1, len(links) + 1)) and links
    seat = seats[0]
    assert all(
        f"/tap/{seat.pk}-{seat.token_generation}-{notice.version}-{code}-" in link for code, link in links.items()
    )


def test_opening_the_link_shows_the_move_and_changes_nothing(client, duel):
    game, _seats, _tokens = duel
    _notice, html = turn_notice_html(game, 0)
    before = Event.objects.filter(game=game).count()
    page = client.get(path_of(tap_links(html)[1]))
    assert page.status_code == 200
    body = page.content.decode()
    assert 'id="confirm-form"' in body and 'method="post"' in body
    assert re.search(r'id="tapped-move"><strong>play \d+</strong>', body)
    assert Event.objects.filter(game=game).count() == before
    assert not InboundMessage.objects.exists()
    assert page["Referrer-Policy"] == "same-origin" and "noindex" in page["X-Robots-Tag"]


def test_confirming_plays_the_move_of_that_code(client, duel):
    game, seats, tokens = duel
    _notice, html = turn_notice_html(game, 0)
    move = re.search(r"<strong>(play \d+)</strong>", client.get(path_of(tap_links(html)[2])).content.decode()).group(1)
    answer = client.post(path_of(tap_links(html)[2]))
    assert answer.status_code == 302 and answer["Location"].startswith(f"/play/{tokens[0]}/?sub=")
    message = process_last(seats[0])
    assert (message.status, message.error_code) == ("applied", "applied"), message.outcome
    played = Event.objects.get(game=game, type="CardPlayed")
    assert played.payload == {"seat": 0, "card": int(move.split()[1])}


def test_a_double_tap_on_confirm_plays_once(client, duel):
    game, seats, _tokens = duel
    _notice, html = turn_notice_html(game, 0)
    link = path_of(tap_links(html)[1])
    first, second = client.post(link), client.post(link)
    assert first["Location"] == second["Location"]
    process_last(seats[0])
    assert InboundMessage.objects.filter(channel="web").count() == 1
    assert Event.objects.filter(game=game, type="CardPlayed").count() == 1


def test_a_link_the_game_has_moved_past_is_refused(client, duel):
    game, _seats, _tokens = duel
    _notice, html = turn_notice_html(game, 0)
    link = path_of(tap_links(html)[1])
    card = eventlog.load(Game.objects.get(pk=game.pk)).state["game"]["hands"][0][-1]
    services.submit(game.pk, 0, f"play {card}")  # a move made another way (the web form, a reply)
    page = client.get(link)
    assert page.status_code == 409
    assert "The game has moved on since the mail with this link" in page.content.decode()
    assert client.post(link).status_code == 409
    assert Event.objects.filter(game=game, type="CardPlayed").count() == 1


def test_an_expired_link_is_refused(client, duel, settings):
    game, seats, _tokens = duel
    notice, _html = turn_notice_html(game, 0)
    settings.PBEM_TAP_LINK_HOURS = 24
    old = taps.tap_token(seats[0], notice.version, 1, hour=int(time.time() // 3600) - 25)
    page = client.get(f"/tap/{old}/")
    assert page.status_code == 410 and "expired" in page.content.decode()
    assert client.post(f"/tap/{old}/").status_code == 410


def test_a_tampered_link_is_refused(client, duel):
    game, _seats, _tokens = duel
    _notice, html = turn_notice_html(game, 0)
    link = path_of(tap_links(html)[1])
    seat, generation, version, _code, hour, mac = link.strip("/").split("/")[-1].split("-")
    for forged in (
        f"{seat}-{generation}-{version}-2-{hour}-{mac}",
        f"{seat}-{generation}-{version}-1-{hour}-{'a' * 16}",
    ):
        assert client.get(f"/tap/{forged}/").status_code == 403
        assert client.post(f"/tap/{forged}/").status_code == 403
    assert client.get("/tap/not-a-link/").status_code == 403
    assert not InboundMessage.objects.exists()


def test_a_link_of_a_seat_that_has_a_new_player_is_refused(client, duel):
    game, _seats, _tokens = duel
    _notice, html = turn_notice_html(game, 0)
    link = path_of(tap_links(html)[1])
    desk.replace_player(game.pk, 0, "Zoe", "zoe@example.org", Actor("admin"), "Alice left")
    page = client.get(link)
    assert page.status_code == 403 and "new player" in page.content.decode()


def test_each_code_also_opens_a_reply_with_the_move_written_out(duel):
    game, seats, _tokens = duel
    notice, html = turn_notice_html(game, 0)
    mailtos = re.findall(r'href="(mailto:[^"]+)"', html)
    assert len(mailtos) == len(tap_links(html))
    target = urlparse(mailtos[0].replace("&amp;", "&"))
    assert unquote(target.path) == outbound.addressing.reply_address(seats[0])
    query = parse_qs(target.query)
    assert query["body"] == [outbound.render(notice).text.split("    1  ")[1].split("\n")[0]]
    assert query["subject"][0].startswith("Re: Your move: Dice Duel")


def test_a_tapped_move_that_ends_the_turn_brings_no_mail(client, duel, mailoutbox):
    game, seats, _tokens = duel
    _notice, html = turn_notice_html(game, 0)
    client.post(path_of(tap_links(html)[1]))
    process_last(seats[0])
    assert not Notice.objects.filter(game=game, seat=seats[0]).exclude(kind="turn", version=_notice.version).exists()


def test_a_tapped_move_that_leaves_the_turn_with_its_player_brings_the_next_links(client, make_game):
    """Bob wins the round and claims it: his turn goes on, so the next notice (with the next
    links) comes by mail; a player who plays by mail has no other."""
    game = make_game(2)
    hands = eventlog.load(game).state["game"]["hands"]
    services.submit(game.pk, 0, f"play {min(hands[0])}")
    services.submit(game.pk, 1, f"play {max(hands[1])}")
    game.refresh_from_db()
    winner = game.awaited[0]
    notice = Notice.objects.filter(game=game, kind="turn", seat__number=winner).order_by("-id").first()
    html = outbound.render(Notice.objects.select_related("game", "seat").get(pk=notice.pk)).html
    seat = notice.seat
    assert client.post(path_of(tap_links(html)[1])).status_code == 302
    message = process_last(seat)
    game.refresh_from_db()
    if winner in game.awaited:  # the next round awaits the winner too: the next links by mail
        follow = Notice.objects.filter(game=game, seat=seat, kind="turn", version=message.result_version)
        assert follow.count() == 1
