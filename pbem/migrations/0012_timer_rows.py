"""Timer rows indexed by due time (kept in step with the game row by a trigger) and the day of
each seat's last digest: the timers read only what is due."""

from datetime import datetime, timedelta

import django.db.models.deletion
from django.db import migrations, models

from . import _timer_triggers


def install_triggers(apps, schema_editor):
    _timer_triggers.install(schema_editor)


def uninstall_triggers(apps, schema_editor):
    _timer_triggers.uninstall(schema_editor)


def backfill(apps, schema_editor):
    """The rows of the games already running: what the trigger would have written, with the
    Master of Seals' reports already made for a deadline marked done."""
    Game = apps.get_model("pbem", "Game")
    Event = apps.get_model("pbem", "Event")
    DeadlineTimer = apps.get_model("pbem", "DeadlineTimer")
    db = schema_editor.connection.alias  # the owner's connection (the service role may not migrate)
    now = datetime.now().astimezone()
    rows = []
    for game_id, awaited, deadlines, period in (
        Game.objects.using(db)
        .filter(status="running")
        .values_list("id", "awaited", "deadlines", "deadline_seconds")
        .iterator()
    ):
        deadlines = deadlines or {}
        for seat in {int(s) for s in deadlines} | set(awaited or []):
            iso = deadlines.get(str(seat), "")
            reported = (
                bool(iso)
                and Event.objects.using(db)
                .filter(game_id=game_id, type="pbem.DeadlineMissed", payload__seat=seat, payload__deadline=iso)
                .exists()
            )
            due = None if reported else (datetime.fromisoformat(iso) - timedelta(seconds=period) if iso else now)
            rows.append(
                DeadlineTimer(game_id=game_id, seat=seat, deadline=iso, period=period, due_at=due, reported=reported)
            )
    DeadlineTimer.objects.using(db).bulk_create(rows, batch_size=1000, ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [
        ("pbem", "0011_heartbeat"),
    ]

    operations = [
        migrations.CreateModel(
            name="DeadlineTimer",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("seat", models.SmallIntegerField()),
                ("deadline", models.CharField(blank=True, max_length=40)),
                ("period", models.IntegerField()),
                ("due_at", models.DateTimeField(blank=True, null=True)),
                ("reminded_at", models.DateTimeField(blank=True, null=True)),
                ("reported", models.BooleanField(default=False)),
                ("lease", models.CharField(blank=True, default="", max_length=32)),
            ],
        ),
        migrations.AddField(
            model_name="seat",
            name="last_digest_on",
            field=models.DateField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("notice_preference", "digest")), fields=["last_digest_on"], name="seat_digest_due"
            ),
        ),
        migrations.AddField(
            model_name="deadlinetimer",
            name="game",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="pbem.game",
            ),
        ),
        migrations.AddIndex(
            model_name="deadlinetimer",
            index=models.Index(
                condition=models.Q(("due_at__isnull", False)), fields=["due_at"], name="deadlinetimer_due"
            ),
        ),
        migrations.AddConstraint(
            model_name="deadlinetimer",
            constraint=models.UniqueConstraint(fields=("game", "seat"), name="deadlinetimer_unique_seat"),
        ),
        migrations.RunPython(install_triggers, uninstall_triggers),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
