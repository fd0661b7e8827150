"""The pipe door's own store without Django (issue 34): a message from an MTA written into the
inbound table by the standard library and libpq (PostgreSQL, loaded with ctypes: psycopg's
import alone was 0.3 s of CPU) or sqlite3 (the embedded database), then its processing queued by
one Redis command in the form Celery's worker takes. No Django, no psycopg, no Celery, no kombu,
and for the usual message and settings not even re, json or the email package: the pipe without
the listener cost 0.3-0.4 s of CPU a message on Django's ORM, 1.4-1.8 s of wall time on a loaded
two-core machine; this costs about what `python -c pass` costs (README, "Mail at scale").

Run where an MTA waits for the answer: pbem/doors/handoff.py's slow way (scripts/pbem-pipe, as
`python -I -S`, when no listener is named or it is away), and `manage.py receive_email` with the
message on stdin (pbem/doors/pipe.py). `plan()` decides from the environment alone, before the
message is read, whether this store can take it: the project's own settings (config.settings),
a broker on redis://, PostgreSQL through a libpq it finds, or SQLite. Anything else (no broker:
the message is processed before the answer; settings of a deployment's own; another broker or
database; PBEM_PIPE_STORE=django, the operator's way back) raises NotHere, and the caller stores
the message Django's way.

What is stored is what `pbem.doors.inbox.store_raw` stores (tests/doors/test_pipe_store.py holds
the two alike: the columns, the Message-ID or content digest, the sender, a large message's
headers): a repeat delivery is stored once, with exit 0. Exit status as sendmail's sysexits mean
it (scripts/pbem-pipe): 0 stored or stored before; 65 no message, or one over
PBEM_INBOUND_HARD_LIMIT; 75 not stored now (the database away, PBEM_PIPE_TIMEOUT passed). The
recipient (a reply address holds a seat token) is stored, never printed.
"""

from __future__ import annotations

import os
import sys

# What relays add, left out of the content digest as inbound.py leaves it out (standard library only).
from pbem.mail.trace import TRACE_HEADERS, truncated

EX_DATAERR = 65
EX_TEMPFAIL = 75
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The inbound table as pbem.models.InboundMessage makes it: every column but the id, in the
# model's order (tests/doors/test_pipe_store.py checks them against the model's fields).
TABLE = "pbem_inboundmessage"
COLUMNS = (
    "message_id",
    "channel",
    "raw",
    "received_at",
    "status",
    "outcome",
    "game_id",
    "seat_id",
    "sender",
    "processed_at",
    "result_version",
    "error_code",
    "envelope_to",
)
TASK = "pbem.tasks.process_inbound"


class NotHere(Exception):
    """This store cannot take the message on these settings: Django's way does (`str()`: why)."""


