"""Every API endpoint and every error code it answers with."""

from __future__ import annotations

import pytest

from pbem.log import eventlog
from pbem.models import Game, Seat
from pbem.play import addressing, desk, services
from tests.conftest import hands

pytestmark = pytest.mark.django_db


def error(response, status, code):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and isinstance(body["message"], str) and body["message"]
    return body


def play_out(game):
    while True:
        game.refresh_from_db()
        if not game.awaited:
            return
        seat = game.awaited[0]
        state = eventlog.load(game).state["game"]
        command = {"type": "roll"} if state["phase"] == "claim" else {"type": "play", "card": min(state["hands"][seat])}
        services.submit(game.pk, seat, command=command)


# --- documentation -----------------------------------------------------------------------------


def test_openapi_and_docs_are_served(client):
    schema = client.get("/api/openapi.json").json()
    assert {
        "/api/games",
        "/api/games/{game_id}/commands",
        "/api/games/{game_id}/events",
        "/api/games/{game_id}/state",
        "/api/games/{game_id}/audit",
        "/api/games/{game_id}/seat",
        "/api/games/{game_id}/seat/legal",
        "/api/kinds",
        "/api/games/{game_id}",
        "/api/games/{game_id}/seat/accept",
    } <= set(schema["paths"])
    responses = schema["paths"]["/api/games/{game_id}/commands"]["post"]["responses"]
    assert {"200", "400", "403", "404", "409", "422", "429"} <= set(responses)
    assert client.get("/api/docs").status_code == 200


# --- games -------------------------------------------------------------------------------------


def test_kinds_lists_every_registered_game_with_its_options(api):
    kinds = {k["name"]: k for k in api.get("/kinds").json()}
    assert kinds["diceduel"]["options"] == [
        {
            "name": "rounds",
            "label": "Rounds to play",
            "default": 3,
            "help": "",
            "choices": None,
            "minimum": 1,
            "maximum": 3,
        }
    ]
    from pbem.registry import all_games

    assert set(kinds) == set(all_games())


def test_list_games_filters_by_status(api, make_game):
    running = make_game(2)
    waiting = make_game(2, start=False, invited=True)
    assert {g["id"] for g in api.get("/games").json()} >= {running.pk, waiting.pk}
    assert [g["id"] for g in api.get("/games", status="open").json()] == [waiting.pk]
    assert [g["id"] for g in api.get("/games", status="running").json()] == [running.pk]
    error(api.get("/games", status="sleeping"), 422, "invalid")
    error(api.get("/games", limit=0), 422, "invalid")


def test_create_game_invites_the_creator_first_and_shows_no_token(
    api, db, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/games",
            {
                "kind": "diceduel",
                "players": [{"name": "Ann", "email": "ann@example.org"}, {"name": "Ben", "email": "ben@example.org"}],
                "options": {"rounds": "2"},
                "deadline_hours": 12,
                "notices": "none",
            },
        )
    assert response.status_code == 201, response.content
    body = response.json()
    game = Game.objects.get(pk=body["id"])
    assert body["status"] == "open" and body["seed"] is None and game.options == {"rounds": 2}
    assert [s["accepted"] for s in body["seats"]] == [False, False]
    assert list(game.seats.values_list("notice_preference", flat=True)) == ["none", "none"]
    assert [m.to[0] for m in mailoutbox] == ["ann@example.org"]  # the others once Ann has accepted
    for seat in game.seats.all():
        assert addressing.token_for(seat) not in response.content.decode()


@pytest.mark.parametrize(
    "body, status, code",
    [
        (
            {"kind": "chess", "players": [{"name": "A", "email": "a@x.org"}, {"name": "B", "email": "b@x.org"}]},
            422,
            "unknown_game",
        ),
        (
            {"kind": "diceduel", "players": [{"name": "A", "email": "a@x.org"}, {"name": "B", "email": "nope"}]},
            422,
            "bad_email",
        ),
        ({"kind": "diceduel", "players": [{"name": "A", "email": "a@x.org"}]}, 422, "bad_options"),
        (
            {
                "kind": "diceduel",
                "players": [{"name": "A", "email": "a@x.org"}, {"name": "B", "email": "b@x.org"}],
                "options": {"rounds": 7},
            },
            422,
            "bad_options",
        ),
        (
            {
                "kind": "diceduel",
                "players": [{"name": "A", "email": "a@x.org"}, {"name": "B", "email": "b@x.org"}],
                "options": {"speed": 1},
            },
            422,
            "bad_options",
        ),
        ({"kind": "diceduel"}, 422, "invalid"),
    ],
)
def test_create_game_errors(api, db, mailoutbox, body, status, code):
    error(api.post("/games", body), status, code)
    assert Game.objects.count() == 0 and mailoutbox == []


