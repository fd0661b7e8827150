"""The web pages as stories: the lobby, invitations, the seat page, replay, spectators, audit."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from pbem import tasks
from pbem.log import anchors, eventlog
from pbem.models import Event, Game, InboundMessage, InboundStatus, Notice, Seat
from pbem.play import addressing, desk, services
from tests.conftest import alter_behind_the_databases_back

from ..conftest import hands, requires_postgres
from .conftest import process_last

pytestmark = pytest.mark.django_db


def seat_url(token):
    return reverse("pbem-seat", args=[token])


def text_of(response) -> str:
    return response.content.decode()


# --- lobby and invitations --------------------------------------------------------------------


def test_lobby_lists_open_running_and_finished_games(client, make_game):
    running = make_game(2)
    waiting = make_game(2, start=False, invited=True, title="Waiting table")
    page = text_of(client.get("/"))
    assert "Open: waiting for players" in page and "Waiting table" in page
    assert f'href="/games/{running.pk}/"' in page and f'href="/games/{waiting.pk}/"' in page
    assert "Dice Duel" in page
    assert "<script" not in page  # no page needs JavaScript


def test_create_game_in_two_steps_invites_the_creator_then_the_others(
    client, db, mailoutbox, django_capture_on_commit_callbacks
):
    step1 = client.get("/games/new/")
    assert 'name="kind"' in text_of(step1)
    step2 = client.get("/games/new/", {"kind": "diceduel"})
    assert 'name="opt_rounds"' in text_of(step2) and "csrfmiddlewaretoken" in text_of(step2)
    with django_capture_on_commit_callbacks(execute=True):  # the invitations go out through the outbox
        response = client.post(
            "/games/new/?kind=diceduel",
            {
                "kind": "diceduel",
                "title": "Friday duel",
                "invitees": "Alice <alice@example.org>\nbob@example.org",
                "deadline_hours": 24,
                "notices": "digest",
                "opt_rounds": 2,
            },
        )
    game = Game.objects.get(title="Friday duel")
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert game.status == "open" and game.options == {"rounds": 2} and game.deadline_seconds == 24 * 3600
    seats = list(game.seats.order_by("number"))
    assert [(s.name, s.email, s.invite_accepted, s.notice_preference) for s in seats] == [
        ("Alice", "alice@example.org", False, "digest"),
        ("bob", "bob@example.org", False, "digest"),
    ]
    # Only the creator (the first player) is mailed: accepting proves the address is theirs.
    assert [m.to[0] for m in mailoutbox] == ["alice@example.org"]
    mail = mailoutbox[0]
    accept = f"http://testserver/invite/{addressing.token_for(seats[0])}/"
    assert accept in mail.body and mail.extra_headers["Reply-To"] == addressing.reply_address(seats[0])
    assert accept in mail.alternatives[0][0]
    assert "Friday duel" not in mail.body + mail.subject  # a fixed text: none of the creator's words
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/invite/{addressing.token_for(seats[0])}/")
    assert [m.to[0] for m in mailoutbox] == ["alice@example.org", "bob@example.org"]
    invitation = mailoutbox[1]
    assert "alice@example.org invites you" in invitation.body and "Friday duel" not in invitation.body
    assert addressing.token_for(seats[0]) not in invitation.body  # nobody gets another player's link
    assert f"http://testserver/invite/{addressing.token_for(seats[1])}/" in invitation.body


@pytest.mark.parametrize(
    "invitees, error",
    [
        ("Alice <alice@example.org>", "for 2 to 4 players"),
        ("Alice <alice@example.org>\nBob <not-an-address>", "no valid email address"),
        ("a@example.org\nA@example.org", "invited twice"),
    ],
)
def test_create_game_refuses_bad_invitations_and_creates_nothing(client, db, mailoutbox, invitees, error):
    response = client.post(
        "/games/new/?kind=diceduel",
        {"kind": "diceduel", "invitees": invitees, "deadline_hours": 48, "notices": "every", "opt_rounds": 3},
    )
    assert response.status_code == 200 and error in text_of(response)
    assert Game.objects.count() == 0 and mailoutbox == []


def test_create_game_refuses_an_option_out_of_range(client, db):
    response = client.post(
        "/games/new/?kind=diceduel",
        {"kind": "diceduel", "invitees": "a@x.org\nb@x.org", "deadline_hours": 48, "notices": "every", "opt_rounds": 9},
    )
    assert "less than or equal to 3" in text_of(response) and Game.objects.count() == 0


def test_accepting_every_invitation_starts_the_game(client, make_game):
    game = make_game(2, start=False, invited=True)
    alice, bob = game.seats.order_by("number")
    page = client.get(f"/invite/{addressing.token_for(alice)}/")
    assert "Accept my seat" in text_of(page)
    alice.refresh_from_db()
    assert not alice.invite_accepted  # looking at the invitation accepts nothing
    response = client.post(f"/invite/{addressing.token_for(alice)}/")
    assert response.status_code == 302 and response["Location"] == seat_url(addressing.token_for(alice))
    game.refresh_from_db()
    assert game.status == "open"
    waiting = text_of(client.get(seat_url(addressing.token_for(alice))))
    assert "Waiting for players to accept their invitations: Bob" in waiting
    client.post(f"/invite/{addressing.token_for(bob)}/")
    game.refresh_from_db()
    assert game.status == "running" and sorted(game.awaited) == [0, 1]
    client.post(f"/invite/{addressing.token_for(bob)}/")  # a second click changes nothing
    assert Game.objects.get(pk=game.pk).version == game.version


def test_invitation_link_with_a_forged_token_is_refused(client, make_game):
    game = make_game(2, start=False, invited=True)
    token = addressing.token_for(game.seats.first())
    forged = token[:-1] + ("a" if token[-1] != "a" else "b")
    response = client.post(f"/invite/{forged}/")
    assert response.status_code == 403
    assert not Seat.objects.filter(game=game, invite_accepted=True).exists()


# --- the seat page -----------------------------------------------------------------------------


def test_seat_page_shows_own_hand_whats_awaited_and_the_legal_moves(client, duel):
    game, seats, tokens = duel
    alice_hand, bob_hand = hands(game)
    response = client.get(seat_url(tokens[0]))
    page = text_of(response)
    assert response.status_code == 200
    assert "You are <strong>Alice</strong>" in page and "It is your turn." in page
    assert f"Your hand: {' '.join(map(str, alice_hand))}" in page
    assert "Your hand: " + " ".join(map(str, bob_hand)) not in page
    for card in alice_hand:
        assert f'value="play {card}"' in page
    assert "The table waits for" in page and "Bob" in page and "deadline" in page
    assert 'class="toy"' in page  # the game's own HTML render of the board
    assert "csrfmiddlewaretoken" in page
    # One script, from our own static files, that only adds live turns: the page works without it.
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/pbem/live.js" defer>']
    assert response["Referrer-Policy"] == "same-origin" and "no-cache" in response["Cache-Control"]


def test_a_legal_move_goes_through_the_pipeline_and_the_page_shows_the_outcome(client, duel):
    game, seats, tokens = duel
    card = hands(game)[0][0]
    response = client.post(
        seat_url(tokens[0]), {"choice": f"play {card}", "text": "", "expected_version": game.version}
    )
    message = InboundMessage.objects.get(seat=seats[0])
    assert response.status_code == 302 and response["Location"] == f"{seat_url(tokens[0])}?sub={message.pk}#outcome"
    assert message.channel == "web" and message.status == InboundStatus.RECEIVED
    pending = text_of(client.get(response["Location"]))
    assert "being processed" in pending and 'http-equiv="refresh"' in pending
    process_last(seats[0])
    done = text_of(client.get(response["Location"]))
    assert "Done." in done and f"play {card}" in done
    assert card not in hands(Game.objects.get(pk=game.pk))[0]


def test_a_typed_command_and_a_different_picked_move_are_refused_and_nothing_is_sent(client, duel):
    game, seats, tokens = duel
    first, second = hands(game)[0][:2]
    response = client.post(
        seat_url(tokens[0]), {"choice": f"play {first}", "text": f"play {second}", "expected_version": game.version}
    )
    page = text_of(response)
    assert response.status_code == 400
    assert f"You picked “play {first}” but typed “play {second}”: nothing was sent." in page
    assert InboundMessage.objects.count() == 0
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_typed_command_equal_to_the_picked_move_is_sent_once(client, duel):
    game, seats, tokens = duel
    first = hands(game)[0][0]
    client.post(
        seat_url(tokens[0]), {"choice": f"play {first}", "text": f"  play   {first} ", "expected_version": game.version}
    )
    assert process_last(seats[0]).status == InboundStatus.APPLIED
    assert first not in hands(Game.objects.get(pk=game.pk))[0]


def test_the_typed_commands_have_a_form_of_their_own(client, duel):
    """A box still holding a refused command is not sent with a move picked afterwards."""
    game, seats, tokens = duel
    page = text_of(client.get(seat_url(tokens[0])))
    chooser = page[page.index('id="move-form"') : page.index("</form>", page.index('id="move-form"'))]
    typed = page[page.index('id="type-form"') : page.index("</form>", page.index('id="type-form"'))]
    assert 'name="choice"' in chooser and "<textarea" not in chooser
    assert "<textarea" in typed and 'name="choice"' not in typed


def test_an_illegal_move_is_shown_next_to_the_form_and_changes_nothing(client, duel):
    game, seats, tokens = duel
    not_mine = hands(game)[1][0]
    response = client.post(seat_url(tokens[0]), {"text": f"play {not_mine}", "expected_version": game.version})
    message = process_last(seats[0])
    assert message.status == InboundStatus.REFUSED
    page = text_of(client.get(response["Location"]))
    assert "Not applied." in page and f"You have no card {not_mine}" in page
    assert re.search(rf">\s*play {not_mine}</textarea>", page)  # the text stays in the box to correct it
    assert page.index('id="outcome"') < page.index('id="move-form"')
    # The reason, not a list of every legal move: the chooser below offers those.
    outcome = page[page.index('id="outcome"') : page.index('id="move-form"')]
    assert "What you may do now" not in outcome and f"play {hands(game)[0][0]}" not in outcome
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_move_made_on_an_old_page_is_refused_as_stale(client, duel):
    game, seats, tokens = duel
    old_version = game.version
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")
    services.submit(game.pk, 1, "say hurry up")
    client.post(seat_url(tokens[0]), {"choice": f"play {hands(game)[0][0]}", "expected_version": old_version})
    message = process_last(seats[0])
    # Bob's face-down card is something Alice sees happen, so her page was out of date.
    assert message.status == InboundStatus.REFUSED and message.error_code == "stale"


def test_an_empty_form_is_refused_on_the_spot(client, duel):
    game, seats, tokens = duel
    response = client.post(seat_url(tokens[0]), {"text": "  ", "expected_version": game.version})
    assert response.status_code == 400 and "Choose a move or type a command." in text_of(response)
    assert InboundMessage.objects.count() == 0


def test_table_talk_is_said_through_the_pipeline_and_shown(client, duel):
    game, seats, tokens = duel
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")  # the board moved: talk is never stale
    response = client.post(seat_url(tokens[1]), {"message": "good luck\nplay 3"})
    assert response.status_code == 302
    assert process_last(seats[1]).status == InboundStatus.APPLIED
    page = text_of(client.get(seat_url(tokens[0])))
    assert "Bob says: good luck play 3" in page  # one line: a line break cannot smuggle a move in
    assert "Bob says: good luck" in text_of(client.get(f"/games/{game.pk}/"))


def test_seat_page_refuses_bad_tokens(client, duel):
    game, seats, tokens = duel
    assert client.get(seat_url("nonsense")).status_code == 403
    forged = tokens[0][:-2] + ("aa" if not tokens[0].endswith("aa") else "bb")
    response = client.get(seat_url(forged))
    assert response.status_code == 403 and "not one we issued" in text_of(response)
    desk.replace_player(game.pk, 0, "Dora", "dora@example.org", services.SYSTEM, "Alice left")
    revoked = client.get(seat_url(tokens[0]))
    assert revoked.status_code == 403 and "revoked" in text_of(revoked)
    assert client.post(seat_url(tokens[0]), {"text": "play 1", "expected_version": 0}).status_code == 403
    assert InboundMessage.objects.count() == 0


def test_forms_need_the_csrf_token():
    csrf_client = Client(enforce_csrf_checks=True)
    assert csrf_client.post("/games/new/?kind=diceduel", {"kind": "diceduel"}).status_code == 403


def test_seat_form_needs_the_csrf_token(duel):
    game, seats, tokens = duel
    csrf_client = Client(enforce_csrf_checks=True)
    assert csrf_client.post(seat_url(tokens[0]), {"text": "play 1", "expected_version": 0}).status_code == 403
    assert InboundMessage.objects.count() == 0
    page = csrf_client.get(seat_url(tokens[0]))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text_of(page)).group(1)
    ok = csrf_client.post(
        seat_url(tokens[0]), {"text": "help", "expected_version": game.version, "csrfmiddlewaretoken": token}
    )
    assert ok.status_code == 302 and InboundMessage.objects.count() == 1


# --- rate limits -------------------------------------------------------------------------------


def test_guessing_tokens_is_slowed_down(client, duel, settings):
    game, seats, tokens = duel
    settings.PBEM_RATE_TOKEN_FAILURES = (3, 600)
    for guess in ("1-1-aaaaaaaaaaaaaaaa", "1-1-bbbbbbbbbbbbbbbb", "2-1-cccccccccccccccc"):
        assert client.get(seat_url(guess)).status_code == 403
    blocked = client.get(seat_url("3-1-dddddddddddddddd"))
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0
    # A right token is never refused for guesses, not even the same address's.
    assert client.get(seat_url(tokens[0])).status_code == 200


def test_submissions_per_seat_are_limited(client, duel, settings):
    game, seats, tokens = duel
    settings.PBEM_RATE_SUBMIT = (2, 60)
    for _ in range(2):
        assert client.post(seat_url(tokens[0]), {"text": "help", "expected_version": game.version}).status_code == 302
    response = client.post(seat_url(tokens[0]), {"text": "help", "expected_version": game.version})
    assert response.status_code == 429 and "Too many submissions" in text_of(response)
    assert InboundMessage.objects.count() == 2
    assert client.post(seat_url(tokens[1]), {"text": "help", "expected_version": game.version}).status_code == 302


# --- history, replay, spectators, audit ---------------------------------------------------------


def play_out(game):
    """Plays Dice Duel to the end with the lowest card and 'take'."""
    spec_state = eventlog.load(Game.objects.get(pk=game.pk)).state["game"]
    while True:
        game.refresh_from_db()
        if not game.awaited:
            return
        seat = game.awaited[0]
        state = eventlog.load(game).state["game"]
        command = {"type": "take"} if state["phase"] == "claim" else {"type": "play", "card": min(state["hands"][seat])}
        services.submit(game.pk, seat, command=command)
        assert spec_state is not None


def test_replay_steps_through_events_as_the_seat_may_see_them(client, duel):
    game, seats, tokens = duel
    first_hand = hands(game)
    start = game.version
    services.submit(game.pk, 0, f"play {first_hand[0][0]}")
    services.submit(game.pk, 1, f"play {first_hand[1][0]}")
    game.refresh_from_db()
    base = reverse("pbem-seat_history", args=[tokens[0]])
    at_start = text_of(client.get(base, {"at": start}))
    assert f"event {start} of {game.version}" in at_start
    assert f"Your hand: {' '.join(map(str, first_hand[0]))}" in at_start
    assert (
        f'href="{base}?at={start + 1}" rel="next"' in at_start
        and f'href="{base}?at={start - 1}" rel="prev"' in at_start
    )
    later = text_of(client.get(base, {"at": start + 1}))
    assert f"Alice played {first_hand[0][0]} face down." in later
    bob_view = text_of(client.get(reverse("pbem-seat_history", args=[tokens[1]]), {"at": start + 1}))
    assert "Alice played a card face down." in bob_view and f"Alice played {first_hand[0][0]}" not in bob_view
    assert "Your hand: " + " ".join(map(str, first_hand[0])) not in bob_view
    round_two = text_of(client.get(base, {"round": 2}))
    assert "(round 2" in round_two or game.round == 1
    assert client.get(base, {"at": "x"}).status_code == 400
    assert f"event {game.version} of {game.version}" in text_of(client.get(base, {"at": 10**9}))


def test_replay_jumps_to_a_round(client, duel):
    game, seats, tokens = duel
    play_out(game)
    game.refresh_from_db()
    assert game.status == "finished"
    page = text_of(client.get(f"/games/{game.pk}/history/", {"round": 2}))
    at = int(re.search(r'id="at">event (\d+) of', page).group(1))
    assert "(round 2" in page
    before = text_of(client.get(f"/games/{game.pk}/history/", {"at": at - 1}))
    assert "(round 1" in before


def test_spectator_page_shows_the_public_view_only(client, duel):
    game, seats, tokens = duel
    services.submit(game.pk, 0, f"play {hands(game)[0][0]}")
    page = text_of(client.get(f"/games/{game.pk}/"))
    assert "Spectator view" in page and "Alice played a card face down." in page
    assert "Your hand" not in page and game.seed not in page
    for card in hands(game)[0] + hands(game)[1]:
        assert f"played {card}" not in page
    assert client.get("/games/999999/").status_code == 404


def test_audit_page_keeps_the_seed_until_the_end_then_rederives_every_draw(client, duel):
    game, seats, tokens = duel
    before = text_of(client.get(f"/games/{game.pk}/audit/"))
    assert game.seed_commitment in before and "intact" in before
    assert game.seed not in before and "secret until the game is over" in before
    play_out(game)
    after = text_of(client.get(f"/games/{game.pk}/audit/"))
    assert f'<code id="seed">{game.seed}</code>' in after and "matches the commitment" in after
    assert "✓ yes" in after and "✗ NO" not in after
    assert "random outcomes re-derived from the seed" in after


def test_a_choice_from_an_outdated_page_gets_the_pipelines_answer(client, duel):
    game, seats, tokens = duel
    old_version = game.version
    card = hands(game)[0][0]
    services.submit(game.pk, 0, f"play {card}")  # the same move, made meanwhile by mail
    response = client.post(seat_url(tokens[0]), {"choice": f"play {card}", "expected_version": old_version})
    assert response.status_code == 302
    message = process_last(seats[0])
    assert message.status == InboundStatus.REFUSED and message.error_code in ("stale", "not_your_turn")
    assert "Not applied." in text_of(client.get(response["Location"]))


def test_a_nul_character_is_refused_by_the_form(client, duel):
    game, seats, tokens = duel
    response = client.post(seat_url(tokens[0]), {"text": "say a\x00b", "expected_version": game.version})
    assert response.status_code == 400 and InboundMessage.objects.count() == 0
    assert client.post(seat_url(tokens[0]), {"message": "a\x00b"}).status_code == 400


def test_an_invitation_that_cannot_be_sent_now_is_retried_by_the_outbox(
    client, db, settings, mailoutbox, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 1, 2  # nothing listens
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/games/new/?kind=diceduel",
            {
                "kind": "diceduel",
                "invitees": "a@x.org\nb@x.org",
                "deadline_hours": 48,
                "notices": "every",
                "opt_rounds": 1,
            },
            follow=True,
        )
    assert "invitation is on its way" in text_of(response)
    game = Game.objects.get()
    invitations = Notice.objects.filter(game=game, kind="invitation")
    assert game.status == "open" and [(n.status, n.attempts) for n in invitations] == [("pending", 1)]
    assert all(n.next_attempt_at and "Connection refused" in n.last_error for n in invitations)
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # the mail server is back
    invitations.update(next_attempt_at=timezone.now())
    assert tasks.sweep_outbox()["sent"] == 1
    assert [m.to[0] for m in mailoutbox] == ["a@x.org"]  # the creator's; the others follow their acceptance


def test_the_whole_log_in_words(client, duel):
    game, seats, tokens = duel
    for _ in range(25):
        services.submit(game.pk, 0, "say hello")
    game.refresh_from_db()
    window = text_of(client.get(f"/games/{game.pk}/history/", {"at": game.version}))
    whole = text_of(client.get(f"/games/{game.pk}/history/", {"at": game.version, "all": "1"}))
    assert "The table is set" not in window and "The table is set" in whole
    assert whole.count("Alice says: hello") >= 25 + 10  # every line in the log, plus the table talk


@requires_postgres
def test_the_audit_page_and_api_show_an_altered_event(client, duel):
    game, seats, tokens = duel
    alter_behind_the_databases_back(game, 3, '{"players": 2, "rounds": 9}')
    page = text_of(client.get(f"/games/{game.pk}/audit/"))
    assert "broken" in page and "event 3: content does not match its hash" in page
    report = client.get(f"/api/games/{game.pk}/audit").json()
    assert report["ok"] is False and report["chain_intact"] is False


def test_no_two_elements_of_the_seat_page_share_an_id(client, duel):
    game, seats, tokens = duel
    page = text_of(client.get(seat_url(tokens[0])))
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert ids and len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize(
    ("minutes", "seconds", "error"),
    [("5", 300, ""), ("0", None, "greater than or equal to 1"), ("soon", None, "Enter a whole number")],
)
def test_a_deadline_can_be_set_in_minutes_and_zero_or_nonsense_is_refused(client, db, minutes, seconds, error):
    """Nothing under an hour could be set: a newcomer could not watch a deadline pass."""
    response = client.post(
        "/games/new/?kind=diceduel",
        {
            "kind": "diceduel",
            "title": "Quick duel",
            "invitees": "a@x.org\nb@x.org",
            "deadline_hours": 48,
            "deadline_minutes": minutes,
            "notices": "every",
            "opt_rounds": 3,
        },
    )
    if seconds:
        assert response.status_code == 302
        assert Game.objects.get(title="Quick duel").deadline_seconds == seconds
    else:
        assert error in text_of(response) and Game.objects.count() == 0


def test_the_audit_page_lists_the_heads_a_page_at_a_time_so_its_cost_does_not_grow_with_the_log(client, duel):
    game, seats, tokens = duel
    for i in range(anchors.HEADS_PAGE + 10):
        services.submit(game.pk, i % 2, f"say table talk {i}")
    game.refresh_from_db()
    first = text_of(client.get(f"/games/{game.pk}/audit/"))
    newest = list(range(game.version, game.version - anchors.HEADS_PAGE, -1))
    assert f"Versions {newest[0]} to {newest[-1]} of {game.version}, newest first" in first
    assert first.count("<tr><td>") - first.count('class="mailed"') >= anchors.HEADS_PAGE
    assert f"<code>{newest[-1] - 1}:" not in first  # the next page's first head
    older = re.search(r'href="\?heads_before=(\d+)#heads" id="heads-older"', first)
    assert older and int(older.group(1)) == newest[-1]
    second = text_of(client.get(f"/games/{game.pk}/audit/?heads_before={older.group(1)}"))
    hashes = dict(Event.objects.filter(game=game).values_list("seq", "hash"))
    assert f"<code>{newest[-1] - 1}:{hashes[newest[-1] - 1]}</code>" in second
    assert f"<code>1:{hashes[1]}</code>" in second and 'id="heads-older"' not in second
    assert 'id="heads-newer"' in second


def test_a_crafted_heads_page_number_shows_the_newest_page(client, duel):
    game, _seats, _tokens = duel
    for junk in ("x", "-5", "99999999", "1e9"):
        page = text_of(client.get(f"/games/{game.pk}/audit/?heads_before={junk}"))
        assert f"Versions {game.version} to 1 of {game.version}" in page
