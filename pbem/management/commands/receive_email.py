"""The first door: `receive_email` stores one RFC 822 message from stdin (an MTA pipe), or every
message of a Maildir (`--maildir PATH`). A Celery task then processes each one.

An MTA runs it through scripts/pbem-pipe, which loads the settings (an MTA's pipe passes no
environment) and bounds its time; docs/mail-operations.md has the Postfix lines. Run as a
process with the message on stdin (`manage.py receive_email [--recipient ADDRESS]`), manage.py
hands it to pbem.doors.pipe, which stores it the same way loading only what storing needs; this
command is what `call_command` and the Maildir form run.
Exit status 75 (EX_TEMPFAIL) when the message could not be stored: the MTA keeps it and retries;
65 (EX_DATAERR) when there is no message or it is over the hard limit: the MTA bounces it.
That includes a database that does not answer: the connection gives up after
PBEM_DB_CONNECT_TIMEOUT, and the whole command after PBEM_PIPE_TIMEOUT seconds, well before the
MTA's own limit (Postfix kills a pipe after command_time_limit, 1000 s, and bounces the mail).
"""

from __future__ import annotations

import mailbox
import os
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from pbem.doors import inbox
from pbem.doors.pipe import GiveUp, stored_line, time_limit
from pbem.doors.pipe_store import first_line

EX_DATAERR = 65
EX_TEMPFAIL = 75


class Command(BaseCommand):
    help = "Store one message from stdin (an MTA pipe), or every message of a Maildir, for processing."
    # An MTA starts one process per message: no system checks (they load the URL config and the
    # API libraries, about 0.4 s, to store a row). `manage.py check` runs them.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--maildir", help="read every message of this Maildir instead of stdin")
        parser.add_argument("--keep", action="store_true", help="leave stored messages in the Maildir")
        parser.add_argument(
            "--recipient",
            action="append",
            default=[],
            help="the envelope recipient (default: $ORIGINAL_RECIPIENT, as Postfix sets it)",
        )

    def handle(self, *args, maildir=None, keep=False, recipient=(), **options):
        recipients = list(recipient) or [r for r in [os.environ.get("ORIGINAL_RECIPIENT", "")] if r]
        if maildir:
            self._maildir(maildir, keep)
            return
        try:
            with time_limit(settings.PBEM_PIPE_TIMEOUT):
                raw = sys.stdin.buffer.read(settings.PBEM_INBOUND_HARD_LIMIT + 1)
                if not raw.strip():
                    raise CommandError("no message on stdin", returncode=EX_DATAERR)
                if len(raw) > settings.PBEM_INBOUND_HARD_LIMIT:
                    raise CommandError("message over PBEM_INBOUND_HARD_LIMIT", returncode=EX_DATAERR)
                self._store(raw, "pipe", recipients, say=True)
        except GiveUp as exc:  # the time limit
            raise CommandError(str(exc), returncode=exc.status) from exc

    def _maildir(self, path: str, keep: bool) -> None:
        box = mailbox.Maildir(path, factory=None, create=False)
        stored = repeated = 0
        for key in list(box.keys()):
            created = self._store(box.get_bytes(key), "maildir", [])
            stored += created
            repeated += not created
            if not keep:
                box.remove(key)  # stored (or stored before): the database holds it now
        self.stdout.write(f"{stored} stored, {repeated} already stored")

    def _store(self, raw: bytes, channel: str, recipients: list[str], say: bool = False) -> bool:
        try:
            message, created = inbox.store_raw(raw, channel, recipients)
        except Exception as exc:
            raise CommandError(f"could not store the message: {first_line(exc)}", returncode=EX_TEMPFAIL) from exc
        if say:
            self.stdout.write(stored_line(message, created, len(raw)))
        return created
