"""What happens to a seat that misses deadlines in a row: the stand-in, the rules' minimal
action, or the Master of Seals. Games made before keep what they had (the minimal action)."""

from django.core.validators import MinValueValidator
from django.db import migrations, models

from . import _log_triggers  # shared SQL, not a migration (its name starts with _)


def existing_games_keep_the_minimal_action(apps, schema_editor):
    # On the migrating connection (the owner's, pbem/dbroles.py), not the default one.
    apps.get_model("pbem", "Game").objects.using(schema_editor.connection.alias).update(absence_policy="minimal")


def reinstall_guard(apps, schema_editor):
    _log_triggers.install_game_guard(schema_editor)  # SQLite rebuilds pbem_game to alter it


class Migration(migrations.Migration):
    dependencies = [("pbem", "0008_deadline_seconds")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="absence_policy",
            field=models.CharField(
                choices=[
                    ("standin", "the stand-in plays it until its player comes back"),
                    ("minimal", "the rules' minimal action (a pass) at each deadline"),
                    ("master", "the Master of Seals decides"),
                ],
                default="standin",
                max_length=8,
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="standin_after",
            field=models.IntegerField(default=2, validators=[MinValueValidator(1)]),
        ),
        migrations.RunPython(existing_games_keep_the_minimal_action, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="event",
            name="actor_kind",
            field=models.CharField(
                choices=[
                    ("seat", "a seat"),
                    ("system", "the system"),
                    ("admin", "an admin"),
                    ("standin", "the stand-in for a seat"),
                ],
                max_length=8,
            ),
        ),
        migrations.RunPython(reinstall_guard, migrations.RunPython.noop),
    ]
