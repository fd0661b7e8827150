"""Least privilege in the database (issue 14): migrations run as the owner role, the service as a
role that may read and append the log but never change it.

Two real roles on the local PostgreSQL (trust authentication, the suite's superuser makes them),
a database owned by the first, `manage.py migrate` run as the operator would run it (both URLs
set), then every statement an insider with the service's credentials might try.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from pbem.ops import dbroles
from tests.conftest import requires_postgres

ROOT = Path(__file__).resolve().parents[2]

REFUSED = {
    "UPDATE on the log": "UPDATE pbem_event SET type = 'forged'",
    "DELETE on the log": "DELETE FROM pbem_event",
    "TRUNCATE on the log": "TRUNCATE pbem_event",
    "disabling the log's trigger": "ALTER TABLE pbem_event DISABLE TRIGGER pbem_event_no_update",
    "dropping the log's trigger": "DROP TRIGGER pbem_event_no_update ON pbem_event",
    "dropping the log": "DROP TABLE pbem_event",
    "TRUNCATE on the games": "TRUNCATE pbem_game CASCADE",
    "recording a migration": "INSERT INTO django_migrations (app, name, applied) VALUES ('pbem', 'x', now())",
}


@pytest.fixture
def two_roles(db):
    """(service URL, owner URL) of a fresh database migrated as the owner; dropped afterwards."""
    settings = connection.settings_dict
    host, port, admin = settings["HOST"] or "127.0.0.1", settings["PORT"] or 5432, settings["USER"]
    suffix = secrets.token_hex(4)
    owner, service, name = f"pbem_owner_{suffix}", f"pbem_app_{suffix}", f"pbem_roles_{suffix}"
    url = lambda user, db_name: f"postgres://{user}@{host}:{port}/{db_name}"  # noqa: E731
    with psycopg.connect(url(admin, "postgres"), autocommit=True) as root:
        root.execute(f'CREATE ROLE "{owner}" LOGIN')
        root.execute(f'CREATE ROLE "{service}" LOGIN')
        root.execute(f'CREATE DATABASE "{name}" OWNER "{owner}"')
    try:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": url(service, name),
            "DATABASE_OWNER_URL": url(owner, name),
            "PBEM_DATA_DIR": str(ROOT / "var" / "test-data"),
        }
        migrated = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert migrated.returncode == 0, migrated.stderr
        yield url(service, name), url(owner, name), service
    finally:
        with psycopg.connect(url(admin, "postgres"), autocommit=True) as root:
            root.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            root.execute(f'DROP ROLE IF EXISTS "{service}"')
            root.execute(f'DROP ROLE IF EXISTS "{owner}"')


@requires_postgres
def test_the_service_role_may_read_and_append_the_log_but_is_refused_every_change(two_roles):
    service_url, owner_url, service = two_roles
    with psycopg.connect(service_url, autocommit=True) as app:
        app.execute(
            "INSERT INTO pbem_event (game_id, seq, type, payload, reveals, actor_kind, created_at, "
            "causation_id, schema_version, prev_hash, hash) VALUES (1, 1, 'pbem.Said', '{}', false, "
            "'system', now(), '', 1, '', '')"
        )
        assert app.execute("SELECT count(*) FROM pbem_event").fetchone() == (1,)
        app.execute("INSERT INTO auth_group (name) VALUES ('readers')")  # ids from a sequence: USAGE granted
        app.execute("UPDATE auth_group SET name = 'writers' WHERE name = 'readers'")
        for what, statement in REFUSED.items():
            with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
                app.execute(statement)
            assert "permission denied" in str(refused.value) or "must be owner" in str(refused.value), what
        assert app.execute("SELECT count(*) FROM pbem_event").fetchone() == (1,)
    with psycopg.connect(owner_url, autocommit=True) as owner:
        owned = owner.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'pbem_event'").fetchone()
        assert owned != (service,)
        privileges = owner.execute(
            "SELECT privilege_type FROM information_schema.role_table_grants "
            "WHERE table_name = 'pbem_event' AND grantee = %s ORDER BY 1",
            [service],
        ).fetchall()
        assert privileges == [("INSERT",), ("SELECT",)]


def test_the_grants_name_the_roles_as_identifiers_and_keep_the_log_append_only():
    statements = dbroles.grant_statements('app"; DROP TABLE x; --', "owner", "public")
    assert all('"app""; DROP TABLE x; --"' in s for s in statements)
    assert 'REVOKE UPDATE, DELETE, TRUNCATE ON "public"."pbem_event" FROM "app""; DROP TABLE x; --"' in statements


def test_with_one_database_url_everything_runs_as_one_role_as_before():
    service = {"ENGINE": "django.db.backends.postgresql", "USER": "pbem_app", "NAME": "pbem"}
    assert not dbroles.two_roles({"default": service})
    assert not dbroles.two_roles({"default": service, "owner": dict(service)})  # the same role twice
    assert dbroles.two_roles({"default": service, "owner": {**service, "USER": "pbem_owner"}})
    assert not dbroles.two_roles({"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "x"}})


def test_every_migration_writes_through_the_migrating_connection():
    """Migrations run as the owner, through its own alias: a data migration writing through the
    default connection (the service's role) would wait forever on the owner's open transaction."""
    for path in sorted((ROOT / "pbem" / "migrations").glob("0*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if ".objects" in line:
                assert ".using(" in line or "using(schema_editor" in line, f"{path.name}:{number}: {line.strip()}"


@requires_postgres
def test_migrate_as_the_service_role_on_a_database_it_does_not_own_says_to_set_database_owner_url(db):
    """An operator who forgot DATABASE_OWNER_URL on a two-role database gets one line naming it,
    not a 74-line traceback."""
    settings = connection.settings_dict
    host, port, admin = settings["HOST"] or "127.0.0.1", settings["PORT"] or 5432, settings["USER"]
    suffix = secrets.token_hex(4)
    owner, service, name = f"pbem_owner_{suffix}", f"pbem_app_{suffix}", f"pbem_roles_{suffix}"
    with psycopg.connect(f"postgres://{admin}@{host}:{port}/postgres", autocommit=True) as root:
        root.execute(f'CREATE ROLE "{owner}" LOGIN')
        root.execute(f'CREATE ROLE "{service}" LOGIN')
        root.execute(f'CREATE DATABASE "{name}" OWNER "{owner}"')
    try:
        env = {key: value for key, value in os.environ.items() if key != "DATABASE_OWNER_URL"}
        migrated = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=ROOT,
            env={
                **env,
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DATABASE_URL": f"postgres://{service}@{host}:{port}/{name}",
                "PBEM_DATA_DIR": str(ROOT / "var" / "test-data"),
            },
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        with psycopg.connect(f"postgres://{admin}@{host}:{port}/postgres", autocommit=True) as root:
            root.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            root.execute(f'DROP ROLE IF EXISTS "{service}"')
            root.execute(f'DROP ROLE IF EXISTS "{owner}"')
    assert migrated.returncode == 1
    lines = migrated.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in migrated.stderr, migrated.stderr
    assert "DATABASE_OWNER_URL" in lines[0] and service in lines[0] and "permission denied" in lines[0]
