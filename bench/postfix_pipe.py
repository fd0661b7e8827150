"""The MTA pipe door as it really runs (not a test): a private Postfix (its own config, queue and
port; nothing of the host's mail system) pipes each reply through scripts/pbem-pipe with
PBEM_PIPE_HANDOFF on, so the handoff passes it to the SMTP listener (`manage.py smtpd`, with Redis
as the broker: the door's cost is storing and queueing, not processing).

    sudo .venv/bin/python -m bench.postfix_pipe      # root: Postfix and its pipe user

The replies are what players send: one per game, quoting the game's notice (2-4 kB), sent to
Postfix over SMTP one after another; Postfix hands each to the pipe with LF line ends, as it
always does. For each it prints who stored it (the listener, or the pipe's slow way,
`receive_email`, when the handoff fell back) and the time Postfix's pipe took (the `d` of its
`delays=`, logged to 10 ms), beside `python -c pass` with the same interpreter in the same run.
Target (issue 28): every reply stored by the listener, each under 0.3 s.

Its own database (BENCH_DB_NAME, default pbem_bench_postfix, made anew) and Redis
(BENCH_REDIS_URL, default db 11: its queue is emptied at the end). BENCH_REPLIES (default 50);
BENCH_BURST=1 sends them all at once.
"""

from __future__ import annotations

import os
import re
import shutil
import smtplib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("BENCH_DB_NAME", "pbem_bench_postfix")

from bench.common import REDIS_URL, ROOT, db_url, free_port, recreate_database, reply_to, setup_django  # noqa: E402

REPLIES = int(os.environ.get("BENCH_REPLIES", "50"))
# BENCH_BURST=1: every reply sent at once (one after another over SMTP, not waiting for any to be
# delivered), as at a deadline many players answer together; Postfix then runs several pipes at a
# time (pbem_destination_concurrency_limit).
BURST = os.environ.get("BENCH_BURST", "") not in ("", "0")
QUEUE = "pbem-bench-postfix"
TARGET = 0.3
# One delivery in Postfix's log: its queue id, and the pipe's own time (the last of `delays=`).
# Postfix's delays=a/b/c/d: a before the queue manager (SMTP and cleanup), b in the queue manager
# (waiting for a delivery agent), c setting up the delivery (the pipe's process), d the pipe's command.
SENT = re.compile(
    r" ([0-9A-F]{6,}): to=<[^>]*>, .*relay=pbem, .*delays=([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+), .*status=(\w+)"
)
MESSAGE_ID = re.compile(r" ([0-9A-F]{6,}): message-id=(<[^>]*>)")


def games_and_notices(count: int) -> list:
    """`count` games of two players, each waiting for its first player, and that player's notice."""
    from pbem.models import Notice
    from pbem.play import services

    notices = []
    for n in range(count):
        game = services.create_game(
            "tally",
            [
                services.PlayerSpec(f"Player {n}a", f"p{n}a@players.invalid"),
                services.PlayerSpec(f"Player {n}b", f"p{n}b@players.invalid"),
            ],
            {},
        )
        # A few moves first, so the notice tells a game under way, as most replies answer.
        for move in range(6):
            services.submit(game.pk, move % 2, f"mark {move % 9 + 1}")
        notices.append(Notice.objects.filter(game=game, seat__number=0, kind="turn").order_by("-id").first())
    return notices


