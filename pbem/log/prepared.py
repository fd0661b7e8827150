"""Statements of the hot paths, prepared once per PostgreSQL connection under names of our own.

A statement run through Django's cursor is planned anew each time (client-side binding: psycopg
spells the parameters into the text); planning was most of the server's time for the reply
path's reads (0.2 ms of the facts query's 0.3). Prepared, it is planned once per connection.

psycopg can prepare statements itself, but at every rollback it then deallocates *every*
statement of the session (DEALLOCATE ALL), those prepared here included, and an append in a
transaction opened after that failed with "prepared statement does not exist", taking the
transaction with it. So psycopg's own preparing stays off (settings: prepare_threshold None),
and what is prepared is prepared here: a statement stays prepared for the connection's life
(PREPARE is not undone by a rollback), and one a pooler's DISCARD ALL dropped is prepared again.

Statements take their parameters as text, their types inferred by the server from where they
stand (as a literal's would be), and a transaction Django has opened but not yet begun on the
server is begun here as psycopg would begin it.
"""

from __future__ import annotations

import hashlib
import threading
import weakref

import psycopg
from psycopg.pq import DiagnosticField, ExecStatus, TransactionStatus

# Names prepared on each connection (by the psycopg connection object: a reconnection is a new
# object and starts empty).
_PREPARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_PREPARED_LOCK = threading.Lock()
_NUMBERED: dict[tuple[str, str], tuple[bytes, bytes]] = {}

STATEMENT_MISSING = b"26000"  # invalid_sql_statement_name: the session lost it
ALREADY_PREPARED = b"42P05"  # duplicate_prepared_statement: as good


def numbered(sql: str, prefix: str = "pbem_") -> tuple[bytes, bytes]:
    """(libpq's spelling of `sql`, with $1 … for each %s; the name it is prepared under). The
    name comes from the text, so two texts never share a name, whoever builds them first."""
    found = _NUMBERED.get((sql, prefix))
    if found is None:
        pieces = sql.replace("%%", "\x00").split("%s")  # psycopg's spelling: %% is a literal %
        text = pieces[0] + "".join(f"${i}{piece}" for i, piece in enumerate(pieces[1:], start=1))
        text = text.replace("\x00", "%")
        name = prefix + hashlib.sha256(text.encode()).hexdigest()[:20]
        found = _NUMBERED[sql, prefix] = (text.encode(), name.encode())
    return found


def begin_if_needed(conn: psycopg.Connection) -> None:
    """Begins on the server the transaction Django opened (autocommit off) if no statement has
    begun it yet: what psycopg sends before its first statement, with the same options."""
    if conn.autocommit or conn.pgconn.transaction_status != TransactionStatus.IDLE:
        return
    begin = b"BEGIN"
    if conn.isolation_level is not None:
        begin += b" ISOLATION LEVEL " + conn.isolation_level.name.replace("_", " ").encode()
    if conn.read_only is not None:
        begin += b" READ ONLY" if conn.read_only else b" READ WRITE"
    if conn.deferrable is not None:
        begin += b" DEFERRABLE" if conn.deferrable else b" NOT DEFERRABLE"
    check(conn, conn.pgconn.exec_(begin))


RAN = (ExecStatus.TUPLES_OK, ExecStatus.COMMAND_OK)


def execute(conn: psycopg.Connection, text: bytes, name: bytes, values: list):
    """Runs the statement `name` (prepared from `text` on first use on this connection) with
    `values` (bytes or None, text format); returns libpq's result, or raises psycopg's error."""
    with _PREPARED_LOCK:
        prepared = _PREPARED.get(conn)
        if prepared is None:
            prepared = _PREPARED[conn] = set()
    with conn.lock:
        begin_if_needed(conn)
        for _attempt in (1, 2):
            if name not in prepared:
                made = conn.pgconn.prepare(name, text, None)
                if made.error_field(DiagnosticField.SQLSTATE) != ALREADY_PREPARED:
                    check(conn, made)
                prepared.add(name)
            result = conn.pgconn.exec_prepared(name, values)
            if (
                result.status == ExecStatus.FATAL_ERROR
                and result.error_field(DiagnosticField.SQLSTATE) == STATEMENT_MISSING
            ):
                # Lost (a pooler's DISCARD ALL): prepared again, at once unless a transaction just failed.
                prepared.discard(name)
                if conn.pgconn.transaction_status == TransactionStatus.IDLE:
                    continue
            check(conn, result)
            return result
    raise psycopg.OperationalError("the statement could not be prepared")


def check(conn: psycopg.Connection, result) -> None:
    if result.status not in RAN:
        raise psycopg.errors.error_from_result(result, encoding=conn.info.encoding)
