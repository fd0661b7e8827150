"""The trigger that keeps pbem_deadlinetimer in step with the game row (not a migration).

Whatever writes a game's read model (the append's single statement, the ORM's update on SQLite,
`rebuild_read_models`, a test), the database replaces the timer row of each seat whose deadline
changed, adds one for each newly awaited seat (deadline "" while it is held after a bounce),
and removes those of seats no longer awaited or of a game no longer running. It fires only when
one of those columns changes, so an append that leaves the turn alone pays nothing for it.

A fresh row is due at the beginning of its period: the sweep then moves it to the first
reminder mark (the marks are settings, which the database does not know). A held seat's row is
due at once: the sweep works out when its hold ends.

SQLite rebuilds a table to alter it, and the table's triggers go with the old one: a migration
that alters pbem_game must call `install` again (it is idempotent).
"""

PG_SQL = """
CREATE OR REPLACE FUNCTION pbem_deadline_timers() RETURNS trigger AS $$
BEGIN
    DELETE FROM pbem_deadlinetimer t WHERE t.game_id = NEW.id AND (
        NEW.status <> 'running'
        OR COALESCE(NEW.deadlines ->> t.seat::text,
                    CASE WHEN NEW.awaited @> to_jsonb(t.seat) THEN '' END) IS DISTINCT FROM t.deadline);
    IF NEW.status = 'running' THEN
        UPDATE pbem_deadlinetimer t SET period = NEW.deadline_seconds,
               due_at = LEAST(t.due_at, t.deadline::timestamptz - make_interval(secs => NEW.deadline_seconds))
         WHERE t.game_id = NEW.id AND t.period <> NEW.deadline_seconds AND t.deadline <> '' AND NOT t.reported;
        INSERT INTO pbem_deadlinetimer (game_id, seat, deadline, period, due_at, reminded_at, reported, lease)
        SELECT NEW.id, d.key::smallint, d.value::varchar, NEW.deadline_seconds,
               d.value::timestamptz - make_interval(secs => NEW.deadline_seconds), NULL::timestamptz, false,
               ''::varchar
          FROM jsonb_each_text(NEW.deadlines) d
        UNION ALL
        SELECT NEW.id, a.value::smallint, ''::varchar, NEW.deadline_seconds, now(), NULL::timestamptz, false,
               ''::varchar
          FROM jsonb_array_elements_text(NEW.awaited) a WHERE NOT NEW.deadlines ? a.value
        ON CONFLICT (game_id, seat) DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS pbem_deadline_timers_new ON pbem_game;
CREATE TRIGGER pbem_deadline_timers_new AFTER INSERT ON pbem_game
    FOR EACH ROW WHEN (NEW.status = 'running') EXECUTE FUNCTION pbem_deadline_timers();
DROP TRIGGER IF EXISTS pbem_deadline_timers ON pbem_game;
CREATE TRIGGER pbem_deadline_timers AFTER UPDATE OF status, deadlines, awaited, deadline_seconds ON pbem_game
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.deadlines IS DISTINCT FROM NEW.deadlines
                       OR OLD.awaited IS DISTINCT FROM NEW.awaited
                       OR OLD.deadline_seconds IS DISTINCT FROM NEW.deadline_seconds)
    EXECUTE FUNCTION pbem_deadline_timers();
"""
PG_REVERSE = """
DROP TRIGGER IF EXISTS pbem_deadline_timers ON pbem_game;
DROP TRIGGER IF EXISTS pbem_deadline_timers_new ON pbem_game;
DROP FUNCTION IF EXISTS pbem_deadline_timers();
"""

# SQLite keeps datetimes as "YYYY-MM-DD HH:MM:SS.ffffff" text in UTC: strftime gives the same
# shape (to the millisecond: a row may come due a fraction early, and the sweep decides on the
# exact deadline).
_SQLITE_BODY = """
BEGIN
    DELETE FROM pbem_deadlinetimer WHERE game_id = NEW.id AND (
        NEW.status <> 'running'
        OR COALESCE(json_extract(NEW.deadlines, '$."' || seat || '"'),
                    CASE WHEN EXISTS (SELECT 1 FROM json_each(NEW.awaited) a WHERE a.value = seat) THEN '' END)
           IS NOT deadline);
    UPDATE pbem_deadlinetimer SET period = NEW.deadline_seconds,
           due_at = min(COALESCE(due_at, '9999'),
                        strftime('%Y-%m-%d %H:%M:%f', deadline, '-' || NEW.deadline_seconds || ' seconds'))
     WHERE game_id = NEW.id AND NEW.status = 'running' AND period <> NEW.deadline_seconds AND deadline <> ''
       AND NOT reported;
    INSERT OR IGNORE INTO pbem_deadlinetimer (game_id, seat, deadline, period, due_at, reminded_at, reported, lease)
    SELECT NEW.id, CAST(d.key AS INTEGER), d.value, NEW.deadline_seconds,
           strftime('%Y-%m-%d %H:%M:%f', d.value, '-' || NEW.deadline_seconds || ' seconds'), NULL, 0, ''
      FROM json_each(NEW.deadlines) d WHERE NEW.status = 'running';
    INSERT OR IGNORE INTO pbem_deadlinetimer (game_id, seat, deadline, period, due_at, reminded_at, reported, lease)
    SELECT NEW.id, a.value, '', NEW.deadline_seconds, strftime('%Y-%m-%d %H:%M:%f', 'now'), NULL, 0, ''
      FROM json_each(NEW.awaited) a
     WHERE NEW.status = 'running' AND json_extract(NEW.deadlines, '$."' || a.value || '"') IS NULL;
END;"""
SQLITE_SQL = [
    "DROP TRIGGER IF EXISTS pbem_deadline_timers;",
    "DROP TRIGGER IF EXISTS pbem_deadline_timers_new;",
    "CREATE TRIGGER pbem_deadline_timers AFTER UPDATE OF status, deadlines, awaited, deadline_seconds ON pbem_game"
    " WHEN OLD.status IS NOT NEW.status OR OLD.deadlines IS NOT NEW.deadlines OR OLD.awaited IS NOT NEW.awaited"
    " OR OLD.deadline_seconds IS NOT NEW.deadline_seconds" + _SQLITE_BODY,
    "CREATE TRIGGER pbem_deadline_timers_new AFTER INSERT ON pbem_game WHEN NEW.status = 'running'" + _SQLITE_BODY,
]
SQLITE_REVERSE = ["DROP TRIGGER IF EXISTS pbem_deadline_timers;", "DROP TRIGGER IF EXISTS pbem_deadline_timers_new;"]


def install(schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_SQL, params=None)
    elif vendor == "sqlite":
        for sql in SQLITE_SQL:
            schema_editor.execute(sql, params=None)


def uninstall(schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_REVERSE, params=None)
    elif vendor == "sqlite":
        for sql in SQLITE_REVERSE:
            schema_editor.execute(sql, params=None)
