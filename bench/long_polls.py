"""Long polls against the lobby, in the attacker's shape (issue 26; not a test):

    .venv/bin/python -m bench.long_polls      # needs PostgreSQL and Redis on 127.0.0.1

Starts the web service as production does (gunicorn with the shipped gunicorn.conf.py, on a free
port, Redis as the shared cache) on a throwaway database, then times the lobby page (GET /):
first with no long poll open (the baseline), then while one seat token keeps BENCH_POLLS (50)
long polls open on the API (`?wait_version=N&timeout=25` on a game that does not move; each one
opened again the moment it answers). Prints both beside each other and the target: the lobby
answers within 1 s. BENCH_LOBBY_GETS lobby requests are timed in each phase.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from bench.common import DB_NAME, REDIS_URL, ROOT, db_url, free_port, new_game, recreate_database, setup_django

POLLS = int(os.environ.get("BENCH_POLLS", "50"))
GETS = int(os.environ.get("BENCH_LOBBY_GETS", "30"))


def get(url: str, headers: dict | None = None, timeout: float = 60) -> tuple[int, float]:
    started = time.perf_counter()
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    return status, time.perf_counter() - started


def time_lobby(base: str) -> list[float]:
    times = []
    for _ in range(GETS):
        status, seconds = get(base + "/")
        assert status == 200, status
        times.append(seconds)
    return times


def start_gunicorn(port: int, log: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": db_url(DB_NAME),
        "CACHE_URL": REDIS_URL,
        "CELERY_BROKER_URL": REDIS_URL,
        "PBEM_WEB_BIND": f"127.0.0.1:{port}",
        "PBEM_EXTRA_GAMES": "bench.tally",
        "PYTHONPATH": str(ROOT),
    }
    out = log.open("w")
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), "config.wsgi"]
    process = subprocess.Popen(gunicorn, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:
        try:
            if get(f"http://127.0.0.1:{port}/health/", timeout=5)[0] in (200, 503):
                return process
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"gunicorn did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.2)


def attacker(url: str, token: str, stop, answered) -> None:
    """POLLS threads, each holding a long poll open and opening it again the moment it answers."""

    def hold():
        while not stop.is_set():
            try:
                get(url, {"X-Seat-Token": token}, timeout=60)
                with answered.get_lock():
                    answered.value += 1
            except OSError:
                pass

    threads = [threading.Thread(target=hold, daemon=True) for _ in range(POLLS)]
    for thread in threads:
        thread.start()
    stop.wait()


def figures(times: list[float]) -> str:
    return f"median {statistics.median(times) * 1000:.0f} ms, slowest {max(times) * 1000:.0f} ms"


def main() -> int:
    import redis

    recreate_database()
    setup_django()
    from django.core.management import call_command

    from pbem.play import addressing

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(REDIS_URL).flushdb()
    game = new_game(2, mailbox="polls-")
    waiting = game.seats.exclude(number__in=game.awaited or []).first() or game.seats.get(number=1)
    token = addressing.token_for(waiting)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_gunicorn(port, Path(os.environ.get("BENCH_LOG_DIR", "/tmp")) / "bench-long-polls.log")
    stop = multiprocessing.Event()
    answered = multiprocessing.Value("i", 0)
    url = f"{base}/api/games/{game.pk}/seat?wait_version={game.version}&timeout=25"
    try:
        # Every worker's first-use costs paid before any timing (the kernel picks the worker).
        warm = [threading.Thread(target=lambda: [get(base + "/") for _ in range(3)]) for _ in range(12)]
        for thread in warm:
            thread.start()
        for thread in warm:
            thread.join()
        baseline = time_lobby(base)
        # The attacker in a process of its own: its 50 threads must not share this one's GIL with
        # the lobby's timer (that would time the bench, not the service).
        attack = multiprocessing.Process(target=attacker, args=(url, token, stop, answered))
        attack.start()
        time.sleep(2)  # the attack in full swing before the lobby is timed
        attacked = time_lobby(base)
        stop.set()
        attack.join(60)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    threads_env = os.environ.get("PBEM_WEB_THREADS", "8")
    print(
        f"lobby (GET /, {GETS} requests) through gunicorn with gunicorn.conf.py "
        f"({os.environ.get('PBEM_WEB_WORKERS', '3')} workers x {threads_env} threads):\n"
        f"  no long polls:                      {figures(baseline)}\n"
        f"  {POLLS} long polls from one seat token: {figures(attacked)} "
        f"(target: within 1 s: {'ok' if max(attacked) <= 1.0 else 'MISSED'}); "
        f"the long polls were answered {answered.value} times meanwhile",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
