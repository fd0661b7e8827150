"""Mail at scale (issue 20): each figure beside its baseline from the same run.

    .venv/bin/python -m bench.run scale      # only these (the database made anew as for the rest)

Sizes (environment; the defaults are the issue's):
    BENCH_SWEEP_GAMES=100000   games on the table for the deadline sweep (cloned with bulk inserts)
    BENCH_SWEEP_DUE=1000       of them due at once, for the second sweep
    BENCH_TIMEOUT_SEATS=10000  seats timed out in one run of the deadline timer, by one worker
    BENCH_TIMEOUT_SAMPLE=1000  seats timed out by one sweep alone, by groups and one row at a time
    BENCH_TIMEOUT_GAME=elfenland  the game whose mid-game positions are cloned for the timeouts
    BENCH_TIMEOUT_STANDINS=1   half the positions at a seat's second miss (the stand-in seated and
                               playing); 0: every seat's first miss (a pass)
    BENCH_PROFILE=timeout      cProfile of the one-worker timeout run, printed
    BENCH_NOTICES=1000         notices sent through the sender, and by bare smtplib
    BENCH_PIPE_RUNS=10         messages through each way of the pipe door
    BENCH_PICTURE_GAMES=20     Elven Castle games (3 players, mid-game) whose notices go out with pictures
                               (the picture part also times each of the five games' pictures, start,
                               middle and end, beside the old way: resvg shrunk in tries)
    BENCH_PROFILE=resend       cProfile of one of the picture part's sender runs ("first drawing",
                               "resend", "resend, PIPELINING", "no pictures", "no pictures,
                               PIPELINING", "no pictures, nothing kept"), printed (the
                               PIPELINING runs: to a sink that says it, as Postfix does)
    BENCH_PARTS=notice,picture,page,served,pipe,sweep,timeout   which parts to run (all by default)

Each notices line also gives the CPU a message of the sending process and of the SMTP sink,
beside bare smtplib's, and the load average: on a busy machine the wall-clock ratio follows them.

Needs the database set up by bench.run (Django configured, migrated).
"""

from __future__ import annotations

import copy
import cProfile
import hashlib
import os
import pstats
import smtplib
import statistics
import subprocess
import sys
import threading
import time
from datetime import timedelta

from bench.common import REDIS_URL, ROOT, free_port

SWEEP_GAMES = int(os.environ.get("BENCH_SWEEP_GAMES", "100000"))
SWEEP_DUE = int(os.environ.get("BENCH_SWEEP_DUE", "1000"))
TIMEOUT_SEATS = int(os.environ.get("BENCH_TIMEOUT_SEATS", "10000"))
TIMEOUT_SAMPLE = int(os.environ.get("BENCH_TIMEOUT_SAMPLE", "1000"))
NOTICES = int(os.environ.get("BENCH_NOTICES", "1000"))
PIPE_RUNS = int(os.environ.get("BENCH_PIPE_RUNS", "10"))
PICTURE_GAMES = int(os.environ.get("BENCH_PICTURE_GAMES", "20"))


# A Redis database of the bench's own for the parts that queue tasks (flushed by each).
def _template_game():
    """A running one-seat Tally game whose turn notice went out: what every clone copies."""
    from pbem.models import Notice
    from pbem.play import services

    game = services.create_game("tally", [services.PlayerSpec("P0", "p0@bench.invalid")], {})
    Notice.objects.filter(game=game).update(status="sent")
    return game


def _columns(table: str, without: tuple[str, ...]) -> list[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
            [table],
        )
        return [c for (c,) in cursor.fetchall() if c not in without]


def clone_games(template, count: int, deadline_iso: str, seats: tuple[int, ...] = (0,)) -> list[int]:
    """`count` copies of the template game (row, seats, log, snapshots) with one bulk insert per
    table; each copy's `seats` have `deadline_iso` as their deadline (the trigger writes the timer
    rows). The copies' logs keep the template's chain (hashed for its id: a copy is not verified)."""
    import json

    from django.db import connection, transaction

    games = _columns("pbem_game", ("id", "deadlines"))
    seat_columns = _columns("pbem_seat", ("id", "game_id"))
    events = _columns("pbem_event", ("id", "game_id"))
    snapshots = _columns("pbem_snapshot", ("id", "game_id"))
    deadlines = json.dumps({str(seat): deadline_iso for seat in seats})
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO pbem_game ({', '.join(games)}, deadlines) SELECT {', '.join(games)}, "
            f"%s::jsonb FROM pbem_game, generate_series(1, %s) WHERE id = %s RETURNING id",
            [deadlines, count, template.pk],
        )
        ids = [i for (i,) in cursor.fetchall()]
        cursor.execute("CREATE TEMP TABLE IF NOT EXISTS bench_clones (id bigint) ON COMMIT DROP")
        cursor.execute("INSERT INTO bench_clones SELECT unnest(%s::bigint[])", [ids])
        for table, columns in (("pbem_seat", seat_columns), ("pbem_event", events), ("pbem_snapshot", snapshots)):
            cursor.execute(
                f"INSERT INTO {table} (game_id, {', '.join(columns)}) SELECT c.id, "
                f"{', '.join('s.' + c for c in columns)} FROM bench_clones c, {table} s WHERE s.game_id = %s",
                [template.pk],
            )
    return ids


def old_sweep_scan() -> float:
    """The sweep before timer rows: every running game's deadlines JSON read and parsed."""
    from datetime import datetime

    from pbem.models import Game, GameStatus

    started = time.perf_counter()
    now = datetime.now().astimezone()
    for _game_id, deadlines, _period in (
        Game.objects.filter(status=GameStatus.RUNNING)
        .exclude(deadlines={})
        .values_list("id", "deadlines", "deadline_seconds")
        .iterator()
    ):
        for _seat, iso in (deadlines or {}).items():
            datetime.fromisoformat(iso) <= now  # noqa: B015 - the comparison is the work measured
    return time.perf_counter() - started


