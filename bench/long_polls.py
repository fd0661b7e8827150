"""Long polls against the lobby, in the attacker's shape (issue 26; not a test):

    .venv/bin/python -m bench.long_polls      # needs PostgreSQL and Redis on 127.0.0.1 (nginx: see below)

Starts the service as production does, on free ports and a throwaway database, Redis as the
shared cache: the pages on gunicorn's gthread workers (`gunicorn config.wsgi`, the shipped
gunicorn.conf.py), the long polls on gunicorn's uvicorn worker (`gunicorn config.asgi -k
uvicorn_worker.UvicornWorker`), and nginx in front with deploy/nginx/pbem.conf.template routing
the waits to the second (when nginx is not installed the bench sends each request where that file
routes it, and says so). Then it times the lobby page (GET / through the front door): with no long
poll open (the baseline), then while one seat token keeps BENCH_POLLS (50, then 200; a comma-
separated list) long polls open on the API (`?wait_version=N&timeout=25` on a game that does not
move; each one opened again the moment it answers, whatever it answered), and last the shape
before (the same 50 waits sent to the gthread workers, as when every request went to them).
Prints each beside the baseline, and the target: the lobby answers within 1 s.
BENCH_LOBBY_GETS lobby requests are timed in each phase.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench.common import DB_NAME, REDIS_URL, ROOT, db_url, free_port, new_game, recreate_database, setup_django

POLLS = [int(n) for n in os.environ.get("BENCH_POLLS", "50,200").split(",")]
GETS = int(os.environ.get("BENCH_LOBBY_GETS", "30"))
LIVE = ["config.asgi", "-k", "uvicorn_worker.UvicornWorker", "--workers", "1"]  # as deploy/ and compose run it


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


def started(process: subprocess.Popen, url: str, log: Path, what: str) -> subprocess.Popen:
    deadline = time.monotonic() + 60
    while True:
        try:
            if get(url, timeout=5)[0] in (200, 503):
                return process
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{what} did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.2)


def start_gunicorn(port: int, log: Path, app: list[str]) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": db_url(DB_NAME),
        "CACHE_URL": REDIS_URL,
        "CELERY_BROKER_URL": REDIS_URL,
        "PBEM_WEB_BIND": f"127.0.0.1:{port}",
        "PBEM_EXTRA_GAMES": "bench.tally",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), *app]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    return started(process, f"http://127.0.0.1:{port}/health/", log, " ".join(app[:1]))


def start_nginx(port: int, pages: int, live: int, folder: Path) -> subprocess.Popen | None:
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if nginx is None:
        return None
    site = (ROOT / "deploy" / "nginx" / "pbem.conf.template").read_text()
    for name, value in {"PAGES_UPSTREAM": f"127.0.0.1:{pages}", "LIVE_UPSTREAM": f"127.0.0.1:{live}"}.items():
        site = site.replace("${PBEM_" + name + "}", value)
    site = site.replace("${PBEM_PROXY_LISTEN}", f"127.0.0.1:{port}").replace("/var/log/nginx/", f"{folder}/")
    (folder / "pbem.conf").write_text(site)
    (folder / "nginx.conf").write_text(
        f"worker_processes 1;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log;\n"
        "events { worker_connections 4096; }\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {folder}/body;\n  proxy_temp_path {folder}/proxy;\n"
        f"  fastcgi_temp_path {folder}/fastcgi;\n  uwsgi_temp_path {folder}/uwsgi;\n  scgi_temp_path {folder}/scgi;\n"
        f"  include {folder}/pbem.conf;\n}}\n"
    )
    log = folder / "nginx.out"
    process = subprocess.Popen(
        [nginx, "-c", str(folder / "nginx.conf"), "-p", str(folder), "-g", "daemon off;"],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    return started(process, f"http://127.0.0.1:{port}/health/", log, "nginx")


def attacker(url: str, token: str, polls: int, stop, answers) -> None:
    """`polls` threads, each holding a long poll open and opening it again the moment it answers."""
    counts: collections.Counter = collections.Counter()
    lock = threading.Lock()

    def hold():
        while not stop.is_set():
            try:
                status, _ = get(url, {"X-Seat-Token": token}, timeout=60)
            except OSError:
                status = 0
            with lock:
                counts[status] += 1

    threads = [threading.Thread(target=hold, daemon=True) for _ in range(polls)]
    for thread in threads:
        thread.start()
    stop.wait()
    with lock:
        answers.update({str(status): n for status, n in counts.items()})


def attacked(lobby: str, url: str, token: str, polls: int) -> tuple[list[float], dict, float]:
    """The lobby's times while `polls` long polls are held, what they were answered, and for how long."""
    stop = multiprocessing.Event()
    answers = multiprocessing.Manager().dict()
    # The attacker in a process of its own: its threads must not share this one's GIL with the
    # lobby's timer (that would time the bench, not the service).
    attack = multiprocessing.Process(target=attacker, args=(url, token, polls, stop, answers))
    attack.start()
    began = time.monotonic()
    time.sleep(3)  # the attack in full swing before the lobby is timed
    times = time_lobby(lobby)
    stop.set()
    attack.join(90)
    return times, dict(answers), time.monotonic() - began