def test_create_game_malformed_json_is_a_json_error(client, db):
    response = client.post("/api/games", "{not json", content_type="application/json")
    assert response.status_code in (400, 422) and response.json()["code"] in ("bad_request", "invalid")


def test_create_game_is_rate_limited(api, db, settings):
    settings.PBEM_RATE_CREATE = (1, 3600)
    body = {"kind": "diceduel", "players": [{"name": "A", "email": "a@x.org"}, {"name": "B", "email": "b@x.org"}]}
    assert api.post("/games", body).status_code == 201
    limited = error(api.post("/games", body), 429, "rate_limited")
    assert limited and Game.objects.count() == 1


def test_accepting_by_api_starts_the_game_when_the_table_is_full(api, make_game):
    game = make_game(2, start=False, invited=True)
    alice, bob = [addressing.token_for(s) for s in game.seats.order_by("number")]
    first = api.post(f"/games/{game.pk}/seat/accept", {}, alice).json()
    assert first == {"seat": 0, "accepted": True, "started": False, "status": "open"}
    assert api.post(f"/games/{game.pk}/seat/accept", {}, alice).json()["started"] is False  # twice: no change
    second = api.post(f"/games/{game.pk}/seat/accept", {}, bob).json()
    assert second == {"seat": 1, "accepted": True, "started": True, "status": "running"}
    error(api.post(f"/games/{game.pk}/seat/accept", {}, "1-1-aaaaaaaaaaaaaaaa"), 403, "bad_token_forged")
    error(api.post(f"/games/{game.pk}/seat/accept", {}), 403, "no_token")


def test_an_abandoned_invitation_cannot_be_accepted(api, make_game):
    game = make_game(2, start=False, invited=True)
    desk.abandon_game(game.pk, services.SYSTEM, "nobody came")
    token = addressing.token_for(game.seats.first())
    error(api.post(f"/games/{game.pk}/seat/accept", {}, token), 409, "not_open")


def test_public_state_shows_the_spectator_view(api, duel):
    game, seats, tokens = duel
    body = api.get(f"/games/{game.pk}").json()
    assert body["status"] == "running" and body["awaited"] == [0, 1] and body["version"] == game.version
    assert body["view"]["hand"] is None and body["view"]["hand_sizes"] == [3, 3]
    assert body["seed"] is None and body["seed_commitment"] == game.seed_commitment
    assert 'class="toy"' in body["board_html"] and "Your hand" not in body["board_text"]
    error(api.get("/games/987654"), 404, "not_found")
    error(api.get("/games/0"), 404, "not_found")


# --- a seat's view -----------------------------------------------------------------------------


def test_seat_view_needs_the_token_and_shows_the_own_hand(api, duel):
    game, seats, tokens = duel
    body = api.get(f"/games/{game.pk}/seat", tokens[0]).json()
    assert body["seat"] == 0 and body["name"] == "Alice" and body["my_turn"] is True and body["deadline"]
    assert body["view"]["hand"] == hands(game)[0]
    assert {item["text"] for item in body["legal"]} == {f"play {c}" for c in hands(game)[0]}
    assert body["legal"][0]["command"]["type"] == "play"
    error(api.get(f"/games/{game.pk}/seat"), 403, "no_token")


@pytest.mark.parametrize(
    "mangle, code",
    [
        (lambda t: "garbage", "bad_token_malformed"),
        (lambda t: t[:-1] + ("a" if t[-1] != "a" else "b"), "bad_token_forged"),
    ],
)
def test_bad_tokens_are_refused_on_every_seat_endpoint(api, duel, mangle, code):
    game, seats, tokens = duel
    bad = mangle(tokens[0])
    error(api.get(f"/games/{game.pk}/seat", bad), 403, code)
    error(api.get(f"/games/{game.pk}/seat/legal", bad), 403, code)
    error(api.get(f"/games/{game.pk}/events", bad), 403, code)
    error(api.get(f"/games/{game.pk}/state", bad), 403, code)
    error(api.post(f"/games/{game.pk}/commands", {"text": "play 1"}, bad), 403, code)


