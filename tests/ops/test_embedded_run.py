"""The embedded run as a newcomer meets it (scripts/serve.sh): what it prints, what it logs."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.core.management import call_command

from tests.conftest import requires_postgres
from tests.processes import ROOT, service_env

MAIL = b"From: alice@example.org\r\nTo: pbem@pbem.localhost\r\nMessage-ID: <embedded-1@example.org>\r\n\r\nhelp\r\n"


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_command_on_a_run_without_a_broker_logs_no_kombu_hostname_warning():
    """Every command that queued a task logged kombu's "No hostname was supplied" (memory://)."""
    done = subprocess.run(
        [sys.executable, "manage.py", "receive_email", "--recipient", "pbem@pbem.localhost"],
        input=MAIL,
        capture_output=True,
        cwd=ROOT,
        env=service_env(CELERY_BROKER_URL="", CELERY_TASK_ALWAYS_EAGER="1"),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"Stored inbound message" in done.stdout
    assert b"No hostname was supplied" not in done.stderr, done.stderr.decode()


def test_the_demo_says_how_to_reach_the_desk(db, settings, capsys, django_user_model):
    settings.PBEM_NOTICE_DISPATCH = "none"
    call_command("demo")
    out = capsys.readouterr().out
    assert f"The desk (Master of Seals): {settings.PBEM_BASE_URL}/admin/; no account yet" in out
    assert "manage.py createsuperuser" in out
    django_user_model.objects.create_superuser("root", "root@example.org", "pw")
    call_command("demo")
    assert f"The desk (Master of Seals): {settings.PBEM_BASE_URL}/admin/, log in as root." in capsys.readouterr().out
