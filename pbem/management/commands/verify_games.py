import sys

from django.core.management.base import BaseCommand
from tqdm import tqdm

from pbem import audit
from pbem.management.games import add_game_arguments, named_games


class Command(BaseCommand):
    help = ("Verifies games: hash chain intact, replay from scratch equals every snapshot, and after the end "
            "every random outcome re-derived from the revealed seed. Exit status 1 on any failure.")

    def add_arguments(self, parser):
        add_game_arguments(parser)

    def handle(self, *args, **opts):
        games, missing = named_games(opts["games"], self.stderr)
        failed = []
        bar = tqdm(games.iterator(), total=games.count(), unit="game", file=sys.stderr,
                   disable=games.count() < 2)
        for game in bar:
            report = audit.verify(game)
            if not report.ok:
                failed.append(report)
                bar.write(report.summary(), file=sys.stderr)
            elif opts["verbosity"] >= 1:
                bar.write(report.summary(), file=self.stdout)
        if failed or missing:
            self.stderr.write(f"{len(failed) + len(missing)} game(s) failed verification.")
            sys.exit(1)
        self.stdout.write("All games verified.")
