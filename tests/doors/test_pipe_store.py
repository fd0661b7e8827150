"""The pipe door's store without Django (pbem/doors/pipe_store.py, issue 34): what it writes is
what the Django way (`inbox.store_raw`) writes, on PostgreSQL and on SQLite; a repeat delivery is
stored once; its exit statuses are the pipe's (0, 65, 75); the task it pushes onto the broker is
one a real Celery worker runs; and the process the MTA waits for loads no Django, no psycopg, no
Celery, no kombu and no redis client."""

from __future__ import annotations

import base64
import json
import sqlite3
import subprocess
import sys
import types
from datetime import datetime

import pytest

from pbem.doors import inbox, pipe_store
from pbem.models import InboundMessage
from tests.conftest import requires_postgres
from tests.mail.conftest import free_port
from tests.processes import REDIS_URL, ROOT, celery_worker_command, drop_queue, new_queue, service_env
from tests.security.fakes import SilentServer
from tests.waiting import wait_until

HANDOFF = ROOT / "pbem" / "doors" / "handoff.py"
TOKEN_ADDRESS = "play+7-1-abcdefghijklmnop@pbem.localhost"  # a reply address: its token is a credential
MAIL = (
    b"From: Alice <alice@example.org>\r\nTo: play@pbem.localhost\r\nSubject: Re: your turn\r\n"
    b"Message-ID: <store-1@example.org>\r\n\r\nplay 4\r\n"
)

# The two ways an MTA reaches the store: scripts/pbem-pipe's process (the handoff's slow way, with
# no listener named) and `manage.py receive_email` with the message on stdin.
WAYS = {
    "handoff": [sys.executable, "-I", "-S", str(HANDOFF), "--recipient", TOKEN_ADDRESS],
    "receive_email": [sys.executable, "manage.py", "receive_email", "--recipient", TOKEN_ADDRESS],
}


@pytest.fixture
def queue():
    name = new_queue("pipe-store")
    yield name
    drop_queue(name)


def broker():
    import redis

    return redis.Redis.from_url(REDIS_URL)


def lean_env(queue: str, **extra) -> dict:
    """The project's settings with a Redis broker (what the store serves), on the test database."""
    settings = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "PBEM_PIPE_HANDOFF": "",
    }
    return service_env(**{**settings, **extra})


def deliver(way: str, mail: bytes, env: dict, *args: str) -> subprocess.CompletedProcess:
    return deliver_command([*WAYS[way], *args], mail, env)


