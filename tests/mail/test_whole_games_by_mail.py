"""Done when (issue 27): a whole game of each kind played by mail using only the one-tap links
of its notices, and one using only their codes, reach a normal end with scores like a game of
typed moves by the same stand-ins.

Every move is the stand-in's choice for the awaited seat, made through the newest mail that
seat holds which offers moves: by tapping the link of that move's code (the confirming page,
then Confirm), or by replying with the code. Where the notice offers no code for the stand-in's
choice, the seat takes code 1 (counted: the games' own choosers are to cover their moves, a
later issue). The same seed and the same choices typed as commands give the game to compare
with; the figures of every game go to test-artifacts/whole-games.txt.
"""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass, field
from urllib.parse import urlparse

import pytest

from pbem.doors import processing
from pbem.mail import pictures
from pbem.models import Game, InboundMessage, Notice
from pbem.play import services
from tests.chromium import artifacts

from .conftest import deliver, send_all
from .replies import reply
from .whole_games import FIVE_GAMES, code_of, final_scores, people, play_typed, seeded, standin_choice

SEED = "ab" * 32
MAX_MOVES = 3000


@dataclass
class Played:
    moves: int = 0
    offered: int = 0  # moves whose stand-in choice the notice offered as a code
    scores: list = field(default_factory=list)

    @property
    def coverage(self) -> float:
        return self.offered / self.moves if self.moves else 1.0


def newest_with_moves(mailoutbox, address: str):
    """The newest mail to `address` that offers moves (a turn notice, or the answer to a move
    that left the turn with its player), parsed as a mail client shows it."""
    for sent in reversed(mailoutbox):
        if sent.to == [address] and "What you may do now" in sent.body:
            return email.message_from_bytes(sent.message().as_bytes(), policy=email.policy.default)
    raise AssertionError(f"no mail offering moves to {address}")


def by_code(client, game, seat, address, mail, code) -> InboundMessage:
    return deliver(reply("gmail", mail, str(code), sender=address))


def by_tap(client, game, seat, address, mail, code) -> InboundMessage:
    html = mail.get_body(preferencelist=("html",)).get_content()
    link = re.search(rf'<a href="(http[^"]+/tap/[^"]+/)"[^>]*>{code}</a>', html).group(1)
    path = urlparse(link).path
    assert client.get(path).status_code == 200
    assert client.post(path).status_code == 302
    message = InboundMessage.objects.filter(channel="web").order_by("-id").first()
    processing.process(message.pk)
    message.refresh_from_db()
    return message


def play_by_mail(kind: str, make_move, client, mailoutbox) -> Played:
    with seeded(SEED):
        game = services.create_game(kind, people(kind), {})
    send_all()
    played = Played()
    for _ in range(MAX_MOVES):
        game.refresh_from_db()
        if game.status != "running":
            break
        seat = game.awaited[0]
        address = people(kind)[seat].email
        mail = newest_with_moves(mailoutbox, address)
        version = Notice.objects.get(pk=int(mail["X-Pbem-Notice"])).version
        code = code_of(game, seat, standin_choice(game, seat), version)
        played.moves += 1
        played.offered += code is not None
        message = make_move(client, game, seat, address, mail, code or 1)
        assert message.status == "applied", (kind, message.outcome)
        send_all()
    assert Game.objects.get(pk=game.pk).status == "finished", f"{kind} did not end within {MAX_MOVES} moves"
    played.scores = final_scores(game)
    return played


def typed(kind: str) -> list:
    with seeded(SEED):
        game = services.create_game(kind, people(kind), {})
    play_typed(game)
    return final_scores(game)


@pytest.fixture
def quick(settings, monkeypatch, quiet_limits):
    settings.PBEM_NOTICE_DISPATCH = "none"
    settings.PBEM_RATE_MAIL_COMMANDS = (100_000, 600)
    settings.PBEM_MAIL_ANSWERS_PER_HOUR = 100_000
    settings.PBEM_RATE_SUBMIT = (100_000, 60)
    # The pictures have tests of their own; a whole game need not draw each of its notices.
    monkeypatch.setattr(pictures, "board_png", lambda *args: None)


@pytest.mark.slow  # a whole game by mail: up to 2 minutes each on a loaded machine
@pytest.mark.parametrize("kind", FIVE_GAMES)
@pytest.mark.parametrize("way", ["links", "codes"])
def test_a_whole_game_played_by_mail_reaches_its_end(kind, way, quick, db, client, mailoutbox):
    played = play_by_mail(kind, by_tap if way == "links" else by_code, client, mailoutbox)
    expected = typed(kind)
    out = artifacts("whole-games")
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "summary.txt", "a") as summary:
        summary.write(
            f"{kind:14} by {way:5}: {played.moves:4} moves, the stand-in's choice offered as a code in "
            f"{played.coverage:6.1%}; scores {played.scores} (typed by the same stand-ins: {expected})\n"
        )
    if played.offered == played.moves:  # every move was the stand-in's own: the very same game
        assert played.scores == expected
    assert len(played.scores) == len(expected)
