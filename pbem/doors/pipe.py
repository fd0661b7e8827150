"""The pipe door's own way in: `manage.py receive_email` with the message on stdin, as an MTA runs
it once a message (the handoff's slow way runs the same store in its own process; see
pbem/doors/handoff.py). manage.py hands that form here.

The MTA waits for the exit status, so the process loads only what storing needs. On the
project's settings with a Redis broker, that is no Django at all: pbem.doors.pipe_store writes
the row with libpq or sqlite3 and pushes the processing task onto the broker's list (issue 34:
this door took 2.3-5 s a message, then 0.3-0.4 s of CPU on Django's ORM). Otherwise (no broker:
the message is processed before the answer; settings of the deployment's own; another broker),
Django on config.settings_store (no URL config, no ESP SDKs, no admin, no API), no system checks,
no management framework and no Celery: the message is stored (and committed) before the answer,
then the processing task is queued by a child process the MTA does not wait for (forked after
the store: Django already loaded, the Celery app and the broker's client imported there). Should
that child fail, the message is stored "received" and the inbound sweep processes it, as when
the broker is down.

Exit status, as sendmail's sysexits mean them to an MTA (the management command's own):
    0   stored (or stored before: a repeat is harmless)
    65  EX_DATAERR: no message, or one over PBEM_INBOUND_HARD_LIMIT: the MTA bounces it
    75  EX_TEMPFAIL: not stored now (the database away, PBEM_PIPE_TIMEOUT passed): the MTA retries

Nothing here imports Django at module level: manage.py reads the arguments before settings load.
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager

EX_DATAERR = 65
EX_TEMPFAIL = 75


class GiveUp(Exception):
    """The message cannot be stored now, or ever (`status`: 75 or 65); `str()` says why."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def recipients_of(argv: list[str]) -> list[str] | None:
    """The envelope recipients given as an MTA gives them (`--recipient ADDRESS`, repeated, or
    `--recipient=ADDRESS`), default $ORIGINAL_RECIPIENT as Postfix sets it; None for any other
    argument (--maildir, --help: the management command's)."""
    recipients, rest = [], list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "--recipient" and rest:
            recipients.append(rest.pop(0))
        elif arg.startswith("--recipient="):
            recipients.append(arg.split("=", 1)[1])
        else:
            return None
    return recipients or [r for r in [os.environ.get("ORIGINAL_RECIPIENT", "")] if r]


# Set for the management command that a run without a broker hands the message to (see main).
IN_PROCESS = "PBEM_PIPE_IN_PROCESS"


def main(argv: list[str], celery_app: str, command: list[str]) -> int:
    """Stores the message on stdin; `celery_app`: the module that makes the Celery app, imported
    only where a task is queued. The exit status for the MTA. Without a broker (tasks run
    in-process: the embedded run) the message is processed before the answer, which needs the
    whole platform on its full settings (a notice's links, the tasks' modules): `command` (the
    management command, run with IN_PROCESS set and the stdin untouched) takes the process over."""
    recipients = recipients_of(argv)
    if recipients is None:
        print(f"pbem-pipe: not the pipe's arguments: {' '.join(argv)}", file=sys.stderr)
        return EX_TEMPFAIL
    from pbem.doors import pipe_store

    try:
        plan = pipe_store.plan()
    except pipe_store.NotHere:
        plan = None  # Django's way, below
    if plan is not None:
        return pipe_store.deliver(plan, recipients)
    settings = _setup()

    if settings.CELERY_TASK_ALWAYS_EAGER:
        os.environ[IN_PROCESS] = "1"
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        sys.stdout.flush()
        os.execv(command[0], command)
    from pbem.doors import inbox

    try:
        with time_limit(settings.PBEM_PIPE_TIMEOUT):
            raw = sys.stdin.buffer.read(settings.PBEM_INBOUND_HARD_LIMIT + 1)
            if not raw.strip():
                raise GiveUp("no message on stdin", EX_DATAERR)
            if len(raw) > settings.PBEM_INBOUND_HARD_LIMIT:
                raise GiveUp("message over PBEM_INBOUND_HARD_LIMIT", EX_DATAERR)
            try:
                message, created = inbox.store_raw(raw, "pipe", recipients, publish=False)
            except Exception as exc:  # noqa: BLE001 - the database away, a time-out: the MTA retries
                raise GiveUp(f"could not store the message: {pipe_store.first_line(exc)}", EX_TEMPFAIL) from exc
            print(stored_line(message, created, len(raw)), flush=True)
    except GiveUp as exc:
        print(f"pbem-pipe: {exc}", file=sys.stderr)
        return exc.status
    if created:
        queue_detached(message.pk, celery_app)
    return 0


def _setup():
    """django.setup() without what a process that stores a row does not use: the URL resolver
    (set_script_prefix imports the URL machinery) and Django's default logging with its mail
    handler and debug views (the settings' LOGGING is applied as it is). Returns the settings."""
    import logging.config

    from django.apps import apps
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    apps.populate(settings.INSTALLED_APPS)
    return settings


def _import(module: str) -> None:
    import importlib

    importlib.import_module(module)


def queue_detached(inbound_id: int, celery_app: str) -> None:
    """Queues the message's processing from a child process of its own session, its standard
    streams on /dev/null: the MTA, which reads the pipe's output to its end and waits for its
    exit, has its answer now. Where there is no fork, queued here."""
    from django.db import connections

    from pbem.doors import inbox

    connections.close_all()  # the child must not share the parent's connection (it needs none)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork() if hasattr(os, "fork") else -1
    except OSError:
        pid = -1
    if pid > 0:
        return
    if pid < 0:
        _import(celery_app)
        inbox.queue(inbound_id)
        return
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        _import(celery_app)
        inbox.queue(inbound_id)  # broker away: logged, and the inbound sweep processes it
    finally:
        os._exit(0)


def stored_line(message, created: bool, size: int) -> str:
    """What was stored, in one line: its row, sender, size and Message-ID, and where it stands
    (processed already on a run without a broker, else queued). Not the recipient: a reply
    address holds a seat token, a full credential."""
    from pbem.doors.pipe_store import stored_text

    where = ""
    if created:
        message.refresh_from_db(fields=["status"])
        where = "queued for processing" if message.status == "received" else f"processed: {message.status}"
    return stored_text(message.pk, message.sender, message.message_id, created, size, where)


@contextmanager
def time_limit(seconds: int):
    """Gives up with 75 once `seconds` have passed (a hung database, a lock held elsewhere)."""

    def give_up(_signum, _frame):
        raise GiveUp(f"gave up after {seconds} s (PBEM_PIPE_TIMEOUT); the MTA will retry", EX_TEMPFAIL)

    if seconds <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
