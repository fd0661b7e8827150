"""Who may see and do what on the desk, tried through the admin's own URLs.

A Master of Seals sees and manages only the games that list them; a game that is not theirs is
invisible through every URL (list, page, search, filter, log, sheet, export, verify, actions).
Players and staff outside the group have no desk at all.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from pbem.desk.admin import GameAdmin
from pbem.desk.permissions import MASTER_GROUP
from pbem.models import Event, InboundMessage, Notice
from pbem.play import desk, services

from .conftest import events_after


def game_urls(game):
    pk = game.pk
    return {
        "change": reverse("admin:pbem_game_change", args=[pk]),
        "history": reverse("admin:pbem_game_history", args=[pk]),
        "sheet": reverse("admin:pbem_game_sheet", args=[pk]),
        "csv": reverse("admin:pbem_game_sheet_csv", args=[pk]),
        "verify": reverse("admin:pbem_game_verify", args=[pk]),
        **{
            f"desk-{a}": reverse("admin:pbem_game_desk", args=[pk, a])
            for a in (
                "start",
                "pause",
                "resume",
                "abandon",
                "extend",
                "remind",
                "replace",
                "correct",
                "rewind",
                "rebuild",
            )
        },
    }


def log_urls(game):
    event = Event.objects.filter(game=game).order_by("seq").first()
    notice = Notice.objects.create(
        game=game, seat=game.seats.first(), kind="turn", version=1, to_email="alice@example.org"
    )
    inbound = InboundMessage.objects.create(
        message_id=f"<m{game.pk}@example.org>",
        channel="web",
        raw=b"Subject: hi\n\nplay 3",
        game=game,
        seat=game.seats.first(),
        status="refused",
        outcome=f"secret outcome of game {game.pk}",
    )
    return {
        "event": reverse("admin:pbem_event_change", args=[event.pk]),
        "event-history": reverse("admin:pbem_event_history", args=[event.pk]),
        "notice": reverse("admin:pbem_notice_change", args=[notice.pk]),
        "inbound": reverse("admin:pbem_inboundmessage_change", args=[inbound.pk]),
    }


LISTS = [
    "admin:pbem_game_changelist",
    "admin:pbem_event_changelist",
    "admin:pbem_notice_changelist",
    "admin:pbem_inboundmessage_changelist",
]


def test_a_master_lists_only_their_games(client, master, game, foreign_game):
    client.force_login(master)
    response = client.get(reverse("admin:pbem_game_changelist"))
    assert response.status_code == 200
    assert [g.pk for g in response.context["cl"].result_list] == [game.pk]
    assert "Oswin&#x27;s table" not in response.text and "Oswin's table" not in response.text


def test_a_master_cannot_find_a_foreign_game_by_search_or_filter(client, master, game, foreign_game):
    client.force_login(master)
    changelist = reverse("admin:pbem_game_changelist")
    for query in (
        {"q": "Oswin"},
        {"q": str(foreign_game.pk)},
        {"q": "bob@example.org"},
        {"kind": "diceduel"},
        {"status": "running"},
    ):
        response = client.get(changelist, query)
        assert response.status_code == 200, query
        assert foreign_game.pk not in [g.pk for g in response.context["cl"].result_list], query
    # The game filter on the log offers only their own games.
    response = client.get(reverse("admin:pbem_event_changelist"))
    choices = [
        c
        for spec in response.context["cl"].filter_specs
        if getattr(spec, "parameter_name", "") == "game"
        for c in spec.lookup_choices
    ]
    assert [int(pk) for pk, _label in choices] == [game.pk]


def test_a_master_cannot_open_export_or_act_on_a_foreign_game(client, master, game, foreign_game):
    client.force_login(master)
    before = foreign_game.version
    for name, url in game_urls(foreign_game).items():
        response = client.get(url)
        # The admin's own pages redirect to the index ("does not exist"); the desk's pages 404.
        assert response.status_code in (302, 404), (name, response.status_code)
        if response.status_code == 302:
            assert response.url == reverse("admin:index"), name
        # A form that would pass if the game were theirs: only the boundary may stop it.
        post = client.post(
            url,
            {
                "reason": "trying",
                "seat": 0,
                "points": 5,
                "name": "Eve",
                "email": "eve@x.org",
                "confirm": "on",
                "to_seq": 1,
                "until": "2099-01-01 10:00",
                "seen_version": before,
            },
        )
        assert post.status_code in (302, 403, 404), (name, post.status_code)
        if post.status_code == 302:
            assert post.url == reverse("admin:index"), name
    assert events_after(foreign_game, before) == []
    # ... while the same pages of their own game open.
    for name, url in game_urls(game).items():
        if name.startswith("desk-"):
            continue
        assert client.get(url).status_code == 200, name


def test_a_master_cannot_see_the_log_of_a_foreign_game(client, master, game, foreign_game):
    mine, theirs = log_urls(game), log_urls(foreign_game)
    client.force_login(master)
    for name, url in theirs.items():
        response = client.get(url)
        assert response.status_code == 302 and response.url == reverse("admin:index"), name
    for name, url in mine.items():
        assert client.get(url).status_code == 200, name
    for list_name in LISTS[1:]:
        response = client.get(reverse(list_name))
        assert response.status_code == 200
        games = {row.game_id for row in response.context["cl"].result_list}
        assert games == {game.pk}, list_name
        # Asking for the other game's rows by filter gives nothing, not an error page with data.
        response = client.get(reverse(list_name), {"game": foreign_game.pk})
        assert list(response.context["cl"].result_list) == [], list_name
    assert f"secret outcome of game {foreign_game.pk}" not in client.get(reverse(LISTS[3])).text


def test_inbound_mail_and_notices_without_a_game_are_for_superusers_only(client, master, root, game):
    stray = InboundMessage.objects.create(
        message_id="<stray@example.org>", channel="smtp", raw=b"hello", status="refused", outcome="no token"
    )
    url = reverse("admin:pbem_inboundmessage_change", args=[stray.pk])
    client.force_login(master)
    assert client.get(url).status_code == 302
    assert stray.pk not in [m.pk for m in client.get(reverse(LISTS[3])).context["cl"].result_list]
    client.force_login(root)
    assert client.get(url).status_code == 200


def test_a_master_cannot_use_the_bulk_verify_on_a_foreign_game(client, master, game, foreign_game):
    client.force_login(master)
    response = client.post(
        reverse("admin:pbem_game_changelist"),
        {"action": "verify_selected", "_selected_action": [foreign_game.pk, game.pk]},
    )
    assert response.status_code == 200
    assert [r.game_id for r in response.context["reports"]] == [game.pk]


def test_superuser_sees_and_manages_every_game(client, root, game, foreign_game):
    client.force_login(root)
    response = client.get(reverse("admin:pbem_game_changelist"))
    assert {g.pk for g in response.context["cl"].result_list} == {game.pk, foreign_game.pk}
    for url in (
        reverse("admin:pbem_game_sheet", args=[foreign_game.pk]),
        reverse("admin:pbem_game_verify", args=[foreign_game.pk]),
    ):
        assert client.get(url).status_code == 200
    before = foreign_game.version
    response = client.post(
        reverse("admin:pbem_game_desk", args=[foreign_game.pk, "pause"]), {"reason": "holiday", "seen_version": before}
    )
    assert response.status_code == 302
    assert [e.type for e in events_after(foreign_game, before)] == ["pbem.Paused"]


@pytest.mark.parametrize("who", ["anonymous", "player_user", "staff_only"])
def test_players_and_outsiders_have_no_desk(client, request, who, game):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    before = game.version
    urls = [reverse(name) for name in LISTS] + list(game_urls(game).values()) + list(log_urls(game).values())
    for url in urls:
        response = client.get(url)
        if who == "staff_only":
            # Logged in to the admin, but the desk is not theirs: nothing to see.
            assert response.status_code in (403, 404) or (
                response.status_code == 302 and response.url == reverse("admin:index")
            ), url
        else:
            assert response.status_code == 302 and reverse("admin:login") in response.url, url
        assert client.post(url, {"reason": "x", "seen_version": before}).status_code in (302, 403, 404)
    assert events_after(game, before) == []
    if who == "staff_only":
        index = client.get(reverse("admin:index"))
        assert "pbem" not in [app["app_label"] for app in index.context["app_list"]]


def test_a_master_may_not_reassign_masters(client, master, other_master, game):
    client.force_login(master)
    url = reverse("admin:pbem_game_change", args=[game.pk])
    assert client.post(url, {"masters": [other_master.pk]}).status_code == 403
    assert list(game.masters.all()) == [master]


def test_superuser_assigns_masters_without_touching_the_log(client, root, master, other_master, game, monkeypatch):
    client.force_login(root)
    url = reverse("admin:pbem_game_change", args=[game.pk])
    assert client.get(url).status_code == 200
    # Another process appends while the admin holds its copy of the game row: saving the form
    # must not write that stale copy back (version, chain head, status would roll back).
    original = GameAdmin.get_object

    def get_object_then_someone_appends(self, request, object_id, from_field=None):
        obj = original(self, request, object_id, from_field)
        if request.method == "POST":
            desk.pause_game(game.pk, services.Actor("system"), "a stale form must not undo this")
        return obj

    monkeypatch.setattr(GameAdmin, "get_object", get_object_then_someone_appends)
    data = {
        "masters": [master.pk, other_master.pk],
        "seats-TOTAL_FORMS": "3",
        "seats-INITIAL_FORMS": "3",
        "seats-MIN_NUM_FORMS": "0",
        "seats-MAX_NUM_FORMS": "1000",
    }
    for i, seat in enumerate(game.seats.order_by("number")):
        data[f"seats-{i}-id"] = seat.pk
        data[f"seats-{i}-game"] = game.pk
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else ""
    game.refresh_from_db()
    assert set(game.masters.all()) == {master, other_master}
    assert game.status == "paused"
    assert Event.objects.filter(game=game).order_by("-seq").first().type == "pbem.Paused"
    assert game.version == Event.objects.filter(game=game).count()
    assert game.head_hash == Event.objects.filter(game=game).order_by("-seq").first().hash
    # The other master now sees it too.
    client.force_login(other_master)
    assert client.get(url).status_code == 200


def test_masters_choices_offer_only_members_of_the_group(client, root, master, staff_only, game):
    client.force_login(root)
    form = client.get(reverse("admin:pbem_game_change", args=[game.pk])).context["adminform"].form
    assert list(form.fields["masters"].queryset) == [master]


def test_an_empty_masters_picker_says_how_someone_becomes_a_master_of_seals(client, root, new_game, staff_only):
    """A superuser with nobody in the group saw an empty picker and no word why."""
    game = new_game(2)
    client.force_login(root)
    page = client.get(reverse("admin:pbem_game_change", args=[game.pk])).content.decode()
    assert "Nobody can be chosen yet." in page
    assert "in the group “Master of Seals”" in page and "Staff status" in page


def test_the_timers_schedule_is_shown_read_only_to_superusers_with_what_it_is(client, root, master):
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    every = IntervalSchedule.objects.create(every=60, period="seconds")
    task = PeriodicTask.objects.create(name="pbem-deadlines", task="pbem.tasks.run_deadlines", interval=every)
    client.force_login(root)
    listing = client.get(reverse("admin:django_celery_beat_periodictask_changelist"))
    assert listing.status_code == 200
    assert "Beat writes them here from the settings" in listing.content.decode()
    assert not listing.context["cl"].model_admin.get_actions(listing.wsgi_request)  # no run, no disable
    change = reverse("admin:django_celery_beat_periodictask_change", args=[task.pk])
    shown = client.get(change)
    assert shown.status_code == 200 and "Beat writes them here" in shown.content.decode()
    assert client.post(change, {"name": "x", "task": "x", "enabled": ""}).status_code == 403
    assert (
        client.post(
            reverse("admin:django_celery_beat_periodictask_delete", args=[task.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert client.get(reverse("admin:django_celery_beat_intervalschedule_add")).status_code == 403
    assert (
        PeriodicTask.objects.get(pk=task.pk).enabled and PeriodicTask.objects.get(pk=task.pk).name == "pbem-deadlines"
    )
    client.force_login(master)  # a Master of Seals has no business with the service's timers
    assert client.get(reverse("admin:django_celery_beat_periodictask_changelist")).status_code == 403
    assert "Periodic tasks" not in client.get(reverse("admin:index")).content.decode()


def test_the_autocomplete_endpoint_offers_no_foreign_game(client, master, game, foreign_game):
    client.force_login(master)
    response = client.get(
        reverse("admin:autocomplete"), {"app_label": "pbem", "model_name": "event", "field_name": "game", "term": ""}
    )
    assert response.status_code == 403 or [int(r["id"]) for r in response.json()["results"]] == [game.pk]


def test_the_master_of_seals_group_exists_after_migrate(db):
    from django.contrib.auth.models import Group

    assert Group.objects.filter(name=MASTER_GROUP).exists()


def test_leaving_the_group_ends_access_even_to_assigned_games(client, master, game):
    from django.contrib.auth.models import Group

    master.groups.remove(Group.objects.get(name=MASTER_GROUP))
    client.force_login(master)
    assert client.get(reverse("admin:pbem_game_changelist")).status_code == 403
    assert client.get(reverse("admin:pbem_game_sheet_csv", args=[game.pk])).status_code == 403
    before = game.version
    assert (
        client.post(
            reverse("admin:pbem_game_desk", args=[game.pk, "pause"]), {"reason": "x", "seen_version": before}
        ).status_code
        == 403
    )
    assert events_after(game, before) == []


def test_a_player_cannot_be_made_master_of_their_own_game(client, root, django_user_model, game):
    from django.contrib.auth.models import Group

    bob = django_user_model.objects.create_user("bob", "Bob@Example.org", "pw", is_staff=True)
    bob.groups.add(Group.objects.get(name=MASTER_GROUP))
    client.force_login(root)
    data = {
        "masters": [bob.pk],
        "seats-TOTAL_FORMS": "3",
        "seats-INITIAL_FORMS": "3",
        "seats-MIN_NUM_FORMS": "0",
        "seats-MAX_NUM_FORMS": "1000",
    }
    for i, seat in enumerate(game.seats.order_by("number")):
        data[f"seats-{i}-id"] = seat.pk
        data[f"seats-{i}-game"] = game.pk
    response = client.post(reverse("admin:pbem_game_change", args=[game.pk]), data)
    assert response.status_code == 200
    assert "plays in this game" in response.text
    assert bob not in game.masters.all()
