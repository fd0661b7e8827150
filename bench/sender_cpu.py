"""The sender's CPU a notice, this tree's pbem/mail/{sending,outbound,fastrender,pipelining}.py
against another revision's (`BENCH_SENDER_BEFORE`, a git revision, default main), in one process,
alternated batch by batch, on the Elven Castle notices bench/scale.py's picture part made
(run it first with the same BENCH_DB_NAME: this reads that database, it makes nothing), or with
BENCH_SENDER_KIND=tally the Tally notices of its notice part (without pictures only).

    BENCH_DB_NAME=pbem_bench_x .venv/bin/python -m bench.sender_cpu [rounds]

Each round sends the same notices (copied back into the outbox) once by each revision, with their
pictures kept (a resend) and without pictures, to a local SMTP sink (aiosmtpd, its own process);
the figure is this process's CPU (time.process_time) a message sent, the sink's CPU beside it.
The first round of each is a warm-up (not counted). `BENCH_PROFILE=before|after`: cProfile of one
resend without pictures of that revision, printed at the end.
"""

from __future__ import annotations

import cProfile
import importlib.util
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from bench.common import ROOT, free_port, setup_django

BEFORE = os.environ.get("BENCH_SENDER_BEFORE", "main")
KIND = os.environ.get("BENCH_SENDER_KIND", "elven_castle")  # tally: the notice part's 1,000 notices
MODULES = ("fastrender", "pipelining", "outbound", "sending")


def _before_modules() -> dict:
    """The BEFORE revision's modules, loaded under names of their own and wired to each other."""
    folder = Path(tempfile.mkdtemp())
    loaded: dict = {}
    for name in MODULES:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{BEFORE}:pbem/mail/{name}.py"], check=True, capture_output=True
        ).stdout
        path = folder / f"{name}_before.py"
        path.write_bytes(source)
        spec = importlib.util.spec_from_file_location(f"{name}_before", path)
        module = sys.modules[f"{name}_before"] = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        loaded[name] = module
    for module in loaded.values():  # each one's sibling modules its own revision's
        for name, sibling in loaded.items():
            if hasattr(module, name):
                setattr(module, name, sibling)
    return loaded


def _templates():
    """The notices bench/scale.py's picture part sent (one of each set of copies it made)."""
    from pbem.models import Notice

    fields = ("game_id", "seat_id", "kind", "version", "to_email")
    rows = Notice.objects.filter(game__kind=KIND).order_by("id")
    groups: dict = {}
    for notice in rows:
        groups.setdefault(tuple(getattr(notice, f) for f in fields) + (repr(notice.context),), []).append(notice)
    copies = max(len(g) for g in groups.values())
    made = [g[0] for g in groups.values() if len(g) == copies]
    made.sort(key=lambda n: n.pk)
    return made


def main() -> None:
    setup_django()
    from django.conf import settings
    from django.db.models import F

    from bench.scale import _cpu_of, _sink_process
    from pbem.log import eventlog
    from pbem.mail import pictures
    from pbem.mail import sending as after
    from pbem.models import Notice

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    before = _before_modules()["sending"]
    made = _templates()
    fields = ("game_id", "seat_id", "kind", "version", "to_email", "context")
    port = free_port()
    sink = _sink_process(port)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", port, False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    board_png, prefetch_kept = pictures.board_png, pictures.prefetch_kept
    profiled = os.environ.get("BENCH_PROFILE", "")
    profiles: dict = {}

    def send(module, label: str, with_pictures: bool, last: bool) -> tuple[float, float]:
        Notice.objects.filter(status="pending").update(status="skipped")
        Notice.objects.bulk_create([Notice(**{f: getattr(n, f) for f in fields}) for n in made])
        # Made an hour ago: news past its fold time (outbox.fold_seconds), due as the rest.
        if os.environ.get("BENCH_SENDER_FRESH") != "1":  # 1: made now, news waiting out its fold time
            Notice.objects.filter(status="pending").update(created_at=F("created_at") - timedelta(hours=1))
        eventlog.cache_clear()
        if not with_pictures:
            pictures.board_png = lambda *args, **kwargs: None
            pictures.prefetch_kept = lambda *args, **kwargs: None
        profile = cProfile.Profile(time.process_time) if last and profiled == label and not with_pictures else None
        try:
            t0, s0 = time.process_time(), _cpu_of(sink.pid)
            if profile:
                profile.enable()
            counts = module.send_pending(None)
            if profile:
                profile.disable()
                profiles[label] = profile
            mine, theirs = time.process_time() - t0, _cpu_of(sink.pid) - s0
        finally:
            pictures.board_png, pictures.prefetch_kept = board_png, prefetch_kept
        n = counts.get("sent", 0)
        assert n, counts
        sent.add(n)
        return mine / n * 1000, theirs / n * 1000

    figures: dict = {}
    sent: set[int] = set()
    try:
        for r in range(rounds + 1):
            for label, module in (("before", before), ("after", after)):
                for with_pictures in (True, False) if KIND == "elven_castle" else (False,):
                    got = send(module, label, with_pictures, r == rounds)
                    if r:
                        figures.setdefault((label, with_pictures), []).append(got)
    finally:
        sink.communicate("")
    load = os.getloadavg()[0]
    for with_pictures in (True, False) if KIND == "elven_castle" else (False,):
        what = "resent (pictures kept)" if with_pictures else "without pictures"
        parts = []
        for label in ("before", "after"):
            mine = [m for m, _s in figures[(label, with_pictures)]]
            sink_cpu = statistics.median(s for _m, s in figures[(label, with_pictures)])
            parts.append(
                f"{label if label == 'after' else BEFORE}: median {statistics.median(mine):.2f} ms "
                f"(min {min(mine):.2f}, max {max(mine):.2f}; the sink {sink_cpu:.2f})"
            )
        print(
            f"the sender's CPU a notice, {what}, {'/'.join(map(str, sorted(sent)))} notices sent of {len(made)} made, "
            f"{rounds} rounds: " + "; ".join(parts)
        )
    print(f"load average {load:.1f}")
    for label, profile in profiles.items():
        print(f"--- profile: {label}, without pictures")
        pstats.Stats(profile).sort_stats("cumulative").print_stats(45)
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
