"""Least privilege in the database: migrations run as an owner role, the service as another.

With DATABASE_OWNER_URL set, settings add a database alias "owner" for it, `manage.py migrate`
runs through that alias (pbem/management/commands/migrate.py), and after every migrate this
module, still as the owner, grants the service role (the user of DATABASE_URL) what the running
service needs and nothing more:

- every table: SELECT, INSERT, UPDATE, DELETE; never TRUNCATE, REFERENCES or TRIGGER;
- pbem_event, the log, and pbem_headentry, the public heads feed: SELECT and INSERT only (no
  UPDATE, DELETE or TRUNCATE);
- django_migrations: SELECT only (the service reads which migrations ran, never records one);
- every sequence: USAGE and SELECT (an insert draws its id from one);
- the same by default for tables and sequences the owner creates later, until the next migrate
  applies the exceptions above again.

Not being the owner, the service role cannot ALTER, DROP or TRUNCATE a table, nor disable or drop
the log's trigger. With one URL only (or on SQLite) nothing changes: the embedded run as before.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connections

OWNER_ALIAS = "owner"
APPEND_ONLY_TABLES = ("pbem_event", "pbem_headentry")
READ_ONLY_TABLES = ("django_migrations",)


def service_role(databases: dict | None = None) -> str:
    return (databases or settings.DATABASES)["default"].get("USER") or ""


def two_roles(databases: dict | None = None) -> bool:
    """Whether an owner role distinct from the service's role is configured (`databases`: the
    DATABASES setting, by default the one in force)."""
    databases = databases or settings.DATABASES
    owner = databases.get(OWNER_ALIAS) or {}
    return bool(owner.get("USER")) and owner.get("USER") != service_role(databases)


def grant_statements(service: str, owner: str, schema: str) -> list[str]:
    """The GRANTs and REVOKEs, with the role and schema names quoted as identifiers."""
    svc, own, sch = _ident(service), _ident(owner), _ident(schema)
    statements = [
        f"GRANT USAGE ON SCHEMA {sch} TO {svc}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {sch} TO {svc}",
        f"REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA {sch} FROM {svc}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {sch} TO {svc}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {own} IN SCHEMA {sch} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {svc}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {own} IN SCHEMA {sch} GRANT USAGE, SELECT ON SEQUENCES TO {svc}",
    ]
    statements += [f"REVOKE UPDATE, DELETE, TRUNCATE ON {sch}.{_ident(t)} FROM {svc}" for t in APPEND_ONLY_TABLES]
    statements += [f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON {sch}.{_ident(t)} FROM {svc}" for t in READ_ONLY_TABLES]
    return statements


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def grant_service_role(using: str = OWNER_ALIAS, **_kwargs) -> None:
    """A post_migrate receiver: as the owner, the service role's privileges (see the module)."""
    if using != OWNER_ALIAS or not two_roles():
        return
    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, current_schema()")
        owner, schema = cursor.fetchone()
        for statement in grant_statements(service_role(), owner, schema):
            cursor.execute(statement)
