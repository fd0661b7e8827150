"""For every registered game: the turn notices render, list codes that parse, and a reply of
code 1 from an awaited seat is applied; finished games send standings, seed and audit link."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.log import eventlog
from pbem.models import Event, Game, Notice
from pbem.play import choosing, services
from pbem.registry import all_games, get_game

from .conftest import deliver, hand, send_all
from .replies import corpus, reply

PEOPLE = [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in ("Alice", "Bob", "Carol", "Dave", "Erin")]


def parsed(message):
    return email.message_from_bytes(message.message().as_bytes(), policy=email.policy.default)


@pytest.mark.parametrize("kind", sorted(all_games()))
def test_turn_notice_codes_reply_applied(kind, db, settings, mailoutbox):
    settings.PBEM_NOTICE_DISPATCH = "none"
    spec = get_game(kind)
    game = services.create_game(kind, PEOPLE[: spec.min_players], {})
    assert send_all().get("sent", 0) >= 1
    state = eventlog.load(Game.objects.get(pk=game.pk)).state
    seat = spec.waiting_for(state["game"])[0]
    person = PEOPLE[seat]
    notice = parsed(next(m for m in mailoutbox if m.to == [person.email]))
    text = notice.get_body(preferencelist=("plain",)).get_content()
    offered = choosing.menu(spec, state["game"], seat)
    assert f"  1  {offered.line(offered.by_code(1))}" in text  # code 1: the first featured move
    assert notice.get_body(preferencelist=("html",)).get_content().count("<td") >= 2
    before = Game.objects.get(pk=game.pk).version
    message = deliver(reply("gmail", notice, "1", sender=person.email))
    assert message.status == "applied", message.outcome
    assert Game.objects.get(pk=game.pk).version > before


def test_the_end_brings_standings_the_seed_and_the_audit_link(make_game, mailoutbox):
    game = make_game(2, options={"rounds": 1})
    alice_card, bob_card = max(hand(game, 0)), min(hand(game, 1))
    services.submit(game.pk, 0, f"play {alice_card}")
    services.submit(game.pk, 1, f"play {bob_card}")
    winner, loser = ("Alice", "Bob") if alice_card > bob_card else ("Bob", "Alice")
    services.submit(game.pk, 0 if winner == "Alice" else 1, "take")
    game.refresh_from_db()
    assert game.status == "finished"
    send_all()
    finals = Notice.objects.filter(game=game, kind="final")
    assert finals.count() == 2 and set(finals.values_list("status", flat=True)) == {"sent"}
    final = parsed(next(m for m in mailoutbox if m.to == ["bob@example.org"] and m.subject.startswith("Game over:")))
    text = final.get_body(preferencelist=("plain",)).get_content()
    seed = Event.objects.get(game=game, type="pbem.SeedRevealed").payload["seed"]
    colour = {"Alice": "red", "Bob": "blue"}  # the standings name each player's colour, as boards do
    assert f"1. {winner} ({colour[winner]}): 2" in text and f"2. {loser} ({colour[loser]}): 0" in text
    assert seed in text and f"/games/{game.pk}/audit/" in text


def test_undo_by_mail(table, mailoutbox):
    send_all()
    notice = parsed(next(m for m in mailoutbox if m.to == ["alice@example.org"]))
    card = hand(table, 0)[0]
    deliver(reply("gmail", notice, f"play {card}"))
    message = deliver(reply("gmail", notice, "undo", keep_threading=False))
    assert message.status == "applied", message.outcome
    assert card in hand(table, 0)
    assert Event.objects.filter(game=table, type="pbem.Undone").count() == 1


def test_a_small_attachment_is_ignored(table, mailoutbox):
    send_all()
    notice = parsed(next(m for m in mailoutbox if m.to == ["alice@example.org"]))
    card = hand(table, 0)[0]
    message = deliver(corpus("attachment", notice, f"play {card}", ATTACHMENT="/9j/4AAQSkZJRgABAQAAAQABAAD/2wBD\n"))
    assert message.status == "applied", message.outcome
    assert Event.objects.get(game=table, type="CardPlayed").payload == {"seat": 0, "card": card}
