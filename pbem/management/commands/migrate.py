"""`migrate`, as the owner role when DATABASE_OWNER_URL is set (pbem/ops/dbroles.py).

The service's own role (DATABASE_URL) may not create or alter tables; the owner's may. So when
an owner is configured and no other database was asked for, migrations run through its alias,
and the post-migrate step grants the service role its privileges, as the owner, every time.

Run without DATABASE_OWNER_URL on a database whose tables another role owns, the service role is
refused its first CREATE or ALTER: that ends in one line saying so and naming DATABASE_OWNER_URL,
not in a traceback.
"""

from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.migrations.exceptions import MigrationSchemaMissing

from pbem.ops import dbroles

INSUFFICIENT_PRIVILEGE = "42501"  # PostgreSQL's SQLSTATE for "permission denied", "must be owner"


class Command(DjangoMigrate):
    help = DjangoMigrate.help + (
        " With DATABASE_OWNER_URL set it runs as that role, then grants the role of "
        "DATABASE_URL what the service needs (SELECT and INSERT only on the log)."
    )

    def handle(self, *args, **options):
        if options["database"] == DEFAULT_DB_ALIAS and dbroles.two_roles():
            options["database"] = dbroles.OWNER_ALIAS
        try:
            return super().handle(*args, **options)
        except (MigrationSchemaMissing, DatabaseError) as exc:
            denial = refusal(exc)
            if denial is None:
                raise
            role = connections[options["database"]].settings_dict.get("USER") or "?"
            reason = getattr(getattr(denial, "diag", None), "message_primary", None) or str(denial).splitlines()[0]
            if options["database"] == dbroles.OWNER_ALIAS:
                hint = "DATABASE_OWNER_URL must name the role that owns the database and its tables"
            else:
                hint = (
                    "set DATABASE_OWNER_URL to the role that owns the database and its tables "
                    "(README, 'Production: two database roles') and run migrate again"
                )
            raise CommandError(f"the role {role} may not change the tables ({reason}): {hint}.") from None


def refusal(exc: BaseException | None) -> BaseException | None:
    """The database's refusal for want of privileges behind `exc` (None for any other error)."""
    while exc is not None:
        if getattr(exc, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
            return exc
        exc = exc.__cause__ or exc.__context__
    return None