def sweep_lines() -> list[str]:
    from django.db import connection
    from django.utils import timezone

    from pbem.models import DeadlineTimer
    from pbem.play import deadlines

    lines = []
    template = _template_game()
    far = (timezone.now() + timedelta(days=30)).isoformat()
    started = time.perf_counter()
    clone_games(template, SWEEP_GAMES - SWEEP_DUE, far)
    made = time.perf_counter() - started
    now = timezone.now()
    deadlines.run_deadlines(now)  # the fresh rows' first look: on to their first reminder mark
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE pbem_deadlinetimer")
    quiet = []
    for _ in range(20):
        t0 = time.perf_counter()
        counts = deadlines.run_deadlines(now)
        quiet.append(time.perf_counter() - t0)
    assert not any(counts.values()), counts
    scan = min(old_sweep_scan() for _ in range(3))
    rows = DeadlineTimer.objects.count()
    q = statistics.median(quiet) * 1000
    lines.append(
        f"deadline sweep, {SWEEP_GAMES:,} running games ({rows:,} timer rows), nothing due: "
        f"{q:.2f} ms (median of 20); the old full scan of the games' deadlines {scan * 1000:.0f} ms "
        f"(target < 10 ms: {'ok' if q < 10 else 'BELOW TARGET'}; clones made in {made:.1f} s)"
    )
    past = (timezone.now() - timedelta(minutes=1)).isoformat()
    clone_games(template, SWEEP_DUE, past)
    t0 = time.perf_counter()
    claimed = deadlines.claim_due(timezone.now(), "bench-probe")
    claim = time.perf_counter() - t0
    DeadlineTimer.objects.filter(lease="bench-probe").update(lease="", due_at=timezone.now() - timedelta(minutes=1))
    t0 = time.perf_counter()
    counts = deadlines.run_deadlines(timezone.now())
    swept = time.perf_counter() - t0
    lines.append(
        f"deadline sweep, {SWEEP_GAMES:,} games with {SWEEP_DUE:,} due: finding them {claim * 1000:.1f} ms "
        f"({len(claimed):,} claimed), the whole run with their timeouts {swept:.2f} s "
        f"({counts['timed_out']:,} timed out, {swept / max(1, counts['timed_out']) * 1000:.1f} ms each)"
    )
    return lines


TIMEOUT_GAME = os.environ.get("BENCH_TIMEOUT_GAME", "elfenland")
# 1: half the positions at a seat's second miss (its stand-in seated, and playing); 0: none.
TIMEOUT_STANDINS = os.environ.get("BENCH_TIMEOUT_STANDINS", "1") != "0"


def _timeout_templates(kind: str) -> list[tuple[object, tuple[int, ...]]]:
    """Mid-game positions of a real game, each (its game, the seats it awaits): one per table size
    and two points of a game (about a third and two thirds of the length of one played in memory
    by the stand-in), played there by the game's stand-in through services.submit. In half of them
    the awaited seat has just missed a deadline (timed out for real, then the others played until
    it is awaited again), so its next miss, the one measured, seats the stand-in (standin_after 2),
    which moves at once; in the others the seat passes as the rules say (its first miss). Every
    notice is marked sent (a seat whose turn notice has not gone out is not timed out)."""
    from django.utils import timezone

    from games.testing import Table
    from pbem.log import eventlog
    from pbem.models import Game, Notice
    from pbem.play import deadlines, services
    from pbem.registry import get_game

    spec = get_game(kind)
    seed = Game._meta.get_field("seed")

    def state_of(game_id: int):
        return eventlog.load(Game.objects.get(pk=game_id)).state["game"]

    def standin_move(game_id: int, seat: int, state, serial: str) -> None:
        command = spec.standin(spec.view(state, seat), spec.legal(state, seat))
        services.submit(game_id, seat, command=command, causation_id=f"tpl-{game_id}-{serial}")

    templates = []
    for i, players in enumerate(range(spec.min_players, spec.max_players + 1)):
        table, length = Table(spec, players, seed=b"bench-timeouts-%d" % players), 0
        while waiting := spec.waiting_for(table.state):
            table.act(waiting[0], spec.standin(spec.view(table.state, waiting[0]), spec.legal(table.state, waiting[0])))
            length += 1
        for j, share in enumerate((0.35, 0.7)):
            people = [services.PlayerSpec(f"T{i}x{j}x{k}", f"to{i}x{j}x{k}@bench.invalid") for k in range(players)]
            # A seed of its own for each position, the same in every run: the same positions.
            seed.__dict__["_get_default"] = lambda i=i, j=j: hashlib.sha256(
                b"bench-timeouts-%d-%d" % (i, j)
            ).hexdigest()
            try:
                game = services.create_game(kind, people, {})
            finally:
                del seed.__dict__["_get_default"]
            for move in range(int(length * share)):
                state = state_of(game.pk)
                waiting = spec.waiting_for(state)
                if not waiting:
                    break
                standin_move(game.pk, waiting[0], state, str(move))
            state = state_of(game.pk)
            if TIMEOUT_STANDINS and (i + j) % 2:
                seat = spec.waiting_for(state)[0]
                Notice.objects.filter(game=game).update(status="sent")
                row = Game.objects.get(pk=game.pk)
                row.deadlines = {**row.deadlines, str(seat): (timezone.now() - timedelta(minutes=1)).isoformat()}
                row.save(update_fields=["deadlines"])
                eventlog.cache_clear()  # the runner's cached row still has the deadline ahead
                assert deadlines.timeout_seat(game.pk, seat) == "passed"
                move = 0
                while (waiting := spec.waiting_for(state := state_of(game.pk))) and seat not in waiting:
                    standin_move(game.pk, waiting[0], state, f"after-{move}")
                    move += 1
            Notice.objects.filter(game=game).update(status="sent")
            game.refresh_from_db()
            templates.append((game, tuple(spec.waiting_for(state_of(game.pk)))))
    return templates


