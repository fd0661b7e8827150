"""Public default secrets: none is left in the repository, a missing one stops the service (or
turns its door off), and a rotated key keeps the links already mailed working."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.test import Client

from pbem.mail import outbound
from pbem.models import InboundMessage, Notice
from pbem.play import addressing, signing

from ..processes import ROOT

# The keys that were printed in config/settings.py and docker-compose.yml.
PUBLISHED = ["dev-only-insecure-key-change-me-in-production", "change-me-in-production"]


def settings_in_a_fresh_process(env: dict) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DATABASE_URL", "DEBUG", "PBEM_DATA_DIR")}
    code = "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
    )


def published_token(seat, key: str) -> str:
    digest = hmac.new(key.encode(), f"pbem-seat:{seat.pk}:{seat.token_generation}".encode(), hashlib.sha256)
    return f"{seat.pk}-{seat.token_generation}-{base64.b32encode(digest.digest()[:10]).decode().lower()}"


def test_production_settings_refuse_to_start_without_a_secret_key(tmp_path):
    run = settings_in_a_fresh_process(
        {"DATABASE_URL": "postgres://pbem@db.example.org/pbem", "PBEM_DATA_DIR": str(tmp_path)}
    )
    assert run.returncode != 0 and "SECRET_KEY is not set" in run.stderr
    assert not (tmp_path / "secret_key").exists()


def test_the_embedded_run_makes_a_random_key_on_first_start_and_keeps_it(tmp_path):
    first = settings_in_a_fresh_process({"PBEM_DATA_DIR": str(tmp_path)})
    second = settings_in_a_fresh_process({"PBEM_DATA_DIR": str(tmp_path)})
    assert first.returncode == 0, first.stderr
    key = first.stdout.strip()
    assert key == second.stdout.strip() and len(key) >= 50 and key not in PUBLISHED
    kept = tmp_path / "secret_key"
    assert kept.read_text().strip() == key and stat.S_IMODE(kept.stat().st_mode) == 0o600
    elsewhere = settings_in_a_fresh_process({"PBEM_DATA_DIR": str(tmp_path / "other")})
    assert elsewhere.stdout.strip() != key  # every installation its own


@pytest.mark.parametrize("key", PUBLISHED)
def test_a_seat_link_computed_with_a_published_key_is_refused(client, duel, key, settings):
    settings.PBEM_RATE_TOKEN_FAILURES = (1000, 600)
    game, seats, tokens = duel
    forged = published_token(seats[0], key)
    assert forged != tokens[0]
    assert client.get(f"/play/{forged}/").status_code == 403
    assert client.get(f"/api/games/{game.pk}/seat", HTTP_X_SEAT_TOKEN=forged).status_code == 403


def test_the_mailgun_door_refuses_the_published_default_secrets(db, settings):
    timestamp, token = str(int(time.time())), "a" * 50
    signature = hmac.new(b"dev-mailgun-signing-key", f"{timestamp}{token}".encode(), hashlib.sha256).hexdigest()
    auth = base64.b64encode(b"dev-user:dev-password").decode()
    fields = {
        "recipient": "seals@pbem.localhost",
        "timestamp": timestamp,
        "token": token,
        "signature": signature,
        "body-mime": "From: eve@example.net\r\nTo: seals@pbem.localhost\r\nSubject: x\r\n\r\nhello\r\n",
    }
    response = Client().post("/mail/anymail/mailgun/inbound_mime/", fields, HTTP_AUTHORIZATION=f"Basic {auth}")
    assert response.status_code in (400, 403) and InboundMessage.objects.count() == 0


def test_the_mailgun_door_is_off_without_its_signing_key_and_says_so(db, settings, caplog):
    settings.ANYMAIL = {}
    response = Client().post("/mail/anymail/mailgun/inbound_mime/", {"body-mime": "x"})
    assert response.status_code == 404 and "MAILGUN_WEBHOOK_SIGNING_KEY" in response.content.decode()
    assert "door, which is off" in caplog.text and InboundMessage.objects.count() == 0
    health = Client().get("/health/").json()
    assert health["doors"]["webhook"]["on"] is False
    assert "MAILGUN_WEBHOOK_SIGNING_KEY" in health["doors"]["webhook"]["why"]
    assert health["doors"]["mta_pipe"]["on"] is True


def test_a_rotated_secret_key_keeps_seat_links_and_addresses_working(client, duel, settings, mailoutbox):
    game, seats, tokens = duel
    notice = Notice.objects.filter(game=game, seat=seats[0]).first()
    old_bounce, old_message_id = outbound.bounce_address(notice), outbound.notice_message_id(notice)
    old_code = outbound.seat_code(seats[0])
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-key-" + "x" * 50
    assert client.get(f"/play/{tokens[0]}/").status_code == 200
    assert addressing.resolve(tokens[0]) == seats[0]
    assert outbound.notice_from_bounce_address(old_bounce) == notice.pk
    assert outbound.notice_from_message_id(old_message_id) == notice.pk
    assert outbound.seat_code_matches(seats[0], old_code)
    assert addressing.token_for(seats[0]) != tokens[0]  # new links are signed with the new key
    settings.SECRET_KEY_FALLBACKS = []  # the old key retired: its links stop working
    assert client.get(f"/play/{tokens[0]}/").status_code == 403
    assert not signing.verify("anything", signing.mac("anything", 16, "a-retired-key"), 16)


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose is not installed")
def test_compose_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(POSTGRES_PASSWORD="p", PBEM_OWNER_DB_PASSWORD="o", PBEM_APP_DB_PASSWORD="a")
    run = subprocess.run(
        ["docker-compose", "-f", "docker-compose.yml", "config", "-q"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0 and "SECRET_KEY" in run.stderr
    text = Path(ROOT, "docker-compose.yml").read_text()
    assert not any(key in text for key in PUBLISHED)


COMPOSE_SECRETS = ("SECRET_KEY", "POSTGRES_PASSWORD", "PBEM_OWNER_DB_PASSWORD", "PBEM_APP_DB_PASSWORD")


def test_no_secret_in_the_compose_file_has_a_default():
    text = Path(ROOT, "docker-compose.yml").read_text()
    defaults = re.findall(r"\$\{([A-Z0-9_]*(?:PASSWORD|SECRET|KEY)[A-Z0-9_]*):-([^}]*)\}", text)
    assert [(name, value) for name, value in defaults if value] == []  # an empty default is "off"
    for name in COMPOSE_SECRETS:
        assert f"${{{name}:?" in text, f"{name} must be required (${{{name}:?…}})"


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose is not installed")
@pytest.mark.parametrize("missing", COMPOSE_SECRETS)
def test_compose_refuses_to_start_without_each_secret_and_compose_env_writes_them(missing, tmp_path):
    env_file = tmp_path / "compose.env"
    made = subprocess.run(
        [str(ROOT / "scripts" / "compose-env.sh")],
        capture_output=True,
        text=True,
        env={**os.environ, "PBEM_COMPOSE_ENV": str(env_file)},
    )
    assert made.returncode == 0 and oct(env_file.stat().st_mode & 0o777) == "0o600"
    values = dict(line.split("=", 1) for line in env_file.read_text().split())
    assert set(values) == set(COMPOSE_SECRETS) and len(set(values.values())) == 4
    clean = {k: v for k, v in os.environ.items() if k not in COMPOSE_SECRETS}
    full = subprocess.run(
        ["docker-compose", "-f", "docker-compose.yml", "--env-file", str(env_file), "config", "-q"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
    )
    assert full.returncode == 0, full.stderr
    env_file.write_text("".join(f"{k}={v}\n" for k, v in values.items() if k != missing))
    short = subprocess.run(
        ["docker-compose", "-f", "docker-compose.yml", "--env-file", str(env_file), "config", "-q"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
    )
    assert short.returncode != 0 and missing in short.stderr


def test_a_mac_is_the_base32_of_its_hmac_cut_to_its_length_whatever_the_length(settings):
    """signing.mac writes only the characters it keeps (issue 34): the same as the whole digest's
    base32, lower case, cut, for every length a MAC is cut to and beyond."""
    import base64
    import hashlib
    import hmac

    from pbem.play import signing

    for text in ("pbem-tap:12:1:41:3:493000", "", "ü-x" * 40):
        for key in ("k" * 50, "another key"):
            whole = base64.b32encode(hmac.new(key.encode(), text.encode(), hashlib.sha256).digest()).decode().lower()
            for length in range(0, 60):
                assert signing.mac(text, length, key) == whole[:length], (text, length)
