"""What `GET /health/` and `manage.py health` report: the database, the broker, the timers' last
runs and the doors that are on.

Healthy (HTTP 200) when the database answers, the broker answers (or tasks run in-process), the
deadlines timer has run within its window and no other timer that has run is late. The doors are
reported, not judged: a door is on or off by configuration, and the SMTP listener's heartbeat
says when it last showed a sign of life.

The timers record their runs themselves (`record`, called by the beat tasks in `pbem.tasks`), in
the database, which every process can read: one row per timer, overwritten at the end of each run,
so the cost is one small write a timer interval, nowhere near a command's path.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from pbem.doors import open_doors as door_rules
from pbem.models import Heartbeat

log = logging.getLogger(__name__)

DEADLINES_TASK = "pbem.tasks.run_deadlines"
SMTP_HEARTBEAT = "door:smtp"
SMTP_HEARTBEAT_EVERY = 60.0  # seconds between the listener's heartbeats
GRACE = timedelta(seconds=60)  # a timer is late after three of its intervals and this
BROKER_TIMEOUT = 2  # seconds


def record(name: str, ok: bool = True, detail: str = "") -> None:
    """Notes that `name` (a timer's task, a door) just did its work. Never raises: a gauge that
    cannot be written must not fail the work it reports on."""
    try:
        Heartbeat.objects.update_or_create(name=name, defaults={"at": timezone.now(), "ok": ok, "detail": detail[:300]})
    except Exception as exc:  # noqa: BLE001
        log.warning("could not record the heartbeat of %s: %s", name, exc)


def timer_name(task: str) -> str:
    return f"timer:{task}"


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------


def report(now: datetime | None = None, private: bool = False) -> tuple[bool, dict[str, Any]]:
    """(healthy, the JSON body). `private` adds what only the operator should read (error texts,
    which name hosts; the IMAP server): `manage.py health` shows it, the public URL does not."""
    now = now or timezone.now()
    database = check_database()
    beats = _heartbeats() if database["ok"] else {}
    broker = check_broker()
    timers = check_timers(beats, now) if database["ok"] else {"ok": False, "error": "no database"}
    healthy = bool(database["ok"] and broker["ok"] and timers["ok"])
    body: dict[str, Any] = {
        "status": "ok" if healthy else "failing",
        "time": now.isoformat(),
        "database": database,
        "broker": broker,
        "timers": timers,
        "doors": doors(beats, now),
    }
    if not private:
        for part in (database, broker):
            if "error" in part:
                log.warning("health: %s", part["error"])
                part["error"] = part["error"].split(":", 1)[0]  # the kind of failure, not its text
        body["doors"]["imap"].pop("server", None)
        body["doors"]["smtp_listener"].pop("address", None)
        for door in body["doors"].values():
            door.pop("secured", None)
    return healthy, body


def check_database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True, "vendor": connection.vendor}
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return {"ok": False, "vendor": connection.vendor, "error": _short(exc)}


def check_broker() -> dict[str, Any]:
    from celery import current_app

    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "mode": "in-process (no broker)"}
    try:
        with current_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT)
        return {"ok": True, "mode": "broker", "transport": current_app.conf.broker_url.split("://", 1)[0]}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "mode": "broker", "error": _short(exc)}


def check_timers(beats: dict[str, Heartbeat], now: datetime) -> dict[str, Any]:
    entries = {}
    late = []
    schedule: dict[str, dict[str, Any]] = settings.CELERY_BEAT_SCHEDULE
    for name, entry in schedule.items():
        every = float(entry["schedule"])
        beat = beats.get(timer_name(entry["task"]))
        window = timedelta(seconds=3 * every) + GRACE
        state = {
            "task": entry["task"],
            "every_seconds": every,
            "last_run": beat.at.isoformat() if beat else None,
            "last_ok": beat.ok if beat else None,
            "late": bool(beat and now - beat.at > window),
        }
        if beat and beat.detail:
            state["last_result"] = beat.detail
        if state["late"] or (entry["task"] == DEADLINES_TASK and beat is None):
            late.append(name)
        entries[name] = state
    runs = [b.at for key, b in beats.items() if key.startswith("timer:")]
    return {"ok": not late, "late": late, "last_run": max(runs).isoformat() if runs else None, "each": entries}


def doors(beats: dict[str, Heartbeat], now: datetime) -> dict[str, Any]:
    """Which ways in are on (by configuration), how each is secured or why it is off (a door
    whose secret is unset is off: `pbem.doors.open_doors`), and the SMTP listener's last sign of life."""
    esps = webhook_esps()
    smtp = beats.get(SMTP_HEARTBEAT)
    listening = bool(smtp and now - smtp.at <= timedelta(seconds=3 * SMTP_HEARTBEAT_EVERY))
    reported = _doors(esps, listening, smtp, beats)
    secured = door_rules.status()
    for ours, theirs in (
        ("web", "web"),
        ("api", "api"),
        ("mta_pipe", "pipe"),
        ("smtp_listener", "smtp"),
        ("webhook", "webhook"),
        ("imap", "imap"),
    ):
        door, rule = reported[ours], secured[theirs]
        door["on"] = bool(door["on"] and rule["on"])
        if not rule["on"]:
            door["why"] = rule["why"]
        elif not door["on"]:  # configured, but the process behind it shows no sign of life
            door["why"] = f"no sign of life for {3 * SMTP_HEARTBEAT_EVERY} s"
        else:
            door["secured"] = rule["why"]  # may name the mailbox: only in the private report
        if not door["on"] and ours == "webhook":
            door.pop("esps", None)
    return reported


def _doors(esps, listening, smtp, beats) -> dict[str, Any]:
    return {
        "web": {"on": True},
        "api": {"on": True},
        "mta_pipe": {"on": True, "how": "manage.py receive_email, through scripts/pbem-pipe"},
        "smtp_listener": {
            "on": listening,
            "last_seen": smtp.at.isoformat() if smtp else None,
            "address": smtp.detail if smtp else None,
        },
        "webhook": {"on": bool(esps), "esps": esps},
        "imap": {
            "on": bool(settings.PBEM_IMAP_HOST),
            "server": f"{settings.PBEM_IMAP_HOST}:{settings.PBEM_IMAP_PORT} ({settings.PBEM_IMAP_SECURITY})"
            if settings.PBEM_IMAP_HOST
            else None,
        },
    }


def webhook_esps() -> list[str]:
    """The ESPs whose inbound webhook has every setting it needs (`pbem.doors.esps`)."""
    from pbem.doors import esps

    return esps.on()


def _heartbeats() -> dict[str, Heartbeat]:
    return {beat.name: beat for beat in Heartbeat.objects.all()}


def _short(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]
