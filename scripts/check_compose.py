"""Checks what `docker-compose config` cannot without an engine: that every command the compose
file runs exists in this codebase (manage.py commands, the Celery app, the WSGI module, the beat
scheduler), that the Dockerfile it builds is there, that the database roles are split
(pbem/ops/dbroles.py): only `migrate` has the owner's URL, and no app container connects as the
database's superuser or as the owner; that every long-running service has a healthcheck,
Mailpit is published on 127.0.0.1 only and Redis keeps its append-only file on a volume.

Usage: python scripts/check_compose.py RESOLVED_COMPOSE.yml   (the output of docker-compose config)
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
REQUIRED = {"postgres", "redis", "web", "worker", "beat", "smtpd", "mailpit"}
LONG_RUNNING = {"postgres", "redis", "web", "worker", "beat", "smtpd"}


def check_command(service: str, command: list[str], problems: list[str]) -> None:
    from django.core.management import get_commands

    if command[:2] == ["python", "manage.py"]:
        if command[2] not in get_commands():
            problems.append(f"{service}: manage.py has no command {command[2]!r}")
    elif command[0] == "gunicorn":
        module, _, attr = command[1].partition(":")
        if not hasattr(importlib.import_module(module), attr):
            problems.append(f"{service}: {command[1]} does not exist")
    elif command[0] == "celery":
        app = importlib.import_module(command[command.index("-A") + 1])
        if not hasattr(app, "celery_app"):
            problems.append(f"{service}: no Celery app in {command[command.index('-A') + 1]}")
        if "--scheduler" in command:
            module, _, cls = command[command.index("--scheduler") + 1].partition(":")
            if not hasattr(importlib.import_module(module), cls):
                problems.append(f"{service}: scheduler {module}:{cls} does not exist")
    if shutil.which(command[0]) is None and not (ROOT / ".venv" / "bin" / command[0]).exists():
        problems.append(f"{service}: {command[0]} is not installed by requirements.txt")


def check_roles(services: dict, problems: list[str]) -> None:
    from urllib.parse import urlsplit

    superuser = (services.get("postgres", {}).get("environment") or {}).get("POSTGRES_USER", "postgres")
    owner_urls = {name: (s.get("environment") or {}).get("DATABASE_OWNER_URL") for name, s in services.items()}
    owners = {urlsplit(url).username for url in owner_urls.values() if url}
    if not owner_urls.get("migrate"):
        problems.append("migrate: no DATABASE_OWNER_URL (migrations must run as the owner role)")
    for name, url in owner_urls.items():
        if url and name != "migrate":
            problems.append(f"{name}: has the owner's DATABASE_OWNER_URL (only migrate may)")
    for name, service in services.items():
        url = (service.get("environment") or {}).get("DATABASE_URL")
        if not url or "build" not in service:
            continue
        user = urlsplit(url).username
        if user == superuser:
            problems.append(f"{name}: connects as the database superuser {user!r}")
        if user in owners:
            problems.append(f"{name}: connects as the owner role {user!r} (use the service role)")


def main(path: str) -> int:
    import django

    django.setup()
    compose = yaml.safe_load(Path(path).read_text())
    services = compose["services"]
    problems = [f"missing service {name}" for name in sorted(REQUIRED - set(services))]
    for name, service in services.items():
        if "build" in service:
            context = service["build"]["context"] if isinstance(service["build"], dict) else service["build"]
            if not (Path(context) / "Dockerfile").exists():
                problems.append(f"{name}: no Dockerfile in {context}")
        if "command" in service and "build" in service:
            command = service["command"]
            check_command(name, command if isinstance(command, list) else command.split(), problems)
    check_roles(services, problems)
    for name in sorted(LONG_RUNNING & set(services)):
        if "healthcheck" not in services[name]:
            problems.append(f"{name}: no healthcheck")
    for port in services.get("mailpit", {}).get("ports", []):
        if (port.get("host_ip") if isinstance(port, dict) else str(port).split(":")[0]) != "127.0.0.1":
            problems.append(f"mailpit: port {port} is published beyond 127.0.0.1")
    redis = services.get("redis", {})
    if "--appendonly" in str(redis.get("command", "")) and not redis.get("volumes"):
        problems.append("redis: an append-only file without a volume")
    for problem in problems:
        print("compose:", problem)
    print(f"compose: {len(services)} services checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
