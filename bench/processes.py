"""Replies by mail through the production shape (not a test): the SMTP listener
(`manage.py smtpd`) stores each reply and queues its task on Redis, and one Celery worker
(`--pool solo`, one process) processes them, as in production; this process only sends the
replies over SMTP and waits until each has reached its end state.

    .venv/bin/python -m bench.run processes

Prints replies per second end to end and the worker's CPU a reply, beside the same figure
measured in this one process (bench.run's mail part: store + process, no broker) in the same
run. Needs PostgreSQL and Redis on 127.0.0.1 (BENCH_REDIS_URL, default db 11, flushed).
"""

from __future__ import annotations

import os
import smtplib
import subprocess
import sys
import time
from pathlib import Path

from bench.common import REDIS_URL, ROOT, free_port, new_game, reply_to

GAMES = int(os.environ.get("BENCH_PROCESS_GAMES", "60"))
# Client connections sending at once, as an MTA delivers (Postfix: up to 20 a destination).
CONNECTIONS = int(os.environ.get("BENCH_PROCESS_CONNECTIONS", "4"))
ROUNDS = int(os.environ.get("BENCH_PROCESS_ROUNDS", "3"))


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def service_env() -> dict:
    return {
        **os.environ,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "PYTHONPATH": str(ROOT),
    }


def start(args: list[str], ready: str, log: Path) -> subprocess.Popen:
    out = log.open("w")
    process = subprocess.Popen(args, cwd=ROOT, env=service_env(), stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while ready not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{args[2:4]} did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)
    return process


def send_over(port: int, mails: list, connections: int) -> None:
    """The mails sent over `connections` SMTP connections at once, each its share in turn."""
    from concurrent.futures import ThreadPoolExecutor

    def one(share) -> None:
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            for sender, to, raw in share:
                smtp.sendmail(sender, [to], raw)

    with ThreadPoolExecutor(connections) as pool:
        list(pool.map(one, [mails[i::connections] for i in range(connections)]))


def run() -> str:
    import redis

    from pbem.mail import outbound
    from pbem.models import Game, InboundMessage, Notice

    redis.Redis.from_url(REDIS_URL).flushdb()
    games = [new_game(2, mailbox=f"w{n}-").pk for n in range(GAMES)]
    logs = Path(os.environ.get("BENCH_LOG_DIR", "/tmp"))
    port = free_port()
    python = sys.executable
    worker = start(
        [python, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--concurrency", "1",
         "--without-heartbeat", "--without-gossip", "--without-mingle", "-l", "warning"],
        "[queues]", logs / "bench-worker.log",
    )  # fmt: skip
    listener = start(
        [python, "manage.py", "smtpd", "--port", str(port)], "Listening for mail", logs / "bench-smtpd.log"
    )
    try:
        seconds, door_seconds, worker_cpu, replies, serial = 0.0, 0.0, 0.0, 0, 0
        # Round 0 is not timed: the worker consuming, both processes' connections open and
        # their first-use costs paid (a worker runs for days; the in-process figure has no broker).
        for round_ in range(ROUNDS + 1):
            mails = []
            for game_id in games:
                turn = Game.objects.get(pk=game_id).awaited[0]
                notice = Notice.objects.filter(game_id=game_id, seat__number=turn, kind="turn").latest("id")
                serial += 1
                to = str(outbound.make_message(notice).message()["Reply-To"])
                raw = reply_to(notice, f"mark {round_ % 9 + 1}", serial)
                mails.append((notice.seat.email, to, raw.replace(b"\n", b"\r\n")))  # SMTP's line ends
            before = InboundMessage.objects.exclude(status="received").count()
            cpu, started = cpu_seconds(worker.pid), time.perf_counter()
            send_over(port, mails, CONNECTIONS)
            if round_:
                door_seconds += time.perf_counter() - started
            while InboundMessage.objects.exclude(status="received").count() < before + len(mails):
                if time.perf_counter() - started > 120:
                    raise RuntimeError("the worker did not process the replies within two minutes")
                time.sleep(0.005)
            if round_:
                seconds += time.perf_counter() - started
                worker_cpu += cpu_seconds(worker.pid) - cpu
                replies += len(mails)
        statuses = set(InboundMessage.objects.filter(channel="smtp").values_list("status", flat=True))
        assert statuses == {"applied"}, statuses
    finally:
        for process in (listener, worker):
            process.terminate()
        for process in (listener, worker):
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
    rate = replies / seconds
    return (
        f"mail replies/s through the SMTP listener and one Celery worker (solo pool, Redis broker): "
        f"{rate:,.0f}/s (target >= 100 per worker: {'ok' if rate >= 100 else 'BELOW TARGET'}); "
        f"the worker's CPU a reply {worker_cpu / replies * 1000:.1f} ms; the listener took them at "
        f"{replies / door_seconds:,.0f}/s over {CONNECTIONS} SMTP connections at once ({replies} replies in {GAMES} "
        f"games, after one round untimed); the "
        f"processes share {os.cpu_count()} cores with PostgreSQL and this sender"
    )
