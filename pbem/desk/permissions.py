"""Who may use the Master of Seals' desk, and for which games.

Superusers see and manage every game. A member of the "Master of Seals" group (who must also be
staff to log in to the admin) sees and manages only the games that list them in `Game.masters`.
Everyone else, players included, has no business on the desk. Every admin view, action, export
and custom URL asks here; nothing relies on Django's per-model permissions, so a group with no
model permissions at all is enough.
"""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db.models import QuerySet

from pbem.models import Game

MASTER_GROUP = "Master of Seals"


def master_group() -> Group:
    group, _created = Group.objects.get_or_create(name=MASTER_GROUP)
    return group


def ensure_group(**_kwargs) -> None:
    """A post_migrate receiver: the group exists as soon as the database does."""
    master_group()


def is_master(user) -> bool:
    if not (user and user.is_authenticated and user.is_active and user.is_staff):
        return False
    # Cached on the user object: the admin asks many times per request.
    cached = getattr(user, "_pbem_is_master", None)
    if cached is None:
        cached = user.groups.filter(name=MASTER_GROUP).exists()
        user._pbem_is_master = cached
    return cached


def may_use_desk(user) -> bool:
    if not (user and user.is_authenticated and user.is_active and user.is_staff):
        return False
    return user.is_superuser or is_master(user)


def games_for(user) -> QuerySet[Game]:
    """The games this user may see and manage on the desk."""
    if not may_use_desk(user):
        return Game.objects.none()
    if user.is_superuser:
        return Game.objects.all()
    return Game.objects.filter(masters=user)


def may_manage(user, game: Game | int | None) -> bool:
    if game is None:
        return bool(user and user.is_authenticated and user.is_active and user.is_staff and user.is_superuser)
    game_id = game.pk if isinstance(game, Game) else game
    return games_for(user).filter(pk=game_id).exists()


def game_lookup(user, prefix: str = "game") -> dict:
    """Filter kwargs restricting a related model (Event, Notice, …) to this user's games.

    Rows with no game (a stray inbound mail, a notice to the site) are for superusers only.
    """
    if not may_use_desk(user):
        return {f"{prefix}__pk__in": []}
    if user.is_superuser:
        return {}
    return {f"{prefix}__masters": user}
