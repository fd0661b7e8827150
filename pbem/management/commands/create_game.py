import json

from django.core.management.base import BaseCommand, CommandError

from pbem.play import services
from pbem.registry import UnknownGame, all_games


class Command(BaseCommand):
    help = "Creates and starts a game; prints its id."

    def add_arguments(self, parser):
        parser.add_argument("kind", help=f"the game: one of {', '.join(all_games()) or '(none registered)'}")
        parser.add_argument(
            "--player",
            action="append",
            default=[],
            metavar="NAME:EMAIL[:LANG]",
            required=True,
            help="a player, in seating order (repeat for each)",
        )
        parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
        deadline = parser.add_mutually_exclusive_group()
        deadline.add_argument(
            "--deadline-hours", type=int, default=None, metavar="N", help="each move's deadline (default 48)"
        )
        deadline.add_argument(
            "--deadline-minutes",
            type=int,
            default=None,
            metavar="N",
            help="the deadline in minutes (e.g. 5, to watch one pass)",
        )
        parser.add_argument("--title", default="")
        parser.add_argument(
            "--clock",
            default=None,
            metavar="JSON",
            help='the table\'s clock, durations in seconds: {"kind": "bank", "initial": 259200, '
            '"increment": 86400, "cap": 604800}, or "fixed" (period) or "grace" (grace, initial, increment, cap)',
        )

    def handle(self, *args, **opts):
        for unit in ("hours", "minutes"):
            value = opts[f"deadline_{unit}"]
            if value is not None and value < 1:
                raise CommandError(f"--deadline-{unit} must be at least 1, not {value}")
        seconds = None
        if opts["deadline_hours"]:
            seconds = opts["deadline_hours"] * 3600
        if opts["deadline_minutes"]:
            seconds = opts["deadline_minutes"] * 60
        players = []
        for raw in opts["player"]:
            language = ""
            head, colon, tail = raw.rpartition(":")
            if colon and tail.lower() in ("en", "de", "fr"):
                raw, language = head, tail.lower()
            name, sep, email = raw.rpartition(":")
            if not sep or not name.strip() or "@" not in email:
                raise CommandError(f"--player takes NAME:EMAIL[:LANG], not {raw!r}")
            players.append(services.PlayerSpec(name.strip(), email.strip(), language))
        options = {}
        for raw in opts["option"]:
            key, sep, value = raw.partition("=")
            if not sep:
                raise CommandError(f"--option takes KEY=VALUE, not {raw!r}")
            options[key.strip()] = value.strip()
        clock = None
        if opts["clock"]:
            try:
                clock = json.loads(opts["clock"])
            except ValueError:
                raise CommandError('--clock takes a JSON object, e.g. {"kind": "fixed", "period": 86400}') from None
        try:
            game = services.create_game(
                opts["kind"],
                players,
                options,
                title=opts["title"],
                deadline_seconds=seconds,
                clock=clock,
            )
        except (UnknownGame, services.ServiceError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(str(game.pk))
