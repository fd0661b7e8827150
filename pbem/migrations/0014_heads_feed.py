"""The public heads feed (pbem.audit.publish): a table the service only appends to.

As for the log (migration 0002), the database itself refuses to change or delete an entry: a
row trigger on PostgreSQL, two triggers on SQLite; and the service role may only SELECT and
INSERT it (pbem/ops/dbroles.py, APPEND_ONLY_TABLES)."""

import django.db.models.deletion
from django.db import migrations, models

PG_SQL = """
CREATE OR REPLACE FUNCTION pbem_headentry_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'pbem_headentry is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS pbem_headentry_no_update ON pbem_headentry;
CREATE TRIGGER pbem_headentry_no_update BEFORE UPDATE OR DELETE ON pbem_headentry
    FOR EACH ROW EXECUTE FUNCTION pbem_headentry_append_only();
"""
PG_REVERSE = """
DROP TRIGGER IF EXISTS pbem_headentry_no_update ON pbem_headentry;
DROP FUNCTION IF EXISTS pbem_headentry_append_only();
"""
SQLITE_SQL = [
    """CREATE TRIGGER IF NOT EXISTS pbem_headentry_no_update BEFORE UPDATE ON pbem_headentry
       BEGIN SELECT RAISE(ABORT, 'pbem_headentry is append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER IF NOT EXISTS pbem_headentry_no_delete BEFORE DELETE ON pbem_headentry
       BEGIN SELECT RAISE(ABORT, 'pbem_headentry is append-only: DELETE refused'); END;""",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS pbem_headentry_no_update;",
    "DROP TRIGGER IF EXISTS pbem_headentry_no_delete;",
]


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_SQL, params=None)
    elif schema_editor.connection.vendor == "sqlite":
        for sql in SQLITE_SQL:
            schema_editor.execute(sql, params=None)


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_REVERSE, params=None)
    elif schema_editor.connection.vendor == "sqlite":
        for sql in SQLITE_REVERSE:
            schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("pbem", "0013_seat_time_zone_answer_index"),
    ]

    operations = [
        migrations.CreateModel(
            name="HeadEntry",
            fields=[
                ("n", models.BigIntegerField(primary_key=True, serialize=False)),
                ("version", models.IntegerField()),
                ("head_hash", models.CharField(max_length=64)),
                ("published_at", models.DateTimeField()),
                ("prev", models.CharField(max_length=64)),
                ("entry", models.CharField(max_length=64)),
                (
                    "game",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="pbem.game",
                    ),
                ),
            ],
            options={
                "ordering": ["n"],
                "indexes": [models.Index(fields=["game", "-version"], name="headentry_game_version")],
            },
        ),
        migrations.RunPython(install, uninstall),
    ]
