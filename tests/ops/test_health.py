"""GET /health/ and manage.py health: the database, the broker, the timers' last runs, the doors."""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery import current_app
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from pbem import tasks
from pbem.models import Heartbeat
from pbem.ops import health

pytestmark = pytest.mark.django_db

DEADLINES = health.timer_name(health.DEADLINES_TASK)


def get_health():
    response = Client().get("/health/")
    return response.status_code, response.json()


def test_healthy_when_the_database_answers_and_the_deadlines_timer_has_run():
    tasks.run_deadlines()  # as beat (or manage.py timers) runs it
    status, body = get_health()
    assert status == 200 and body["status"] == "ok"
    assert body["database"]["ok"] and body["broker"] == {"ok": True, "mode": "in-process (no broker)"}
    assert body["timers"]["ok"] and body["timers"]["each"]["pbem-deadlines"]["last_run"] is not None
    assert body["timers"]["last_run"] == body["timers"]["each"]["pbem-deadlines"]["last_run"]
    assert {"web", "api", "mta_pipe", "smtp_listener", "webhook", "imap"} <= set(body["doors"])


def test_unhealthy_before_the_deadlines_timer_has_ever_run():
    status, body = get_health()
    assert status == 503 and body["status"] == "failing"
    assert body["timers"]["late"] == ["pbem-deadlines"]


def test_a_timer_late_by_three_intervals_makes_it_unhealthy(settings):
    tasks.run_deadlines()
    tasks.sweep_outbox()
    every = float(settings.CELERY_BEAT_SCHEDULE["pbem-sweep-outbox"]["schedule"])
    Heartbeat.objects.filter(name=health.timer_name("pbem.tasks.sweep_outbox")).update(
        at=timezone.now() - timedelta(seconds=3 * every) - health.GRACE - timedelta(seconds=1)
    )
    status, body = get_health()
    assert status == 503 and body["timers"]["late"] == ["pbem-sweep-outbox"]
    assert body["timers"]["each"]["pbem-sweep-outbox"]["late"] is True


def test_every_beat_task_records_its_run_and_a_failure_is_recorded_as_failed(monkeypatch):
    for task in (tasks.run_deadlines, tasks.sweep_outbox, tasks.sweep_inbound, tasks.send_digests, tasks.poll_imap):
        task()
    recorded = set(Heartbeat.objects.values_list("name", flat=True))
    assert recorded == {
        health.timer_name(f"pbem.tasks.{name}")
        for name in ("run_deadlines", "sweep_outbox", "sweep_inbound", "send_digests", "poll_imap")
    }

    def broken():
        raise RuntimeError("the database went away")

    monkeypatch.setattr(tasks.deadlines, "run_deadlines", broken)
    with pytest.raises(RuntimeError):
        tasks.run_deadlines()
    beat = Heartbeat.objects.get(name=DEADLINES)
    assert beat.ok is False and "the database went away" in beat.detail


def test_a_broker_that_does_not_answer_makes_it_unhealthy_and_the_public_answer_hides_its_address(
    settings, monkeypatch
):
    tasks.run_deadlines()
    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setitem(current_app.conf, "broker_url", "redis://127.0.0.1:9/0")  # nothing listens there
    status, body = get_health()
    assert status == 503 and body["broker"]["ok"] is False
    assert "127.0.0.1" not in str(body) and body["broker"]["error"] in ("OperationalError", "ConnectionRefusedError")
    healthy, private = health.report(private=True)
    assert not healthy and ":9" in private["broker"]["error"]


def test_the_doors_say_which_ways_in_are_on(settings):
    settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_SECURITY = "imap.example.org", "ssl"
    settings.PBEM_IMAP_USER, settings.PBEM_IMAP_PASSWORD = "seals", "imap-password"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "u:p"}
    health.record(health.SMTP_HEARTBEAT, detail="0.0.0.0:2525")
    _status, body = get_health()
    doors = body["doors"]
    assert doors["imap"] == {"on": True} and doors["smtp_listener"]["on"] is True
    assert "postmark" in doors["webhook"]["esps"] and doors["webhook"]["on"] is True
    assert "address" not in doors["smtp_listener"]  # the public answer names no address
    _healthy, private = health.report(private=True)
    assert private["doors"]["imap"]["server"] == "imap.example.org:993 (ssl)"
    assert private["doors"]["smtp_listener"]["address"] == "0.0.0.0:2525"
    assert private["doors"]["imap"]["secured"] == "polling seals@imap.example.org"


def test_a_door_without_its_secret_is_off_and_says_why(settings):
    settings.PBEM_IMAP_HOST, settings.PBEM_IMAP_USER, settings.PBEM_IMAP_PASSWORD = "imap.example.org", "", ""
    settings.ANYMAIL = {}
    doors = get_health()[1]["doors"]
    assert doors["imap"] == {"on": False, "why": "PBEM_IMAP_USER, PBEM_IMAP_PASSWORD not set"}
    assert doors["webhook"]["on"] is False and "MAILGUN_WEBHOOK_SIGNING_KEY" in doors["webhook"]["why"]


def test_a_silent_smtp_listener_is_shown_off():
    health.record(health.SMTP_HEARTBEAT, detail="127.0.0.1:2525")
    Heartbeat.objects.filter(name=health.SMTP_HEARTBEAT).update(at=timezone.now() - timedelta(minutes=10))
    assert get_health()[1]["doors"]["smtp_listener"]["on"] is False


def test_health_is_not_redirected_to_https(settings):
    settings.SECURE_SSL_REDIRECT = True
    assert Client().get("/").status_code == 301
    assert Client().get("/health/").status_code in (200, 503)


def test_manage_py_health_exits_1_when_unhealthy_and_0_when_healthy(capsys):
    with pytest.raises(CommandError, match="not healthy: timers"):
        call_command("health", quiet=True)
    tasks.run_deadlines()
    call_command("health")
    assert '"status": "ok"' in capsys.readouterr().out
