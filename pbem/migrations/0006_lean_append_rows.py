"""Leaner rows for the append: what every append paid for and what replaces it.

- The CHECK constraints of PositiveIntegerField on event, game and notice go (PostgreSQL checks
  all of a row's CHECK constraints on every insert and update, parsing each one anew).
- The database FKs from event and notice go: the append takes the game's id from the game row
  it has just bumped, and the seat's id from that game's seats. In their place, a trigger
  refuses to delete a game that has a log (the ORM's PROTECT already refuses it).
- Notice keeps an index by game and by status; message id and dedupe key get partial indexes
  that a fresh notice (no message id, no key) does not touch.
- SQLite rebuilds a table to drop a constraint, and its triggers go with the old table, so the
  append-only triggers of 0002 are installed again at the end.
"""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from . import _log_triggers  # shared SQL, not a migration (its name starts with _)


def forwards(apps, schema_editor):
    _log_triggers.install(schema_editor)
    _log_triggers.install_game_guard(schema_editor)


def backwards(apps, schema_editor):
    _log_triggers.uninstall_game_guard(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("pbem", "0005_event_indexes_for_append"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="actor_user",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="event",
            name="game",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="pbem.game",
            ),
        ),
        migrations.AlterField(
            model_name="event",
            name="schema_version",
            field=models.SmallIntegerField(default=1),
        ),
        migrations.AlterField(
            model_name="event",
            name="seq",
            field=models.IntegerField(),
        ),
        migrations.AlterField(
            model_name="game",
            name="away_allowance_days",
            field=models.IntegerField(default=21, validators=[django.core.validators.MinValueValidator(0)]),
        ),
        migrations.AlterField(
            model_name="game",
            name="deadline_hours",
            field=models.IntegerField(default=48, validators=[django.core.validators.MinValueValidator(0)]),
        ),
        migrations.AlterField(
            model_name="game",
            name="read_model_version",
            field=models.IntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="game",
            name="version",
            field=models.IntegerField(default=0, editable=False),
        ),
        migrations.AlterField(
            model_name="notice",
            name="attempts",
            field=models.SmallIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="notice",
            name="dedupe_key",
            field=models.CharField(blank=True, max_length=200, null=True),
        ),
        migrations.AlterField(
            model_name="notice",
            name="game",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="notices",
                to="pbem.game",
            ),
        ),
        migrations.AlterField(
            model_name="notice",
            name="message_id",
            field=models.CharField(blank=True, max_length=250),
        ),
        migrations.AlterField(
            model_name="notice",
            name="seat",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="notices",
                to="pbem.seat",
            ),
        ),
        migrations.AlterField(
            model_name="notice",
            name="status",
            field=models.CharField(
                choices=[
                    ("pending", "pending"),
                    ("sending", "sending"),
                    ("sent", "sent"),
                    ("failed", "failed"),
                    ("bounced", "bounced"),
                    ("skipped", "skipped"),
                ],
                default="pending",
                max_length=8,
            ),
        ),
        migrations.AlterField(
            model_name="notice",
            name="version",
            field=models.IntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name="notice",
            index=models.Index(fields=["status"], name="notice_status"),
        ),
        migrations.AddIndex(
            model_name="notice",
            index=models.Index(
                condition=models.Q(("message_id", ""), _negated=True), fields=["message_id"], name="notice_message_id"
            ),
        ),
        migrations.AddConstraint(
            model_name="notice",
            constraint=models.UniqueConstraint(
                condition=models.Q(("dedupe_key__isnull", False)),
                fields=("dedupe_key",),
                name="notice_unique_dedupe_key",
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
