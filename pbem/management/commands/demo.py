from django.conf import settings
from django.core.management.base import BaseCommand

from pbem.models import Game
from pbem.play import addressing, services
from pbem.registry import all_games

DEMO_PLAYERS = [("Alice", "alice@example.org"), ("Bob", "bob@example.org"), ("Carol", "carol@example.org")]


class Command(BaseCommand):
    help = "Creates a demo game (once) and prints its seat links, so a newcomer can play at once."

    def add_arguments(self, parser):
        parser.add_argument("--kind", default=None, help="which game (default: the first registered)")
        parser.add_argument("--force", action="store_true", help="create another even if games exist")

    def handle(self, *args, **opts):
        game = Game.objects.filter(title__startswith="Demo:").order_by("pk").first()
        if game is None or opts["force"]:
            games = all_games()
            kind = opts["kind"] or next(iter(games))
            spec = games[kind]
            count = max(spec.min_players, min(3, spec.max_players))
            players = [services.PlayerSpec(n, e) for n, e in DEMO_PLAYERS[:count]]
            game = services.create_game(kind, players, {}, title=f"Demo: {spec.title}")
            self.stdout.write(f"Created demo game #{game.pk} ({spec.title}).")
        self.stdout.write(f"Demo game #{game.pk}: {settings.PBEM_BASE_URL}/")
        for seat in game.seats.order_by("number"):
            self.stdout.write(f"  {seat.name:6} {addressing.seat_url(seat)}")
        self.stdout.write(f"Outgoing mail is written to {settings.EMAIL_FILE_PATH}/")
        self.stdout.write(desk_way_in())


def desk_way_in() -> str:
    """How to reach the Master of Seals' desk on this run."""
    from django.contrib.auth import get_user_model

    url = f"{settings.PBEM_BASE_URL}/admin/"
    names = list(
        get_user_model().objects.filter(is_superuser=True, is_active=True).values_list("username", flat=True)[:3]
    )
    if names:
        return f"The desk (Master of Seals): {url}, log in as {', '.join(names)}."
    return (
        f"The desk (Master of Seals): {url}; no account yet: make one with "
        "`.venv/bin/python manage.py createsuperuser` (in another terminal), then log in."
    )
