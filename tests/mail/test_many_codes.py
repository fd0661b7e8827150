"""Issue 29: an Elven Castle turn with more scoring placements than the platform's usual 20 codes
numbers every one of them, and a reply of the last code plays it (RULINGS §10). The codes after
the 20th are plain numbered lines, not tap buttons, so such a notice stays light."""

from __future__ import annotations

import email
import email.policy
import re

import pytest

from games.elven_castle import standin
from pbem.log import eventlog
from pbem.mail import outbound, pictures
from pbem.models import Game
from pbem.play import services

from .conftest import deliver, send_all
from .replies import reply

PEOPLE = [services.PlayerSpec(n, f"{n.lower()}@example.org") for n in ("Alice", "Bob", "Carol", "Dan")]


def grid(rows):
    """Bridges on the ground two squares apart: every pair is an arch that a bridge, a balcony, a
    window or (over two) a portal can span, at several squares along its length."""
    return [f"place bridge {col}{row} north level 0" for row in rows for col in "acegi"]


def _newest_mail_to(mailoutbox, address: str):
    sent = next(m for m in reversed(mailoutbox) if m.to == [address])
    return sent.message().as_bytes()


@pytest.mark.parametrize(
    "rows,scoring_at_least,picture_room",
    [((1,), 40, True), ((1, 4, 7), 200, False)],
    ids=["a busy turn, 42 scoring placements", "a castle built as a grid, 236"],
)
def test_a_turn_with_more_scoring_placements_than_20_numbers_every_one_and_the_last_code_plays_it(
    rows, scoring_at_least, picture_room, db, settings, mailoutbox
):
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("elven_castle", PEOPLE, {})
    for line in grid(rows):
        game.refresh_from_db()
        services.submit(game.pk, game.awaited[0], line)
    send_all()
    game.refresh_from_db()
    seat = game.awaited[0]
    state = eventlog.load(game).state["game"]
    scoring = [c for c in standin.rules.legal(state, seat) if standin.points(state, *standin.place_of(c)) > 0]
    wire = _newest_mail_to(mailoutbox, PEOPLE[seat].email)
    notice = email.message_from_bytes(wire, policy=email.policy.default)
    text = notice.get_body(preferencelist=("plain",)).get_content()
    html = notice.get_body(preferencelist=("html",)).get_content()
    codes = [int(n) for n in re.findall(r"^ {2,}(\d+) {2}", text, re.M)]
    assert len(scoring) >= scoring_at_least
    assert codes == list(range(1, len(codes) + 1)) and len(codes) >= len(scoring)
    # The first 20 codes have a tap button and a mailto, the rest are plain numbered lines.
    assert len(re.findall(r'href="[^"]*/tap/', html)) == outbound.TAPPED
    assert len(re.findall(r'href="mailto:[^"]*body=place', html)) == outbound.TAPPED
    assert re.search(rf"<b>{len(codes)}</b>&nbsp; place ", html)
    # So a busy turn keeps its board picture, and even hundreds of codes stay within the notice's
    # budget (the picture gets what they leave: drawn small, or left out for the text board).
    if picture_room:
        assert any(part.get_content_type() == "image/png" for part in notice.walk())
    assert len(wire) <= pictures.NOTICE_BUDGET
    before = eventlog.load(game).version
    last = deliver(reply("gmail", notice, str(codes[-1]), sender=PEOPLE[seat].email))
    assert last.status == "applied", last.outcome
    after = eventlog.load(Game.objects.get(pk=game.pk))
    assert after.version > before
    # the last code is a scoring placement of the lowest score, and it scored
    lowest = min(standin.points(state, *standin.place_of(c)) for c in scoring)
    assert after.state["game"]["scores"][seat] == state["scores"][seat] + lowest


def test_a_code_one_past_the_last_of_236_is_refused_and_changes_nothing(db, settings, mailoutbox):
    """A reply guessing a code beyond the plain lines (or one of a bigger menu) is refused."""
    settings.PBEM_NOTICE_DISPATCH = "none"
    game = services.create_game("elven_castle", PEOPLE, {})
    for line in grid((1, 4, 7)):
        game.refresh_from_db()
        services.submit(game.pk, game.awaited[0], line)
    send_all()
    game.refresh_from_db()
    seat = game.awaited[0]
    notice = email.message_from_bytes(_newest_mail_to(mailoutbox, PEOPLE[seat].email), policy=email.policy.default)
    text = notice.get_body(preferencelist=("plain",)).get_content()
    last = max(int(n) for n in re.findall(r"^ {2,}(\d+) {2}", text, re.M))
    before = eventlog.load(game).version
    message = deliver(reply("gmail", notice, str(last + 1), sender=PEOPLE[seat].email))
    assert (message.status, message.error_code) == ("refused", "no_such_code"), message.outcome
    assert eventlog.load(Game.objects.get(pk=game.pk)).version == before