def figures(times: list[float]) -> str:
    return f"median {statistics.median(times) * 1000:5.0f} ms, slowest {max(times) * 1000:5.0f} ms"


def answered(answers: dict, seconds: float) -> str:
    total = sum(answers.values())
    shown = ", ".join(f"{status}: {n}" for status, n in sorted(answers.items()))
    return f"long polls answered {total} times in {seconds:.0f} s ({shown})"


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
    folder = Path(os.environ.get("BENCH_LOG_DIR") or tempfile.mkdtemp(prefix="bench-long-polls-"))
    folder.mkdir(parents=True, exist_ok=True)
    ports = {name: free_port() for name in ("front", "pages", "live")}
    servers = [
        start_gunicorn(ports["pages"], folder / "pages.log", ["config.wsgi"]),
        start_gunicorn(ports["live"], folder / "live.log", [*LIVE, "--bind", f"127.0.0.1:{ports['live']}"]),
    ]
    try:
        proxy = start_nginx(ports["front"], ports["pages"], ports["live"], folder)
        if proxy is not None:
            servers.append(proxy)
        front = f"http://127.0.0.1:{ports['front'] if proxy else ports['pages']}"
        waits = f"http://127.0.0.1:{ports['front'] if proxy else ports['live']}"
        path = f"/api/games/{game.pk}/seat?wait_version={game.version}&timeout=25"
        report(front, waits + path, f"http://127.0.0.1:{ports['pages']}" + path, token, proxy is not None)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
    return 0


def report(front: str, wait_url: str, wait_on_pages: str, token: str, proxied: bool) -> None:
    # Every worker's first-use costs paid before any timing (the kernel picks the worker).
    warm = [threading.Thread(target=lambda: [get(front + "/") for _ in range(3)]) for _ in range(12)]
    for thread in warm:
        thread.start()
    for thread in warm:
        thread.join()
    baseline = time_lobby(front)
    shape = (
        "nginx (deploy/nginx/pbem.conf.template) in front"
        if proxied
        else "no nginx installed: each request sent where deploy/nginx/pbem.conf.template routes it"
    )
    print(
        f"lobby (GET /, {GETS} requests): the pages on gunicorn config.wsgi "
        f"({os.environ.get('PBEM_WEB_WORKERS', '3')} gthread workers x {os.environ.get('PBEM_WEB_THREADS', '8')} "
        f"threads), the long polls on gunicorn {' '.join(LIVE)}, {shape}:\n"
        f"  no long polls (baseline):                     {figures(baseline)}",
        flush=True,
    )
    for polls in POLLS:
        times, answers, seconds = attacked(front, wait_url, token, polls)
        verdict = "ok" if max(times) <= 1.0 else "MISSED"
        print(
            f"  {polls:3} long polls from one seat token:        {figures(times)} (within 1 s: {verdict}); "
            f"{answered(answers, seconds)}",
            flush=True,
        )
    times, answers, seconds = attacked(front, wait_on_pages, token, POLLS[0])
    print(
        f"  {POLLS[0]:3} sent to the pages' workers (the shape before): {figures(times)}; {answered(answers, seconds)}",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
