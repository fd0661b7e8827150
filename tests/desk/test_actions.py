"""Each action on the desk, done through the admin's URL, leaves exactly the event it should
(with the acting user and the reason) and nothing else; the log itself cannot be edited."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.db import IntegrityError, transaction
from django.urls import reverse

from pbem.desk import scoresheets
from pbem.log import eventlog
from pbem.models import Event, Game, Notice
from pbem.play import addressing, selectors, services
from pbem.play import desk as lifecycle

from .conftest import events_after


@pytest.fixture
def desk(client, master):
    client.force_login(master)
    return client


def act(client, game, action, **data):
    """POSTs the action's form as the page would: with the game's version the form was shown at."""
    game.refresh_from_db()
    before = game.version
    data.setdefault("seen_version", before)
    response = client.post(reverse("admin:pbem_game_desk", args=[game.pk, action]), data)
    game.refresh_from_db()
    return response, events_after(game, before)


def assert_done(response, events, game, user, types, reason):
    assert response.status_code == 302, response.context["form"].errors if response.context else response
    assert response.url == reverse("admin:pbem_game_change", args=[game.pk])
    assert [e.type for e in events] == types
    assert all(e.actor_kind == "admin" and e.actor_user_id == user.pk for e in events)
    assert events[0].payload["reason"] == reason
    entry = LogEntry.objects.filter(object_id=str(game.pk)).latest("action_time")
    assert entry.user_id == user.pk and reason in entry.get_change_message()


def test_start(desk, master, new_game):
    game = new_game(2, start=False, masters=[master])
    assert game.status == "open"
    response, events = act(desk, game, "start", reason="both players confirmed")
    assert_done(
        response,
        events,
        game,
        master,
        ["pbem.GameStarted", "GameStarted", "HandDealt", "HandDealt"],
        "both players confirmed",
    )
    assert game.status == "running" and game.awaited == [0, 1]


def test_resend_an_invitation_to_a_player_who_has_not_accepted(desk, master, new_game):
    game = new_game(2, start=False, invited=True, masters=[master])
    Notice.objects.filter(game=game, kind="invitation").update(status="bounced")  # the first one was lost
    response, events = act(desk, game, "resend", seat=1, reason="Bob found nothing in his inbox")
    assert_done(response, events, game, master, ["pbem.InvitationResent"], "Bob found nothing in his inbox")
    again = Notice.objects.filter(game=game, kind="invitation", status="pending").get()
    assert again.seat.number == 1 and again.to_email == game.seats.get(number=1).email
    game.seats.filter(number=1).update(invite_accepted=True)
    response, events = act(desk, game, "resend", seat=1, reason="once more")
    assert events == [] and response.status_code == 200


def test_pause_then_resume(desk, master, game):
    response, events = act(desk, game, "pause", reason="Carol is in hospital")
    assert_done(response, events, game, master, ["pbem.Paused"], "Carol is in hospital")
    assert game.status == "paused" and game.awaited == []
    with pytest.raises(services.ServiceError) as refused:
        services.submit(game.pk, 0, "play 1")
    assert refused.value.code == "paused"
    response, events = act(desk, game, "resume", reason="Carol is back")
    assert_done(response, events, game, master, ["pbem.Resumed"], "Carol is back")
    assert game.status == "running" and game.awaited == [0, 1, 2]


def test_abandon_needs_confirmation_then_reveals_the_seed(desk, master, game):
    response, events = act(desk, game, "abandon", reason="nobody answers")
    assert response.status_code == 200 and events == []
    response, events = act(desk, game, "abandon", reason="nobody answers", confirm="on")
    assert_done(response, events, game, master, ["pbem.Abandoned", "pbem.SeedRevealed"], "nobody answers")
    assert events[1].payload["seed"] == game.seed and game.status == "abandoned"


def test_extend_deadline(desk, master, game):
    until = (datetime.now(UTC) + timedelta(days=9)).replace(second=0, microsecond=0)
    response, events = act(
        desk, game, "extend", seat=1, until=until.strftime("%Y-%m-%d %H:%M"), reason="Bob is travelling"
    )
    assert_done(response, events, game, master, ["pbem.DeadlineExtended"], "Bob is travelling")
    assert events[0].payload["seat"] == 1
    assert datetime.fromisoformat(game.deadlines["1"]) == until
    assert datetime.fromisoformat(events[0].payload["until"]) == until


def test_extend_refuses_a_past_date(desk, game):
    response, events = act(desk, game, "extend", seat=1, until="2001-01-01 10:00", reason="oops")
    assert response.status_code == 200 and events == []
    assert "future" in response.text


def test_remind_now(desk, master, game):
    services.submit(game.pk, 0, "play " + str(eventlog.load(game).state["game"]["hands"][0][0]))
    notices_before = set(Notice.objects.values_list("pk", flat=True))
    response, events = act(desk, game, "remind", reason="two days left")
    assert_done(response, events, game, master, ["pbem.ReminderSent"], "two days left")
    assert events[0].payload["seats"] == [1, 2]
    new = Notice.objects.exclude(pk__in=notices_before).filter(kind="reminder")
    assert sorted((n.kind, n.seat.number, n.to_email) for n in new) == [
        ("reminder", 1, "bob@example.org"),
        ("reminder", 2, "carol@example.org"),
    ]


def test_replace_player_revokes_the_old_token_at_once(desk, master, game):
    seat = game.seats.get(number=1)
    old_token = addressing.token_for(seat)
    response, events = act(
        desk, game, "replace", seat=1, name="Dora", email="dora@example.org", reason="Bob left the club"
    )
    assert_done(response, events, game, master, ["pbem.PlayerReplaced"], "Bob left the club")
    assert events[0].payload == {"seat": 1, "name": "Dora", "replaced": "Bob", "reason": "Bob left the club"}
    with pytest.raises(addressing.TokenProblem) as problem:
        addressing.resolve(old_token)
    assert problem.value.code == "revoked"
    seat.refresh_from_db()
    assert (seat.name, seat.email) == ("Dora", "dora@example.org")
    assert addressing.resolve(addressing.token_for(seat)).pk == seat.pk


def test_correct_score_shows_on_the_sheet_and_in_every_history(desk, master, game):
    response, events = act(desk, game, "correct", seat=2, points=-3, reason="counted a gray seal twice")
    assert_done(response, events, game, master, ["pbem.ScoreCorrected"], "counted a gray seal twice")
    assert events[0].payload == {"seat": 2, "points": -3, "reason": "counted a gray seal twice"}
    assert game.scores == [0, 0, -3]
    sheet = scoresheets.build(game)
    assert [(r.kind, r.points, r.reason, r.seq) for r in sheet.rows] == [
        ("correction", [None, None, -3], "counted a gray seal twice", events[0].seq)
    ]
    for seat in (0, 1, 2, None):
        assert any(
            "counted a gray seal twice" in line and "-3" in line for line in selectors.history_lines(game.pk, seat)
        ), seat
    page = desk.get(reverse("admin:pbem_game_sheet", args=[game.pk]))
    assert "counted a gray seal twice" in page.text


def test_correct_refuses_zero_points(desk, game):
    response, events = act(desk, game, "correct", seat=0, points=0, reason="nothing")
    assert response.status_code == 200 and events == []


def test_rewind_takes_back_a_mistaken_ruling(desk, master, game):
    hands = eventlog.load(game).state["game"]["hands"]
    game.refresh_from_db()
    keep = game.version
    services.submit(game.pk, 0, f"play {hands[0][0]}")
    services.submit(game.pk, 1, f"play {hands[1][0]}")
    played = [e.seq for e in events_after(game, keep)]
    response, events = act(desk, game, "rewind", to_seq=keep, reason="Bob's card was misread")
    assert_done(response, events, game, master, ["pbem.Undone"], "Bob's card was misread")
    assert events[0].payload["events"] == played
    state = eventlog.load(game).state["game"]
    assert state["played"] == [None, None, None] and state["hands"] == hands
    assert game.awaited == [0, 1, 2]
    # Nothing was deleted: the taken-back events are still in the log, marked as such.
    assert Event.objects.filter(game=game, seq__in=played).count() == 2
    assert all(item.undone for item in selectors.feed(game, None) if item.seq in played)


def test_a_second_click_or_a_stale_form_records_nothing(desk, master, game):
    game.refresh_from_db()
    shown_at = game.version
    response, events = act(desk, game, "correct", seat=1, points=2, reason="late bonus", seen_version=shown_at)
    assert [e.type for e in events] == ["pbem.ScoreCorrected"]
    response, events = act(desk, game, "correct", seat=1, points=2, reason="late bonus", seen_version=shown_at)
    assert response.status_code == 200 and events == []
    assert "moved on since this form was opened" in response.text
    assert game.scores == [0, 2, 0]
    page = desk.get(reverse("admin:pbem_game_desk", args=[game.pk, "correct"]))
    assert f'name="seen_version" value="{game.version}"' in page.text


def test_rewind_offers_no_point_before_the_end_of_the_deal(desk, game):
    game.refresh_from_db()
    dealt = game.version  # GameCreated, GameStarted, the game's setup events
    card = eventlog.load(game).state["game"]["hands"][0][0]
    services.submit(game.pk, 0, f"play {card}")
    page = desk.get(reverse("admin:pbem_game_desk", args=[game.pk, "rewind"]))
    assert [seq for seq, _label in page.context["form"].fields["to_seq"].choices] == [dealt + 1, dealt]
    response, events = act(desk, game, "rewind", to_seq=1, reason="back to the start")
    assert response.status_code == 200 and events == []


def test_verify_leaves_no_event_and_shows_the_result(desk, game):
    before = game.version
    page = desk.get(reverse("admin:pbem_game_verify", args=[game.pk]))
    assert page.status_code == 200 and page.context["report"].ok
    assert "verified" in page.text
    # A broken chain head is reported, not hidden.
    Game.objects.filter(pk=game.pk).update(head_hash="f" * 64)
    page = desk.get(reverse("admin:pbem_game_verify", args=[game.pk]))
    assert not page.context["report"].ok and "FAILED" in page.text
    assert events_after(game, before) == []


def test_verify_shows_the_rederived_draws_once_the_seed_is_revealed(desk, game):
    lifecycle.abandon_game(game.pk, services.Actor("system"), "to reveal the seed")
    page = desk.get(reverse("admin:pbem_game_verify", args=[game.pk]))
    assert page.context["report"].seed_revealed and page.context["draws"]
    assert all(row["rederived"] for row in page.context["draws"])


def test_rebuild_read_model_restores_it_from_the_log_without_an_event(desk, master, game):
    game.refresh_from_db()
    good = (game.status, game.round, game.phase, game.awaited, game.scores)
    Game.objects.filter(pk=game.pk).update(status="finished", round=99, awaited=[], scores=[7, 7, 7])
    response, events = act(desk, game, "rebuild", reason="read model looked wrong")
    assert response.status_code == 302 and events == []
    assert (game.status, game.round, game.phase, game.awaited, game.scores) == good
    entry = LogEntry.objects.filter(object_id=str(game.pk)).latest("action_time")
    assert "read model looked wrong" in entry.get_change_message()


@pytest.mark.parametrize("action", ["start", "pause", "resume", "abandon", "remind", "rebuild", "correct"])
def test_every_action_needs_a_reason(desk, game, action):
    response, events = act(desk, game, action, reason="   ", seat=0, points=2, confirm="on")
    assert response.status_code == 200 and events == []
    assert response.context["form"].errors["reason"]


def test_a_refusal_by_the_service_is_shown_and_changes_nothing(desk, game):
    response, events = act(desk, game, "resume", reason="it is not paused")
    assert response.status_code == 200 and events == []
    assert "not paused" in response.text


def test_the_desk_offers_the_actions_that_fit_the_game(desk, game):
    page = desk.get(reverse("admin:pbem_game_change", args=[game.pk]))
    offered = [a.name for a in page.context["desk_actions"]]
    assert offered == ["pause", "extend", "remind", "replace", "standin", "correct", "rewind", "abandon", "rebuild"]
    for name in offered:
        assert reverse("admin:pbem_game_desk", args=[game.pk, name]) in page.text
        assert desk.get(reverse("admin:pbem_game_desk", args=[game.pk, name])).status_code == 200
    assert desk.get(reverse("admin:pbem_game_desk", args=[game.pk, "explode"])).status_code == 404


# --- the log is read-only --------------------------------------------------------------------------


def bulk_actions(changelist) -> list[str]:
    form = changelist.context["action_form"]
    return [name for name, _label in form.fields["action"].choices] if form else []


def test_no_one_can_add_change_or_delete_an_event_through_the_admin(client, root, game):
    client.force_login(root)
    event = Event.objects.filter(game=game).order_by("seq").first()
    change = reverse("admin:pbem_event_change", args=[event.pk])
    page = client.get(change)
    assert page.status_code == 200
    assert not page.context["has_change_permission"] and 'name="_save"' not in page.text
    assert client.post(change, {"type": "pbem.Forged", "payload": "{}"}).status_code == 403
    assert client.get(reverse("admin:pbem_event_add")).status_code == 403
    assert client.get(reverse("admin:pbem_event_delete", args=[event.pk])).status_code == 403
    assert client.post(reverse("admin:pbem_event_delete", args=[event.pk]), {"post": "yes"}).status_code == 403
    changelist = client.get(reverse("admin:pbem_event_changelist"))
    assert "delete_selected" not in bulk_actions(changelist)
    response = client.post(
        reverse("admin:pbem_event_changelist"),
        {"action": "delete_selected", "_selected_action": [event.pk], "post": "yes"},
    )
    assert Event.objects.filter(pk=event.pk).exists()
    event.refresh_from_db()
    assert event.type == "pbem.GameCreated"
    assert response.status_code in (200, 302)


@pytest.mark.parametrize("model", ["notice", "inboundmessage", "game"])
def test_notices_inbound_and_games_have_no_add_or_delete(client, root, game, model):
    client.force_login(root)
    assert client.get(reverse(f"admin:pbem_{model}_add")).status_code == 403
    changelist = client.get(reverse(f"admin:pbem_{model}_changelist"))
    assert "delete_selected" not in bulk_actions(changelist)
    if model == "game":
        assert client.get(reverse("admin:pbem_game_delete", args=[game.pk])).status_code == 403


def test_the_database_refuses_to_change_or_delete_an_event(game):
    event = Event.objects.filter(game=game).order_by("seq").first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.filter(pk=event.pk).update(type="pbem.Forged")
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.filter(pk=event.pk).delete()
    event.refresh_from_db()
    assert event.type == "pbem.GameCreated"