def deliver_command(command: list[str], mail: bytes, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run(command, input=mail, capture_output=True, cwd=ROOT, env=env, timeout=120)
    # Nothing the pipe says carries the reply address's token, whatever happened.
    assert b"abcdefghijklmnop" not in done.stdout + done.stderr
    return done


# --- the same row as the Django way -----------------------------------------------------------


def test_the_stores_columns_are_the_inbound_models_fields():
    fields = [f for f in InboundMessage._meta.concrete_fields if not f.primary_key]
    assert InboundMessage._meta.db_table == pipe_store.TABLE
    assert [f.column for f in fields] == list(pipe_store.COLUMNS)
    row = pipe_store.row_of(MAIL, [], 1 << 20)
    # What the model would give a new row: its defaults, and a value for every NOT NULL column.
    assert row["status"] == InboundMessage._meta.get_field("status").get_default()
    assert all(row[f.column] is not None for f in fields if not f.null and f.column != "received_at")


NO_ID = (
    b"Received: from mx.example.net by pbem\nReturn-Path: <alice@example.org>\nFrom: alice@example.org\n"
    b"Subject:  a  reply\n\twith a fold\nX-Spam-Score: 1\n\nplay 4   \n\n"
)
ODD = (
    "From: =?utf-8?q?J=C3=B6rg?= <Joerg@Example.ORG>\r\nMessage-ID:\r\n <odd\x01-1@example.org>\r\n"
    "Subject: caf\u00e9\r\n\r\nbody\r\n"
).encode("utf-8")
LARGE = (
    b"From: bob@example.org\r\nMessage-ID: <large-1@example.org>\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/mixed;\r\n boundary="b"\r\nSubject: big\r\n\r\n--b\r\n' + b"x" * 5000 + b"\r\n--b--\r\n"
)


@pytest.mark.parametrize(
    "raw, recipients",
    [
        (MAIL, [TOKEN_ADDRESS]),
        (NO_ID, []),
        (ODD, ["Play@PBEM.localhost", "", "x\x02y@pbem.localhost"]),
        (LARGE, [f"p{n}@pbem.localhost" for n in range(60)]),
        (b"no headers at all, just a line", ["play@pbem.localhost"]),
    ],
    ids=["plain", "no-message-id", "encoded-and-control", "large", "no-header"],
)
def test_the_row_is_the_one_the_django_way_stores(db, settings, raw, recipients):
    settings.PBEM_INBOUND_MAX_BYTES = 1000
    stored, created = inbox.store_raw(raw, "pipe", recipients, publish=False)
    assert created
    row = pipe_store.row_of(raw, recipients, 1000)
    for field in InboundMessage._meta.concrete_fields:
        if field.primary_key or field.column == "received_at":
            continue
        value = getattr(stored, field.attname)
        assert (bytes(value) if field.column == "raw" else value) == row[field.column], field.column


DJANGO_PARAMS = """
import json, django
django.setup()
from django.db import connection
params = connection.get_connection_params()
print(json.dumps({k: str(v) for k, v in params.items() if k not in ("cursor_factory", "context", "prepare_threshold")}))
"""


@pytest.mark.parametrize(
    "url",
    [
        "postgres://pbem:p%40ss%2Fw@DB.example.org:5433/pbem",
        "postgresql://pbem@127.0.0.1/pbem?sslmode=require&connect_timeout=3&application_name=pipe",
        "postgres://%2Fvar%2Frun%2Fpostgresql/pbem",
        "pgsql://pbem@db/pbem?currentSchema=inbox",
        "postgres://pbem@db/pbem?options=-c%20work_mem%3D4MB",
    ],
)
def test_libpq_gets_the_connection_keywords_django_gives_psycopg(url):
    done = subprocess.run(
        [sys.executable, "-c", DJANGO_PARAMS],
        capture_output=True,
        cwd=ROOT,
        env={
            **service_env(DATABASE_URL=url, PBEM_DB_STATEMENT_TIMEOUT="7"),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        },
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    django_gives = json.loads(done.stdout.decode().strip().splitlines()[-1])
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PBEM_DB_STATEMENT_TIMEOUT", "7")
        assert pipe_store.postgres_params(url) == django_gives


# Pieces of header blocks and From values, tricky ones included (folds, lone CRs, control
# characters, mbox "From " lines, nameless lines, groups, comments, quotes, domain literals).
NAMES = [
    "From",
    "from",
    "Message-ID",
    "MESSAGE-id",
    "Subject",
    "Received",
    "From ",
    "",
    " ",
    "\t",
    "Bad Name",
    "X\x01Y",
]
ADDRESSES = [
    "a@b.c",
    "Alice <alice@example.org>",
    '"Doe, J." <j@d.org>',
    "J. Doe <j@d>",
    "<x@y>",
    "a@b, c@d",
    "(c) a@b",
    "a@[1.2.3.4]",
    '"q\\"x" <a@b>',
    "=?utf-8?q?J=C3=B6rg?= <J@E.ORG>",
    "a..b@c",
    "a@b.",
    "Alice\r\n <a@b.c>",
    '"a<b" <c@d>',
    "undisclosed-recipients:;",
    "<>",
    "a@b (Alice)",
    "<a@b> x",
]
VALUES = ["<id-1@x>", "hello: world", " spaced ", "", "\x0cff", "\x0bvt", "<a\x01b@x>", ": colon"]


def random_block(rng) -> str:
    lines = []
    for _ in range(rng.randint(0, 7)):
        name = rng.choice(NAMES)
        value = rng.choice(ADDRESSES if name.lower() == "from" else VALUES + ADDRESSES)
        line = name + rng.choice([":", ": ", ":\t", " : ", ""]) + value
        if rng.random() < 0.3:
            line += rng.choice(["\r\n", "\n", "\r"]) + rng.choice([" ", "\t", ""]) + rng.choice(VALUES)
        lines.append(line + rng.choice(["\r\n", "\n", "\r"]))
    if rng.random() < 0.2:
        lines.insert(rng.randint(0, len(lines)), "From sender@example.org Mon Jan  1 00:00:00 2026\n")
    return "".join(lines)


def test_headers_read_without_the_email_package_are_those_pythons_parser_reads():
    import random
    from email._policybase import compat32
    from email.parser import BytesParser
    from email.utils import parseaddr

    rng = random.Random(34)
    plain = 0
    for _ in range(3000):
        raw = random_block(rng).encode() + b"\r\n\r\nbody\r\n"
        block = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
        parsed = BytesParser(policy=compat32).parsebytes(block + b"\n\n")
        assert pipe_store.headers_of(raw) == [(k, str(v)) for k, v in parsed.items()], raw
        sender = str(parsed.get("From") or "")
        address = pipe_store.plain_address(sender)
        plain += address is not None
        assert address is None or address == parseaddr(sender)[1], sender
    assert plain > 100  # the plain forms were read here, not all left to parseaddr


def random_url(rng) -> str:
    user = rng.choice(["", "pbem@", "pbem:pw@", "u:p!$&'()*,;=@", ":pw@", "a@b@", "pbem:@"])
    host = rng.choice(["db", "DB.Example.ORG", "127.0.0.1", "", "h-1.x"])
    port = rng.choice(["", ":5432", ":05432", ":0", ":99999", ":", ":x"])
    path = rng.choice(["", "/", "/pbem", "/13", "/a/b", "//abs/file.db"])
    query = rng.choice(["", "?", "?sslmode=require", "?a=1&b=&c&=d&a=2", "?x=y?z", "?options=-c"])
    return rng.choice(["postgres", "REDIS", "sqlite", "pgsql"]) + "://" + user + host + port + path + query


def test_urls_read_without_urllib_are_read_as_urllib_reads_them():
    import random

    rng = random.Random(34)
    for _ in range(3000):
        url = random_url(rng)
        slow = pipe_store.Url.__new__(pipe_store.Url)
        try:
            slow._read_by_urllib(url)
        except ValueError:
            with pytest.raises(ValueError):
                pipe_store.Url(url)
            continue
        fast = pipe_store.Url(url)
        for name in ("scheme", "username", "password", "hostname", "port", "path", "query"):
            assert getattr(fast, name) == getattr(slow, name), (url, name)


def test_json_written_without_the_json_package_is_what_json_dumps_writes():
    import random

    rng = random.Random(34)
    pieces = ["play@pbem.localhost", "J\u00f6rg", "\u2603 \U0001f600", 'q"uote\\', "\x00\x1f\x7f\n\t", "", "<a@b>"]
    for _ in range(500):
        value = {
            "list": [rng.choice(pieces) for _ in range(rng.randint(0, 4))],
            "nested": {"n": rng.randint(-5, 10**12), "none": None, "flags": [True, False]},
            rng.choice(pieces): (rng.choice(pieces), 0),
        }
        assert pipe_store.to_json(value) == json.dumps(value)
    written = pipe_store.task_message(pipe_store.TASK, [12], "celery").decode()
    assert written == json.dumps(json.loads(written))


def test_the_time_is_written_as_str_of_a_datetime_writes_it():
    for offset in ("", "+00:00"):
        text = pipe_store.utc_now(offset)
        assert str(datetime.fromisoformat(text)) == text


# --- PostgreSQL -------------------------------------------------------------------------------


@requires_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_message_is_stored_on_postgresql_once_and_its_task_queued_once(way, queue):
    first = deliver(way, MAIL, lean_env(queue))
    assert first.returncode == 0, first.stderr.decode()[-2000:]
    stored = InboundMessage.objects.get(message_id="<store-1@example.org>")
    assert (stored.channel, stored.status, stored.sender, stored.envelope_to) == (
        "pipe",
        "received",
        "alice@example.org",
        [TOKEN_ADDRESS],
    )
    assert bytes(stored.raw) == MAIL and stored.received_at is not None
    assert f"Stored inbound message #{stored.pk} from alice@example.org" in first.stdout.decode()
    assert "queued for processing" in first.stdout.decode()
    again = deliver(way, MAIL, lean_env(queue))
    assert again.returncode == 0 and b"a repeat, nothing done" in again.stdout
    assert InboundMessage.objects.filter(message_id="<store-1@example.org>").count() == 1
    tasks = [json.loads(m) for m in broker().lrange(queue, 0, -1)]
    assert len(tasks) == 1 and tasks[0]["headers"]["task"] == "pbem.tasks.process_inbound"
    assert json.loads(base64.b64decode(tasks[0]["body"]))[0] == [stored.pk]


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_the_task_it_queues_is_run_by_a_real_celery_worker(queue, tmp_path):
    done = deliver("handoff", MAIL, lean_env(queue))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    stored = InboundMessage.objects.get(message_id="<store-1@example.org>")
    log = tmp_path / "worker.log"
    worker = subprocess.Popen(
        celery_worker_command(queue, log),
        cwd=ROOT,
        env=service_env(CELERY_BROKER_URL=REDIS_URL, CELERY_TASK_ALWAYS_EAGER="0", CELERY_TASK_DEFAULT_QUEUE=queue),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:

        def processed():
            stored.refresh_from_db()
            return stored.status != "received"

        wait_until(processed, 90, "the worker to process the stored message")
    finally:
        worker.terminate()
        try:
            worker.wait(10)
        except subprocess.TimeoutExpired:
            worker.kill()
    assert "pbem.tasks.process_inbound" in log.read_text() and "succeeded" in log.read_text()


def test_the_task_is_the_message_celery_itself_publishes(queue):
    from celery import Celery

    app = Celery("probe", broker=REDIS_URL)
    app.conf.update(task_default_queue=queue, broker_connection_retry_on_startup=False)
    app.send_task(pipe_store.TASK, (7,))  # as outbox.queue_task passes them
    celery = json.loads(broker().lpop(queue))
    ours = json.loads(pipe_store.task_message(pipe_store.TASK, [7], queue))
    assert ours.keys() == celery.keys()
    assert base64.b64decode(ours["body"]) == base64.b64decode(celery["body"])
    changing = {"id", "root_id", "origin", "correlation_id", "reply_to", "delivery_tag"}
    for part in ("headers", "properties"):
        assert ours[part].keys() == celery[part].keys(), part
        assert {k: v for k, v in ours[part].items() if k not in changing} == {
            k: v for k, v in celery[part].items() if k not in changing
        }, part
    assert ours["headers"]["id"] == ours["headers"]["root_id"] == ours["properties"]["correlation_id"]


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_pbem_pipe_store_django_takes_djangos_way_which_queues_from_its_child(queue):
    command = [sys.executable, "-c", LOADED, "manage.py", "receive_email", "--recipient", TOKEN_ADDRESS]
    done = deliver_command(command, MAIL, lean_env(queue, PBEM_PIPE_STORE="django"))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert "django.db" in json.loads(done.stdout.decode().strip().splitlines()[-1])  # Django's way indeed
    stored = InboundMessage.objects.get(message_id="<store-1@example.org>")
    wait_until(lambda: broker().llen(queue), 60, "the child to queue the task")
    assert json.loads(base64.b64decode(json.loads(broker().lindex(queue, 0))["body"]))[0] == [stored.pk]


# --- the exit statuses ------------------------------------------------------------------------


@requires_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("way", sorted(WAYS))
def test_no_message_or_one_over_the_hard_limit_is_65(way, queue):
    empty = deliver(way, b"\r\n", lean_env(queue))
    assert empty.returncode == 65 and b"no message on stdin" in empty.stderr
    large = deliver(way, MAIL, lean_env(queue, PBEM_INBOUND_HARD_LIMIT="20"))
    assert large.returncode == 65 and b"over PBEM_INBOUND_HARD_LIMIT" in large.stderr
    assert not InboundMessage.objects.exists() and not broker().llen(queue)


@requires_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("way", sorted(WAYS))
def test_the_database_away_is_75_and_nothing_queued(way, queue):
    away = deliver(way, MAIL, lean_env(queue, DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/nothing"))
    assert away.returncode == 75 and b"could not store the message" in away.stderr, away.stderr.decode()[-2000:]
    assert not broker().llen(queue)


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_database_that_never_answers_is_given_up_with_75_at_the_pipes_time_limit(queue):
    with SilentServer() as silent:
        env = lean_env(
            queue,
            DATABASE_URL=f"postgres://pbem@127.0.0.1:{silent.port}/pbem",
            PBEM_DB_CONNECT_TIMEOUT="600",  # libpq would wait that long: the pipe's own limit ends it
            PBEM_PIPE_TIMEOUT="2",
        )
        done = deliver("handoff", MAIL, env)
    assert done.returncode == 75 and b"gave up after 2 s (PBEM_PIPE_TIMEOUT)" in done.stderr, done.stderr


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_the_broker_away_leaves_the_stored_message_to_the_sweep_and_answers_0(queue):
    done = deliver("handoff", MAIL, lean_env(queue, CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0"))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert b"the inbound sweep will process it" in done.stdout and b"could not queue" in done.stderr
    assert InboundMessage.objects.get(message_id="<store-1@example.org>").status == "received"


# --- SQLite -----------------------------------------------------------------------------------


@pytest.fixture
def sqlite_file(tmp_path, django_db_blocker):
    """An SQLite database with the inbound table as Django's SQLite backend makes it."""
    from django.db.utils import ConnectionHandler

    path = tmp_path / "pbem.sqlite3"
    connection = ConnectionHandler({"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path)}})["default"]
    with django_db_blocker.unblock(), connection.schema_editor() as editor:
        editor.create_model(InboundMessage)
    connection.close()
    with sqlite3.connect(path) as tables:  # what its foreign keys name (Django's SQLite checks them)
        tables.execute("CREATE TABLE pbem_game (id integer PRIMARY KEY)")
        tables.execute("CREATE TABLE pbem_seat (id integer PRIMARY KEY)")
    return path


def sqlite_rows(path) -> list[tuple]:
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT message_id, channel, raw, typeof(received_at), received_at, status, sender, envelope_to "
            "FROM pbem_inboundmessage ORDER BY id"
        ).fetchall()


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_message_is_stored_on_sqlite_once_as_django_stores_it(way, queue, sqlite_file):
    path = sqlite_file
    env = lean_env(queue, DATABASE_URL=f"sqlite:///{path}")
    first = deliver(way, MAIL, env)
    assert first.returncode == 0, first.stderr.decode()[-2000:]
    assert "Stored inbound message #1 " in first.stdout.decode()
    again = deliver(way, MAIL, env)
    assert again.returncode == 0 and b"Already stored as inbound message #1" in again.stdout
    # The Django way on the same file (another broker: the store leaves such settings to it).
    other = MAIL.replace(b"store-1@", b"store-2@")
    django_way = subprocess.run(
        [sys.executable, "manage.py", "receive_email", "--recipient", TOKEN_ADDRESS],
        input=other,
        capture_output=True,
        cwd=ROOT,
        env={**env, "CELERY_BROKER_URL": "memory://localhost/", "DJANGO_SETTINGS_MODULE": "tests.settings"},
        timeout=120,
    )
    assert django_way.returncode == 0, django_way.stderr.decode()[-2000:]
    ours, djangos = sqlite_rows(path)
    assert ours[:3] == ("<store-1@example.org>", "pipe", MAIL)
    assert ours[5:] == djangos[5:] == ("received", "alice@example.org", json.dumps([TOKEN_ADDRESS]))
    assert ours[3] == djangos[3] == "text"
    assert datetime.fromisoformat(ours[4]).tzinfo is None and len(ours[4]) in (19, 26)  # naive UTC, as Django's
    assert len(djangos[4]) in (19, 26) and ours[4][:10] == djangos[4][:10]
    assert broker().llen(queue) == 1


def test_a_missing_sqlite_file_is_75_and_not_made(queue, tmp_path):
    path = tmp_path / "absent.sqlite3"
    done = deliver("handoff", MAIL, lean_env(queue, DATABASE_URL=f"sqlite:///{path}"))
    assert done.returncode == 75 and b"could not store the message" in done.stderr
    assert not path.exists()


# --- what the MTA's process loads -------------------------------------------------------------

HEAVY = (
    "django",
    "django.db",
    "django.urls",
    "anymail",
    "psycopg",
    "dj_database_url",
    "config",
    "celery",
    "kombu",
    "redis",
    "pbem.models",
)
LOADED = f"""
import atexit, json, runpy, sys
atexit.register(lambda: print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules))))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
LOADS = {
    "handoff": [sys.executable, "-I", "-S", "-c", LOADED, str(HANDOFF), "--recipient", TOKEN_ADDRESS],
    "receive_email": [sys.executable, "-c", LOADED, "manage.py", "receive_email", "--recipient", TOKEN_ADDRESS],
}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_the_store_loads_no_django_orm_url_config_esp_sdk_psycopg_or_celery(way, queue, sqlite_file):
    path = sqlite_file
    loaded = subprocess.run(
        LOADS[way],
        input=MAIL,
        capture_output=True,
        cwd=ROOT,
        env=lean_env(queue, DATABASE_URL=f"sqlite:///{path}"),
        timeout=120,
    )
    assert loaded.returncode == 0, loaded.stderr.decode()[-2000:]
    assert b"queued for processing" in loaded.stdout and broker().llen(queue) == 1
    assert json.loads(loaded.stdout.decode().strip().splitlines()[-1]) == []


class RowQuotingDatabase:
    """A database refusing the row the way PostgreSQL refuses one that breaks a constraint: its
    DETAIL quotes the failing row, recipients (seat tokens) included."""

    def store(self, row: dict):
        raise RuntimeError(
            'new row for relation "pbem_inboundmessage" violates check constraint "x"\n'
            f"DETAIL:  Failing row contains ({row['sender']}, {row['envelope_to']})."
        )


def test_a_refused_row_is_75_and_its_seat_token_never_reaches_the_mtas_log(capsys):
    token = "play+7-1-secrettokenabcdef@pbem.test"
    plan = types.SimpleNamespace(timeout=60, hard_limit=10_000_000, max_bytes=1_000_000, database=RowQuotingDatabase())
    mail = b"From: alice@players.test\nTo: " + token.encode() + b"\nSubject: Re: turn\n\nmark 5\n"

    status = pipe_store.deliver(plan, [token], raw=mail, seconds=0)  # 0: no watchdog in this process

    printed = capsys.readouterr()
    assert status == 75
    assert "could not store the message" in printed.err and "violates check constraint" in printed.err
    assert "secrettoken" not in printed.err + printed.out
