"""Rows of the reply path read and written by statements made once per process (and, on
PostgreSQL, prepared once per connection: pbem.log.prepared).

Processing a mail reads and writes a handful of single rows (the stored message, its seat and
game, the answer); through the ORM each costs 0.7–1.8 ms of CPU to compile its SQL, against
0.1 ms to run a ready statement, which made the ORM most of a reply's cost. These helpers build
each statement once from the models' own field lists and convert values with the fields' own
methods (`get_db_prep_save`, `pre_save`, `from_db_value`), so a field added to a model is read
and written here too. Models with save() overrides or signals must not go through here (none of
the three do).
"""

from __future__ import annotations

import functools
from typing import TypeVar

from django.db import connection
from django.db.models import Model
from psycopg.adapt import PyFormat, Transformer

from pbem.log import prepared
from pbem.models import Game, InboundMessage, Seat

M = TypeVar("M", bound=Model)


@functools.cache
def _columns(model: type[Model]) -> tuple[list, list[str], str]:
    """(per column: its Col and the converters the compiler would apply, the attnames, the
    SELECT list). The converters are the backend's (SQLite's text dates, its 0/1 booleans) and
    the field's own (from_db_value: JSON)."""
    fields = list(model._meta.concrete_fields)
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(f"{table}.{connection.ops.quote_name(str(f.column))}" for f in fields)
    cols = []
    for f in fields:
        col = f.get_col(model._meta.db_table)
        cols.append((col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)))
    return cols, [f.attname for f in fields], names


@functools.cache
def _values_columns(model: type[Model], names: tuple[str, ...]) -> tuple[str, list]:
    """(the SELECT list of `names`, per name its Col and the converters the compiler would apply)."""
    table = model._meta.db_table
    quote = connection.ops.quote_name
    fields = {f.name: f for f in model._meta.concrete_fields}
    select, cols = [], []
    for name in names:
        f = fields[name]
        select.append(f"{quote(table)}.{quote(str(f.column))}")
        col = f.get_col(table)
        cols.append((col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)))
    return ", ".join(select), cols


def values_where(model: type[Model], names: tuple[str, ...], where: str, params: list) -> list[dict]:
    """What `model.objects.filter(…).values(*names)` gives, for a WHERE clause (and ORDER BY) of
    the caller's: the values converted by the fields' own methods, without the ORM's compiling
    (a group of timeouts read its games and seats this way: the queryset cost more than the rows)."""
    select, cols = _values_columns(model, names)
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {select} FROM {table} WHERE {where}", params)
        raw = cursor.fetchall()
    out = []
    for values in raw:
        row = {}
        for name, (col, converters), value in zip(names, cols, values, strict=True):
            for convert in converters:
                value = convert(value, col, connection)
            row[name] = value
        out.append(row)
    return out


def columns_sql(model: type[Model]) -> str:
    """Every column of `model`, qualified by its table, in field order (for a SELECT)."""
    return _columns(model)[2]


def width(model: type[Model]) -> int:
    return len(_columns(model)[0])


def from_row(model: type[M], values) -> M:
    """An instance from the row's values in columns_sql order, converted as the ORM would."""
    cols, attnames, _names = _columns(model)
    converted = []
    for (col, converters), value in zip(cols, values, strict=True):
        for convert in converters:
            value = convert(value, col, connection)
        converted.append(value)
    return model.from_db(connection.alias, attnames, converted)


class _PreparedCursor:
    """Enough of a DB-API cursor for Django's CursorWrapper to run one of these statements
    prepared (pbem.log.prepared): planned once per connection, its parameters dumped and its row
    loaded by psycopg's adapters, as Django's own cursor would give them."""

    def __init__(self, conn) -> None:
        self._conn = conn
        self._tx = Transformer(conn)
        self._query: _Logged | None = None  # what Django's queries log reads as the statement run
        self._row: tuple | None = None
        self.rowcount = -1

    def execute(self, sql: str, params) -> None:
        text, name = prepared.numbered(sql, "pbem_rows_")
        values = list(self._tx.dump_sequence(params, [PyFormat.TEXT] * len(params)))
        result = prepared.execute(self._conn, text, name, values)
        self._query = _Logged(text)
        self.rowcount = result.command_tuples if result.command_tuples is not None else -1
        self._row = None
        if result.ntuples:
            self._tx.set_pgresult(result)
            self._row = self._tx.load_row(0, tuple)

    def fetchone(self):
        row, self._row = self._row, None
        return row

    def close(self) -> None:
        self._row = None