def test_a_token_never_works_on_another_game(api, duel, make_game):
    game, seats, tokens = duel
    other = make_game(2)
    error(api.get(f"/games/{other.pk}/seat", tokens[0]), 403, "other_game")
    error(api.post(f"/games/{other.pk}/commands", {"text": "say hi"}, tokens[0]), 403, "other_game")
    assert Game.objects.get(pk=other.pk).version == other.version


def test_a_replaced_players_token_is_revoked(api, duel):
    game, seats, tokens = duel
    desk.replace_player(game.pk, 1, "Dora", "dora@example.org", services.SYSTEM, "Bob left")
    error(api.get(f"/games/{game.pk}/seat", tokens[1]), 403, "bad_token_revoked")
    new = addressing.token_for(Seat.objects.get(pk=seats[1].pk))
    assert api.get(f"/games/{game.pk}/seat", new).json()["name"] == "Dora"


def test_token_guessing_is_rate_limited(api, duel, settings):
    game, seats, tokens = duel
    settings.PBEM_RATE_TOKEN_FAILURES = (2, 600)
    error(api.get(f"/games/{game.pk}/seat", "1-1-aaaaaaaaaaaaaaaa"), 403, "bad_token_forged")
    error(api.get(f"/games/{game.pk}/seat", "1-1-aaaaaaaaaaaaaaab"), 403, "bad_token_forged")
    limited = api.get(f"/games/{game.pk}/seat", "1-1-aaaaaaaaaaaaaaac")
    error(limited, 429, "rate_limited")
    assert int(limited["Retry-After"]) > 0
    assert api.get(f"/games/{game.pk}/seat", tokens[0]).status_code == 200  # a right token never is


def test_legal_says_what_the_seat_may_do_now(api, duel):
    game, seats, tokens = duel
    body = api.get(f"/games/{game.pk}/seat/legal", tokens[1]).json()
    assert body["may_act"] is True and len(body["legal"]) == 3
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")
    after = api.get(f"/games/{game.pk}/seat/legal", tokens[1]).json()
    assert after == {"version": game.version + 1, "may_act": False, "legal": []}


# --- submitting --------------------------------------------------------------------------------


def test_submit_text_and_structured_commands(api, duel):
    game, seats, tokens = duel
    alice_card, bob_card = hands(game)[0][0], hands(game)[1][0]
    first = api.post(
        f"/games/{game.pk}/commands", {"text": f"play {alice_card}", "expected_version": game.version}, tokens[0]
    )
    assert first.status_code == 200, first.content
    assert first.json() == {
        "version": game.version + 1,
        "applied": [f"play {alice_card}"],
        "answers": [],
        "duplicate": False,
        "events": 1,
    }
    second = api.post(f"/games/{game.pk}/commands", {"command": {"type": "play", "card": bob_card}}, tokens[1])
    assert second.status_code == 200 and second.json()["events"] == 2  # Bob's card and the reveal


def test_help_answers_without_changing_the_game(api, duel):
    game, seats, tokens = duel
    body = api.post(f"/games/{game.pk}/commands", {"text": "help"}, tokens[0]).json()
    assert body["events"] == 0 and "play N" in body["answers"][0]
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_stale_version_is_a_409(api, duel):
    game, seats, tokens = duel
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")
    body = error(
        api.post(
            f"/games/{game.pk}/commands",
            {"text": f"play {hands(game)[0][0]}", "expected_version": game.version},
            tokens[0],
        ),
        409,
        "stale",
    )
    assert "moved on" in body["message"]
    error(api.post(f"/games/{game.pk}/commands", {"text": "help", "expected_version": 10**6}, tokens[0]), 409, "stale")


def test_not_your_turn_is_a_409(api, duel):
    game, seats, tokens = duel
    services.submit(game.pk, 1, f"play {hands(game)[1][0]}")
    body = error(
        api.post(f"/games/{game.pk}/commands", {"text": f"play {hands(game)[1][1]}"}, tokens[1]), 409, "not_your_turn"
    )
    assert "Alice" in body["message"]


