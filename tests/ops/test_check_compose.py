"""scripts/check_compose.py as an operator meets it: from the service's environment (no PyYAML),
with no argument, and on docker-compose.yml itself before docker-compose resolved it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_compose.py"
# Runs the script with PyYAML hidden, as in an environment made from requirements.txt alone.
WITHOUT_YAML = (
    "import runpy, sys; sys.modules['yaml'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def check(*args: str, without_yaml: bool = False, **env) -> subprocess.CompletedProcess:
    command = (
        [sys.executable, "-c", WITHOUT_YAML, str(SCRIPT), *args]
        if without_yaml
        else [sys.executable, str(SCRIPT), *args]
    )
    base = {k: v for k, v in os.environ.items() if k not in ("POSTGRES_PASSWORD", "PBEM_APP_DB_PASSWORD")}
    return subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, timeout=120, env={**base, "SECRET_KEY": "x", **env}
    )


def test_with_no_argument_it_prints_a_usage_line_not_a_traceback():
    done = check()
    assert done.returncode == 2
    assert done.stderr.startswith("usage: python scripts/check_compose.py COMPOSE_FILE")
    assert "Traceback" not in done.stderr


def test_the_unresolved_compose_file_has_no_false_problems():
    done = check("docker-compose.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 problem(s)" in done.stdout and "owner role None" not in done.stdout
    assert "placeholders: PBEM_APP_DB_PASSWORD" in done.stdout


def test_a_real_problem_in_the_unresolved_file_is_still_found(tmp_path):
    text = (ROOT / "docker-compose.yml").read_text()
    # The web container given the owner's URL: what the check is for.
    wrong = text.replace("DATABASE_URL: postgres://pbem_app:", "DATABASE_URL: postgres://pbem_owner:", 1)
    assert wrong != text
    (tmp_path / "compose.yml").write_text(wrong)
    done = check(str(tmp_path / "compose.yml"))
    assert done.returncode == 1
    assert "web: connects as the owner role 'pbem_owner'" in done.stdout


def test_without_pyyaml_a_yaml_file_gets_a_clear_message_and_json_is_checked(tmp_path):
    done = check("docker-compose.yml", without_yaml=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "PyYAML is not installed" in done.stderr and "--format json" in done.stderr

    import yaml  # the suite's environment has it: the JSON form, as docker compose v2 writes it

    resolved = yaml.safe_load(check_output_resolved())
    (tmp_path / "compose.json").write_text(json.dumps(resolved))
    done = check(str(tmp_path / "compose.json"), without_yaml=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "10 services checked, 0 problem(s)" in done.stdout


def check_output_resolved() -> str:
    """docker-compose.yml resolved by the script's own interpolation (no docker-compose here)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import check_compose
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    text, _ = check_compose.interpolate((ROOT / "docker-compose.yml").read_text(), {"SECRET_KEY": "x"})
    return text


def test_interpolation_follows_compose():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import check_compose
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    text = "a ${A} b ${B:-dflt} c ${C:?say (it)} d $$HOME e ${E-x} f $F"
    resolved, unset = check_compose.interpolate(text, {"A": "1", "B": "", "E": ""})
    assert resolved == "a 1 b dflt c C-unset d $HOME e  f F-unset"
    assert unset == ["C", "F"]


def test_the_long_polls_and_the_pages_are_reached_through_the_proxy_only(tmp_path):
    """The pages' gthread workers published directly would take the long polls too (each holding
    one of their threads); a live service whose worker class does not exist, or a proxy mounting
    a config that is not there, would not start."""
    text = (ROOT / "docker-compose.yml").read_text()
    wrong = text.replace('    expose:\n      - "8000"', '    ports:\n      - "8001:8000"', 1)
    wrong = wrong.replace("uvicorn_worker.UvicornWorker", "uvicorn_worker.NoSuchWorker", 1)
    wrong = wrong.replace("deploy/nginx/pbem.conf.template", "deploy/nginx/missing.template", 1)
    assert wrong.count("NoSuchWorker") == 1 and "missing.template" in wrong and '"8001:8000"' in wrong
    (tmp_path / "compose.yml").write_text(wrong)
    done = check(str(tmp_path / "compose.yml"))
    assert done.returncode == 1
    assert "web: published directly (it is reached through the proxy)" in done.stdout
    assert "live: worker class uvicorn_worker.NoSuchWorker does not exist" in done.stdout
    assert "proxy: mounts ./deploy/nginx/missing.template, which does not exist" in done.stdout
