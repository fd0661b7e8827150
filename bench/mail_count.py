"""How many mails a round of Elfenland sends (issue 27): python -m bench.mail_count

A 3-player game of Elfenland played by mail, every move a real reply (the awaited player answers
the newest mail they hold with the move their stand-in would make, typed as a command), stored
and processed as the worker does, and every notice sent (to Django's in-memory mailbox) before
the next reply: players by mail take longer between moves than the few seconds a notice waits
to be folded into the next one, so nothing here is folded that a person would not see folded.

Printed, for round 1, once with the defaults and once with every player on "notices every"
(the old default): the mails each player got (their own turn notices, the answers to their
replies, and news), in bytes too, the turns the others took, and the most news any player got
in one turn of another player (a turn: the moves one seat makes while the game awaits it in
one phase). Beside them the figure the issue measured before: 77 mails,
11.9 MB. Needs PostgreSQL (BENCH_DATABASE_URL), like bench.run; its own database.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter

os.environ.setdefault("BENCH_DB_NAME", "pbem_bench_mails")  # its own database, before bench.common reads it

from bench.common import DB_NAME, recreate_database, reply_to, setup_django  # noqa: E402

SEED = "be" * 32
BEFORE = "77 mails, 11.9 MB (issue 27, measured with 'notices every' and the old notice)"


def main() -> None:
    os.environ["PBEM_NOTICE_FOLD_SECONDS"] = "0"  # every notice goes out before the next move
    recreate_database()
    setup_django()
    from django.conf import settings
    from django.core.management import call_command

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.PBEM_RATE_MAIL_COMMANDS = (100_000, 600)
    settings.PBEM_MAIL_ANSWERS_PER_HOUR = 100_000
    call_command("migrate", verbosity=0)
    print(f"database {DB_NAME}; Elfenland, 3 players, round 1 played by mail")
    for label, notices in (("default settings", None), ("notices every (the old default)", "every")):
        started = time.perf_counter()
        counts = play_round(notices)
        print(describe(label, counts, time.perf_counter() - started))
    print(f"  before: {BEFORE}")


def play_round(notices: str | None) -> dict:
    from django.core import mail

    from pbem.doors import inbox, processing
    from pbem.log import eventlog
    from pbem.mail import sending
    from pbem.models import Game, Notice
    from pbem.play import services, standins
    from pbem.registry import get_game

    mail.outbox = []
    players = [
        services.PlayerSpec(n, f"{n.lower()}-{time.monotonic_ns()}@bench.invalid") for n in ("Ann", "Ben", "Cat")
    ]
    # The same deal in both runs: the game's secret seed is the benchmark's own.
    field = Game._meta.get_field("seed")
    field.default = lambda: SEED
    field.__dict__.pop("_get_default", None)  # Django keeps the default it made first (a cached property)
    game = services.create_game("elfenland", players, {}, notices=notices)
    spec = get_game("elfenland")
    sending.send_pending(game.pk)
    turns: list[tuple] = []  # each turn, in order: (seat, round, phase); a new phase is a new turn
    news_in_turn: Counter = Counter()  # (turn index, seat) -> news mails
    serial = 0
    while True:
        game.refresh_from_db()
        if game.round != 1 or game.status != "running":
            break
        seat = game.awaited[0]
        if not turns or turns[-1] != (seat, game.round, game.phase):
            turns.append((seat, game.round, game.phase))
        state = eventlog.load(game).state
        command = standins.choose(spec, state["game"], seat)
        newest = Notice.objects.filter(game=game, seat__number=seat, status="sent").order_by("-id").first()
        serial += 1
        message, _created = inbox.store_raw(reply_to(newest, spec.describe(command), serial), "pipe")
        processing.process(message.pk)
        before = len(mail.outbox)
        sending.send_pending(game.pk)
        for sent in mail.outbox[before:]:
            notice = Notice.objects.get(pk=int(sent.extra_headers["X-Pbem-Notice"]))
            if notice.kind == "news":
                news_in_turn[(len(turns) - 1, notice.seat.number)] += 1
    sizes = Counter()
    per_player = Counter()
    kinds = Counter()
    for sent in mail.outbox:
        who = players.index(next(p for p in players if [p.email] == sent.to))
        per_player[who] += 1
        sizes[who] += len(sent.message().as_bytes())
        kinds[Notice.objects.get(pk=int(sent.extra_headers["X-Pbem-Notice"])).kind] += 1
    others = {seat: sum(1 for turn in turns if turn[0] != seat) for seat in range(3)}
    most = max(news_in_turn.values(), default=0)
    Game.objects.filter(pk=game.pk).update(status="abandoned")
    return {"per_player": per_player, "bytes": sizes, "kinds": kinds, "others": others, "most": most}


def describe(label: str, counts: dict, seconds: float) -> str:
    total = sum(counts["per_player"].values())
    megabytes = sum(counts["bytes"].values()) / 1e6
    players = ", ".join(
        f"{name} {counts['per_player'][i]} ({counts['others'][i]} turns of the others)"
        for i, name in enumerate(("Ann", "Ben", "Cat"))
    )
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(counts["kinds"].items()))
    return (
        f"  {label}: {total} mails, {megabytes:.2f} MB ({kinds}); {players}; "
        f"at most {counts['most']} news in one turn of another player [{seconds:.0f} s]"
    )


if __name__ == "__main__":
    sys.exit(main())
