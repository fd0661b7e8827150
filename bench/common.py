"""What the benchmarks share: the throwaway database and Django set up on it, a free port, the
Redis database they may use, a game of the benchmark's own, and a reply as a mail client writes it.
Every bench module imports this one; none imports another bench module (no circles)."""

from __future__ import annotations

import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DB_NAME = os.environ.get("BENCH_DB_NAME", "pbem_bench")
BASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/11")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def db_url(name: str) -> str:
    return BASE_URL.rsplit("/", 1)[0] + "/" + name


def setup_django() -> None:
    os.environ["DATABASE_URL"] = db_url(DB_NAME)
    os.environ["PBEM_EXTRA_GAMES"] = "bench.tally"
    os.environ["PBEM_NOTICE_DISPATCH"] = "none"  # notices stay in the outbox; sending is another process
    os.environ.setdefault("PBEM_SNAPSHOT_EVERY", "100")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "k" * 40)  # its own throwaway database
    import django

    django.setup()


def recreate_database() -> None:
    import psycopg

    with psycopg.connect(BASE_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def new_game(players: int = 1, mailbox: str = ""):
    """`mailbox`: a prefix making the players' addresses the game's own (the answer's loop guard
    counts answers per address, so games sharing addresses would stop being answered)."""
    from pbem.play import services

    return services.create_game(
        "tally", [services.PlayerSpec(f"P{i}", f"{mailbox}p{i}@bench.invalid") for i in range(players)], {}
    )


def reply_to(notice, text: str, serial: int) -> bytes:
    """A reply as a mail client writes it: the command above the quoted notice, threaded to it."""
    from email.message import EmailMessage

    from pbem.mail import outbound

    sent = outbound.make_message(notice).message()
    quoted = "\n".join("> " + line for line in outbound.render(notice).text.splitlines())
    reply = EmailMessage()
    reply["From"] = notice.seat.email
    reply["To"] = sent["Reply-To"]
    reply["Subject"] = "Re: " + str(sent["Subject"])
    reply["Message-ID"] = f"<bench-reply-{os.getpid()}-{time.monotonic_ns()}-{serial}@bench.invalid>"
    reply["In-Reply-To"] = sent["Message-ID"]
    reply["References"] = f"{sent['References']} {sent['Message-ID']}"
    reply.set_content(f"{text}\n\nCheers,\n{notice.seat.name}\n\nOn Thu, Master of Seals wrote:\n{quoted}\n")
    return reply.as_bytes()