class Failed(Exception):
    """The message was not stored; `status` is the exit status (65 or 75)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------------------------
# The settings, from the environment as config/settings.py reads them
# ---------------------------------------------------------------------------------------------


def env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in ("1", "true", "yes", "on")


class Plan:
    """What storing and queueing need of the settings (config/settings.py's names and defaults)."""

    def __init__(self) -> None:
        env = os.environ.get
        self.max_bytes = int(env("PBEM_INBOUND_MAX_BYTES", str(1024 * 1024)))
        self.hard_limit = int(env("PBEM_INBOUND_HARD_LIMIT", str(32 * 1024 * 1024)))
        self.timeout = int(env("PBEM_PIPE_TIMEOUT", "60"))
        self.queue = env("CELERY_TASK_DEFAULT_QUEUE", "celery")
        self.broker_timeout = float(env("CELERY_BROKER_CONNECTION_TIMEOUT", "1"))
        self.broker = redis_address(env("CELERY_BROKER_URL", ""))
        data_dir = env("PBEM_DATA_DIR", os.path.join(ROOT, "data"))
        url = env("DATABASE_URL", f"sqlite:///{os.path.join(data_dir, 'pbem.sqlite3')}")
        if url.startswith("sqlite:"):
            self.database: Sqlite | Postgres = Sqlite(sqlite_path(url))
        else:
            self.database = Postgres(postgres_params(url))


def plan() -> Plan:
    """The settings this store works with, or NotHere (decided before the message is read)."""
    if os.environ.get("PBEM_PIPE_STORE", "") == "django":  # the operator's choice: Django's way always
        raise NotHere("PBEM_PIPE_STORE=django")
    if os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings") not in ("config.settings", "config.settings_store"):
        raise NotHere("settings of the deployment's own")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if env_bool("CELERY_TASK_ALWAYS_EAGER", not broker):
        raise NotHere("no broker: the message is processed before the answer")
    try:
        return Plan()
    except ValueError as exc:
        raise NotHere(f"settings this store does not read: {exc}") from exc


# What a URL may hold for this module to read it without urllib.parse (it imports re, which with
# json and base64 was a quarter of this process's CPU): no escapes, "+", fragment, IPv6 literal,
# blank or non-ASCII character. Any other URL is read by urllib.parse itself.
PLAIN_URL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*,;=:@/?")


class Url:
    """A URL as urllib.parse.urlsplit reads it (the scheme and host name lower-cased, the port
    checked) and dj_database_url and kombu take it: user, password, host and path unquoted, the
    query as parse_qsl's pairs."""

    def __init__(self, url: str):
        scheme, sep, rest = url.partition("://")
        if not (sep and scheme.isascii() and scheme.isalnum() and scheme[0].isalpha() and PLAIN_URL.issuperset(rest)):
            self._read_by_urllib(url)
            return
        end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
        netloc, (self.path, _, query) = rest[:end], rest[end:].partition("?")
        userinfo, at, hostinfo = netloc.rpartition("@")
        user, colon, password = userinfo.partition(":")
        self.username: str | None = user if at else None
        self.password: str | None = password if at and colon else None
        host, has_port, port = hostinfo.partition(":")
        if has_port and not (port.isdigit() and int(port) <= 65535):
            self._read_by_urllib(url)  # which says what is wrong with it
            return
        self.scheme, self.hostname, self.port = scheme.lower(), host.lower() or None, int(port) if port else None
        pairs = [part.split("=", 1) for part in query.split("&") if "=" in part]
        self.query = [(name, value) for name, value in pairs if value]

    def _read_by_urllib(self, url: str) -> None:
        from urllib.parse import parse_qsl, unquote, urlsplit

        parts = urlsplit(url)
        self.scheme, self.path, self.port = parts.scheme, unquote(parts.path), parts.port
        self.username = None if parts.username is None else unquote(parts.username)
        self.password = None if parts.password is None else unquote(parts.password)
        self.hostname = unquote(parts.hostname) if parts.hostname else None
        self.query = parse_qsl(parts.query)


def redis_address(url: str) -> tuple[str, int, str, str, int]:
    """(host, port, user, password, db) of a redis:// broker URL, as kombu reads it."""
    parts = Url(url)
    if parts.scheme != "redis" or parts.query or not parts.hostname:
        raise ValueError("a broker other than redis://host")
    db = parts.path.strip("/") or "0"
    return (parts.hostname, parts.port or 6379, parts.username or "", parts.password or "", int(db))


def sqlite_path(url: str) -> str:
    """The file of a sqlite:/// URL, as dj_database_url reads it."""
    path = Url(url).path[1:]
    if not path or path == ":memory:" or url == "sqlite://:memory:":
        raise ValueError("an in-memory SQLite database")
    return path


# The options Django takes out of a database's OPTIONS before the rest reach libpq (psycopg's
# own arguments and Django's), by django/db/backends/postgresql/base.py.
NOT_FOR_LIBPQ = {"assume_role", "isolation_level", "pool", "server_side_binding", "prepare_threshold"}


def postgres_params(url: str) -> dict[str, str]:
    """libpq's connection keywords for DATABASE_URL as Django passes them to psycopg: the URL read
    as dj_database_url reads it, the settings' connect and statement time-outs by default."""
    parts = Url(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        raise ValueError(f"a {parts.scheme}:// database")
    options: dict[str, str] = {}
    for key, value in parts.query:
        if key in options or key in NOT_FOR_LIBPQ or key in ("cursor_factory", "context"):
            raise ValueError(f"the database option {key}")
        options[key] = value
    if "currentSchema" in options:
        options["options"] = f"-c search_path={options.pop('currentSchema')}"
    name = parts.path[1:]
    if not name:
        raise ValueError("a database URL without a database name")
    params = {"dbname": name, **options, "client_encoding": "UTF8"}
    for key, given in (("user", parts.username), ("password", parts.password), ("host", parts.hostname)):
        if given:
            params[key] = given
    if parts.port:
        params["port"] = str(parts.port)
    params.setdefault("connect_timeout", str(int(os.environ.get("PBEM_DB_CONNECT_TIMEOUT", "5"))))
    statement = int(os.environ.get("PBEM_DB_STATEMENT_TIMEOUT", "30")) * 1000
    params.setdefault("options", f"-c statement_timeout={statement}")
    return params


# ---------------------------------------------------------------------------------------------
# The message: what pbem.mail.inbound reads of it (Message-ID, sender, a large one's headers)
# ---------------------------------------------------------------------------------------------

CONTROL = {c: None for c in [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F]}  # inbound.CONTROL_RE


def clean(value: str) -> str:
    return value.translate(CONTROL)


def headers_of(raw: bytes) -> list[tuple[str, str]]:
    """The header block's (name, value) pairs as inbound._parsed_headers reads them: Python's
    parser on the compat32 policy, each value as str() gives it. A block of ASCII alone (the
    usual one: RFC 2047 words are ASCII) is read here without the email package (its import was
    half of this process's CPU); the parser reads any other."""
    block = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    if block.isascii():
        return ascii_headers(block.decode("ascii") + "\n\n")
    from email._policybase import compat32
    from email.parser import BytesParser

    parsed = BytesParser(policy=compat32).parsebytes(block + b"\n\n")
    return [(name, str(value)) for name, value in parsed.items()]


FIELD_NAME = frozenset(chr(c) for c in range(33, 127) if c != 58)  # email.feedparser.headerRE's ftext


def ascii_headers(text: str) -> list[tuple[str, str]]:
    """email.feedparser's header collection (_parsegen, _parse_headers) with compat32's
    header_source_parse, for a text with no byte over 127: the lines split as its buffer splits
    them (\n, \r\n and a lone \r, each kept), a header line, a folded one, an mbox "From " line
    (never a header), a line with no name (dropped), and the first other line ending the block."""
    from io import StringIO

    lines = []
    for line in StringIO(text, newline="").readlines():
        colon = line.find(":")
        if not (line.startswith(("From ", " ", "\t")) or (colon >= 0 and FIELD_NAME.issuperset(line[:colon]))):
            break
        lines.append(line)
    headers: list[tuple[str, str]] = []
    current: list[str] = []
    for number, line in enumerate(lines):
        if line[0] in " \t":
            if current:
                current.append(line)
            continue
        if current:
            headers.append(source_parse(current))
            current = []
        if line.startswith("From ") or line.find(":") == 0:
            if line.startswith("From ") and number == len(lines) - 1 and number > 0:
                break
            continue
        current = [line]
    if current:
        headers.append(source_parse(current))
    return headers


def source_parse(lines: list[str]) -> tuple[str, str]:
    """compat32's header_source_parse: the name before the first colon, the value after it with
    its leading blanks off, its folded lines as they came, its last line end off."""
    name, value = lines[0].split(":", 1)
    value = value.lstrip(" \t") + "".join(lines[1:])
    return name, value.rstrip("\r\n")


def header(headers: list[tuple[str, str]], name: str) -> str:
    """Message.get(name) or "": the first header of that name, whatever its case."""
    wanted = name.lower()
    return next((value for key, value in headers if key.lower() == wanted), "")


def message_id_of(raw: bytes, headers: list[tuple[str, str]]) -> str:
    value = clean(header(headers, "Message-ID")).strip()
    if value:
        return value[:250]
    return f"<sha256.{content_hash(raw, headers)}@no-message-id>"


def content_hash(raw: bytes, headers: list[tuple[str, str]]) -> str:
    import hashlib

    kept = sorted(
        (name.lower(), " ".join(value.split())) for name, value in headers if name.lower() not in TRACE_HEADERS
    )
    separator = b"\r\n\r\n" if b"\r\n\r\n" in raw else b"\n\n"
    body = raw.split(separator, 1)[1] if separator in raw else b""
    body_lines = [line.rstrip() for line in body.replace(b"\r\n", b"\n").split(b"\n")]
    digest = hashlib.sha256(repr(kept).encode("utf-8", "replace"))
    digest.update(b"\n".join(body_lines).strip())
    return digest.hexdigest()


def sender_of(headers: list[tuple[str, str]]) -> str:
    value = header(headers, "From")
    address = plain_address(value)
    if address is None:
        from email.utils import parseaddr

        address = parseaddr(value)[1]
    return clean(address.lower())


ATEXT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~")


def plain_address(value: str) -> str | None:
    """The address email.utils.parseaddr finds in a From value of the plain forms alone, where
    every Python's parseaddr agrees (`a.b@c.d`, `Name <a.b@c.d>`, `"Name, Q." <a.b@c.d>`, names
    of atoms or RFC 2047 words); None for anything else (comments, groups, several addresses,
    escapes, domain literals), which parseaddr itself reads."""
    text = value.strip(" \t\r\n")
    if not text.isascii():
        return None
    if text.endswith(">") and "<" in text:
        name, _, address = text[:-1].rpartition("<")
        name = name.strip(" \t\r\n")
        if name.startswith('"'):
            if not (len(name) > 1 and name.endswith('"') and '"' not in name[1:-1] and "\\" not in name):
                return None
        elif not all(ATEXT.issuperset(word) for word in name.split()):
            return None
    else:
        address = text
    local, at, domain = address.partition("@")
    if not at or not all(part and ATEXT.issuperset(part) for part in [*local.split("."), *domain.split(".")]):
        return None
    return address


def row_of(raw: bytes, recipients: list[str], max_bytes: int) -> dict:
    """The new row's values by column, as inbox.store_raw gives them for the channel "pipe"
    (received_at is the store's: each database has its own form of it)."""
    headers = headers_of(raw)
    message_id = message_id_of(raw, headers)
    if len(raw) > max_bytes:
        raw = truncated(raw)
        headers = headers_of(raw)
    return {
        "message_id": message_id,
        "channel": "pipe",
        "raw": raw,
        "received_at": None,
        "status": "received",
        "outcome": "",
        "game_id": None,
        "seat_id": None,
        "sender": sender_of(headers)[:250],
        "processed_at": None,
        "result_version": None,
        "error_code": "",
        "envelope_to": [clean(a.lower())[:320] for a in recipients if a][:50],
    }


# ---------------------------------------------------------------------------------------------
# The databases
# ---------------------------------------------------------------------------------------------


def utc_now(offset: str = "") -> str:
    """Now in UTC as str(datetime) writes it (microseconds only when there are some), `offset`
    after it: Django's SQLite backend stores naive UTC so; PostgreSQL reads it with "+00:00"."""
    import time

    seconds, micro = divmod(time.time_ns() // 1000, 1_000_000)
    text = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds))
    return text + (f".{micro:06d}" if micro else "") + offset


class Sqlite:
    """The embedded database: the row written as Django's SQLite backend writes it (the time as
    naive UTC text, JSON as text)."""

    def __init__(self, path: str):
        import sqlite3

        if sqlite3.sqlite_version_info < (3, 24):
            raise NotHere("SQLite before 3.24 (no ON CONFLICT)")
        self.path = path

    def store(self, row: dict) -> tuple[int, bool]:
        """(the row's id, whether it is new): a Message-ID stored before is not stored again."""
        import sqlite3

        values = {
            **row,
            "received_at": utc_now(),
            "envelope_to": to_json(row["envelope_to"]),
        }
        # mode=rw: a database file that is not there is an error, not a new empty file.
        uri = "file:" + self.path.replace("%", "%25").replace("?", "%3F").replace("#", "%23") + "?mode=rw"
        connection = sqlite3.connect(uri, uri=True, timeout=20, isolation_level=None)
        try:
            columns = ", ".join(f'"{c}"' for c in COLUMNS)
            cursor = connection.execute(
                f'INSERT INTO "{TABLE}" ({columns}) VALUES ({", ".join("?" * len(COLUMNS))}) '
                'ON CONFLICT ("message_id") DO NOTHING',
                [values[c] for c in COLUMNS],
            )
            if cursor.rowcount == 1 and cursor.lastrowid is not None:
                return cursor.lastrowid, True
            found = connection.execute(f'SELECT "id" FROM "{TABLE}" WHERE "message_id" = ?', [row["message_id"]])
            return found.fetchone()[0], False
        finally:
            connection.close()


class Postgres:
    """PostgreSQL through libpq itself (the library psycopg wraps), with the keywords Django would
    give it: one INSERT … ON CONFLICT DO NOTHING in autocommit, as the Django way's single INSERT."""

    def __init__(self, params: dict[str, str]):
        self.params = params
        self.libpq = Libpq(libpq_path())

    def store(self, row: dict) -> tuple[int, bool]:
        """(the row's id, whether it is new): a Message-ID stored before is not stored again."""
        values = {**row, "received_at": utc_now("+00:00"), "envelope_to": to_json(row["envelope_to"])}
        columns = ", ".join(f'"{c}"' for c in COLUMNS)
        places = ", ".join(f"${n}" for n in range(1, len(COLUMNS) + 1))
        insert = (
            f'INSERT INTO "{TABLE}" ({columns}) VALUES ({places}) ON CONFLICT ("message_id") DO NOTHING RETURNING "id"'
        )
        with self.libpq.connect(self.params) as connection:
            got = connection.query(insert, [values[c] for c in COLUMNS])
            if got is not None:
                return int(got), True
            got = connection.query(f'SELECT "id" FROM "{TABLE}" WHERE "message_id" = $1', [row["message_id"]])
            if got is None:
                raise Failed("the stored message went while it was looked up; the MTA will retry", EX_TEMPFAIL)
            return int(got), False


def libpq_path() -> str:
    """The libpq psycopg would use: the one psycopg[binary] brings (in the site-packages of this
    interpreter's environment, which a `python -S` run has not on its path), else the system's."""
    if os.environ.get("PSYCOPG_IMPL", "binary") in ("binary", ""):
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        venv = os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "lib", version, "site-packages")
        for folder in [*(p for p in sys.path if p.endswith("site-packages")), venv]:
            libs = os.path.join(folder, "psycopg_binary.libs")
            if os.path.isdir(libs):
                for name in sorted(os.listdir(libs)):
                    if name.startswith("libpq"):
                        return os.path.join(libs, name)
            dylib = os.path.join(folder, "psycopg_binary", ".dylibs", "libpq.5.dylib")
            if os.path.exists(dylib):
                return dylib
    return "libpq.5.dylib" if sys.platform == "darwin" else "libpq.so.5"