def test_an_illegal_move_is_a_422_with_the_reason_and_the_legal_moves(api, duel):
    game, seats, tokens = duel
    not_mine = hands(game)[1][0]
    body = error(api.post(f"/games/{game.pk}/commands", {"text": f"play {not_mine}"}, tokens[0]), 422, "illegal")
    assert f"You have no card {not_mine}" in body["message"]
    assert body["detail"]["line"] == f"play {not_mine}" and body["detail"]["line_number"] == 1
    assert sorted(body["detail"]["legal"]) == sorted(f"play {c}" for c in hands(game)[0])
    unknown = error(api.post(f"/games/{game.pk}/commands", {"text": "dance"}, tokens[0]), 422, "illegal")
    assert "dance" in unknown["detail"]["line"]
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_structured_command_must_be_legal(api, duel):
    game, seats, tokens = duel
    body = error(
        api.post(f"/games/{game.pk}/commands", {"command": {"type": "play", "card": "seven"}}, tokens[0]),
        422,
        "illegal",
    )
    assert len(body["detail"]["legal"]) == 3
    error(api.post(f"/games/{game.pk}/commands", {"command": {"explode": True}}, tokens[0]), 422, "illegal")
    assert Game.objects.get(pk=game.pk).version == game.version


def test_several_lines_apply_all_or_none(api, duel):
    game, seats, tokens = duel
    body = error(api.post(f"/games/{game.pk}/commands", {"text": "say here goes\nplay 99"}, tokens[0]), 422, "illegal")
    assert body["detail"]["line_number"] == 2
    assert Game.objects.get(pk=game.pk).version == game.version


@pytest.mark.parametrize(
    "body, code",
    [({}, "empty"), ({"text": "  \n "}, "empty"), ({"text": "help", "command": {"type": "take"}}, "ambiguous")],
)
def test_empty_or_ambiguous_submissions_are_a_400(api, duel, body, code):
    game, seats, tokens = duel
    error(api.post(f"/games/{game.pk}/commands", body, tokens[0]), 400, code)


def test_the_same_idempotency_key_is_applied_once(api, duel):
    game, seats, tokens = duel
    card = hands(game)[0][0]
    first = api.post(f"/games/{game.pk}/commands", {"text": f"play {card}"}, tokens[0], key="k-1")
    again = api.post(f"/games/{game.pk}/commands", {"text": f"play {card}"}, tokens[0], key="k-1")
    assert first.json()["duplicate"] is False and again.status_code == 200 and again.json()["duplicate"] is True
    assert Game.objects.get(pk=game.pk).version == game.version + 1
    # The key is the seat's own: the same key from another seat is another request.
    other = api.post(f"/games/{game.pk}/commands", {"text": "say hi"}, tokens[1], key="k-1")
    assert other.json()["duplicate"] is False


def test_a_paused_or_finished_game_refuses_moves_with_409(api, duel):
    game, seats, tokens = duel
    desk.pause_game(game.pk, services.SYSTEM, "a break")
    error(api.post(f"/games/{game.pk}/commands", {"text": f"play {hands(game)[0][0]}"}, tokens[0]), 409, "paused")
    desk.resume_game(game.pk, services.SYSTEM, "back")
    play_out(game)
    error(api.post(f"/games/{game.pk}/commands", {"text": "play 1"}, tokens[0]), 409, "not_running")


def test_submissions_are_rate_limited_per_seat(api, duel, settings):
    game, seats, tokens = duel
    settings.PBEM_RATE_SUBMIT = (1, 60)
    assert api.post(f"/games/{game.pk}/commands", {"text": "help"}, tokens[0]).status_code == 200
    error(api.post(f"/games/{game.pk}/commands", {"text": "help"}, tokens[0]), 429, "rate_limited")
    assert api.post(f"/games/{game.pk}/commands", {"text": "help"}, tokens[1]).status_code == 200


def test_submit_to_a_missing_game_is_a_404(api, duel):
    game, seats, tokens = duel
    error(api.post("/games/55555/commands", {"text": "help"}, tokens[0]), 404, "not_found")


def test_invalid_body_is_a_422(api, duel):
    game, seats, tokens = duel
    error(api.post(f"/games/{game.pk}/commands", {"text": "help", "expected_version": -1}, tokens[0]), 422, "invalid")


# --- feed, state at N, audit -------------------------------------------------------------------