def crlf(raw: bytes) -> bytes:
    """The message as a mail client sends it over SMTP (Postfix hands it on with LF again)."""
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def wait_for_deliveries(log: Path, count: int, timeout: float = 120) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text() if log.exists() else ""
        if len(SENT.findall(text)) >= count:
            return text
        time.sleep(0.05)
    raise RuntimeError(f"{count} deliveries expected in Postfix's log:\n{log.read_text()[-3000:]}")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from tests.mail.realmail import PIPE_USER, Postfix, missing, python_for, run_as, write_env_file

    reason = missing("postfix", "postmap", "postconf", "runuser")
    if reason:
        print(f"bench.postfix_pipe: {reason}", file=sys.stderr)
        return 2
    if run_as(PIPE_USER, "test", "-r", str(ROOT / "manage.py")).returncode:
        print(f"bench.postfix_pipe: the pipe's user {PIPE_USER} cannot read {ROOT}", file=sys.stderr)
        return 2
    recreate_database()
    setup_django()
    from django.conf import settings
    from django.core.management import call_command

    from pbem.models import InboundMessage

    call_command("migrate", verbosity=0)
    notices = games_and_notices(REPLIES)
    replies = [reply_to(notice, "mark 5", serial) for serial, notice in enumerate(notices)]
    assert all(b"\r" not in raw for raw in replies)  # LF, as the pipe hands it on
    sizes = sorted(len(raw) for raw in replies)

    interpreter = python_for(PIPE_USER)
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-pipe-"))
    folder.chmod(0o755)
    data = folder / "data"
    data.mkdir(mode=0o777)
    data.chmod(0o777)
    port = free_port()
    service = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": settings.SECRET_KEY,
        "DATABASE_URL": db_url(os.environ["BENCH_DB_NAME"]),
        "PBEM_EXTRA_GAMES": "bench.tally",
        "PBEM_NOTICE_DISPATCH": "none",
        "PBEM_MAIL_DOMAIN": settings.PBEM_MAIL_DOMAIN,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": QUEUE,
        "PBEM_DATA_DIR": str(data),
        "PBEM_PIPE_HANDOFF": f"127.0.0.1:{port}",
        **interpreter,
    }
    env_file = write_env_file(folder / "env", service)
    listener = subprocess.Popen(
        [sys.executable, "manage.py", "smtpd", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **{k: v for k, v in service.items() if k not in interpreter}},
        stdout=subprocess.PIPE,
        text=True,
    )
    listener.stdout.readline()  # it says where it listens once it does
    postfix = Postfix(settings.PBEM_MAIL_DOMAIN, env_file).start()
    rows = []
    try:
        python = interpreter["PBEM_PYTHON"]
        bare, accepted = [], []
        if BURST:  # the baselines first: none between the sends
            bare = [python_start(python) for _ in replies]
        burst = smtplib.SMTP("127.0.0.1", postfix.port) if BURST else None  # one connection for all
        for serial, (notice, raw) in enumerate(zip(notices, replies, strict=True)):
            if not BURST:  # the baseline beside each delivery: the load changes from one to the next
                bare.append(python_start(python))
            # One after another: a connection each, as each player's mail comes from their provider.
            client = burst or smtplib.SMTP("127.0.0.1", postfix.port)
            client.sendmail(notice.seat.email, [_reply_to(raw)], crlf(raw))
            accepted.append(time.time())  # Postfix answered 250 to the message: it is queued
            if not BURST:
                client.quit()
                text = wait_for_deliveries(postfix.log, serial + 1)
        if burst:
            burst.quit()
        if BURST:
            text = wait_for_deliveries(postfix.log, len(replies))
        queue_ids = {mid: qid for qid, mid in MESSAGE_ID.findall(text)}
        deliveries = {qid: (tuple(map(float, stages)), status) for qid, *stages, status in SENT.findall(text)}
        for raw, when in zip(replies, accepted, strict=True):
            message_id = _message_id(raw)
            stages, status = deliveries[queue_ids[message_id]]
            stored = InboundMessage.objects.filter(message_id=message_id).first()
            by = (
                {"smtp": "the listener", "pipe": "the FALLBACK"}.get(stored.channel, stored.channel)
                if stored
                else "nobody"
            )
            whole = stored.received_at.timestamp() - when if stored else float("inf")
            rows.append((message_id, len(raw), status, by, stages, whole, bare[len(rows)]))
    finally:
        postfix.stop()
        listener.terminate()
        listener.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        # The queued processing nobody runs, and kombu's binding tables for the queue (no TTL).
        client.delete(QUEUE, *client.scan_iter(match=f"*{QUEUE}*"))

    load = os.getloadavg()[0]
    print(
        f"pbem-pipe through a private Postfix {postfix_version()}, PBEM_PIPE_HANDOFF on, {os.cpu_count()} cores, "
        f"{'all at once' if BURST else 'one after another'}, "
        f"load average {load:.1f}"
    )
    print(
        f"replies: {len(replies)}, LF line ends, {sizes[0]}-{sizes[-1]} bytes (median {statistics.median(sizes):.0f})"
    )
    for n, (_mid, size, status, by, stages, whole, baseline) in enumerate(rows, 1):
        print(
            f"  reply {n:2}: {size} bytes, {status}, stored by {by}, {whole:.3f} s from Postfix's 250 to stored; "
            f"Postfix's delays {'/'.join(f'{x:.2f}' for x in stages)} (python -c pass {baseline:.3f} s)"
        )
    pipe = sorted(row[4][3] for row in rows)
    waits = sorted(row[4][1] + row[4][2] for row in rows)
    times = sorted(row[5] for row in rows)
    by_listener = sum(row[3] == "the listener" for row in rows)
    print(
        f"stored by the listener {by_listener} of {len(rows)}, by the fallback "
        f"{sum(row[3] == 'the FALLBACK' for row in rows)}; from Postfix's 250 to stored: median "
        f"{statistics.median(times):.3f} s, max {times[-1]:.3f} s; the pipe's command (d): median "
        f"{statistics.median(pipe):.2f} s, max {pipe[-1]:.2f} s; the queue manager and the pipe's start (b+c): "
        f"median {statistics.median(waits):.2f} s, max {waits[-1]:.2f} s; {python} -c pass: median "
        f"{statistics.median(bare):.3f} s, max {max(bare):.3f} s (same run)"
    )
    met = by_listener == len(rows) and times[-1] < TARGET
    print(f"target: all by the listener, each under {TARGET} s from Postfix's 250: {'met' if met else 'NOT MET'}")
    return 0


def python_start(python: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([python, "-c", "pass"], check=True)
    return time.perf_counter() - t0


def _message_id(raw: bytes) -> str:
    return re.search(rb"^Message-ID: (<[^>]*>)", raw, re.MULTILINE | re.IGNORECASE).group(1).decode()


def _reply_to(raw: bytes) -> str:
    from email.utils import parseaddr

    return parseaddr(re.search(rb"^To: (.*)$", raw, re.MULTILINE).group(1).decode())[1]


def postfix_version() -> str:
    return subprocess.run(["postconf", "-dh", "mail_version"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