class Libpq:
    """The few libpq calls the store makes, through ctypes (a C library every psycopg uses)."""

    def __init__(self, path: str):
        import ctypes

        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise NotHere(f"no libpq here ({exc})") from exc
        ptr, text, number = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        texts = ctypes.POINTER(ctypes.c_char_p)
        for name, result, args in (
            ("PQconnectdbParams", ptr, [texts, texts, number]),
            ("PQstatus", number, [ptr]),
            ("PQerrorMessage", text, [ptr]),
            ("PQfinish", None, [ptr]),
            (
                "PQexecParams",
                ptr,
                [ptr, text, number, ctypes.POINTER(ctypes.c_uint), texts] + [ctypes.POINTER(number)] * 2 + [number],
            ),
            ("PQresultStatus", number, [ptr]),
            ("PQresultErrorMessage", text, [ptr]),
            ("PQntuples", number, [ptr]),
            ("PQgetvalue", text, [ptr, number, number]),
            ("PQclear", None, [ptr]),
        ):
            function = getattr(lib, name)
            function.restype, function.argtypes = result, args
        self.lib, self.ctypes = lib, ctypes

    def connect(self, params: dict[str, str]) -> PgConnection:
        ctypes = self.ctypes
        keys = (ctypes.c_char_p * (len(params) + 1))(*[k.encode() for k in params], None)
        values = (ctypes.c_char_p * (len(params) + 1))(*[v.encode() for v in params.values()], None)
        handle = self.lib.PQconnectdbParams(keys, values, 0)
        if not handle:
            raise MemoryError("libpq could not make a connection")
        if self.lib.PQstatus(handle) != 0:  # CONNECTION_OK
            problem = (self.lib.PQerrorMessage(handle) or b"").decode(errors="replace").strip()
            self.lib.PQfinish(handle)
            raise ConnectionError(problem or "the connection failed")
        return PgConnection(self, handle)