def _clone_due(templates, seats: int) -> list[int]:
    """Copies of the templates, about `seats` due seats in all (each template's share), every
    awaited seat of each copy a minute past its deadline; only they are due."""
    from django.utils import timezone

    from pbem.log import eventlog
    from pbem.models import DeadlineTimer

    DeadlineTimer.objects.update(due_at=None)
    past = (timezone.now() - timedelta(minutes=1)).isoformat()
    ids = []
    for n, (template, awaited) in enumerate(templates):
        share = seats // len(templates) + (n < seats % len(templates))
        ids += clone_games(template, max(1, share // len(awaited)), past, awaited)
    _analyze_clones()
    eventlog.cache_clear()  # cold, as a worker finds them
    return ids


def _analyze_clones() -> None:
    """The cloned tables' statistics as autovacuum leaves them within its first minute (it
    analyses a table once a tenth of its rows is new). Cloned in a second and measured at once,
    the tables carry the statistics of their few template rows, and the planner reads the clones
    as if there were a handful: in `bench.run wire` (no sweep of 100,000 games before, whose
    ANALYZE covered it in `bench.run scale`) the 10,000 timeouts took 83 s, the database server
    45 s of CPU of it, against 19-26 s before."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("pbem_game", "pbem_seat", "pbem_event", "pbem_snapshot", "pbem_deadlinetimer"):
            cursor.execute(f"ANALYZE {table}")


def _what_happened(since) -> str:
    """The timeouts' events since `since`: seats passed, stand-ins seated, the stand-ins' moves."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FILTER (WHERE type = 'pbem.TimedOut' AND NOT payload ? 'standin'), "
            "count(*) FILTER (WHERE type = 'pbem.StandInSeated'), "
            "count(DISTINCT (game_id, seq)) FILTER (WHERE actor_kind = 'standin' AND type NOT LIKE 'pbem.%%') "
            "FROM pbem_event WHERE created_at >= %s",
            [since],
        )
        passed, seated, moves = cursor.fetchone()
    return f"{passed:,} passed, {seated:,} stand-ins seated, their moves {moves:,} events"


def timeout_lines() -> list[str]:
    """10,000 due seats of real games (TIMEOUT_GAME, mid-game positions cloned) timed out by ONE
    worker: the deadline timer's run in this one process, with no helper sweep (helpers=0: a lone
    worker would run the helpers it queues after its own run, one after another, so they add no
    hands), and the stand-ins' moves the timeouts cause played in the same process (eager tasks),
    as that worker would play them. Beside it: the same timeouts one row at a time (the path
    before groups) on a sample of the same clones."""
    from celery import current_app
    from django.utils import timezone

    from pbem.play import deadlines

    t0 = time.perf_counter()
    templates = _timeout_templates(TIMEOUT_GAME)
    made = time.perf_counter() - t0
    # A worker that has run before: its modules imported, its statements prepared.
    current_app.loader.import_default_modules()
    _clone_due(templates, len(templates))
    deadlines.run_deadlines(helpers=0)
    # The path before groups first, on a sample of the same games: its time a seat is the baseline.
    alone_line, alone_ms = _timeouts_alone_line(templates)
    _clone_due(templates, TIMEOUT_SEATS)
    profile = cProfile.Profile() if os.environ.get("BENCH_PROFILE") == "timeout" else None
    since = timezone.now()
    server = _server_cpu()
    load = os.getloadavg()[0]
    t0, cpu = time.perf_counter(), time.process_time()
    if profile:
        profile.enable()
    counts = deadlines.run_deadlines(helpers=0)
    took, cpu = time.perf_counter() - t0, time.process_time() - cpu
    server = _server_cpu() - server if server is not None else None
    if profile:
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(45)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(60)
    done = counts["timed_out"]
    beat = float(os.environ.get("PBEM_DEADLINES_EVERY", "60"))
    sizes = sorted({len(t.seats.all()) for t, _ in templates})
    served = f", its database connection's server process {server:.1f} s" if server is not None else ""
    return [
        f"timeouts, real games ({TIMEOUT_GAME}, {len(templates)} mid-game positions at {sizes[0]}-{sizes[-1]} "
        f"players, cloned; made in {made:.0f} s): {done:,} due seats timed out by one worker (one process, no "
        f"helper sweeps, the stand-ins' moves in it too) in {took:.1f} s, {took / max(1, done) * 1000:.2f} ms a "
        f"seat; one row at a time (the path before groups, same games) {alone_ms:.2f} ms a seat, "
        f"{alone_ms * done / 1000:.0f} s for as many; half a beat is {beat / 2:.0f} s "
        f"(target < half a beat: {'ok' if took < beat / 2 else 'BELOW TARGET'}); CPU: the worker "
        f"{cpu:.1f} s{served}; load average {load:.1f} at the start ({_what_happened(since)})",
        alone_line,
        _timeouts_dispatch_line(templates),
    ]


def _server_cpu() -> float | None:
    """CPU seconds of this connection's PostgreSQL server process so far (a local server only)."""
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            (pid,) = cursor.fetchone()
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None


def _timeouts_dispatch_line(templates) -> str:
    """One sweep in this process with the notices dispatched as in production (a task queued on
    a Redis broker once each group commits) beside the same sweep dispatching nothing, in
    alternating rounds on fresh clones; in both the stand-ins' moves are queued to the broker as
    tasks (nothing consumes them here)."""
    import redis
    from celery import current_app
    from django.conf import settings

    from pbem.play import deadlines

    url = REDIS_URL
    queue = redis.Redis.from_url(url)
    conf = current_app.conf
    name = conf.task_default_queue or "celery"
    saved = (conf.broker_url, conf.task_always_eager, settings.PBEM_NOTICE_DISPATCH)
    per_seat: dict[str, list[float]] = {"none": [], "on_commit": []}
    tasks: dict[str, list[int]] = {"none": [], "on_commit": []}

    def pools_anew() -> None:
        # The app keeps the connection pools it made (for the memory broker, by the eager tasks
        # before), and kombu its producer pools: a broker set now is used only by pools made after.
        from kombu import pools

        pools.reset()
        current_app._pool = current_app.amqp._producer_pool = None

    try:
        queue.flushdb()
        for mode in ("none", "on_commit") * 2:
            _clone_due(templates, TIMEOUT_SAMPLE)
            conf.broker_url, conf.task_always_eager = url, False
            pools_anew()
            settings.PBEM_NOTICE_DISPATCH = mode
            before = queue.llen(name)
            t0 = time.perf_counter()
            done = deadlines.run_deadlines(helpers=0)["timed_out"]
            per_seat[mode].append((time.perf_counter() - t0) / max(1, done) * 1000)
            for thread in threading.enumerate():  # a publish that outlived its wait (a loaded machine)
                if thread.name == "pbem-publish":
                    thread.join(10)
            tasks[mode].append(queue.llen(name) - before)
            conf.broker_url, conf.task_always_eager, settings.PBEM_NOTICE_DISPATCH = saved
            pools_anew()
    finally:
        conf.broker_url, conf.task_always_eager, settings.PBEM_NOTICE_DISPATCH = saved
        pools_anew()
        queue.flushdb()
    return (
        f"timeouts, one sweep, tasks queued to a Redis broker and not run ({TIMEOUT_SAMPLE:,} seats, 2 alternating "
        f"rounds): notices dispatched {statistics.median(per_seat['on_commit']):.2f} ms a seat "
        f"({statistics.median(tasks['on_commit']):,.0f} tasks a round: the notices' one a group of {deadlines.GROUP}, "
        f"a stand-in's moves one a game); dispatching nothing {statistics.median(per_seat['none']):.2f} ms a seat "
        f"({statistics.median(tasks['none']):,.0f} tasks, the stand-ins')"
    )


def _timeouts_alone_line(templates) -> tuple[str, float]:
    """One sweep in this process: the timer's run (a group of games at a time) beside the same
    timeouts handled one row at a time as the sweep did before groups (deadlines._handle_alone:
    timeout_seat, a cold load and an append of its own per seat), each on its own fresh clones,
    in alternating rounds; the stand-ins' moves included in both."""
    import secrets

    from django.utils import timezone

    from pbem.play import deadlines

    grouped, alone = [], []
    for _round in range(2):
        _clone_due(templates, TIMEOUT_SAMPLE)
        t0 = time.perf_counter()
        counts = deadlines.run_deadlines(helpers=0)
        grouped.append((time.perf_counter() - t0) / max(1, counts["timed_out"]))
        _clone_due(templates, TIMEOUT_SAMPLE)
        t0 = time.perf_counter()
        now, lease, one = timezone.now(), secrets.token_hex(8), 0
        while rows := deadlines.claim_due(now, lease, deadlines.CHUNK):
            one += sum(deadlines._handle_alone(row, lease, now) == "timed_out" for row in rows)
        alone.append((time.perf_counter() - t0) / max(1, one))
    g, a = statistics.median(grouped) * 1000, statistics.median(alone) * 1000
    return (
        f"timeouts, the same games, one sweep ({TIMEOUT_SAMPLE:,} seats, 2 alternating rounds): {g:.2f} ms a seat "
        f"by groups of {deadlines.GROUP} games; {a:.2f} ms a seat one row at a time (the path before groups), "
        f"{a / g:.1f}x"
    ), a


# --- notices ---------------------------------------------------------------------------------


def _sink_process(port: int, pipelining: bool = False) -> subprocess.Popen:
    """An SMTP sink (aiosmtpd) in a process of its own; `pipelining`: it says PIPELINING in its
    EHLO answer (RFC 2920, as Postfix does; aiosmtpd reads pipelined commands in order either way)."""
    ehlo = (
        "    async def handle_EHLO(self, server, session, envelope, hostname, responses):\n"
        "        session.host_name = hostname\n        return [*responses[:-1], '250-PIPELINING', responses[-1]]\n"
        if pipelining
        else ""
    )
    code = (
        "import asyncio, sys, time\nfrom aiosmtpd.controller import Controller\n"
        "class H:\n    async def handle_DATA(self, server, session, envelope):\n        return '250 OK'\n"
        + ehlo
        + f"c = Controller(H(), hostname='127.0.0.1', port={port}); c.start(); print('ready', flush=True)\n"
        "sys.stdin.read(); c.stop()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdout.readline()
    return proc


def _cpu_of(pid: int) -> float:
    """CPU seconds (user and system) a process has used so far (Linux: /proc)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Cpu:
    """CPU ms a message of this process and of the sink over a `with` block."""

    def __init__(self, sink: subprocess.Popen) -> None:
        self.sink = sink
        self.mine = self.theirs = 0.0

    def __enter__(self):
        self.t0, self.s0 = time.process_time(), _cpu_of(self.sink.pid)
        return self

    def __exit__(self, *exc):
        self.mine, self.theirs = time.process_time() - self.t0, _cpu_of(self.sink.pid) - self.s0

    def per(self, n: int) -> str:
        return f"CPU {self.mine / n * 1000:.2f} ms a message here, the sink's {self.theirs / n * 1000:.2f}"


def notice_lines() -> list[str]:
    from django.conf import settings

    from pbem.log import eventlog
    from pbem.mail import outbound, sending
    from pbem.models import Notice
    from pbem.play import services

    Notice.objects.filter(status="pending").update(status="skipped")
    for i in range(NOTICES // 2):
        services.create_game(
            "tally",
            [
                services.PlayerSpec(f"P{i}a", f"a{i}@bench.invalid"),
                services.PlayerSpec(f"P{i}b", f"b{i}@bench.invalid"),
            ],
            {},
        )
    pending = list(Notice.objects.filter(status="pending").select_related("game", "seat").order_by("id"))
    port = free_port()
    sink = _sink_process(port)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", port, False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    try:
        t0 = time.perf_counter()
        alone = [outbound.make_message(n) for n in pending[:100]]  # each reading the log itself
        render = (time.perf_counter() - t0) / len(alone)
        # As the sender composes them: the batch's reads of the log shared (outbound.prefetch).
        t0 = time.perf_counter()
        with eventlog.shared_loads():
            outbound.prefetch(pending)
            messages = [outbound.make_message(n) for n in pending]
        compose = (time.perf_counter() - t0) / len(messages)
        t0 = time.perf_counter()
        wire = [outbound.wire_bytes(m) for m in messages]
        quick = (time.perf_counter() - t0) / len(messages)
        t0 = time.perf_counter()
        raw = [(m.from_email, m.recipients(), m.message().as_bytes(linesep="\r\n")) for m in messages]
        django_bytes = (time.perf_counter() - t0) / len(messages)
        assert sum(w is not None for w in wire) == len(wire), "every bench notice has its quick bytes"
        t0 = time.perf_counter()
        with _Cpu(sink) as bare_cpu, smtplib.SMTP("127.0.0.1", port) as client:
            for sender, to, data in raw:
                client.sendmail(sender, to, data)
        bare = len(raw) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        for sender, to, data in raw[:200]:
            with smtplib.SMTP("127.0.0.1", port) as client:
                client.sendmail(sender, to, data)
        per_conn = min(200, len(raw)) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        with _Cpu(sink) as sender_cpu:
            counts = sending.send_pending(None)
            while Notice.objects.filter(status="pending").exists():
                more = sending.send_pending(None)
                counts = {k: counts.get(k, 0) + more.get(k, 0) for k in set(counts) | set(more)}
        took = time.perf_counter() - t0
    finally:
        sink.communicate("")
    sent = counts.get("sent", 0)
    worker = sent / took
    ratio = worker / bare
    return [
        f"notices: the sender (sending.send_pending, the worker's task, one process) {worker:,.0f}/s "
        f"({sent:,} sent in batches of {sending.BATCH}); bare smtplib over one connection {bare:,.0f}/s, "
        f"one connection per message {per_conn:,.0f}/s; ratio {ratio:.2f} "
        f"(target >= 0.70: {'ok' if ratio >= 0.7 else 'BELOW TARGET'}; load average "
        f"{os.getloadavg()[0]:.1f}); the sender {sender_cpu.per(sent)}; bare {bare_cpu.per(len(raw))}; per notice: the sender "
        f"{1000 / worker:.2f} ms all in, bare smtplib {1000 / bare:.2f} ms; composing it in a batch "
        f"{compose * 1000:.2f} ms (alone, reading the log itself: {render * 1000:.2f} ms), its bytes "
        f"{quick * 1000:.2f} ms (through Django's MIME objects: {django_bytes * 1000:.2f} ms)"
    ]


def _mid_games(kind: str, games: int, players: int = 3) -> list[int]:
    """`games` games of `kind` played by the game's stand-in through services.submit to half
    the length of one played in memory, every seat asking for pictures in its news too."""
    from games.testing import Table
    from pbem.log import eventlog
    from pbem.models import Game, Notice, Seat
    from pbem.play import services
    from pbem.registry import get_game

    spec = get_game(kind)
    table, length = Table(spec, players, seed=b"bench-pictures"), 0  # the game's length, in memory
    while waiting := spec.waiting_for(table.state):
        table.act(waiting[0], spec.standin(spec.view(table.state, waiting[0]), spec.legal(table.state, waiting[0])))
        length += 1
    half, ids = length // 2, []
    for g in range(games):
        people = [services.PlayerSpec(f"P{g}x{i}", f"pic{g}x{i}@bench.invalid") for i in range(players)]
        game = services.create_game(kind, people, {})
        Seat.objects.filter(game=game).update(news_pictures=True)
        moves = 0
        while True:
            state = eventlog.load(Game.objects.get(pk=game.pk)).state["game"]
            waiting = spec.waiting_for(state)
            if not waiting or moves >= half:
                break
            seat = waiting[0]
            command = spec.standin(spec.view(state, seat), spec.legal(state, seat))
            services.submit(game.pk, seat, command=command, causation_id=f"pic-{game.pk}-{moves}")
            moves += 1
        ids.append(game.pk)
    Notice.objects.filter(status="pending").update(status="skipped")
    return ids


def _old_rasterise(svg: str, budget: int) -> bytes | None:
    """The pictures as they were made before issue 34's drawing (kept here to be measured beside
    it): resvg at zoom 1.0, its RGBA PNG decoded, a 64-colour palette, written with Pillow's
    `optimize`, and drawn again smaller (down to 0.45) while over the budget."""
    import io
    import math

    import resvg_py
    from PIL import Image

    zoom, tried = 1.0, []
    for _ in range(4):
        rgba = bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff"))
        with Image.open(io.BytesIO(rgba)) as image:
            paletted = image.convert("RGB").quantize(64, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        out = io.BytesIO()
        paletted.save(out, "PNG", optimize=True)
        png = out.getvalue()
        if len(png) <= budget:
            return png
        tried.append((zoom, len(png)))
        if zoom <= 0.45:
            return None
        power = 2.0
        if len(tried) >= 2:
            (z0, n0), (z1, n1) = tried[-2:]
            power = min(2.0, max(1.0, math.log(n0 / n1) / math.log(z0 / z1)))
        zoom = max(0.45, zoom * (budget / len(png)) ** (1 / power) * 0.97)
    return None


PICTURE_GAMES_ALL = ("elfenland", "elfenwizards", "elixirus", "elven_castle", "zauberschwert")


def _forget_pictures() -> None:
    """Nothing of this process's pictures learnt: no zoom that fitted, no label, layer, band,
    piece or op's calls kept."""
    from pbem.mail import pictures

    pictures._FITTED.clear()
    pictures._text_mask.cache_clear()
    pictures._layers.clear()
    pictures._bands.clear()
    pictures._compiled.clear()
    pictures._pieces.clear()
    pictures._plans.clear()


def _whole_png(svg: str, budget: int) -> bytes | None:
    """A picture as they were made before kept layers and bands: drawn whole, paletted and
    written whole, at the zoom pictures.rasterise's tries end at (each try is a whole drawing)."""
    from pbem.mail import pictures

    kept = pictures._palette_png
    pictures._palette_png = lambda svg, zoom: pictures._png(
        pictures._paletted(pictures._drawn(c := pictures._parsed(svg, zoom), c.keys, range(len(c.ops))))
    )
    start = pictures._layers.start
    pictures._layers.start = lambda size, keys: (None, 0, 0)
    try:
        return pictures.rasterise(svg, budget, "whole " + svg[:40])
    finally:
        pictures._palette_png, pictures._layers.start = kept, start


def _next_versions(spec, versions: int = 10) -> list[str]:
    """The drawings a sender meets from the middle of a game of three played by its stand-ins:
    `versions` versions in a row, every seat's view of each, each drawing once (seats that see
    alike share a picture)."""
    from games.testing import Table

    players = min(max(spec.min_players, 3), spec.max_players)
    table, states = Table(spec, players, seed=b"bench-pictures"), []
    while waiting := spec.waiting_for(table.state):
        states.append(copy.deepcopy(table.state))
        table.act(waiting[0], spec.standin(spec.view(table.state, waiting[0]), spec.legal(table.state, waiting[0])))
    middle = states[len(states) // 2 : len(states) // 2 + versions]
    return list(dict.fromkeys(spec.render_svg(spec.view(state, seat)) for state in middle for seat in range(players)))


def per_game_picture_lines() -> list[str]:
    """Each game's picture of seat 0's view at the start, middle and end of a game of three
    played by its stand-ins in memory (no database, nothing kept): the time to make it as a
    notice's picture is made now (pictures.rasterise: drawn straight to pixels where it can be)
    beside the old way (resvg, shrunk in tries), CPU time of this process, medians of 3 rounds;
    each round's pictures made with nothing of this process's learnt (no zoom that fitted, no
    label, layer, band or op drawn before). Then the pictures of ten versions in a row from the
    middle of a game, every seat's view (as a sender meets them, what it learnt kept), beside the
    same pictures made whole (drawn, paletted and written whole, as before kept bands), alternating."""
    import importlib

    from pbem.mail import pictures

    sys.path.insert(0, str(ROOT))
    from bench.phone_notices import moments

    budget = pictures.picture_budget(16_000)  # what a mid-game notice's text and HTML leave
    lines = []
    for kind in PICTURE_GAMES_ALL:
        spec = importlib.import_module(f"games.{kind}").GAME
        svgs = [spec.render_svg(spec.view(state, 0)) for _moment, state in moments(spec)]
        direct = 0
        for svg in svgs:
            try:
                pictures.draw_svg(svg)
                direct += 1
            except pictures.Unsupported:
                pass
        new, old, new_sizes, old_sizes = [], [], [], []
        for _round in range(3):
            _forget_pictures()
            for svg in svgs:
                t0 = time.process_time()
                png = pictures.rasterise(svg, budget, kind)
                new.append(time.process_time() - t0)
                new_sizes.append(len(png or b""))
                t0 = time.process_time()
                png = _old_rasterise(svg, budget)
                old.append(time.process_time() - t0)
                old_sizes.append(len(png or b""))
        n, o = statistics.median(new) * 1000, statistics.median(old) * 1000
        lines.append(
            f"picture of a {kind} board (seat 0; start, middle, end; {direct} of {len(svgs)} drawn straight to "
            f"pixels, the rest by resvg): {n:.1f} ms CPU a picture (median; max {max(new) * 1000:.1f}), "
            f"{statistics.median(new_sizes) / 1000:.1f} kB; the old way (resvg, shrunk in tries) {o:.1f} ms "
            f"(max {max(old) * 1000:.1f}), {statistics.median(old_sizes) / 1000:.1f} kB: {o / n:.1f}x "
            f"(budget {budget / 1000:.0f} kB)"
        )
        lines.append(_next_versions_line(kind, spec, budget))
    return lines


def _next_versions_line(kind: str, spec, budget: int) -> str:
    from pbem.mail import pictures

    svgs = _next_versions(spec)
    _forget_pictures()
    new, whole, new_sizes, whole_sizes = [], [], [], []
    for svg in svgs:
        t0 = time.process_time()
        new_sizes.append(len(pictures.rasterise(svg, budget, kind) or b""))
        new.append(time.process_time() - t0)
        t0 = time.process_time()
        whole_sizes.append(len(_whole_png(svg, budget) or b""))
        whole.append(time.process_time() - t0)
    n, w = statistics.mean(new) * 1000, statistics.mean(whole) * 1000
    return (
        f"pictures of a {kind} game, 10 versions in a row from its middle, every seat's view ({len(svgs)} "
        f"drawings, the first with nothing learnt): {n:.1f} ms CPU a picture (mean; median "
        f"{statistics.median(new) * 1000:.1f}), {statistics.mean(new_sizes) / 1000:.1f} kB; made whole "
        f"{w:.1f} ms (median {statistics.median(whole) * 1000:.1f}), {statistics.mean(whole_sizes) / 1000:.1f} kB: "
        f"{w / n:.1f}x (load average {os.getloadavg()[0]:.1f})"
    )


def picture_lines() -> list[str]:
    """Notices out with their board pictures (Elven Castle, 3 players, mid-game; every seat's news
    with a picture too): the sender's rate with no picture kept (each drawn for the first time),
    the same notices again (a resend: their pictures kept), and the same notices without pictures,
    each beside bare smtplib over one connection sending the very bytes the sender sent."""
    from django.conf import settings

    from pbem.log import eventlog
    from pbem.mail import pictures, sending
    from pbem.models import BoardPicture, Game, Notice
    from pbem.play import services, versioned
    from pbem.registry import get_game

    kind = "elven_castle"
    spec = get_game(kind)
    games = _mid_games(kind, PICTURE_GAMES)
    for _round in range(3):  # three more moves each: the notices they cause are the ones measured
        for game_id in games:
            state = eventlog.load(Game.objects.get(pk=game_id)).state["game"]
            seat = spec.waiting_for(state)[0]
            services.submit(game_id, seat, command=spec.standin(spec.view(state, seat), spec.legal(state, seat)))
    made = list(Notice.objects.filter(status="pending", game_id__in=games).order_by("id"))
    fields = ("game_id", "seat_id", "kind", "version", "to_email", "context")

    def copies() -> None:
        Notice.objects.filter(status="pending").update(status="skipped")
        Notice.objects.bulk_create([Notice(**{f: getattr(n, f) for f in fields}) for n in made])

    # Two sinks: aiosmtpd as it is (no PIPELINING), and one saying PIPELINING as Postfix does;
    # bare smtplib (which never pipelines) measured against the same sink as the sender, each time.
    sinks = {
        piped: (port, _sink_process(port, pipelining=piped))
        for piped, port in ((False, free_port()), (True, free_port()))
    }
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_USE_TLS = "127.0.0.1", False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    sent_bytes: list = []  # (message, its bytes if the sender wrote them): the bytes made after timing
    real_wire = sending._wire

    def recording(message):
        data = real_wire(message)
        sent_bytes.append((message, data))
        return data

    def sender(label: str, fresh: bool = False, piped: bool = False) -> tuple[float, float, int, int]:
        port, sink = sinks[piped]
        settings.EMAIL_PORT = port
        copies()
        sent_bytes.clear()
        eventlog.cache_clear()
        if fresh:  # nothing kept of these versions: each menu and text board computed anew
            versioned.clear()
        profile = cProfile.Profile(time.process_time) if os.environ.get("BENCH_PROFILE") == label else None  # CPU
        t0 = time.perf_counter()
        if profile:
            profile.enable()
        with _Cpu(sink) as mine_cpu:
            counts = sending.send_pending(None)
        took = time.perf_counter() - t0
        if profile:
            profile.disable()
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
            pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        n = counts.get("sent", 0)
        assert n == len(sent_bytes) and n, (label, counts)
        raw = [
            (m.from_email, m.recipients(), d if d is not None else m.message().as_bytes(linesep="\r\n"))
            for m, d in sent_bytes
        ]
        t0 = time.perf_counter()
        with _Cpu(sink) as bare_cpu, smtplib.SMTP("127.0.0.1", port) as client:
            for frm, to, data in raw:
                client.sendmail(frm, to, data)
        bare = time.perf_counter() - t0
        pictured = sum(b"Content-Type: image/png" in d for _f, _t, d in raw)
        cpu = f"the sender {mine_cpu.per(n)}; bare {bare_cpu.per(n)}"
        return took / n, bare / n, sum(len(d) for _f, _t, d in raw) // n, pictured, cpu

    try:
        sending._wire = recording
        BoardPicture.objects.all().delete()
        cold = sender("first drawing")
        warm = sender("resend")
        warm_piped = sender("resend, PIPELINING", piped=True)
        # The pictures, not the views kept pointing at them (pictures.SEEN_AS).
        drawn = sum(
            not bytes(png).startswith(pictures.SEEN_AS) for png in BoardPicture.objects.values_list("png", flat=True)
        )
        # Without pictures: none made, none of the kept ones read (their bytes are 50 kB a notice).
        board_png, prefetch_kept = pictures.board_png, pictures.prefetch_kept
        pictures.board_png = lambda *args, **kwargs: None
        pictures.prefetch_kept = lambda *args, **kwargs: None
        try:
            bare_text = sender("no pictures")
            piped_text = sender("no pictures, PIPELINING", piped=True)
            fresh_text = sender("no pictures, nothing kept", fresh=True)
        finally:
            pictures.board_png, pictures.prefetch_kept = board_png, prefetch_kept
    finally:
        sending._wire = real_wire
        for _port, sink in sinks.values():
            sink.communicate("")

    def line(label: str, figures: tuple[float, float, int, int, str], target: float) -> str:
        mine, bare, size, pictured, cpu = figures
        ratio = bare / mine
        verdict = "ok" if ratio >= target else "BELOW TARGET"
        return (
            f"notices with pictures, {label}: the sender {mine * 1000:.2f} ms a notice ({1 / mine:,.0f}/s), bare smtplib "
            f"over one connection {bare * 1000:.2f} ms ({1 / bare:,.0f}/s) for the same {size / 1000:.1f} kB mails "
            f"({pictured} with a picture); "
            f"ratio {ratio:.2f} (target >= {target}: {verdict}; load average {os.getloadavg()[0]:.1f}); {cpu}"
        )

    return [
        *per_game_picture_lines(),
        f"notices with pictures: {len(sent_bytes)} notices sent of {len(games)} Elven Castle games mid-game (3 players; "
        f"{len(made)} made, the rest folded or skipped as the sender does), {drawn} distinct pictures kept",
        line("each drawn for the first time", cold, 0.5),
        line("sent again (pictures kept)", warm, 0.5),
        line("sent again (pictures kept), the server saying PIPELINING", warm_piped, 0.5),
        line("without pictures", bare_text, 0.7).replace("notices with pictures, without", "notices without"),
        line("without pictures, the server saying PIPELINING", piped_text, 0.7).replace(
            "notices with pictures, without", "notices without"
        ),
        line("without pictures, nothing kept", fresh_text, 0.7).replace(
            "notices with pictures, without pictures, nothing kept",
            "notices without pictures, their menus and text boards not kept (computed anew)",
        ),
    ]


# --- pages -----------------------------------------------------------------------------------


def _pages_ms(client, urls: list[str], runs: int = 21) -> list[tuple[float, float]]:
    """(median, best) ms of each page, the pages fetched in turn round after round (each round
    sees the same machine: on a shared one the load swings within seconds)."""
    for url in urls:
        client.get(url)
    times: list[list[float]] = [[] for _ in urls]
    for _ in range(runs):
        for url, kept in zip(urls, times, strict=True):
            t0 = time.perf_counter()
            answer = client.get(url)
            kept.append(time.perf_counter() - t0)
            assert answer.status_code == 200, (url, answer.status_code)
    return [(statistics.median(kept) * 1000, min(kept) * 1000) for kept in times]


def _mark_sent(game_id: int) -> None:
    """The game's notices as the sender leaves them (sent, each quoting the head at its version):
    the benchmark dispatches none, but the audit page checks every mailed head."""
    from django.db import connection
    from django.utils import timezone

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE pbem_notice n SET status = 'sent', sent_at = %s, chain_head = e.seq || ':' || e.hash "
            "FROM pbem_event e WHERE n.game_id = %s AND n.status = 'pending' AND e.game_id = n.game_id "
            "AND e.seq = n.version",
            [timezone.now(), game_id],
        )


def page_lines() -> list[str]:
    from django.conf import settings
    from django.test import Client

    from pbem.audit import publish
    from pbem.models import Game, HeadEntry, Notice, Seat
    from pbem.play import addressing, services

    settings.ALLOWED_HOSTS = ["*"]
    settings.PBEM_RATE_TOKEN_FAILURES = (10**6, 600)
    sizes = {}
    for events in (10, 1000):
        game = services.create_game(
            "tally", [services.PlayerSpec("P0", "p0@bench.invalid"), services.PlayerSpec("P1", "p1@bench.invalid")], {}
        )
        while Game.objects.get(pk=game.pk).version < events:
            g = Game.objects.get(pk=game.pk)
            seat = g.awaited[0]
            services.submit(game.pk, seat, "mark 1" if g.version % 5 else f"say move {g.version}")
            if g.version % 10 == 0:  # the notices go out and the feed publishes the head as the game goes on
                _mark_sent(game.pk)
                publish.publish()
        _mark_sent(game.pk)
        publish.publish()
        sizes[events] = game
    client = Client()
    from pbem.audit import checks

    big_game = Game.objects.get(pk=sizes[1000].pk)
    t0 = time.perf_counter()
    checks.verify(big_game)
    fresh = time.perf_counter() - t0
    checks.verify(big_game, cached=True)
    t0 = time.perf_counter()
    checks.verify(big_game, cached=True)
    kept = time.perf_counter() - t0
    anchors_of = {
        n: (
            Notice.objects.filter(game_id=sizes[n].pk).exclude(chain_head="").count(),
            HeadEntry.objects.filter(game_id=sizes[n].pk).count(),
        )
        for n in sizes
    }
    lines = [
        f"audit verification at {big_game.version} events ({anchors_of[1000][0]} mailed heads, "
        f"{anchors_of[1000][1]} published): {fresh * 1000:.1f} ms walking the log, {kept * 1000:.1f} ms with the "
        "walk and the heads' check kept for the version"
    ]
    for name, url_of in (
        ("seat page", lambda g: "/play/" + addressing.token_for(Seat.objects.get(game=g, number=0)) + "/"),
        ("audit page", lambda g: f"/games/{g.pk}/audit/"),
    ):
        (small, small_best), (big, big_best) = _pages_ms(client, [url_of(sizes[n]) for n in (10, 1000)])
        target = (
            " (target <= 1.5: " + ("ok)" if big / small <= 1.5 else "BELOW TARGET)") if name == "audit page" else ""
        )
        lines.append(
            f"{name}: {small:.1f} ms at {Game.objects.get(pk=sizes[10].pk).version} events, {big:.1f} ms at "
            f"{Game.objects.get(pk=sizes[1000].pk).version} events (ratio {big / small:.2f}{target}; best "
            f"{small_best:.1f} / {big_best:.1f} ms; in-process test client, median of 21 taken in turn)"
        )
    return lines


def _latencies(url: str, concurrency: int, requests: int) -> list[float]:
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    def one(_i) -> float:
        t0 = time.perf_counter()
        with urllib.request.urlopen(url, timeout=30) as answer:
            answer.read()
        return time.perf_counter() - t0

    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(concurrency * 2)))  # warm every worker
        return sorted(pool.map(one, range(requests)))


