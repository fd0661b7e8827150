"""Mail at scale (issue 20): each figure beside its baseline from the same run.

    .venv/bin/python -m bench.run scale      # only these (the database made anew as for the rest)

Sizes (environment; the defaults are the issue's):
    BENCH_SWEEP_GAMES=100000   games on the table for the deadline sweep (cloned with bulk inserts)
    BENCH_SWEEP_DUE=1000       of them due at once, for the second sweep
    BENCH_TIMEOUT_SEATS=10000  seats timed out in one run of the deadline timer
    BENCH_TIMEOUT_SAMPLE=1000  seats timed out by one sweep alone, by groups and one row at a time
    BENCH_NOTICES=1000         notices sent through the sender, and by bare smtplib
    BENCH_PIPE_RUNS=10         messages through each way of the pipe door
    BENCH_PICTURE_GAMES=20     Elven Castle games (3 players, mid-game) whose notices go out with pictures
    BENCH_PROFILE=resend       cProfile of one of the picture part's sender runs ("first drawing",
                               "resend", "no pictures"), printed
    BENCH_PARTS=notice,picture,page,served,pipe,sweep,timeout   which parts to run (all by default)

Needs the database set up by bench.run (Django configured, migrated).
"""

from __future__ import annotations

import cProfile
import os
import pstats
import smtplib
import statistics
import subprocess
import sys
import time
from datetime import timedelta

from bench.common import REDIS_URL, ROOT, free_port, setup_django

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


