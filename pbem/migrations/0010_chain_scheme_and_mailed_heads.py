"""The hash chain's scheme per game, and the head each sent notice quoted.

- Game.chain_scheme: every game already in the database was written with scheme 1 and keeps it
  (the column is added with 1 for them); a game made from now on gets the newest scheme.
- Notice.chain_head: "VERSION:HASH" as the sent mail quoted it (empty for older notices), with a
  database default so the append's own INSERT of notice rows need not name it.
- SQLite rebuilds a table to alter it, and the table's triggers go with the old one: the log's
  triggers and the game guard are installed again (they are idempotent).
"""

from django.db import migrations, models

import pbem.models

from . import _log_triggers  # shared SQL, not a migration (its name starts with _)


def reinstall_triggers(apps, schema_editor):
    _log_triggers.install(schema_editor)
    _log_triggers.install_game_guard(schema_editor)


class Migration(migrations.Migration):
    dependencies = [("pbem", "0009_absence_policy")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="chain_scheme",
            field=models.SmallIntegerField(default=1, editable=False),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="game",
            name="chain_scheme",
            field=models.SmallIntegerField(default=pbem.models.current_chain_scheme, editable=False),
        ),
        migrations.AddField(
            model_name="notice",
            name="chain_head",
            field=models.CharField(blank=True, db_default="", default="", max_length=80),
        ),
        migrations.RunPython(reinstall_triggers, migrations.RunPython.noop),
    ]
