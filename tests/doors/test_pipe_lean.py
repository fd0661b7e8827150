"""The pipe door without the handoff stores a message importing only what storing needs (issue
34): `manage.py receive_email` as an MTA runs it (scripts/pbem-pipe passes config.settings) loads
no URL config, no ESP SDK, no admin, no API, and still stores the message."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pbem.models import InboundMessage
from tests.conftest import requires_postgres
from tests.mail.conftest import free_port
from tests.processes import ROOT, service_env

pytestmark = [requires_postgres, pytest.mark.django_db(transaction=True)]

RUN = """
import atexit, json, runpy, sys
heavy = ("anymail", "boto3", "svix", "ninja", "pydantic", "config.urls", "pbem.urls", "pbem.web.api",
         "pbem.desk.admin", "django.contrib.admin.sites", "pbem.tasks")
atexit.register(lambda: print(json.dumps(sorted(m for m in heavy if m in sys.modules))))
sys.argv = ["manage.py", "receive_email"]
runpy.run_path("manage.py", run_name="__main__")
"""


def test_the_pipe_door_stores_a_message_without_the_url_config_esp_sdks_admin_or_task_modules():
    env = service_env(
        DJANGO_SETTINGS_MODULE="config.settings",  # what scripts/pbem-pipe passes
        CELERY_TASK_ALWAYS_EAGER="0",
        CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0",  # nobody there: the sweep would process it
    )
    mail = (
        b"From: alice@example.org\r\nTo: pbem@pbem.localhost\r\nSubject: help\r\n"
        b"Message-ID: <lean-pipe@example.org>\r\n\r\nhelp\r\n"
    )
    done = subprocess.run([sys.executable, "-c", RUN], cwd=ROOT, env=env, input=mail, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    loaded = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert loaded == []
    assert InboundMessage.objects.filter(message_id="<lean-pipe@example.org>", channel="pipe").exists()
