"""manage.py poll_imap: the IMAP door once, by hand or from cron (beat polls it on its own)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from pbem.doors import imap


class Command(BaseCommand):
    help = (
        "Stores the new messages of the IMAP folder (PBEM_IMAP_HOST, _PORT, _SECURITY, _USER, _PASSWORD, "
        "_FOLDER) for processing, and says how many; --all repeats until none is left."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all", action="store_true", help=f"poll again while a poll filled its batch of {imap.BATCH}"
        )

    def handle(self, *args, all=False, **options):
        if not settings.PBEM_IMAP_HOST:
            raise CommandError("the IMAP door is off: PBEM_IMAP_HOST is not set")
        where = (
            f"{settings.PBEM_IMAP_USER}@{settings.PBEM_IMAP_HOST}:{settings.PBEM_IMAP_PORT}"
            f" ({settings.PBEM_IMAP_SECURITY}) {settings.PBEM_IMAP_FOLDER}"
        )
        while True:
            try:
                report = imap.poll()
            except Exception as exc:
                raise CommandError(f"IMAP {where}: {exc}") from exc
            self.stdout.write(f"IMAP {where}: {report}")
            if not all or report.stored + report.repeated < imap.BATCH:
                return
