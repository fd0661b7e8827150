"""The house is one way: pbem's groups import only the groups below them (the layers contract in
pyproject.toml, checked by import-linter), and a wrong import is caught."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(cwd / "pyproject.toml")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_each_group_imports_only_the_groups_below_it():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pbem's groups import only the groups below them KEPT" in done.stdout
    assert "games import neither Django nor the platform KEPT" in done.stdout
    assert ", 0 broken" in done.stdout


def test_a_log_module_importing_the_web_breaks_the_contract(tmp_path):
    shutil.copytree(
        ROOT / "pbem", tmp_path / "pbem", ignore=shutil.ignore_patterns("__pycache__", "static", "templates")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    fold = tmp_path / "pbem" / "log" / "fold.py"
    fold.write_text(fold.read_text() + "\nfrom pbem.web import views  # the wrong way up\n")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout
    assert "pbem.log is not allowed to import pbem.web" in done.stdout
    assert "pbem.log.fold -> pbem.web.views" in done.stdout


def test_siblings_do_not_import_each_other(tmp_path):
    shutil.copytree(
        ROOT / "pbem", tmp_path / "pbem", ignore=shutil.ignore_patterns("__pycache__", "static", "templates")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    sheets = tmp_path / "pbem" / "desk" / "scoresheets.py"
    sheets.write_text(sheets.read_text() + "\nfrom pbem.web import forms  # a sibling\n")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout
    assert "pbem.desk.scoresheets -> pbem.web.forms" in done.stdout
