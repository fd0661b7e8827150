"""`migrate`, as the owner role when DATABASE_OWNER_URL is set (pbem/ops/dbroles.py).

The service's own role (DATABASE_URL) may not create or alter tables; the owner's may. So when
an owner is configured and no other database was asked for, migrations run through its alias,
and the post-migrate step grants the service role its privileges, as the owner, every time.
"""

from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import DEFAULT_DB_ALIAS

from pbem.ops import dbroles


class Command(DjangoMigrate):
    help = DjangoMigrate.help + (
        " With DATABASE_OWNER_URL set it runs as that role, then grants the role of "
        "DATABASE_URL what the service needs (SELECT and INSERT only on the log)."
    )

    def handle(self, *args, **options):
        if options["database"] == DEFAULT_DB_ALIAS and dbroles.two_roles():
            options["database"] = dbroles.OWNER_ALIAS
        return super().handle(*args, **options)