def test_the_feed_shows_each_caller_what_it_may_see(api, duel):
    game, seats, tokens = duel
    card = hands(game)[0][0]
    services.submit(game.pk, 0, f"play {card}")
    mine = api.get(f"/games/{game.pk}/events", tokens[0]).json()
    theirs = api.get(f"/games/{game.pk}/events", tokens[1]).json()
    public = api.get(f"/games/{game.pk}/events").json()
    assert mine["seat"] == 0 and theirs["seat"] == 1 and public["seat"] is None
    assert mine["items"][-1]["data"] == {"seat": 0, "card": card}
    assert theirs["items"][-1]["data"] == {"seat": 0} and public["items"][-1]["data"] == {"seat": 0}
    assert theirs["items"][-1]["text"] == "Alice played a card face down."
    dealt = [i for i in public["items"] if i["type"] == "HandDealt"]
    assert all(set(i["data"]) == {"seat", "count"} for i in dealt)
    # The deal's shuffle is recorded as draws on a public event: withheld until the end.
    assert all(i["rng"] is None for i in mine["items"] + public["items"])
    tail = api.get(f"/games/{game.pk}/events", after=game.version).json()
    assert [i["seq"] for i in tail["items"]] == [game.version + 1]
    error(api.get(f"/games/{game.pk}/events", after=-1), 422, "invalid")
    error(api.get("/games/4242/events"), 404, "not_found")


def test_the_feed_after_the_end_holds_everything(api, duel):
    game, seats, tokens = duel
    play_out(game)
    public = api.get(f"/games/{game.pk}/events").json()["items"]
    assert any(i["rng"] for i in public)
    assert [i["data"]["cards"] for i in public if i["type"] == "HandDealt"] == [
        sorted(h) for h in [i["data"]["cards"] for i in public if i["type"] == "HandDealt"]
    ]
    assert any(i["type"] == "pbem.SeedRevealed" and i["data"]["seed"] == game.seed for i in public)


def test_state_at_an_event(api, duel):
    game, seats, tokens = duel
    hand = hands(game)[0]
    dealt_at = game.version
    services.submit(game.pk, 0, f"play {hand[0]}")
    then = api.get(f"/games/{game.pk}/state", tokens[0], at=dealt_at).json()
    assert then["at"] == dealt_at and then["view"]["hand"] == hand and then["round"] == 1
    now = api.get(f"/games/{game.pk}/state", tokens[0]).json()
    assert now["at"] == game.version + 1 and now["view"]["hand"] == hand[1:]
    spectator = api.get(f"/games/{game.pk}/state", at=dealt_at).json()
    assert spectator["seat"] is None and spectator["view"]["hand"] is None
    assert api.get(f"/games/{game.pk}/state", at=0).json()["view"] is None
    error(api.get(f"/games/{game.pk}/state", at=game.version + 5), 404, "no_such_event")


def test_audit_report_before_and_after_the_end(api, duel):
    game, seats, tokens = duel
    before = api.get(f"/games/{game.pk}/audit").json()
    assert before["ok"] is True and before["chain_intact"] is True and before["events"] == game.version
    assert before["seed"] is None and before["draws"] is None and before["seed_revealed"] is False
    assert game.seed not in str(before)
    play_out(game)
    after = api.get(f"/games/{game.pk}/audit").json()
    assert after["ok"] is True and after["seed"] == game.seed and after["seed_revealed"] is True
    assert after["draws"] and all(d["rederived"] is True for d in after["draws"])
    assert after["draws_checked"] == sum(len(d["draws"]) for d in after["draws"])
    error(api.get("/games/31337/audit"), 404, "not_found")


def test_nul_characters_are_refused_before_they_reach_the_database(api, duel):
    """PostgreSQL stores no NUL in text or JSON: found by the schemathesis run (a 500 before)."""
    game, seats, tokens = duel
    error(api.post(f"/games/{game.pk}/commands", {"text": "say a\u0000b"}, tokens[0]), 422, "invalid")
    error(api.post(f"/games/{game.pk}/commands", {"text": "help"}, tokens[0], key="k\u0000"), 422, "invalid")
    players = [{"name": "A\u0000", "email": "a@x.org"}, {"name": "B", "email": "b@x.org"}]
    error(api.post("/games", {"kind": "diceduel", "players": players}), 422, "invalid")
    error(api.post("/games", {"kind": "diceduel", "title": "\u0000", "players": players[1:] * 2}), 422, "invalid")
    error(api.get("/games", kind="dice\u0000"), 422, "invalid")
    assert Game.objects.get(pk=game.pk).version == game.version


def test_an_unexpected_failure_is_still_a_json_error(api, duel, monkeypatch):
    game, seats, tokens = duel

    def broken(game):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("pbem.web.api.checks.verify", broken)
    body = error(api.get(f"/games/{game.pk}/audit"), 500, "internal")
    assert "disk on fire" not in body["message"]  # no internals shown


def test_an_unknown_api_path_answers_json_404(client):
    response = client.get("/api/no/such/thing")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