class _Logged:
    def __init__(self, query: bytes) -> None:
        self.query = query


def _cursor():
    """A cursor for the reply path's statements: on PostgreSQL each runs prepared (the server
    stops planning it anew: 0.2 ms of the facts query's 0.3), wrapped as Django wraps its own
    cursors (its errors, execute wrappers and queries log)."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    return connection._prepare_cursor(_PreparedCursor(connection.connection))


def fetch_one(sql: str, params: list) -> tuple | None:
    with _cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


@functools.cache
def _insert_sql(model: type[Model]) -> tuple[list, str]:
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(str(f.column)) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {quote(str(model._meta.pk.column))}"
    )
    return fields, sql


def insert(instance: M) -> M:
    """INSERT of a new instance (defaults and auto_now_add as save() gives them); sets its pk.
    Raises IntegrityError as save() does."""
    fields, sql = _insert_sql(type(instance))
    params = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
    with _cursor() as cursor:
        cursor.execute(sql, params)
        instance.pk = cursor.fetchone()[0]
    instance._state.adding, instance._state.db = False, connection.alias
    return instance


@functools.cache
def _update_sql(model: type[Model], names: tuple[str, ...]) -> tuple[list, str]:
    fields = [model._meta.get_field(name) for name in names]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(str(getattr(f, 'column', f.name)))} = %s" for f in fields)
    pk = quote(str(model._meta.pk.column))
    return fields, f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {pk} = %s"


def update(instance: Model, names: list[str], and_insert: Model | None = None) -> None:
    """save(update_fields=names) in one ready statement. With `and_insert`, that new instance is
    inserted too (its pk set), on PostgreSQL by the same statement: one round trip for a
    reply's answer and its message's end state."""
    fields, sql = _update_sql(type(instance), tuple(names))
    params = [f.get_db_prep_save(f.pre_save(instance, False), connection) for f in fields]
    if and_insert is None:
        with _cursor() as cursor:
            cursor.execute(sql, [*params, instance.pk])
        return
    if connection.vendor != "postgresql":  # no INSERT in a WITH there: two statements
        insert(and_insert)
        update(instance, names)
        return
    new_fields, insert_sql = _insert_sql(type(and_insert))
    new_params = [f.get_db_prep_save(f.pre_save(and_insert, True), connection) for f in new_fields]
    with _cursor() as cursor:
        cursor.execute(
            f"WITH inserted AS ({insert_sql}), updated AS ({sql} RETURNING 1) SELECT (SELECT * FROM inserted)",
            [*new_params, *params, instance.pk],
        )
        and_insert.pk = cursor.fetchone()[0]
    and_insert._state.adding, and_insert._state.db = False, connection.alias


# ---------------------------------------------------------------------------------------------
# The reply path's reads
# ---------------------------------------------------------------------------------------------


def lock_inbound(inbound_id: int):
    """The stored message, its row locked for this transaction (None if there is none)."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    row = fetch_one(f"SELECT {columns_sql(InboundMessage)} FROM pbem_inboundmessage WHERE id = %s{lock}", [inbound_id])
    return from_row(InboundMessage, row) if row else None


def seat_exists(seat_id: int) -> bool:
    """Whether there is such a seat (the SMTP listener's check of each recipient's token)."""
    return fetch_one("SELECT 1 FROM pbem_seat WHERE id = %s", [seat_id]) is not None


def seat_with_game(seat_id: int):
    """The seat with its game row (as select_related("game") gives it), or None."""
    found = seat_game_and(seat_id)
    return found[0] if found else None


def seat_game_and(seat_id: int, extra: str = "", params: list | tuple = ()) -> tuple[Seat, tuple] | None:
    """seat_with_game, and the values of `extra` (", column, …" over pbem_seat, with its
    `params`) read in the same statement."""
    row = fetch_one(
        f"SELECT {columns_sql(Seat)}, {columns_sql(Game)}{extra} FROM pbem_seat "
        "JOIN pbem_game ON pbem_game.id = pbem_seat.game_id WHERE pbem_seat.id = %s",
        [*params, seat_id],
    )
    if row is None:
        return None
    seat_end, game_end = width(Seat), width(Seat) + width(Game)
    seat = from_row(Seat, row[:seat_end])
    Seat.game.field.set_cached_value(seat, from_row(Game, row[seat_end:game_end]))
    return seat, tuple(row[game_end:])
