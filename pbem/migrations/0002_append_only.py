"""The database itself refuses to change or delete an event.

PostgreSQL: a row trigger raising restrict_violation (surfaces as IntegrityError in the ORM).
SQLite: two triggers, UPDATE and DELETE. Django's test flush on SQLite is a DELETE, so the
suite's transactional tests run on PostgreSQL only (see ../shared/STACK.md).
TRUNCATE is not a row operation: in production the app's role must not own the table.
"""

from django.db import migrations

from . import _log_triggers


def forwards(apps, schema_editor):
    _log_triggers.install(schema_editor)


def backwards(apps, schema_editor):
    _log_triggers.uninstall(schema_editor)


class Migration(migrations.Migration):
    dependencies = [("pbem", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