class PgConnection:
    def __init__(self, libpq: Libpq, handle):
        self.libpq, self.handle = libpq, handle

    def __enter__(self) -> PgConnection:
        return self

    def __exit__(self, *_exc) -> None:
        self.libpq.lib.PQfinish(self.handle)

    def query(self, sql: str, params: list) -> str | None:
        """Runs one statement with its parameters (bytes as bytea, binary; None as NULL; the rest
        as text); the first column of its first row, None without a row."""
        ctypes, lib = self.libpq.ctypes, self.libpq.lib
        count = len(params)
        encoded = [p if isinstance(p, bytes) or p is None else str(p).encode() for p in params]
        values = (ctypes.c_char_p * count)(*encoded)
        lengths = (ctypes.c_int * count)(*[len(p) if p is not None else 0 for p in encoded])
        formats = (ctypes.c_int * count)(*[1 if isinstance(p, bytes) else 0 for p in params])
        types = (ctypes.c_uint * count)(*[17 if isinstance(p, bytes) else 0 for p in params])  # bytea
        result = lib.PQexecParams(self.handle, sql.encode(), count, types, values, lengths, formats, 0)
        if not result:
            raise ConnectionError((lib.PQerrorMessage(self.handle) or b"").decode(errors="replace").strip())
        try:
            if lib.PQresultStatus(result) not in (1, 2):  # PGRES_COMMAND_OK, PGRES_TUPLES_OK
                raise ConnectionError((lib.PQresultErrorMessage(result) or b"").decode(errors="replace").strip())
            if lib.PQntuples(result) < 1:
                return None
            return lib.PQgetvalue(result, 0, 0).decode()
        finally:
            lib.PQclear(result)


