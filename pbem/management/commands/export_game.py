import json

from django.core.management.base import BaseCommand, CommandError

from pbem.audit import export
from pbem.models import Game, Seat
from pbem.play.selectors import game_over


class Command(BaseCommand):
    help = (
        "Writes a game's log as one JSON document, as seat N may see it (default: a spectator; after the "
        "end, everything), for `python -m pbem.verify FILE` to check with no server."
    )

    def add_arguments(self, parser):
        parser.add_argument("game", type=int, help="the game's id")
        parser.add_argument(
            "--seat",
            type=int,
            default=None,
            help="the seat whose log it is, numbered as the API numbers seats (0 is the first)",
        )
        parser.add_argument("--output", "-o", default="-", help="the file to write (default: standard output)")

    def handle(self, *args, **opts):
        game = Game.objects.filter(pk=opts["game"]).first()
        if game is None:
            raise CommandError(f"There is no game #{opts['game']}.")
        seat = opts["seat"]
        if seat is not None and not Seat.objects.filter(game=game, number=seat).exists():
            seats = game.seats.count()
            raise CommandError(f"Game #{game.pk} has seats 0 to {seats - 1}; there is no seat {seat}.")
        doc = export.document(game, seat)
        text = json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        if opts["output"] == "-":
            self.stdout.write(text, ending="")
        else:
            with open(opts["output"], "w", encoding="utf-8") as out:
                out.write(text)
            reader = (
                "everything (the game is over)"
                if game_over(game)
                else (f"seat {seat}'s view" if seat is not None else "a spectator's view")
            )
            self.stderr.write(f"game #{game.pk}: {len(doc['events'])} events written to {opts['output']}, {reader}")
