"""Settings from the environment: every variable documented, production derived safely from an
https address, `check --deploy` clean with the README's production variables, the locks in step
with pyproject.toml."""

from __future__ import annotations

import ast
import json
import os
import re
import secrets
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from packaging.requirements import Requirement

from config.settings import env_choice

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
ENV_READERS = {"env_bool", "env_list", "env_choice"}


def variables_read(path: Path) -> set[str]:
    """Every environment variable a settings file reads: os.environ.get("X"), os.environ["X"],
    env_bool/env_list/env_choice("X"), and env_prefixed("X_") as "X_*"."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else ast.unparse(func)
            if called in ENV_READERS or called == "os.environ.get":
                names.add(node.args[0].value)
            elif called == "env_prefixed":
                names.add(node.args[0].value + "*")
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            if isinstance(node.slice, ast.Constant):
                names.add(node.slice.value)
    return names


def readme_table() -> list[str]:
    section = README[README.index("### Variables") :]
    section = section[: section.index("\n#", 1)] if "\n#" in section[1:] else section
    return re.findall(r"^\| `([A-Z0-9_*]+)` \|", section, re.M)


def test_every_variable_the_settings_read_is_in_the_readme_table_and_no_other():
    read = variables_read(ROOT / "config" / "settings.py") | variables_read(ROOT / "gunicorn.conf.py")
    table = readme_table()
    assert len(read) > 50, sorted(read)  # the parser still finds them
    assert sorted(read - set(table)) == [], "read by the settings, missing from the README's table"
    assert sorted(set(table) - read) == [], "in the README's table, read by no setting"
    assert len(table) == len(set(table)), "a variable listed twice"


def test_the_locks_pin_every_dependency_of_pyproject_with_hashes():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for lock, declared in (
        ("requirements.txt", project["dependencies"]),
        ("requirements-dev.txt", project["dependencies"] + project["optional-dependencies"]["dev"]),
    ):
        text = (ROOT / lock).read_text()
        pins = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+) \\$", text, re.M))
        pins = {name.lower().replace("_", "-"): version for name, version in pins.items()}
        for line in declared:
            requirement = Requirement(line)
            name = requirement.name.lower().replace("_", "-")
            assert name in pins, f"{lock} does not pin {name}: run scripts/lock.sh"
            assert requirement.specifier.contains(pins[name], prereleases=True), (lock, name, pins[name])
        blocks = re.split(r"^(?=[A-Za-z0-9])", text, flags=re.M)[1:]
        assert all("--hash=sha256:" in block for block in blocks), f"{lock}: a pin without its hash"


def settings_under(env: dict, *names: str, check_deploy: bool = False) -> dict:
    """The settings as a fresh process sees them under `env` (settings are read once, at start)."""
    check = "call_command('check', deploy=True, fail_level='WARNING');" if check_deploy else ""
    code = (
        "import json, os, sys; import django; django.setup(); from django.conf import settings;"
        "from django.core.management import call_command;"
        + check
        + f"print(json.dumps({{n: getattr(settings, n, None) for n in {list(names)!r}}}, default=str))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PBEM_", "SECURE_", "EMAIL_", "ANYMAIL_"))}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PBEM_DATA_DIR": str(ROOT / "var" / "settings-test"),
            **env,
        },
    )
    if out.returncode:
        raise AssertionError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def readme_production_variables() -> dict:
    """The `KEY=value` lines of the README's production settings file, with a real secret."""
    block = README[README.index("4. The settings:") :]
    block = block[block.index("```sh") + 5 : block.index("```", block.index("```sh") + 5)]
    env = dict(re.findall(r"^\s*([A-Z_]+)=(\S+)", block, re.M))
    assert {"SECRET_KEY", "PBEM_BASE_URL", "DATABASE_URL"} <= set(env)
    env["SECRET_KEY"] = secrets.token_urlsafe(50)
    return env


def test_check_deploy_reports_nothing_with_the_readmes_production_variables():
    values = settings_under(readme_production_variables(), "SECURE_SSL_REDIRECT", check_deploy=True)
    assert values["SECURE_SSL_REDIRECT"] is True


