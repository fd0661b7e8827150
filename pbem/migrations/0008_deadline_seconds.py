"""A game's time per move in seconds (was whole hours): the desk and the forms still speak hours,
but a table may play at one minute a move, and the timers' tests run at seconds."""

from django.core.validators import MinValueValidator
from django.db import migrations, models

from . import _log_triggers  # shared SQL, not a migration (its name starts with _)


def hours_to_seconds(apps, schema_editor):
    Game = apps.get_model("pbem", "Game")
    # On the migrating connection (the owner's, pbem/dbroles.py), not the default one.
    Game.objects.using(schema_editor.connection.alias).update(deadline_seconds=models.F("deadline_hours") * 3600)


def seconds_to_hours(apps, schema_editor):
    Game = apps.get_model("pbem", "Game")
    games = Game.objects.using(schema_editor.connection.alias)
    for game in games.all():
        games.filter(pk=game.pk).update(deadline_hours=max(1, round(game.deadline_seconds / 3600)))


def reinstall_guard(apps, schema_editor):
    _log_triggers.install_game_guard(schema_editor)  # SQLite rebuilds pbem_game to alter it


class Migration(migrations.Migration):
    dependencies = [("pbem", "0007_fewer_indexes_on_append_tables")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="deadline_seconds",
            field=models.IntegerField(default=48 * 3600, validators=[MinValueValidator(1)]),
        ),
        migrations.RunPython(hours_to_seconds, seconds_to_hours),
        migrations.RemoveField(model_name="game", name="deadline_hours"),
        migrations.RunPython(reinstall_guard, migrations.RunPython.noop),
    ]
