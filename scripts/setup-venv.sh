#!/usr/bin/env bash
# Makes .venv (Python 3.11), installs a lock into it (every version exact, every file checked
# against its hash) and the project itself, editable, without touching its dependencies.
# Usage: scripts/setup-venv.sh [lock file]   (requirements.txt: the service, the default;
# requirements-dev.txt: the service, the tests and the tools). Both come from pyproject.toml
# through scripts/lock.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
req="${1:-requirements.txt}"
py="${PYTHON:-}"
if [ -z "$py" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      py=$candidate; break
    fi
  done
fi
[ -n "$py" ] || { echo "pbem needs Python 3.11 (set PYTHON=/path/to/python3.11)" >&2; exit 1; }
[ -x .venv/bin/python ] || "$py" -m venv .venv
stamp=".venv/.installed-$(cat requirements*.txt pyproject.toml | sha256sum | cut -c1-16)-$(basename "$req")"
if [ ! -f "$stamp" ]; then
  # python -m pip, not .venv/bin/pip: a venv copied from elsewhere keeps the old path in its scripts.
  pip=(.venv/bin/python -m pip install -q --disable-pip-version-check)
  "${pip[@]}" -U pip
  "${pip[@]}" --require-hashes -r "$req"
  "${pip[@]}" --no-deps -e .
  touch "$stamp"
fi
# The project's bytecode, compiled now (up-to-date files are skipped): scripts/pbem-pipe runs
# Python with PYTHONDONTWRITEBYTECODE, and would otherwise compile pbem/ again for every message.
.venv/bin/python -m compileall -q pbem config games >/dev/null