def test_an_https_base_url_turns_on_secure_cookies_hsts_and_the_redirect():
    env = {"PBEM_BASE_URL": "https://pbem.example.org", "PBEM_PROXY_SSL_HEADER": "X-Forwarded-Proto"}
    values = settings_under(
        env,
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_SSL_REDIRECT",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_PROXY_SSL_HEADER",
        "ALLOWED_HOSTS",
        "CSRF_TRUSTED_ORIGINS",
    )
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"] and values["SECURE_SSL_REDIRECT"]
    assert values["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600 and values["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert "pbem.example.org" in values["ALLOWED_HOSTS"]
    assert "https://pbem.example.org" in values["CSRF_TRUSTED_ORIGINS"]


def test_a_plain_http_base_url_leaves_them_off_and_each_can_be_set_alone():
    values = settings_under(
        {"SECURE_HSTS_SECONDS": "600"},
        "SESSION_COOKIE_SECURE",
        "SECURE_SSL_REDIRECT",
        "SECURE_HSTS_SECONDS",
        "SECURE_PROXY_SSL_HEADER",
    )
    assert values == {
        "SESSION_COOKIE_SECURE": False,
        "SECURE_SSL_REDIRECT": False,
        "SECURE_HSTS_SECONDS": 600,
        "SECURE_PROXY_SSL_HEADER": None,
    }


def test_links_follow_pbem_listen_on_the_embedded_run_unless_a_base_url_is_given():
    """`PBEM_LISTEN=… scripts/serve.sh` moved the server, but every link still said :8000."""
    assert (
        settings_under({"PBEM_LISTEN": "127.0.0.1:9123"}, "PBEM_BASE_URL")["PBEM_BASE_URL"] == "http://127.0.0.1:9123"
    )
    assert settings_under({"PBEM_LISTEN": "0.0.0.0:9000"}, "PBEM_BASE_URL")["PBEM_BASE_URL"] == "http://127.0.0.1:9000"
    assert settings_under({"PBEM_LISTEN": "9001"}, "PBEM_BASE_URL")["PBEM_BASE_URL"] == "http://127.0.0.1:9001"
    given = {"PBEM_LISTEN": "0.0.0.0:9000", "PBEM_BASE_URL": "https://pbem.example.org"}
    assert settings_under(given, "PBEM_BASE_URL")["PBEM_BASE_URL"] == "https://pbem.example.org"
    assert settings_under({}, "PBEM_BASE_URL")["PBEM_BASE_URL"] == "http://127.0.0.1:8000"
    # And the embedded run's mail: one .eml per message (pbem/mail/filebased.py), not Django's .log files.
    assert settings_under({}, "EMAIL_BACKEND")["EMAIL_BACKEND"] == "pbem.mail.filebased.EmailBackend"
    with pytest.raises(AssertionError, match="PBEM_LISTEN='here:now': give host:port"):
        settings_under({"PBEM_LISTEN": "here:now"}, "PBEM_BASE_URL")


def test_smtp_over_ssl_can_be_set_but_not_together_with_starttls():
    assert settings_under({"EMAIL_USE_SSL": "true", "EMAIL_PORT": "465"}, "EMAIL_USE_SSL", "EMAIL_USE_TLS") == {
        "EMAIL_USE_SSL": True,
        "EMAIL_USE_TLS": False,
    }
    with pytest.raises(AssertionError, match="exclude each other"):
        settings_under({"EMAIL_USE_SSL": "true", "EMAIL_USE_TLS": "true"})


def test_the_imap_security_mode_takes_only_its_three_values(monkeypatch):
    for mode in ("ssl", "starttls", "none"):
        monkeypatch.setenv("PBEM_IMAP_SECURITY", mode.upper())
        assert env_choice("PBEM_IMAP_SECURITY", "ssl", ("ssl", "starttls", "none")) == mode
    monkeypatch.setenv("PBEM_IMAP_SECURITY", "tls")
    with pytest.raises(ImproperlyConfigured, match="expected one of ssl, starttls, none"):
        env_choice("PBEM_IMAP_SECURITY", "ssl", ("ssl", "starttls", "none"))
