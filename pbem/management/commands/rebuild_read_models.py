from django.core.management.base import BaseCommand, CommandError

from pbem.log import readmodels
from pbem.management.games import add_game_arguments, named_games


class Command(BaseCommand):
    help = "Rebuilds every game's read model (status, round, phase, awaited seats, scores) from its log."

    def add_arguments(self, parser):
        add_game_arguments(parser)

    def handle(self, *args, **opts):
        games, missing = named_games(opts["games"], self.stderr)
        count = 0
        for game in games.iterator():
            readmodels.rebuild(game)
            count += 1
        self.stdout.write(f"Rebuilt the read models of {count} game(s).")
        if missing:
            raise CommandError(f"{len(missing)} game id(s) name no game.")
