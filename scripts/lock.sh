#!/usr/bin/env bash
# Regenerates the locks from pyproject.toml: requirements.txt (the service) and
# requirements-dev.txt (the service, the tests and the tools), every version exact, with hashes,
# for Python 3.11 on Linux. Run after changing a dependency in pyproject.toml; commit all three.
# Usage: scripts/lock.sh [--upgrade | --upgrade-package NAME …]   (default: keep the locked versions)
set -euo pipefail
cd "$(dirname "$0")/.."
uv="${UV:-.venv/bin/uv}"
[ -x "$uv" ] || uv=uv
common=(--generate-hashes --python-version 3.11 --python-platform x86_64-unknown-linux-gnu
        --custom-compile-command scripts/lock.sh --quiet "$@")
"$uv" pip compile pyproject.toml "${common[@]}" --output-file requirements.txt
"$uv" pip compile pyproject.toml --extra dev "${common[@]}" --output-file requirements-dev.txt
