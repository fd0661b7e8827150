"""Replies by mail through the production shape (not a test): the SMTP listener
(`manage.py smtpd`) stores each reply and queues its task on Redis, and one Celery worker
(`--pool solo`, one process) processes them, as in production; this process only sends the
replies over SMTP and waits until each has reached its end state.

    .venv/bin/python -m bench.run processes

Two lines:
- the bench's tally game, notices left in the outbox (what the listener and the worker cost a
  reply alone): replies per second end to end and the worker's CPU a reply, beside the same
  replies stored and processed in this one process (bench.run's mail line, printed before it);
- a real game (issue 34): Elfenland, three players, BENCH_PROCESS_REAL_GAMES games played some
  BENCH_PROCESS_WARM_MOVES moves in by their stand-ins, each reply the awaited seat's stand-in
  move typed as a command above the quoted notice it answers. The notices each reply causes (the
  next turn notice with its board picture, the answer, the news) are composed and sent by the
  same worker (queued on commit, as in production) to a local SMTP sink, and a round ends when
  every reply is processed and every notice it caused is sent. Beside it, in the same run, bare
  `services.submit` of the very same moves in twin games (the same seeds, the same commands, in
  this process, notices left in the outbox). Every notice goes out at once
  (PBEM_NOTICE_FOLD_SECONDS=0): players by mail answer later than a notice waits to be folded,
  so each reply causes the mail it causes in production. The CPU of each process a reply is
  printed: the listener, the worker split by task (processing the replies, sending the notices)
  and the sink, and the pictures' own CPU (drawn, paletted, written). BENCH_PROCESS_PICTURES=0
  (a what-if, not production): the notices without pictures, to show what the rest of their work
  costs; =before: the pictures made as before the kept layers, to compare in the same conditions.

Needs PostgreSQL and Redis on 127.0.0.1 (BENCH_REDIS_URL, default db 11, flushed).
"""

from __future__ import annotations

import cProfile
import hashlib
import json
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
REAL_KIND = os.environ.get("BENCH_PROCESS_KIND", "elfenland")
REAL_GAMES = int(os.environ.get("BENCH_PROCESS_REAL_GAMES", "20"))
WARM_MOVES = int(os.environ.get("BENCH_PROCESS_WARM_MOVES", "40"))
REAL_PLAYERS = 3
# BENCH_PROCESS_PICTURES=0: the worker draws no picture (the notices go out without one), to show
# what the rest of the work costs; =before: the pictures made as before the kept layers (each
# drawn whole, its palette by octree of every pixel, its PNG by Pillow's zlib), to compare in the
# same conditions. Neither is production: the line then says so.
PICTURES_MODE = os.environ.get("BENCH_PROCESS_PICTURES", "1")
PICTURES = PICTURES_MODE != "0"
# The worker's CPU by task name, written by the worker itself (see worker_main) after each task.
CPU_FILE = "bench-worker-cpu.json"


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def service_env(extra: dict | None = None) -> dict:
    return {
        **os.environ,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "PYTHONPATH": str(ROOT),
        **(extra or {}),
    }