# ---------------------------------------------------------------------------------------------
# Queueing the processing: the message Celery's send_task leaves in a Redis broker
# ---------------------------------------------------------------------------------------------


def new_uuid() -> str:
    """A random (version 4) UUID, as uuid.uuid4() writes it."""
    octets = bytearray(os.urandom(16))
    octets[6] = (octets[6] & 0x0F) | 0x40
    octets[8] = (octets[8] & 0x3F) | 0x80
    h = octets.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def task_message(name: str, args: list, queue: str) -> bytes:
    """The task as Celery 5 (task protocol 2) publishes it by name to the default exchange, in the
    envelope kombu's Redis transport pushes onto the queue's list."""
    import _socket
    import binascii

    task_id = new_uuid()
    body = [list(args), {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}]
    headers: dict[str, object] = {
        "lang": "py",
        "task": name,
        "id": task_id,
        "shadow": None,
        "eta": None,
        "expires": None,
        "group": None,
        "group_index": None,
        "retries": 0,
        "timelimit": [None, None],
        "root_id": task_id,
        "parent_id": None,
        "argsrepr": repr(tuple(args)),
        "kwargsrepr": "{}",
        "origin": f"gen{os.getpid()}@{_socket.gethostname()}",
        "ignore_result": None,
        "replaced_task_nesting": 0,
        "stamped_headers": None,
        "stamps": {},
    }
    properties = {
        "correlation_id": task_id,
        "reply_to": new_uuid(),
        "delivery_mode": 2,
        "delivery_info": {"exchange": "", "routing_key": queue},
        "priority": 0,
        "body_encoding": "base64",
        "delivery_tag": new_uuid(),
    }
    envelope = {
        "body": binascii.b2a_base64(to_json(body).encode(), newline=False).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": headers,
        "properties": properties,
    }
    return to_json(envelope).encode()


