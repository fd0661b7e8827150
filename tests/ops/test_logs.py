"""Log lines with time, level and logger; gunicorn's access log on, seat tokens masked in it."""

from __future__ import annotations

import logging
import logging.config
import os
import re
import runpy
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings

from tests.mail.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+ \[\d+\] ")


def test_an_application_log_line_says_when_how_grave_and_from_where(tmp_path):
    config = {
        **settings.LOGGING,
        "handlers": {
            "console": {
                **settings.LOGGING["handlers"]["console"],
                "class": "logging.FileHandler",
                "filename": str(tmp_path / "app.log"),
            }
        },
    }
    logging.config.dictConfig(config)
    try:
        logging.getLogger("pbem.ops.health").warning("the broker did not answer")
    finally:
        logging.config.dictConfig(settings.LOGGING)
    line = (tmp_path / "app.log").read_text().strip()
    assert LINE.match(line) and " WARNING pbem.ops.health [" in line and line.endswith("the broker did not answer")


def test_tokens_in_seat_and_invitation_paths_are_masked():
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert conf["mask_tokens"]("GET /play/7-1-abcdefghij/history/?x=1 HTTP/1.1") == "GET /play/…/history/?x=1 HTTP/1.1"
    assert conf["mask_tokens"]("/invite/Zm9v-bar") == "/invite/…"
    assert conf["mask_tokens"]("/games/12/audit/") == "/games/12/audit/"


def test_gunicorn_logs_every_request_with_the_time_and_the_token_masked(tmp_path):
    port = free_port()
    env = dict(
        os.environ, DJANGO_SETTINGS_MODULE="tests.settings", PBEM_WEB_BIND=f"127.0.0.1:{port}", PBEM_WEB_WORKERS="1"
    )
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/play/7-1-secrettokenvalue/", timeout=30)
                break
            except urllib.error.HTTPError:
                break  # it answered
            except OSError:
                time.sleep(0.2)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    text = log.read_text()
    access = [line for line in text.splitlines() if "gunicorn.access" in line]
    assert access, text
    assert all(LINE.match(line) for line in access), access
    assert '"GET /play/…/ HTTP/1.1"' in access[0]
    # The access log is gunicorn's; the application's own lines are masked by its logging filter.
    assert not any("secrettokenvalue" in line for line in access), access
