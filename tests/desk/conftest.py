"""The desk's cast: a superuser, two Masters of Seals each with their own game, a staff member
outside the group, and a player with an account but no staff rights."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from pbem.desk.permissions import MASTER_GROUP
from pbem.models import Event
from pbem.play import services

CAST = [
    services.PlayerSpec("Alice", "alice@example.org"),
    services.PlayerSpec("Bob", "bob@example.org"),
    services.PlayerSpec("Carol", "carol@example.org"),
]


def _user(django_user_model, name, *, staff=True, master=False, superuser=False):
    if superuser:
        return django_user_model.objects.create_superuser(name, f"{name}@example.org", "pw-" + name)
    user = django_user_model.objects.create_user(name, f"{name}@example.org", "pw-" + name, is_staff=staff)
    if master:
        user.groups.add(Group.objects.get_or_create(name=MASTER_GROUP)[0])
    return user


@pytest.fixture
def root(db, django_user_model):
    return _user(django_user_model, "root", superuser=True)


@pytest.fixture
def master(db, django_user_model):
    return _user(django_user_model, "morgan", master=True)


@pytest.fixture
def other_master(db, django_user_model):
    return _user(django_user_model, "oswin", master=True)


@pytest.fixture
def staff_only(db, django_user_model):
    return _user(django_user_model, "stella")


@pytest.fixture
def player_user(db, django_user_model):
    """A player who somehow has an account (and is even in the group) but is not staff."""
    return _user(django_user_model, "alice", staff=False, master=True)


@pytest.fixture
def desk_settings(db, settings):
    settings.PBEM_NOTICE_DISPATCH = "none"
    return settings


@pytest.fixture
def new_game(desk_settings):
    def make(players: int = 2, kind: str = "diceduel", options=None, masters=(), **kw):
        game = services.create_game(kind, CAST[:players], options or {}, **kw)
        game.masters.add(*masters)
        return game

    return make


@pytest.fixture
def game(new_game, master):
    return new_game(3, title="Morgan's table", masters=[master])


@pytest.fixture
def foreign_game(new_game, other_master):
    return new_game(2, title="Oswin's table", masters=[other_master])


def events_after(game, seq: int):
    return list(Event.objects.filter(game=game, seq__gt=seq).order_by("seq"))
