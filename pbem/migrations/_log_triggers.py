"""The triggers that keep the log: shared by migrations 0002, 0006 and 0007 (not a migration).

SQLite rebuilds a table to alter it, and the table's triggers go with the old one, so a
migration that alters pbem_event or pbem_game installs these again (they are idempotent).

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


GUARD_PG = """
CREATE OR REPLACE FUNCTION pbem_game_keeps_log() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM pbem_event WHERE game_id = OLD.id) THEN
        RAISE EXCEPTION 'game % has a log and cannot be deleted', OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS pbem_game_keeps_log ON pbem_game;
CREATE TRIGGER pbem_game_keeps_log BEFORE DELETE ON pbem_game
    FOR EACH ROW EXECUTE FUNCTION pbem_game_keeps_log();
"""
GUARD_PG_REVERSE = """
DROP TRIGGER IF EXISTS pbem_game_keeps_log ON pbem_game;
DROP FUNCTION IF EXISTS pbem_game_keeps_log();
"""
GUARD_SQLITE = """CREATE TRIGGER IF NOT EXISTS pbem_game_keeps_log BEFORE DELETE ON pbem_game
    WHEN EXISTS (SELECT 1 FROM pbem_event WHERE game_id = OLD.id)
    BEGIN SELECT RAISE(ABORT, 'a game with a log cannot be deleted'); END;"""


def install_game_guard(schema_editor):
    """A game that has a log cannot be deleted (the events carry no database FK)."""
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(GUARD_PG, params=None)
    elif vendor == "sqlite":
        schema_editor.execute(GUARD_SQLITE, params=None)


def uninstall_game_guard(schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(GUARD_PG_REVERSE, params=None)
    elif vendor == "sqlite":
        schema_editor.execute("DROP TRIGGER IF EXISTS pbem_game_keeps_log;", params=None)