def to_json(value) -> str:
    """json.dumps(value) for the None, booleans, numbers, strings, lists and dicts of str keys
    written here, by the C encoder json itself uses for strings (the json package imports re)."""
    from _json import encode_basestring_ascii

    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(to_json(item) for item in value) + "]"
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return "{" + ", ".join(f"{encode_basestring_ascii(k)}: {to_json(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"not written as JSON here: {type(value).__name__}")


def resp(*words: str | bytes) -> bytes:
    """One Redis command in RESP, the protocol's array of bulk strings."""
    parts = [b"*%d\r\n" % len(words)]
    for word in words:
        data = word if isinstance(word, bytes) else word.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def publish(plan: Plan, inbound_id: int) -> None:
    """LPUSHes the processing task onto the queue's list, as kombu does for a priority-0 message;
    the broker's trouble raises (the caller leaves the row to the inbound sweep)."""
    import _socket

    host, port, user, password, db = plan.broker
    commands = []
    if password:
        commands.append(resp("AUTH", user, password) if user else resp("AUTH", password))
    if db:
        commands.append(resp("SELECT", str(db)))
    commands.append(resp("LPUSH", plan.queue, task_message(TASK, [inbound_id], plan.queue)))
    family, kind, proto, _name, address = _socket.getaddrinfo(host.encode(), port, 0, _socket.SOCK_STREAM)[0]
    sock = _socket.socket(family, kind, proto)
    try:
        sock.settimeout(plan.broker_timeout)
        sock.connect(address)
        sock.sendall(b"".join(commands))
        pending = b""
        for _command in commands:
            while b"\r\n" not in pending:
                chunk = sock.recv(4096)
                if not chunk:
                    raise ConnectionError("the broker closed the connection")
                pending += chunk
            line, _, pending = pending.partition(b"\r\n")
            if line[:1] == b"-":
                raise ConnectionError(f"the broker answered {line[1:80].decode(errors='replace')}")
    finally:
        sock.close()


# ---------------------------------------------------------------------------------------------
# The door
# ---------------------------------------------------------------------------------------------


def stored_text(inbound_id: int, sender: str, message_id: str, created: bool, size: int, where: str) -> str:
    """What was stored, in one line (pbem.doors.pipe.stored_line's words): its row, sender, size
    and Message-ID. Not the recipient: a reply address holds a seat token, a full credential."""
    if not created:
        return f"Already stored as inbound message #{inbound_id} ({message_id}): a repeat, nothing done."
    return (
        f"Stored inbound message #{inbound_id} from {sender or 'an unknown sender'} "
        f"({size:,} bytes, {message_id}); {where}."
    )


def first_line(exc: BaseException) -> str:
    """An error's first line for the MTA's log: PostgreSQL's DETAIL after it may quote the row
    ("Failing row contains (...)"), whose recipients hold seat tokens."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def watchdog(seconds: float, limit: int) -> None:
    """Ends the process with 75 once `seconds` (what is left of PBEM_PIPE_TIMEOUT, `limit`) have
    passed, whatever it waits on: a libpq call holds the main thread in C, where no signal
    handler of Python's runs."""
    import _thread
    import time

    def expire():
        time.sleep(seconds)
        os.write(2, f"pbem-pipe: gave up after {limit} s (PBEM_PIPE_TIMEOUT); the MTA will retry\n".encode())
        os._exit(EX_TEMPFAIL)

    if seconds > 0:
        _thread.start_new_thread(expire, ())


def deliver(plan: Plan, recipients: list[str], raw: bytes | None = None, seconds: float | None = None) -> int:
    """Stores the message (`raw`, else stdin) and queues its processing; the exit status for the
    MTA. `seconds`: the time left of PBEM_PIPE_TIMEOUT (all of it by default)."""
    watchdog(plan.timeout if seconds is None else seconds, plan.timeout)
    try:
        if raw is None:
            raw = sys.stdin.buffer.read(plan.hard_limit + 1)
        if not raw.strip():
            raise Failed("no message on stdin", EX_DATAERR)
        if len(raw) > plan.hard_limit:
            raise Failed("message over PBEM_INBOUND_HARD_LIMIT", EX_DATAERR)
        row = row_of(raw, recipients, plan.max_bytes)
        try:
            inbound_id, created = plan.database.store(row)
        except Failed:
            raise
        except Exception as exc:  # noqa: BLE001 - the database away, a lock, a broken table: the MTA retries
            raise Failed(f"could not store the message: {first_line(exc)}", EX_TEMPFAIL) from exc
    except Failed as exc:
        print(f"pbem-pipe: {exc}", file=sys.stderr, flush=True)
        return exc.status
    where = "queued for processing"
    if created:
        try:
            publish(plan, inbound_id)
        except Exception as exc:  # noqa: BLE001 - the broker away: the row waits for the inbound sweep
            where = "not queued (the broker did not take it); the inbound sweep will process it"
            print(f"pbem-pipe: could not queue inbound message #{inbound_id}: {exc}", file=sys.stderr, flush=True)
    print(stored_text(inbound_id, row["sender"], row["message_id"], created, len(raw), where), flush=True)
    return 0
