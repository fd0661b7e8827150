from django.core.management.base import BaseCommand, CommandError

from pbem.models import Game
from pbem.play import selectors
from pbem.registry import get_game


class Command(BaseCommand):
    help = "Prints a game's state (text render, as a spectator sees it) after event N."

    def add_arguments(self, parser):
        parser.add_argument("game", type=int)
        parser.add_argument("--at", type=int, default=None, help="event number (default: the newest)")
        parser.add_argument("--seat", type=int, default=None, help="show the board as this seat (0-based) sees it")

    def handle(self, *args, **opts):
        game = Game.objects.filter(pk=opts["game"]).first()
        if game is None:
            raise CommandError(f"There is no game #{opts['game']}.")
        at = opts["at"]
        if at is not None and not 0 <= at <= game.version:
            raise CommandError(f"Game #{game.pk} has events 1 to {game.version}; there is no event {at}.")
        spec = get_game(game.kind)
        state = selectors.state_at(game, at)
        self.stdout.write(f"Game #{game.pk} {game.title} ({spec.title}) after event {at or game.version}")
        self.stdout.write(selectors.board_text(spec, state, opts["seat"]))
