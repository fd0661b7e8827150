"""The append-only triggers on pbem_event, shared by migrations 0002 and 0006 (not a migration).

The database itself refuses to change or delete an event.

PostgreSQL: a row trigger raising restrict_violation (surfaces as IntegrityError in the ORM).
SQLite: two triggers, UPDATE and DELETE. Django's test flush on SQLite is a DELETE, so the
suite's transactional tests run on PostgreSQL only (see ../shared/STACK.md).
TRUNCATE is not a row operation: in production the app's role must not own the table.
"""


PG_SQL = """
CREATE OR REPLACE FUNCTION pbem_event_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'pbem_event is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS pbem_event_no_update ON pbem_event;
CREATE TRIGGER pbem_event_no_update BEFORE UPDATE OR DELETE ON pbem_event
    FOR EACH ROW EXECUTE FUNCTION pbem_event_append_only();
"""
PG_REVERSE = """
DROP TRIGGER IF EXISTS pbem_event_no_update ON pbem_event;
DROP FUNCTION IF EXISTS pbem_event_append_only();
"""
SQLITE_SQL = [
    """CREATE TRIGGER IF NOT EXISTS pbem_event_no_update BEFORE UPDATE ON pbem_event
       BEGIN SELECT RAISE(ABORT, 'pbem_event is append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER IF NOT EXISTS pbem_event_no_delete BEFORE DELETE ON pbem_event
       BEGIN SELECT RAISE(ABORT, 'pbem_event is append-only: DELETE refused'); END;""",
]
SQLITE_REVERSE = ["DROP TRIGGER IF EXISTS pbem_event_no_update;", "DROP TRIGGER IF EXISTS pbem_event_no_delete;"]


def install(schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_SQL, params=None)
    elif schema_editor.connection.vendor == "sqlite":
        for sql in SQLITE_SQL:
            schema_editor.execute(sql, params=None)


def uninstall(schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_REVERSE, params=None)
    elif schema_editor.connection.vendor == "sqlite":
        for sql in SQLITE_REVERSE:
            schema_editor.execute(sql, params=None)