def start(args: list[str], ready: str, log: Path, extra: dict | None = None) -> subprocess.Popen:
    out = log.open("w")
    process = subprocess.Popen(args, cwd=ROOT, env=service_env(extra), stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while ready not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"{args[2:4]} did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)
    return process


def stop(*processes: subprocess.Popen) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def send_over(port: int, mails: list, connections: int) -> None:
    """The mails sent over `connections` SMTP connections at once, each its share in turn."""
    from concurrent.futures import ThreadPoolExecutor

    def one(share) -> None:
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            for sender, to, raw in share:
                smtp.sendmail(sender, [to], raw)

    with ThreadPoolExecutor(connections) as pool:
        list(pool.map(one, [mails[i::connections] for i in range(connections)]))


class Services:
    """The listener and one Celery worker (solo pool) in processes of their own, as in production,
    with `extra` in their environment; the worker records its CPU by task (worker_main)."""

    def __init__(self, extra: dict | None = None) -> None:
        self.logs = Path(os.environ.get("BENCH_LOG_DIR", "/tmp"))
        self.logs.mkdir(parents=True, exist_ok=True)
        self.cpu_file = self.logs / CPU_FILE
        self.cpu_file.unlink(missing_ok=True)
        self.port = free_port()
        python = sys.executable
        extra = {**(extra or {}), "BENCH_WORKER_CPU_FILE": str(self.cpu_file)}
        self.worker = start(
            [python, "-m", "bench.processes", "worker", "-A", "config", "worker", "--pool", "solo",
             "--concurrency", "1", "--without-heartbeat", "--without-gossip", "--without-mingle", "-l", "warning"],
            "[queues]", self.logs / "bench-worker.log", extra,
        )  # fmt: skip
        try:
            self.listener = start(
                [python, "manage.py", "smtpd", "--port", str(self.port)],
                "Listening for mail",
                self.logs / "bench-smtpd.log",
                extra,
            )
        except Exception:
            stop(self.worker)
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        stop(self.listener, self.worker)

    def wait_idle(self) -> None:
        """Until the worker has finished every task queued: the broker's queue empty and no task
        taken and not yet acknowledged (tasks are acknowledged late, after the worker recorded
        its CPU: kombu's Redis transport keeps them in "unacked" until then)."""
        import redis

        broker = redis.Redis.from_url(REDIS_URL)
        name = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
        since = [float("inf")]

        def idle() -> bool:
            # Held for 0.2 s: a message popped from the queue is put in "unacked" a moment after.
            if broker.llen(name) or broker.hlen("unacked"):
                since[0] = float("inf")
                return False
            since[0] = min(since[0], time.monotonic())
            return time.monotonic() - since[0] > 0.2

        wait_for(idle, "the worker idle", 60)

    def cpu(self) -> dict:
        """CPU seconds so far: the listener's, the worker's, and the worker's by task name."""
        try:
            tasks = json.loads(self.cpu_file.read_text())
        except (OSError, ValueError):
            tasks = {}
        return {"listener": cpu_seconds(self.listener.pid), "worker": cpu_seconds(self.worker.pid), **tasks}


def worker_main(argv: list[str]) -> None:
    """A Celery worker as `celery -A config worker …` runs it, which also writes its CPU by task
    name (process time around each task) to BENCH_WORKER_CPU_FILE after each task: how the
    worker's time splits between processing the replies and sending the notices. With
    BENCH_WORKER_PROFILE set (a file), the tasks run under cProfile, its stats kept there."""
    from celery.bin.celery import main as celery_main
    from celery.signals import task_postrun, task_prerun

    path = Path(os.environ["BENCH_WORKER_CPU_FILE"])
    spent: dict[str, float] = {}
    started: dict[str, float] = {}
    # BENCH_WORKER_PROFILE=<file>: the tasks run under cProfile (CPU time), its stats written there.
    profile_to = os.environ.get("BENCH_WORKER_PROFILE")
    profile = cProfile.Profile(time.process_time) if profile_to else None  # CPU, not the wait

    @task_prerun.connect(weak=False)
    def before(task_id=None, task=None, **_kwargs) -> None:
        if not started.get("patched"):
            if PICTURES_MODE in ("0", "before"):  # a what-if
                _what_if_pictures(PICTURES_MODE)
            _time_pictures(spent)
            started["patched"] = 1
        started[task_id] = time.process_time()
        if profile is not None:
            profile.enable()

    @task_postrun.connect(weak=False)
    def after(task_id=None, task=None, **_kwargs) -> None:
        if profile is not None:
            profile.disable()
            profile.dump_stats(profile_to)
        name = task.name.rsplit(".", 1)[-1]
        spent[name] = spent.get(name, 0.0) + time.process_time() - started.pop(task_id, time.process_time())
        spent[f"{name}:count"] = spent.get(f"{name}:count", 0) + 1
        path.with_suffix(".tmp").write_text(json.dumps(spent))
        path.with_suffix(".tmp").replace(path)

    sys.argv = ["celery", *argv]
    celery_main()


def _time_pictures(spent: dict) -> None:
    """In the worker: the CPU of each picture made (drawn, paletted and written as PNG) counted
    under "picture" (what the sending's CPU spends on them)."""
    from pbem.mail import pictures

    real = pictures._palette_png

    def timed(svg: str, zoom: float):
        started = time.process_time()
        try:
            return real(svg, zoom)
        finally:
            spent["picture"] = spent.get("picture", 0.0) + time.process_time() - started
            spent["picture:count"] = spent.get("picture:count", 0) + 1

    pictures._palette_png = timed


def _what_if_pictures(mode: str) -> None:
    """In the worker: "0", the notices without pictures; "before", the pictures made as before
    the kept layers and bands (each drawn whole, the palette by octree of every pixel, Pillow's
    PNG; each op's Pillow calls are still kept, as they are now)."""
    import io

    from PIL import Image

    from pbem.mail import pictures

    if mode == "0":
        pictures.board_png = lambda *args, **kwargs: None
        return

    def whole(svg: str, zoom: float) -> bytes | None:
        # Each drawn whole (no kept layer, no kept band), as pictures._palette_png did before them.
        try:
            image = pictures._drawn(canvas := pictures._parsed(svg, zoom), canvas.keys, range(len(canvas.ops)))
        except pictures.Unsupported:
            image = pictures._resvg_image(svg, zoom)
            if image is None:
                return None
        paletted = image.quantize(pictures.PALETTE, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        out = io.BytesIO()
        paletted.save(out, "PNG")
        return out.getvalue()

    pictures._layers.start = lambda size, keys: (None, 0, 0)
    pictures._palette_png = whole


def sink_process(port: int) -> subprocess.Popen:
    """A local SMTP server that takes every mail and keeps nothing (aiosmtpd)."""
    code = (
        "import sys\nfrom aiosmtpd.controller import Controller\n"
        "class H:\n    async def handle_DATA(self, server, session, envelope):\n        return '250 OK'\n"
        f"c = Controller(H(), hostname='127.0.0.1', port={port}, data_size_limit=0); c.start()\n"
        "print('ready', flush=True)\nsys.stdin.read(); c.stop()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdout.readline()
    return proc


def wait_for(done, what: str, seconds: float = 300) -> None:
    started = time.perf_counter()
    while not done():
        if time.perf_counter() - started > seconds:
            raise RuntimeError(f"{what} not within {seconds:.0f} s")
        time.sleep(0.005)


# --- the bench's tally game, notices left in the outbox ------------------------------------------


def run() -> str:
    import redis

    from pbem.mail import outbound
    from pbem.models import Game, InboundMessage, Notice

    redis.Redis.from_url(REDIS_URL).flushdb()
    games = [new_game(2, mailbox=f"w{n}-").pk for n in range(GAMES)]
    with Services() as services:
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
            cpu, started = services.cpu()["worker"], time.perf_counter()
            send_over(services.port, mails, CONNECTIONS)
            if round_:
                door_seconds += time.perf_counter() - started
            wanted = before + len(mails)
            wait_for(
                lambda wanted=wanted: InboundMessage.objects.exclude(status="received").count() >= wanted,
                "the worker processing the replies",
            )
            if round_:
                seconds += time.perf_counter() - started
                worker_cpu += services.cpu()["worker"] - cpu
                replies += len(mails)
        statuses = set(InboundMessage.objects.filter(channel="smtp").values_list("status", flat=True))
        assert statuses == {"applied"}, statuses
    rate = replies / seconds
    return (
        f"mail replies/s through the SMTP listener and one Celery worker (solo pool, Redis broker): "
        f"{rate:,.0f}/s (target >= 100 per worker: {'ok' if rate >= 100 else 'BELOW TARGET'}); "
        f"the worker's CPU a reply {worker_cpu / replies * 1000:.1f} ms; the listener took them at "
        f"{replies / door_seconds:,.0f}/s over {CONNECTIONS} SMTP connections at once ({replies} replies in {GAMES} "
        f"games, after one round untimed); the "
        f"processes share {os.cpu_count()} cores with PostgreSQL and this sender"
    )


# --- a real game, the notices composed and sent with their pictures -------------------------------


def _twin_games(kind: str, count: int) -> list[tuple[int, int]]:
    """`count` pairs of games of `kind` with the same secret seed (hence the same deal and dice),
    their players' addresses each game's own; both of a pair played WARM_MOVES moves in by the
    stand-ins (and on to the start of a seat's turn), the same commands (notices made on the way
    left unsent: skipped)."""
    from pbem.log import eventlog
    from pbem.models import Game, Notice
    from pbem.play import services, standins
    from pbem.registry import get_game

    spec = get_game(kind)
    field = Game._meta.get_field("seed")
    default = field.default
    pairs = []
    try:
        for g in range(count):
            seed = hashlib.sha256(f"bench-processes-{g}".encode()).hexdigest()
            field.default = lambda seed=seed: seed
            field.__dict__.pop("_get_default", None)  # Django keeps the default it made first
            pair = tuple(
                services.create_game(
                    kind,
                    [services.PlayerSpec(f"P{i}", f"{side}{g}x{i}@bench.invalid") for i in range(REAL_PLAYERS)],
                    {},
                ).pk
                for side in ("real", "bare")
            )
            for move in range(WARM_MOVES + 100):
                game = Game.objects.get(pk=pair[0])
                state = eventlog.load(game).state["game"]
                waiting = spec.waiting_for(state)
                if not waiting:
                    break
                # On past WARM_MOVES until the awaited seat has a notice at the game's version
                # (its turn just began): its first reply answers a notice that is current.
                newest = Notice.objects.filter(game=game, seat__number=waiting[0]).order_by("-version").first()
                if move >= WARM_MOVES and newest is not None and newest.version == game.version:
                    break
                command = standins.choose(spec, state, waiting[0])
                for game_id in pair:
                    services.submit(game_id, waiting[0], command=command)
            pairs.append(pair)
    finally:
        field.default = default
        field.__dict__.pop("_get_default", None)
    Notice.objects.filter(status="pending").update(status="skipped")
    return pairs


PICTURES_LINE = {
    "0": "WITHOUT PICTURES (BENCH_PROCESS_PICTURES=0)",
    "before": "with their pictures MADE AS BEFORE the kept layers (BENCH_PROCESS_PICTURES=before)",
}


def real_game_run() -> str:
    import redis
    from django.db.models import Count

    from pbem.log import eventlog
    from pbem.mail import outbound
    from pbem.models import Game, InboundMessage, Notice
    from pbem.play import services, standins
    from pbem.registry import get_game

    redis.Redis.from_url(REDIS_URL).flushdb()
    spec = get_game(REAL_KIND)
    pairs = _twin_games(REAL_KIND, REAL_GAMES)
    mail_games = [m for m, _b in pairs]
    sink_port = free_port()
    sink = sink_process(sink_port)
    extra = {
        "PBEM_NOTICE_DISPATCH": "on_commit",
        "PBEM_NOTICE_FOLD_SECONDS": "0",
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(sink_port),
        "EMAIL_USE_TLS": "0",
        "EMAIL_USE_SSL": "0",
        "EMAIL_HOST_USER": "",
        "EMAIL_HOST_PASSWORD": "",
        "PBEM_MAIL_COMMANDS_PER_10_MINUTES": "1000000",
        "PBEM_MAIL_ANSWERS_PER_HOUR": "1000000",
    }
    timed = {"seconds": 0.0, "bare": 0.0, "bare_cpu": 0.0, "replies": 0, "sent": 0}
    cpu_spent: dict[str, float] = {}
    serial = 0
    load_before = os.getloadavg()
    try:
        with Services(extra) as procs:
            # Round 0 is not timed: the worker consuming, connections open, first-use costs paid.
            for round_ in range(ROUNDS + 1):
                mails, moves = [], []
                for mail_id, bare_id in pairs:
                    state = eventlog.load(Game.objects.get(pk=mail_id)).state["game"]
                    seat = spec.waiting_for(state)[0]
                    command = standins.choose(spec, state, seat)
                    # The newest notice the seat holds (a turn notice, or the answer to its last
                    # move when it moves again): the one its player answers.
                    notice = (
                        Notice.objects.select_related("game", "seat")
                        .filter(game_id=mail_id, seat__number=seat)
                        .order_by("-version", "-id")
                        .first()
                    )
                    serial += 1
                    to = str(outbound.make_message(notice).message()["Reply-To"])
                    raw = reply_to(notice, spec.describe(command), serial)
                    mails.append((notice.seat.email, to, raw.replace(b"\n", b"\r\n")))
                    moves.append((bare_id, seat, command))
                before = InboundMessage.objects.filter(game_id__in=mail_games).exclude(status="received").count()
                sent_before = Notice.objects.filter(game_id__in=mail_games, status="sent").count()
                cpu_at = {**procs.cpu(), "sink": cpu_seconds(sink.pid)}
                started = time.perf_counter()
                send_over(procs.port, mails, CONNECTIONS)

                wanted = before + len(mails)

                def all_done(wanted=wanted) -> bool:
                    processed = InboundMessage.objects.filter(game_id__in=mail_games).exclude(status="received")
                    return (
                        processed.count() >= wanted
                        and not Notice.objects.filter(
                            game_id__in=mail_games, status__in=("pending", "sending")
                        ).exists()
                    )

                wait_for(all_done, "the replies processed and their notices sent")
                took = time.perf_counter() - started
                procs.wait_idle()  # the last task's CPU is counted in its own round
                cpu_now = {**procs.cpu(), "sink": cpu_seconds(sink.pid)}
                bare_started, bare_cpu = time.perf_counter(), time.process_time()
                for bare_id, seat, command in moves:
                    services.submit(bare_id, seat, command=command)
                bare = time.perf_counter() - bare_started
                bare_cpu = time.process_time() - bare_cpu
                # The twins' notices stay unsent (this process dispatches none): not for the
                # worker, whose sending task for several games takes every notice due.
                Notice.objects.filter(game_id__in=[b for _m, b in pairs], status="pending").update(status="skipped")
                if round_:
                    timed["seconds"] += took
                    timed["bare"] += bare
                    timed["bare_cpu"] += bare_cpu
                    timed["replies"] += len(mails)
                    timed["sent"] += Notice.objects.filter(game_id__in=mail_games, status="sent").count() - sent_before
                    for key, value in cpu_now.items():
                        cpu_spent[key] = cpu_spent.get(key, 0.0) + value - cpu_at.get(key, 0.0)
    finally:
        sink.communicate("")
    load_after = os.getloadavg()
    statuses = dict(InboundMessage.objects.filter(game_id__in=mail_games).values_list("status").annotate(n=Count("id")))
    assert set(statuses) == {"applied"}, statuses
    versions = dict(Game.objects.filter(pk__in=[g for pair in pairs for g in pair]).values_list("pk", "version"))
    assert all(versions[m] == versions[b] for m, b in pairs), "a mail game and its bare twin parted ways"
    assert not Notice.objects.filter(game_id__in=[b for _m, b in pairs], status="sent").exists(), "twins' mail sent"
    failed = Notice.objects.filter(game_id__in=mail_games).exclude(status__in=("sent", "skipped")).count()
    assert not failed, f"{failed} notices not sent"
    n = timed["replies"]
    rate, bare_rate = n / timed["seconds"], n / timed["bare"]
    ratio = rate / bare_rate
    timed["load"] = (load_before, load_after)
    processing = cpu_spent.get("process_inbound", 0.0) + cpu_spent.get("process_inbound_batch", 0.0)
    sending_cpu = cpu_spent.get("send_pending_notices", 0.0)
    pictures_made = cpu_spent.get("picture:count", 0)
    tasks = sum(v for k, v in cpu_spent.items() if k.endswith(":count") and not k.startswith("picture"))
    return _real_line(n, rate, bare_rate, ratio, timed, cpu_spent, processing, sending_cpu, pictures_made, tasks, pairs)


def ceiling_clause(bare_wall: float, bare_cpu: float, sending_cpu: float, picture_cpu: float) -> str:
    """The most the ratio can be with one worker, from this run's own figures (seconds a reply).

    One worker does a reply's work in turn: at least a bare submit's CPU (the move applied), then
    the notices it causes. Were the listener, Celery and all the rest of the reply's processing
    free, a reply would still take `bare_cpu + sending_cpu` of the worker's time, so the rate is
    at most 1 / that, and the ratio (rate / bare rate) at most `bare_wall / (bare_cpu + sending_cpu)`;
    with only the pictures' drawing counted, `bare_wall / (bare_cpu + picture_cpu)`."""
    if not sending_cpu:
        return "no ceiling: no notice was sent"
    return (
        f"with one worker the ratio can be at most {bare_wall / (bare_cpu + sending_cpu):.3f} even were the listener, "
        f"Celery and the reply's processing free (a bare submit's {bare_wall * 1000:.1f} ms against its CPU "
        f"{bare_cpu * 1000:.1f} ms + the notices' {sending_cpu * 1000:.1f} ms), and at most "
        f"{bare_wall / (bare_cpu + picture_cpu):.3f} were everything but the pictures' drawing "
        f"({picture_cpu * 1000:.1f} ms a reply) free"
    )


def _real_line(
    n, rate, bare_rate, ratio, timed, cpu_spent, processing, sending_cpu, pictures_made, tasks, pairs
) -> str:
    def ms(key: str) -> str:
        return f"{cpu_spent.get(key, 0.0) / n * 1000:.1f}"

    ceiling = ceiling_clause(
        timed["bare"] / n, timed["bare_cpu"] / n, sending_cpu / n, cpu_spent.get("picture", 0.0) / n
    )
    load_before, load_after = timed["load"]
    return (
        f"{REAL_KIND} replies through the SMTP listener and one Celery worker, the notices they cause composed and "
        f"sent {PICTURES_LINE.get(PICTURES_MODE, 'with their pictures')} to a local "
        f"SMTP sink: {rate:,.1f}/s end to end beside bare services.submit of the "
        f"same moves {bare_rate:,.0f}/s ({timed['bare_cpu'] / n * 1000:.1f} ms of CPU a move), ratio {ratio:.3f} "
        f"(target >= 0.5: {'ok' if ratio >= 0.5 else 'BELOW TARGET'}); "
        f"{timed['sent'] / n:.2f} notices sent a reply; CPU a reply: the worker {ms('worker')} ms (processing the "
        f"reply {processing / n * 1000:.1f} ms, sending its notices {sending_cpu / n * 1000:.1f} ms, Celery's own "
        f"{(cpu_spent.get('worker', 0.0) - processing - sending_cpu) / n * 1000:.1f} ms; {tasks / n:.2f} tasks a reply, "
        f"{cpu_spent.get('send_pending_notices:count', 0) / n:.2f} of them sending; {pictures_made / n:.2f} pictures "
        f"made a reply, {cpu_spent.get('picture', 0.0) / max(1, pictures_made) * 1000:.1f} ms each), the listener "
        f"{ms('listener')} ms, the sink {ms('sink')} ms ({n} replies in {len(pairs)} games of {REAL_PLAYERS} players "
        f"{WARM_MOVES} moves in, {ROUNDS} rounds after one untimed; load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after, {os.cpu_count()} cores); {ceiling}"
    )


if __name__ == "__main__" and sys.argv[1:2] == ["worker"]:
    worker_main(sys.argv[2:])