def _pct(times: list[float], q: float) -> float:
    return times[min(len(times) - 1, int(q * len(times)))] * 1000


def served_lines() -> list[str]:
    """The seat page served by gunicorn (PBEM_WEB_WORKERS=2 on 2 cores) at concurrency 1 and 8,
    beside a trivial Django view in the same server (the API's 404 answer)."""
    import socket

    from django.conf import settings

    from pbem.models import Game, Seat
    from pbem.play import addressing, services

    game = services.create_game(
        "tally", [services.PlayerSpec("P0", "p0@bench.invalid"), services.PlayerSpec("P1", "p1@bench.invalid")], {}
    )
    while Game.objects.get(pk=game.pk).version < 390:
        g = Game.objects.get(pk=game.pk)
        services.submit(game.pk, g.awaited[0], "mark 1" if g.version % 5 else f"say move {g.version}")
    token = addressing.token_for(Seat.objects.get(game=game, number=0))
    port = free_port()
    env = {
        **os.environ,
        "SECRET_KEY": settings.SECRET_KEY,
        "PBEM_WEB_BIND": f"127.0.0.1:{port}",
        "PBEM_WEB_WORKERS": "2",
        "LOG_LEVEL": "ERROR",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--access-logfile", "/dev/null"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    lines = []
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        base = f"http://127.0.0.1:{port}"
        for concurrency, requests in ((1, 200), (8, 400)):
            seat = _latencies(f"{base}/play/{token}/", concurrency, requests)
            trivial_url = f"{base}/api/bench-trivial"

            def trivial_one(url=trivial_url):
                import urllib.error
                import urllib.request

                t0 = time.perf_counter()
                try:
                    urllib.request.urlopen(url, timeout=30).read()
                except urllib.error.HTTPError as exc:  # the 404 is the answer
                    exc.read()
                return time.perf_counter() - t0

            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(concurrency) as pool:
                trivial = sorted(pool.map(lambda _i: trivial_one(), range(requests)))
            p50, p99 = _pct(seat, 0.5), _pct(seat, 0.99)
            lines.append(
                f"seat page served (gunicorn, 2 workers, {Game.objects.get(pk=game.pk).version} events), "
                f"concurrency {concurrency}: p50 {p50:.1f} ms, p99 {p99:.1f} ms (p99/p50 {p99 / p50:.1f}, "
                f"target <= 3: {'ok' if p99 <= 3 * p50 else 'BELOW TARGET'}); a trivial Django view p50 "
                f"{_pct(trivial, 0.5):.1f} ms, p99 {_pct(trivial, 0.99):.1f} ms"
            )
    finally:
        server.terminate()
        server.wait(10)
    return lines


# --- the pipe door ---------------------------------------------------------------------------


def pipe_lines() -> list[str]:
    from django.conf import settings

    port = free_port()
    # With a broker the listener (and receive_email) only queue the processing, as in production;
    # without one they would process each reply before answering, and that is not the door's cost.
    broker = os.environ.get("BENCH_REDIS_URL") or os.environ.get("PBEM_TEST_REDIS_URL", "")
    env = {
        **os.environ,
        "SECRET_KEY": settings.SECRET_KEY,
        "PBEM_PIPE_TIMEOUT": "60",
        "CELERY_BROKER_URL": broker,
        "CELERY_TASK_DEFAULT_QUEUE": "pbem-bench-pipe",
    }
    env_file = ROOT / "data" / "bench-pipe.env"
    env_file.parent.mkdir(exist_ok=True)
    keep = (
        "SECRET_KEY",
        "DATABASE_URL",
        "PBEM_EXTRA_GAMES",
        "PBEM_NOTICE_DISPATCH",
        "DJANGO_SETTINGS_MODULE",
        "CELERY_BROKER_URL",
        "CELERY_TASK_DEFAULT_QUEUE",
    )
    env_file.write_text(
        "".join(f"{k}={env[k]}\n" for k in keep if env.get(k)) + f"PBEM_PIPE_HANDOFF=127.0.0.1:{port}\n"
    )
    listener = subprocess.Popen(
        [sys.executable, "manage.py", "smtpd", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    listener.stdout.readline()
    mail = f"From: someone@example.org\r\nTo: play@{settings.PBEM_MAIL_DOMAIN}\r\nSubject: board\r\n\r\nboard\r\n"
    try:
        counter = iter(range(10**6))

        def message() -> bytes:
            return f"Message-ID: <bench-{time.time_ns()}-{next(counter)}@example.org>\r\n{mail}".encode()

        pipe = [
            str(ROOT / "scripts" / "pbem-pipe"),
            "--env-file",
            str(env_file),
            "--recipient",
            f"play@{settings.PBEM_MAIL_DOMAIN}",
        ]
        without = ROOT / "data" / "bench-pipe-nohandoff.env"  # scripts/pbem-pipe storing the message itself
        without.write_text("".join(f"{k}={env[k]}\n" for k in keep if env.get(k)))
        slow_env = {**env, **{k: env.get(k, "") for k in keep}}
        receive = [sys.executable, "manage.py", "receive_email", "--recipient", f"play@{settings.PBEM_MAIL_DOMAIN}"]
        ways = {
            "bare": ([sys.executable, "-c", "pass"], env, False),
            "bare -I -S": ([sys.executable, "-I", "-S", "-c", "pass"], env, False),  # as the wrapper runs Python
            "handoff": (pipe, env, False),
            "receive": (receive, slow_env, True),
            "fallback": ([*pipe[:2], str(without), *pipe[3:]], env, True),
        }
        # Bytecode as an installation leaves it (scripts/setup-venv.sh, the Dockerfile compile it):
        # scripts/pbem-pipe runs Python with PYTHONDONTWRITEBYTECODE, so a checkout that never
        # compiled pbem/ compiles its modules again in every delivery.
        subprocess.run([sys.executable, "-m", "compileall", "-q", "pbem", "config", "games"], cwd=ROOT, check=True)
        figures = _pipe_rounds(ways, message, broker)
    finally:
        listener.terminate()
        listener.wait(10)
        env_file.unlink(missing_ok=True)
        (ROOT / "data" / "bench-pipe-nohandoff.env").unlink(missing_ok=True)
        if broker:
            import redis

            redis.Redis.from_url(broker).delete("pbem-bench-pipe")  # the queued processing nobody runs
    how = "queued to a broker" if broker else "processed inline: no broker given (BENCH_REDIS_URL)"
    bare, fast = figures["bare"]["wall"], figures["handoff"]["wall"]

    def way(name: str) -> str:
        fig = figures[name]
        queued = f", the task in the broker {fig['queued']:.3f} s after its start" if fig.get("queued") else ""
        return f"{fig['wall']:.3f} s wall, {fig['cpu']:.3f} s CPU, exit {sorted(fig['codes'])}{queued}"

    slow = max(figures["receive"]["wall"], figures["fallback"]["wall"])
    isolated = figures["bare -I -S"]
    return [
        f"pipe door ({how}): {fast:.3f} s a message handed to the listener (scripts/pbem-pipe with PBEM_PIPE_HANDOFF, "
        f"exit {sorted(figures['handoff']['codes'])}); python -c pass {bare:.3f} s (target < 0.3 s: "
        f"{'ok' if fast < 0.3 else 'BELOW TARGET'})",
        f"pipe door without the handoff (pbem/doors/pipe_store.py): manage.py receive_email {way('receive')}; "
        f"scripts/pbem-pipe with no listener {way('fallback')}; python -c pass {bare:.3f} s wall, "
        f"{figures['bare']['cpu']:.3f} s CPU, python -I -S -c pass {isolated['wall']:.3f} s wall, "
        f"{isolated['cpu']:.3f} s CPU (target < 1 s: {'ok' if slow < 1 else 'BELOW TARGET'}; medians of "
        f"{PIPE_RUNS} runs taken in turn; load average {os.getloadavg()[0]:.1f} at the end)",
    ]


def _pipe_rounds(ways: dict, message, broker: str) -> dict:
    """Each way run in turn, PIPE_RUNS rounds: medians of wall and CPU time (the process's and
    its waited children's), and for the ways that store without the listener the time from the
    start until their task is in the broker's queue (queued after the answer, by a child)."""
    import resource

    client = None
    if broker:
        import redis

        client = redis.Redis.from_url(broker)
    runs: dict[str, dict[str, list]] = {name: {"wall": [], "cpu": [], "queued": [], "codes": []} for name in ways}
    for _round in range(PIPE_RUNS):
        for name, (cmd, env, stores) in ways.items():
            before = client.llen("pbem-bench-pipe") if client is not None and stores else 0
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            done = subprocess.run(
                cmd, input=b"" if name.startswith("bare") else message(), env=env, cwd=ROOT, capture_output=True
            )
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            runs[name]["wall"].append(wall)
            runs[name]["cpu"].append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
            runs[name]["codes"].append(done.returncode)
            if client is not None and stores:
                deadline = time.perf_counter() + 30
                while client.llen("pbem-bench-pipe") <= before and time.perf_counter() < deadline:
                    time.sleep(0.005)
                runs[name]["queued"].append(time.perf_counter() - t0)
    return {
        name: {
            "wall": statistics.median(got["wall"]),
            "cpu": statistics.median(got["cpu"]),
            "queued": statistics.median(got["queued"]) if got["queued"] else None,
            "codes": set(got["codes"]),
        }
        for name, got in runs.items()
    }


def run() -> list[str]:
    lines = []
    wanted = set(os.environ.get("BENCH_PARTS", "notice,picture,page,served,pipe,sweep,timeout").split(","))
    for part in (notice_lines, picture_lines, page_lines, served_lines, pipe_lines, sweep_lines, timeout_lines):
        if part.__name__.removesuffix("_lines") not in wanted:
            continue
        try:
            for line in part():
                print(line, flush=True)
                lines.append(line)
        except Exception as exc:  # noqa: BLE001 - one part failing must not hide the rest
            print(f"{part.__name__}: failed: {exc!r}", flush=True)
    return lines
