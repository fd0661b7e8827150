import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from pbem.audit import checks
from pbem.log import chain
from pbem.management.games import add_game_arguments, named_games


class Command(BaseCommand):
    help = (
        "Verifies games: hash chain intact under each game's scheme, every head the outbox mailed out "
        "still in the log, replay from scratch equals every snapshot, and after the end every random "
        "outcome re-derived from the revealed seed. --head VERSION:HASH checks a head someone kept (one "
        "game named). Exit status 1 on any failure."
    )

    def add_arguments(self, parser):
        add_game_arguments(parser)
        parser.add_argument(
            "--head",
            action="append",
            default=[],
            metavar="VERSION:HASH",
            help="a head a notice quoted, which the log must still contain (repeatable; needs exactly one game)",
        )

    def handle(self, *args, **opts):
        try:
            heads = [chain.parse_head(text) for text in opts["head"]]
        except chain.BadHead as exc:
            raise CommandError(str(exc)) from None
        if heads and len(opts["games"]) != 1:
            raise CommandError(
                "--head names a head of one game: name exactly that game, e.g. verify_games 12 --head 40:3f5a…"
            )
        games, missing = named_games(opts["games"], self.stderr)
        failed = []
        bar = tqdm(games.iterator(), total=games.count(), unit="game", file=sys.stderr, disable=games.count() < 2)
        for game in bar:
            report = checks.verify(game, heads)
            lines = [report.summary()]
            if heads and report.ok:
                lines += [f"  head {version}:{digest[:16]}… is in the log" for version, digest in heads]
            if opts["verbosity"] >= 2:
                lines.append(f"  {checks.scheme_text(report.scheme)}")
            if not report.ok:
                failed.append(report)
            if not report.ok or opts["verbosity"] >= 1:
                # Above the progress bar, through the command's own streams (which tests capture).
                with tqdm.external_write_mode(file=sys.stderr):
                    (self.stdout if report.ok else self.stderr).write("\n".join(lines))
        if failed or missing:
            self.stderr.write(f"{len(failed) + len(missing)} game(s) failed verification.")
            sys.exit(1)
        self.stdout.write("All games verified.")
