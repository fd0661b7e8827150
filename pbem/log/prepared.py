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
    pipeline = _OPEN.get(conn)
    if pipeline is not None:
        pipeline.interrupt()  # its answers first: the connection takes no other statement meanwhile
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


# The pipeline open on a connection (by the psycopg connection object), if any: a statement run
# the ordinary way on it first reads the pipeline's answers (Pipeline.interrupt).
_OPEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class Pipeline:
    """Statements sent one after another without waiting for each answer (libpq's pipeline mode),
    their answers read together by `sync()`: a group of appends costs one round trip instead of
    one each, and the server runs each while the next is being built. Within a transaction only
    (its BEGIN is sent first); a pipeline's Sync does not end it.

    `on_interrupt()` is called when a statement is run the ordinary way on the connection while
    statements are in flight (through execute here, or through Django: see `before_query`): it
    must sync (the connection takes no ordinary statement in pipeline mode). Any error is raised
    by `sync()` once every answer is read and pipeline mode is left; the transaction is then
    failed, as after any error."""

    def __init__(self, conn: psycopg.Connection, on_interrupt):
        self.conn = conn
        self.on_interrupt = on_interrupt
        self.expected: list[bytes | None] = []  # per statement sent: the name it prepares, or None
        self.preparing: set[bytes] = set()

    def send(self, text: bytes, name: bytes, values: list) -> None:
        conn = self.conn
        pgconn = conn.pgconn
        with conn.lock:
            if not self.expected:
                begin_if_needed(conn)
                pgconn.enter_pipeline_mode()
                _OPEN[conn] = self
            with _PREPARED_LOCK:
                prepared = _PREPARED.setdefault(conn, set())
            if name not in prepared and name not in self.preparing:
                pgconn.send_prepare(name, text, None)
                self.expected.append(name)
                self.preparing.add(name)
            pgconn.send_query_prepared(name, values, None)
            self.expected.append(None)
            pgconn.flush()

    @property
    def open(self) -> bool:
        return bool(self.expected)

    def sync(self) -> list:
        """The results of the statements sent since the last sync, in their order (preparations
        left out); raises the first error, if any, after reading them all."""
        if not self.expected:
            return []
        conn = self.conn
        pgconn = conn.pgconn
        expected, self.expected, self.preparing = self.expected, [], set()
        results, error = [], None
        with conn.lock:
            try:
                pgconn.pipeline_sync()
                for name in expected:
                    result = pgconn.get_result()
                    while pgconn.get_result() is not None:  # the end of this statement's results
                        pass
                    if result is None or result.status == ExecStatus.PIPELINE_ABORTED:
                        continue
                    if result.status not in RAN:
                        if error is None:
                            error = psycopg.errors.error_from_result(result, encoding=conn.info.encoding)
                        continue
                    if name is None:
                        results.append(result)
                    else:
                        with _PREPARED_LOCK:
                            _PREPARED.setdefault(conn, set()).add(name)
                while (last := pgconn.get_result()) is not None and last.status != ExecStatus.PIPELINE_SYNC:
                    pass
            finally:
                _OPEN.pop(conn, None)
                pgconn.exit_pipeline_mode()
        if error is not None:
            raise error
        return results

    def abandon(self) -> None:
        """Leaves pipeline mode with whatever was sent read and dropped (the caller is failing)."""
        try:
            self.sync()
        except psycopg.Error:
            pass

    def interrupt(self) -> None:
        if self.expected:
            self.on_interrupt()

    def before_query(self, execute, sql, params, many, context):
        """A Django execute wrapper (connection.execute_wrapper): syncs first."""
        self.interrupt()
        return execute(sql, params, many, context)
