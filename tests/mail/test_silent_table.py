"""A table where nobody answers: the timers play every seat out, in turn, to the end of the
game, with a notice to each seat before every timeout and one word to the Master of Seals per
missed deadline. Once with the embedded run's in-process timers (`manage.py timers`), once with
a real Celery worker and Celery beat on Redis, as in production."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model

from pbem.models import Event, Game, Notice
from pbem.play import services
from tests.conftest import CAST, requires_postgres
from tests.processes import REDIS_URL, ROOT, celery_worker_command, drop_queue, new_queue, service_env
from tests.waiting import wait_until

from .test_celery_redis import _redis_up

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]

FAST_TIMERS = {
    "PBEM_DEADLINES_EVERY": "0.5",
    "PBEM_OUTBOX_SWEEP_EVERY": "0.5",
    "PBEM_INBOUND_SWEEP_EVERY": "5",
    "PBEM_NOTICE_DISPATCH": "on_commit",
}


def _mail_env(smtp_sink) -> dict:
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_sink.port),
        "EMAIL_USE_TLS": "0",
    }


def _silent_game(settings) -> Game:
    settings.PBEM_NOTICE_DISPATCH = "none"  # this process only sets the table; the timers' process mails
    get_user_model().objects.create_superuser("seals", "seals@example.org", "x")
    # The rules' minimal action at every deadline (a table that chose no stand-in: see test_standins).
    return services.create_game("diceduel", CAST[:2], {"rounds": 1}, deadline_seconds=2, absence="minimal")


def _stop(process) -> None:
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()


def assert_played_out_in_turn_with_notices(game: Game, smtp_sink) -> None:
    game.refresh_from_db()
    assert game.status == "finished"
    timeouts = list(Event.objects.filter(game=game, type="pbem.TimedOut").order_by("seq"))
    assert len(timeouts) == 3  # both bids, then the winner's claim
    sent = {}
    for message in smtp_sink.parsed():
        sent.setdefault(str(message["To"]), []).append(message)
    for timeout in timeouts:
        seat = game.seats.get(number=timeout.payload["seat"])
        told = Notice.objects.filter(
            game=game, seat=seat, kind="turn", version__lt=timeout.seq, status="sent", sent_at__lt=timeout.created_at
        )
        assert told.exists(), f"{seat.name} was timed out at #{timeout.seq} without a turn notice first"
    master = Notice.objects.filter(game=game, kind="timedout", status="sent")
    assert master.count() == len(timeouts)  # one word per missed deadline, no more
    assert len(sent["seals@example.org"]) == len(timeouts)
    assert Notice.objects.filter(game=game, kind="final", status="sent").count() == 2


def test_a_silent_table_is_played_out_by_the_embedded_runs_timers(settings, smtp_sink, tmp_path):
    game = _silent_game(settings)
    log = tmp_path / "timers.log"
    with log.open("wb") as out:
        timers = subprocess.Popen(
            [sys.executable, "manage.py", "timers"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=service_env(**FAST_TIMERS, **_mail_env(smtp_sink)),
        )
    try:
        wait_until(lambda: Game.objects.get(pk=game.pk).status == "finished", 60, "the game to end")
        wait_until(
            lambda: not Notice.objects.filter(game=game).exclude(status="sent").exists(), 30, "every notice sent"
        )
    finally:
        _stop(timers)
    assert b"Timers running in-process" in log.read_bytes()
    assert_played_out_in_turn_with_notices(game, smtp_sink)


@pytest.mark.skipif(not _redis_up(), reason=f"no Redis at {REDIS_URL}")
def test_a_silent_table_is_played_out_by_celery_beat_and_a_worker(settings, smtp_sink, tmp_path):
    game = _silent_game(settings)
    queue = new_queue("timers")
    env = service_env(
        **FAST_TIMERS,
        **_mail_env(smtp_sink),
        CELERY_BROKER_URL=REDIS_URL,
        CELERY_TASK_ALWAYS_EAGER="0",
        CELERY_TASK_DEFAULT_QUEUE=queue,
    )
    worker = subprocess.Popen(
        celery_worker_command(queue, tmp_path / "worker.log"),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    # The database scheduler reads the schedule from the settings into its tables; a short loop.
    beat = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "beat",
            "-l",
            "info",
            "--max-interval",
            "1",
            "-f",
            str(tmp_path / "beat.log"),
        ],
        cwd=ROOT,
        env=dict(env, TZ="UTC"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until(lambda: Game.objects.get(pk=game.pk).status == "finished", 90, "the game to end")
        wait_until(
            lambda: not Notice.objects.filter(game=game).exclude(status="sent").exists(), 60, "every notice sent"
        )
    finally:
        _stop(beat)
        _stop(worker)
        drop_queue(queue)  # beat's ticks the worker had not taken yet
    assert_played_out_in_turn_with_notices(game, smtp_sink)
    assert "pbem.tasks.run_deadlines" in (tmp_path / "beat.log").read_text()


def test_timers_once_runs_every_timer_of_the_schedule(db):
    out = subprocess.run(
        [sys.executable, "manage.py", "timers", "--once"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, DJANGO_SETTINGS_MODULE="tests.settings", PBEM_NOTICE_DISPATCH="none"),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    for name in ("pbem-sweep-outbox", "pbem-sweep-inbound", "pbem-deadlines", "pbem-digests", "pbem-poll-imap"):
        assert f"{name}:" in out.stdout
