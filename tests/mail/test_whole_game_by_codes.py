"""Done when: a complete Elven Castle game and a complete Elfenland game can be played by email
using only the codes in the notices: every move is a reply of "1" to the newest mail the
awaited player holds, and every mail that asks for a move offers code 1."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.mail import pictures
from pbem.models import Game
from pbem.play import services

from .conftest import deliver, send_all
from .replies import reply

PEOPLE = [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in ("Alice", "Bob")]


def newest_mail_to(mailoutbox, address: str):
    sent = next(m for m in reversed(mailoutbox) if m.to == [address])
    return email.message_from_bytes(sent.message().as_bytes(), policy=email.policy.default)


@pytest.mark.slow  # a whole game by mail: 1-2 minutes each on a loaded machine
@pytest.mark.parametrize("kind,moves,with_pictures", [("elven_castle", 200, True), ("elfenland", 1500, False)])
def test_a_whole_game_is_played_by_mail_with_code_1_alone(
    kind, moves, with_pictures, db, settings, mailoutbox, monkeypatch
):
    settings.PBEM_NOTICE_DISPATCH = "none"
    settings.PBEM_RATE_MAIL_COMMANDS = (100_000, 600)
    settings.PBEM_MAIL_ANSWERS_PER_HOUR = 100_000
    if not with_pictures:  # the pictures have their own tests; a long game need not draw each one
        monkeypatch.setattr(pictures, "board_png", lambda *args: None)
    game = services.create_game(kind, PEOPLE, {})
    send_all()
    for _ in range(moves):
        game.refresh_from_db()
        if game.status != "running":
            break
        seat = game.awaited[0]
        address = PEOPLE[seat].email
        notice = newest_mail_to(mailoutbox, address)
        text = notice.get_body(preferencelist=("plain",)).get_content()
        assert "    1  " in text, f"the newest mail to {address} offers no code 1:\n{text}"
        message = deliver(reply("gmail", notice, "1", sender=address))
        assert message.status == "applied", message.outcome
        send_all()
    assert Game.objects.get(pk=game.pk).status == "finished"
    for person in PEOPLE:
        assert any(m.to == [person.email] and m.subject.startswith("Game over:") for m in mailoutbox)
