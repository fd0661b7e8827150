from django.core.management.base import BaseCommand

from pbem import readmodels
from pbem.models import Game


class Command(BaseCommand):
    help = "Rebuilds every game's read model (status, round, phase, awaited seats, scores) from its log."

    def add_arguments(self, parser):
        parser.add_argument("games", nargs="*", type=int, help="game ids (default: all)")

    def handle(self, *args, **opts):
        games = Game.objects.order_by("pk")
        if opts["games"]:
            games = games.filter(pk__in=opts["games"])
        count = 0
        for game in games.iterator():
            readmodels.rebuild(game)
            count += 1
        self.stdout.write(f"Rebuilt the read models of {count} game(s).")
