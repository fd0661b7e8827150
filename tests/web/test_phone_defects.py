"""The web defects issue 27 saw on the way, each a test: a practice game's form and first news,
the stand-in's tag on what its move set off, and help laid out as rows (the layout itself in
Chromium: tests/browser/test_phone_pages.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from pbem.log import eventlog
from pbem.mail import outbound
from pbem.models import Game, Notice, Seat
from pbem.play import selectors, services, standins
from pbem.play.selectors import PLATFORM_TEXT
from pbem.web.views import help_rows

pytestmark = pytest.mark.django_db


def test_the_practice_form_shows_no_label_of_its_hidden_key(client):
    page = client.get(reverse("pbem-practice") + "?kind=diceduel").content.decode()
    assert "Submission key" not in page
    assert 'type="hidden" name="submission_key"' in page


def test_a_practice_games_first_news_does_not_say_the_others_are_invited_to_nothing(client, settings, mailoutbox):
    settings.PBEM_NOTICE_DISPATCH = "none"
    posted = client.post(
        reverse("pbem-practice") + "?kind=diceduel",
        {"kind": "diceduel", "name": "Alice", "email": "alice@example.org", "opponents": 2, "submission_key": "k" * 32},
    )
    assert posted.status_code == 302
    game = Game.objects.get()
    alice = Seat.objects.get(game=game, number=0)
    from pbem.play import addressing

    client.post(reverse("pbem-invite", args=[addressing.token_for(alice)]))
    standins.play(game.pk)
    notice = Notice.objects.filter(game=game, seat=alice).exclude(kind="invitation").order_by("id").first()
    text = outbound.render(Notice.objects.select_related("game", "seat").get(pk=notice.pk)).text
    assert "invited: ." not in text
    assert "the other seats are the stand-ins', so nobody else is invited" in " ".join(text.split())


def test_the_invitations_sent_say_whom_they_went_to():
    names = ["Alice", "Bob", "Carol"]
    assert PLATFORM_TEXT["InvitationsSent"]({"seats": [1, 2]}, names).endswith("invited: Bob, Carol.")
    assert "invited: ." not in PLATFORM_TEXT["InvitationsSent"]({"seats": []}, names)


def test_what_a_stand_ins_move_sets_off_is_not_tagged_as_the_stand_ins(make_game):
    game = make_game(2, standin_seats=(1,))
    hands = eventlog.load(game).state["game"]["hands"]
    services.submit(game.pk, 0, f"play {hands[0][0]}")
    standins.play(game.pk)
    game.refresh_from_db()
    items = selectors.feed(game, 0)
    played = next(i for i in items if i.type == "CardPlayed" and i.actor == "standin")
    revealed = next(i for i in items if i.type == "CardsRevealed")
    assert played.text.endswith("(played by the stand-in for Bob)")
    if revealed.actor == "standin":  # the stand-in's card decided the round
        assert "stand-in" not in revealed.text


def test_help_is_rows_of_a_command_and_what_it_does():
    text = (
        "Commands for every game:\n"
        "  undo                 take back your last move (if no one has acted since,\n"
        "                       nothing was drawn and nothing hidden revealed)\n"
        "\n"
        "  board                your view of the board"
    )
    rows = help_rows(text)
    assert rows[0] == {"kind": "line", "indent": 0, "text": "Commands for every game:"}
    assert rows[1]["kind"] == "pair" and rows[1]["command"] == "undo"
    assert rows[1]["text"].endswith("nothing was drawn and nothing hidden revealed)")
    assert rows[2] == {"kind": "gap"} and rows[3]["command"] == "board"


def test_the_seat_page_shows_help_without_a_preformatted_block(client, duel):
    _game, _seats, tokens = duel
    page = client.get(reverse("pbem-seat", args=[tokens[0]])).content.decode()
    help_block = page.split('<details id="help">', 1)[1].split("</details>", 1)[0]
    assert "<pre" not in help_block and '<dl class="help-pair"' in help_block
