"""Checks what `docker-compose config` cannot without an engine: that every command the compose
file runs exists in this codebase (manage.py commands, the Celery app, the WSGI module, the beat
scheduler), that the Dockerfile it builds is there, that the database roles are split
(pbem/ops/dbroles.py): only `migrate` has the owner's URL, and no app container connects as the
database's superuser or as the owner; that every long-running service has a healthcheck,
Mailpit is published on 127.0.0.1 only and Redis keeps its append-only file on a volume.

Usage: python scripts/check_compose.py COMPOSE_FILE

COMPOSE_FILE is best the resolved file (`docker-compose config > FILE`, or `docker compose config
--format json > FILE`); given docker-compose.yml itself, its `${VAR}`, `${VAR:-default}` and
`${VAR:?message}` are resolved here from the environment and the defaults, a variable with neither
becoming a placeholder, so its checks hold too. JSON needs only the standard library; YAML needs
PyYAML (a development dependency: the service's environment has it not, and says so).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import sys
from pathlib import Path

USAGE = "usage: python scripts/check_compose.py COMPOSE_FILE   (best: the output of docker-compose config)"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
REQUIRED = {"postgres", "redis", "proxy", "web", "live", "worker", "beat", "smtpd", "mailpit"}
LONG_RUNNING = {"postgres", "redis", "proxy", "web", "live", "worker", "beat", "smtpd"}


def check_command(service: str, command: list[str], problems: list[str]) -> None:
    from django.core.management import get_commands

    if command[:2] == ["python", "manage.py"]:
        if command[2] not in get_commands():
            problems.append(f"{service}: manage.py has no command {command[2]!r}")
    elif command[0] == "gunicorn":
        module, _, attr = command[1].partition(":")
        if not hasattr(importlib.import_module(module), attr or "application"):
            problems.append(f"{service}: {command[1]} does not exist")
        if "-k" in command:  # the worker class (the long polls': uvicorn's)
            module, _, cls = command[command.index("-k") + 1].rpartition(".")
            if not hasattr(importlib.import_module(module), cls):
                problems.append(f"{service}: worker class {command[command.index('-k') + 1]} does not exist")
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


def check_proxy(services: dict, problems: list[str]) -> None:
    """The proxy mounts a config that is in the repository, and is the only service published on
    the web's port (the pages and the long polls are reached through it)."""
    proxy = services.get("proxy", {})
    for volume in proxy.get("volumes", []):
        source = volume.get("source") if isinstance(volume, dict) else str(volume).split(":")[0]
        if source and not Path(source if Path(source).is_absolute() else ROOT / source).exists():
            problems.append(f"proxy: mounts {source}, which does not exist")
    for name in ("web", "live"):
        if services.get(name, {}).get("ports"):
            problems.append(f"{name}: published directly (it is reached through the proxy)")


def environment(service: dict) -> dict:
    """A service's environment as a dict, whether the file writes it as a mapping or a list."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.partition("=")[::2] for item in env)
    return env


def check_roles(services: dict, problems: list[str]) -> None:
    from urllib.parse import urlsplit

    superuser = environment(services.get("postgres", {})).get("POSTGRES_USER", "postgres")
    owner_urls = {name: environment(s).get("DATABASE_OWNER_URL") for name, s in services.items()}
    owners = {urlsplit(url).username for url in owner_urls.values() if url} - {None}
    if not owner_urls.get("migrate"):
        problems.append("migrate: no DATABASE_OWNER_URL (migrations must run as the owner role)")
    for name, url in owner_urls.items():
        if url and name != "migrate":
            problems.append(f"{name}: has the owner's DATABASE_OWNER_URL (only migrate may)")
    for name, service in services.items():
        url = environment(service).get("DATABASE_URL")
        if not url or "build" not in service:
            continue
        user = urlsplit(url).username
        if user == superuser:
            problems.append(f"{name}: connects as the database superuser {user!r}")
        if user in owners:
            problems.append(f"{name}: connects as the owner role {user!r} (use the service role)")


# Compose's interpolation: $$ (a dollar), ${NAME}, ${NAME:-default}, ${NAME-default},
# ${NAME:?message}, ${NAME?message}, $NAME.
VARIABLE = re.compile(
    r"\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])((?:[^{}]|\{[^{}]*\})*))?\}|([A-Za-z_][A-Za-z0-9_]*))"
)


def interpolate(text: str, env: dict) -> tuple[str, list[str]]:
    """The compose file with its variables resolved as `docker-compose config` would, from `env`;
    a variable with no value and no default becomes `NAME-unset` (a placeholder that still parses
    as a user name or password), and is listed."""
    placeholders: list[str] = []

    def one(match: re.Match) -> str:
        dollar, name, op, arg, bare = match.groups()
        if dollar:
            return "$"
        name = name or bare
        value = env.get(name)
        if op in (":-", ":?") and not value:
            value = None
        if value is not None:
            return value
        if op in (":-", "-"):
            return arg or ""
        placeholders.append(name)
        return f"{name}-unset"

    return VARIABLE.sub(one, text), placeholders


def load(path: Path) -> dict:
    """The compose file: JSON with the standard library, YAML with PyYAML."""
    text = path.read_text()
    text, placeholders = interpolate(text, dict(os.environ)) if "$" in text else (text, [])
    if placeholders:
        print(
            f"compose: not resolved; unset variables stand in as placeholders: {', '.join(sorted(set(placeholders)))}"
        )
    if text.lstrip().startswith("{"):
        return json.loads(text)
    try:
        import yaml
    except ImportError:
        raise SystemExit(
            "check_compose: PyYAML is not installed in this environment (it is a development dependency); "
            "give the file as JSON (docker compose config --format json > FILE) or install pyyaml"
        ) from None
    return yaml.safe_load(text)


def main(path: str) -> int:
    import django

    django.setup()
    compose = load(Path(path))
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
    check_proxy(services, problems)
    redis = services.get("redis", {})
    if "--appendonly" in str(redis.get("command", "")) and not redis.get("volumes"):
        problems.append("redis: an append-only file without a volume")
    for problem in problems:
        print("compose:", problem)
    print(f"compose: {len(services)} services checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    if not Path(sys.argv[1]).is_file():
        print(f"check_compose: no such file: {sys.argv[1]}\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