def clone_games(template, count: int, deadline_iso: str) -> list[int]:
    """`count` copies of the template game (row, seats, log) with one bulk insert per table; each
    copy's seat 0 has `deadline_iso` as its deadline (the trigger writes the timer rows)."""
    from django.db import connection, transaction

    games = _columns("pbem_game", ("id", "deadlines"))
    seats = _columns("pbem_seat", ("id", "game_id"))
    events = _columns("pbem_event", ("id", "game_id"))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO pbem_game ({', '.join(games)}, deadlines) SELECT {', '.join(games)}, "
            f"jsonb_build_object('0', %s::text) FROM pbem_game, generate_series(1, %s) WHERE id = %s RETURNING id",
            [deadline_iso, count, template.pk],
        )
        ids = [i for (i,) in cursor.fetchall()]
        cursor.execute("CREATE TEMP TABLE IF NOT EXISTS bench_clones (id bigint) ON COMMIT DROP")
        cursor.execute("INSERT INTO bench_clones SELECT unnest(%s::bigint[])", [ids])
        cursor.execute(
            f"INSERT INTO pbem_seat (game_id, {', '.join(seats)}) SELECT c.id, {', '.join('s.' + c for c in seats)} "
            "FROM bench_clones c, pbem_seat s WHERE s.game_id = %s",
            [template.pk],
        )
        cursor.execute(
            f"INSERT INTO pbem_event (game_id, {', '.join(events)}) SELECT c.id, "
            f"{', '.join('e.' + c for c in events)} FROM bench_clones c, pbem_event e WHERE e.game_id = %s",
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


def _sweep_in_process(_arg) -> dict:
    from django.db import connection

    from pbem.play import deadlines

    try:
        return deadlines.run_deadlines()
    finally:
        connection.close()


def timeout_lines() -> list[str]:
    """10,000 due seats: the deadline timer with its helper sweeps (pbem.play.deadlines.HELPERS),
    each in its own process as the workers would run them."""
    import multiprocessing as mp

    from django.db import connection
    from django.utils import timezone

    from pbem.models import DeadlineTimer
    from pbem.play import deadlines

    DeadlineTimer.objects.update(due_at=None)  # only the seats made here are due
    template = _template_game()
    clone_games(template, TIMEOUT_SEATS, (timezone.now() - timedelta(minutes=1)).isoformat())
    sweeps = 1 + deadlines.HELPERS
    connection.close()
    with mp.get_context("spawn").Pool(sweeps, initializer=setup_django) as pool:
        pool.map(time.sleep, [0.2] * sweeps)
        t0 = time.perf_counter()
        results = pool.map(_sweep_in_process, range(sweeps))
        took = time.perf_counter() - t0
    done = sum(r["timed_out"] for r in results)
    beat = float(os.environ.get("PBEM_DEADLINES_EVERY", "60"))
    return [
        f"timeouts: {done:,} due seats timed out in {took:.1f} s by {sweeps} sweeps at once (the timer and its "
        f"helpers: {', '.join(str(r['timed_out']) for r in results)}), {took / max(1, done) * 1000:.2f} ms a "
        f"seat, against a beat interval of {beat:.0f} s: {took / beat:.2f} of it "
        f"(target: well within: {'ok' if took < beat / 2 else 'BELOW TARGET'})",
        _timeouts_alone_line(template),
        _timeouts_dispatch_line(template),
    ]


def _timeouts_dispatch_line(template) -> str:
    """One sweep in this process with the notices dispatched as in production (a task queued on
    a Redis broker once each group commits; nothing consumes them here) beside the same sweep
    dispatching nothing (as the lines above), alternating rounds on fresh clones."""
    import redis
    from celery import current_app
    from django.conf import settings
    from django.utils import timezone

    from pbem.log import eventlog
    from pbem.models import DeadlineTimer
    from pbem.play import deadlines

    url = REDIS_URL
    queue = redis.Redis.from_url(url)
    conf = current_app.conf
    saved = (conf.broker_url, conf.task_always_eager, settings.PBEM_NOTICE_DISPATCH)
    conf.broker_url, conf.task_always_eager = url, False
    per_seat: dict[str, list[float]] = {"none": [], "on_commit": []}
    tasks = 0
    try:
        queue.flushdb()
        for mode in ("none", "on_commit") * 2:
            DeadlineTimer.objects.update(due_at=None)
            clone_games(template, TIMEOUT_SAMPLE, (timezone.now() - timedelta(minutes=1)).isoformat())
            eventlog.cache_clear()
            settings.PBEM_NOTICE_DISPATCH = mode
            t0 = time.perf_counter()
            done = deadlines.run_deadlines(helpers=0)["timed_out"]
            per_seat[mode].append((time.perf_counter() - t0) / max(1, done) * 1000)
        tasks = queue.llen(conf.task_default_queue or "celery")
    finally:
        conf.broker_url, conf.task_always_eager, settings.PBEM_NOTICE_DISPATCH = saved
        queue.flushdb()
    return (
        f"timeouts, one sweep alone, notices dispatched to a Redis broker ({TIMEOUT_SAMPLE:,} seats, 2 alternating "
        f"rounds): {statistics.median(per_seat['on_commit']):.2f} ms a seat, {tasks / 2:,.0f} tasks queued a round "
        f"(one a group of {deadlines.GROUP}); dispatching nothing {statistics.median(per_seat['none']):.2f} ms a seat"
    )


def _timeouts_alone_line(template) -> str:
    """One sweep in this process: the timer's run (a group of games at a time) beside the same
    timeouts handled one row at a time as the sweep did before groups (deadlines._handle_alone:
    timeout_seat, a cold load and an append of its own per seat), each on its own fresh clones,
    in alternating rounds."""
    import secrets

    from django.utils import timezone

    from pbem.log import eventlog
    from pbem.models import DeadlineTimer
    from pbem.play import deadlines

    def fresh() -> None:
        DeadlineTimer.objects.update(due_at=None)
        clone_games(template, TIMEOUT_SAMPLE, (timezone.now() - timedelta(minutes=1)).isoformat())
        eventlog.cache_clear()  # cold, as a sweep's own process finds them

    grouped, alone = [], []
    for _round in range(2):
        fresh()
        t0 = time.perf_counter()
        counts = deadlines.run_deadlines(helpers=0)
        grouped.append((time.perf_counter() - t0) / max(1, counts["timed_out"]))
        fresh()
        t0 = time.perf_counter()
        now, lease, one = timezone.now(), secrets.token_hex(8), 0
        while rows := deadlines.claim_due(now, lease, deadlines.CHUNK):
            one += sum(deadlines._handle_alone(row, lease, now) == "timed_out" for row in rows)
        alone.append((time.perf_counter() - t0) / max(1, one))
    g, a = statistics.median(grouped) * 1000, statistics.median(alone) * 1000
    return (
        f"timeouts, one sweep alone ({TIMEOUT_SAMPLE:,} seats, 2 alternating rounds): {g:.2f} ms a seat by groups of "
        f"{deadlines.GROUP} games; {a:.2f} ms a seat one row at a time (the path before groups), {a / g:.1f}x"
    )


# --- notices ---------------------------------------------------------------------------------


def _sink_process(port: int) -> subprocess.Popen:
    code = (
        "import asyncio, sys, time\nfrom aiosmtpd.controller import Controller\n"
        "class H:\n    async def handle_DATA(self, server, session, envelope):\n        return '250 OK'\n"
        f"c = Controller(H(), hostname='127.0.0.1', port={port}); c.start(); print('ready', flush=True)\n"
        "sys.stdin.read(); c.stop()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdout.readline()
    return proc


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
        with smtplib.SMTP("127.0.0.1", port) as client:
            for sender, to, data in raw:
                client.sendmail(sender, to, data)
        bare = len(raw) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        for sender, to, data in raw[:200]:
            with smtplib.SMTP("127.0.0.1", port) as client:
                client.sendmail(sender, to, data)
        per_conn = min(200, len(raw)) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
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
        f"(target >= 0.50: {'ok' if ratio >= 0.5 else 'BELOW TARGET'}); per notice: the sender "
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


def picture_lines() -> list[str]:
    """Notices out with their board pictures (Elven Castle, 3 players, mid-game; every seat's news
    with a picture too): the sender's rate with no picture kept (each drawn for the first time),
    the same notices again (a resend: their pictures kept), and the same notices without pictures,
    each beside bare smtplib over one connection sending the very bytes the sender sent."""
    from django.conf import settings

    from pbem.log import eventlog
    from pbem.mail import pictures, sending
    from pbem.models import BoardPicture, Game, Notice
    from pbem.play import services
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

    port = free_port()
    sink = _sink_process(port)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", port, False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    sent_bytes: list = []  # (message, its bytes if the sender wrote them): the bytes made after timing
    real_send = sending._send

    def recording(message, data=None):
        sent_bytes.append((message, data))
        return real_send(message, data)

    def sender(label: str) -> tuple[float, float, int, int]:
        copies()
        sent_bytes.clear()
        eventlog.cache_clear()
        profile = cProfile.Profile() if os.environ.get("BENCH_PROFILE") == label else None
        t0 = time.perf_counter()
        if profile:
            profile.enable()
        counts = sending.send_pending(None)
        took = time.perf_counter() - t0
        if profile:
            profile.disable()
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        n = counts.get("sent", 0)
        assert n == len(sent_bytes) and n, (label, counts)
        raw = [
            (m.from_email, m.recipients(), d if d is not None else m.message().as_bytes(linesep="\r\n"))
            for m, d in sent_bytes
        ]
        t0 = time.perf_counter()
        with smtplib.SMTP("127.0.0.1", port) as client:
            for frm, to, data in raw:
                client.sendmail(frm, to, data)
        bare = time.perf_counter() - t0
        pictured = sum(b"Content-Type: image/png" in d for _f, _t, d in raw)
        return took / n, bare / n, sum(len(d) for _f, _t, d in raw) // n, pictured

    try:
        sending._send = recording
        BoardPicture.objects.all().delete()
        cold = sender("first drawing")
        warm = sender("resend")
        drawn = BoardPicture.objects.count()
        board_png = pictures.board_png
        pictures.board_png = lambda *args, **kwargs: None
        try:
            bare_text = sender("no pictures")
        finally:
            pictures.board_png = board_png
    finally:
        sending._send = real_send
        sink.communicate("")

    def line(label: str, figures: tuple[float, float, int, int], target: float) -> str:
        mine, bare, size, pictured = figures
        ratio = bare / mine
        verdict = "ok" if ratio >= target else "BELOW TARGET"
        return (
            f"notices with pictures, {label}: the sender {mine * 1000:.2f} ms a notice ({1 / mine:,.0f}/s), bare smtplib "
            f"over one connection {bare * 1000:.2f} ms ({1 / bare:,.0f}/s) for the same {size / 1000:.1f} kB mails "
            f"({pictured} with a picture); "
            f"ratio {ratio:.2f} (target >= {target}: {verdict})"
        )

    return [
        f"notices with pictures: {len(sent_bytes)} notices sent of {len(games)} Elven Castle games mid-game (3 players; "
        f"{len(made)} made, the rest folded or skipped as the sender does), {drawn} distinct pictures kept",
        line("each drawn for the first time", cold, 0.5),
        line("sent again (pictures kept)", warm, 0.5),
        line("without pictures", bare_text, 0.7).replace("notices with pictures, without", "notices without"),
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
        without = ROOT / "data" / "bench-pipe-nohandoff.env"  # scripts/pbem-pipe falling back to receive_email
        without.write_text("".join(f"{k}={env[k]}\n" for k in keep if env.get(k)))
        slow_env = {**env, **{k: env.get(k, "") for k in keep}}
        receive = [sys.executable, "manage.py", "receive_email", "--recipient", f"play@{settings.PBEM_MAIL_DOMAIN}"]
        ways = {
            "bare": ([sys.executable, "-c", "pass"], env, False),
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
    return [
        f"pipe door ({how}): {fast:.3f} s a message handed to the listener (scripts/pbem-pipe with PBEM_PIPE_HANDOFF, "
        f"exit {sorted(figures['handoff']['codes'])}); python -c pass {bare:.3f} s (target < 0.3 s: "
        f"{'ok' if fast < 0.3 else 'BELOW TARGET'})",
        f"pipe door without the handoff: manage.py receive_email {way('receive')}; scripts/pbem-pipe falling back to "
        f"it {way('fallback')}; python -c pass {bare:.3f} s wall, {figures['bare']['cpu']:.3f} s CPU (target < 1 s: "
        f"{'ok' if slow < 1 else 'BELOW TARGET'}; medians of {PIPE_RUNS} runs taken in turn)",
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
                cmd, input=message() if name != "bare" else b"", env=env, cwd=ROOT, capture_output=True
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
