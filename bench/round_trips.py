"""Mail round trips saved by orders given ahead (issue 32): python -m bench.round_trips

For each game, whole games played by mail by three players (every move a real reply to the
newest notice the player holds, stored and processed as the worker does, every notice sent to
Django's in-memory mailbox before the next reply), on the same seeds, three ways:

- today: every move is a round trip (a notice out, a reply in), as before this issue;
- forced: every player has 'orders forced on': a move the rules leave no choice about is played
  for them;
- forced + standing: and each player holds the game's standing order below.

The players play the same way in all three (their reply is what the standing order would play,
where it says something, else the stand-in's choice): the moves the service plays for them are
moves they would have typed. Each played move is an event more in the log (pbem.OrderPlayed),
and the rules draw from the seed by event number, so the games part ways after the first move
played for a player (before it they are the same game: every way starts with two events a seat);
the figures are sums over the seeds. Printed per game: round trips (replies) per way,
and beside them today's count; and, as the games' lengths part ways, a move's round trips per way
(replies over replies and moves played for the players), which does not depend on the length. Needs PostgreSQL (BENCH_DATABASE_URL), like bench.run; its own
database. BENCH_ROUND_TRIP_SEEDS (default 2) seeds per game; BENCH_ROUND_TRIP_GAMES (default
all) the games, by name, comma-separated. BENCH_ROUND_TRIP_MAIL=0 plays each reply's move through
services.submit instead of a mail (the same write path and orders, the same count of round
trips, without composing and reading the mails: minutes instead of an hour on a busy machine).
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("BENCH_DB_NAME", "pbem_bench_round_trips")  # its own database, before bench.common reads it

from bench.common import DB_NAME, recreate_database, reply_to, setup_django  # noqa: E402

# The standing order each player gives, in the game's own words (games/<name>/orders.py).
STANDING = {
    "elfenland": "order draw blind",
    "zauberschwert": "order no offers",
    "elfenwizards": "order recover all",
    "elixirus": "order never steal",
    "elven_castle": "order highest",
}
WAYS = ("today", "forced", "forced + standing")
MAX_REPLIES = 3000  # a game that does not end within this many replies is reported, not waited for


def main() -> None:
    os.environ["PBEM_NOTICE_FOLD_SECONDS"] = "0"  # every notice goes out before the next move
    recreate_database()
    setup_django()
    from django.conf import settings
    from django.core.management import call_command

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.PBEM_RATE_MAIL_COMMANDS = (1_000_000, 600)
    settings.PBEM_MAIL_ANSWERS_PER_HOUR = 1_000_000
    call_command("migrate", verbosity=0)
    seeds = int(os.environ.get("BENCH_ROUND_TRIP_SEEDS", "2"))
    by_mail = os.environ.get("BENCH_ROUND_TRIP_MAIL", "1") != "0"
    wanted = [g for g in os.environ.get("BENCH_ROUND_TRIP_GAMES", "").split(",") if g] or list(STANDING)
    how = "by mail" if by_mail else "through services.submit (BENCH_ROUND_TRIP_MAIL=0)"
    print(f"database {DB_NAME}; 3 players {how}, {seeds} seed(s) per game; round trips = replies")
    print(f"  {'game':14} {'today':>7} {'forced':>7} {'forced + standing':>18}  {'saved':>6}  standing order")
    for kind in wanted:
        order = STANDING[kind]
        started = time.perf_counter()
        totals = dict.fromkeys(WAYS, 0)
        automatic = dict.fromkeys(WAYS, 0)
        for seed in range(seeds):
            for way in WAYS:
                replies, played = play_game(kind, way, order, seed, by_mail)
                totals[way] += replies
                automatic[way] += played
        saved = 1 - totals["forced + standing"] / totals["today"] if totals["today"] else 0.0
        print(
            f"  {kind:14} {totals['today']:7} {totals['forced']:7} {totals['forced + standing']:18}  {saved:6.0%}  "
            f"'{order}'  ({automatic['forced']} / {automatic['forced + standing']} moves played for the players; "
            f"a move's round trips {_per_move(totals, automatic)}; {time.perf_counter() - started:.0f} s)"
        )
    print("  today: every move a round trip, as before issue 32 (the 'today' column is that count)")
    print(
        "  a move's round trips: replies / (replies + moves played for the players), per way: the games part"
        " ways after the first move played for a player, so their lengths differ; this share does not"
        " depend on a game's length"
    )


def _per_move(totals: dict, automatic: dict) -> str:
    shares = [totals[way] / (totals[way] + automatic[way]) if totals[way] + automatic[way] else 1.0 for way in WAYS]
    return " / ".join(f"{share:.2f}" for share in shares)


def play_game(kind: str, way: str, order: str, seed: int, by_mail: bool = True) -> tuple[int, int]:
    """Plays one game by mail; returns (replies the players sent, moves played by their orders)."""
    from django.core import mail

    from pbem.doors import inbox, processing
    from pbem.log import eventlog
    from pbem.mail import sending
    from pbem.models import Event, Game, Notice
    from pbem.play import services
    from pbem.registry import get_game

    mail.outbox = []
    stamp = time.monotonic_ns()
    players = [services.PlayerSpec(n, f"{n.lower()}-{stamp}@bench.invalid") for n in ("Ann", "Ben", "Cat")]
    field = Game._meta.get_field("seed")
    field.default = lambda: f"{seed:02x}" * 32  # the same deal in every way
    field.__dict__.pop("_get_default", None)  # Django keeps the default it made first (a cached property)
    game = services.create_game(kind, players, {})
    spec = get_game(kind)
    for seat in range(3):
        # Two events a seat in every way, so that the games' event numbers (from which the rules
        # draw) agree until the first move played for a player: table talk stands in for the
        # orders not given. In a real game the orders are lines of the first reply.
        lines = {
            "today": "say hello\nsay good luck",
            "forced": "orders forced on\nsay good luck",
            "forced + standing": f"orders forced on\n{order}",
        }[way]
        services.submit(game.pk, seat, lines)
    if by_mail:
        sending.send_pending(game.pk)
    replies = 0
    while replies < MAX_REPLIES:
        game.refresh_from_db()
        if game.status != "running" or not game.awaited:
            break
        seat = game.awaited[0]
        state = eventlog.load(game).state
        command = player_choice(spec, state["game"], seat, order)
        replies += 1
        if not by_mail:
            services.submit(game.pk, seat, spec.describe(command))
            continue
        newest = Notice.objects.filter(game=game, seat__number=seat, status="sent").order_by("-id").first()
        if newest is None:
            raise RuntimeError(f"{kind}: seat {seat} is awaited but has no notice")
        message, _created = inbox.store_raw(reply_to(newest, spec.describe(command), replies), "pipe")
        processing.process(message.pk)
        sending.send_pending(game.pk)
    else:
        print(f"  ({kind}, seed {seed}, {way}: stopped after {MAX_REPLIES} replies)")
    played = Event.objects.filter(game=game, type="pbem.OrderPlayed").count()
    Game.objects.filter(pk=game.pk).update(status="abandoned")
    return replies, played


def player_choice(spec, game_state, seat: int, order: str) -> dict:
    """What the player replies: what their standing order would play where it says something (so
    every way plays alike), else the stand-in's choice from their own view."""
    from pbem.play import standins

    legal = spec.legal(game_state, seat)
    if spec.parse_order is not None and spec.follow_order is not None:
        words = order.removeprefix("order ").strip()
        move = spec.follow_order(spec.parse_order(words, game_state, seat), spec.view(game_state, seat), legal)
        if move is not None and move in legal:
            return move
    chosen = standins.choose(spec, game_state, seat)
    assert chosen is not None
    return chosen


if __name__ == "__main__":
    sys.exit(main())
