#!/usr/bin/env bash
# Makes .venv (Python 3.11) and installs the project's pinned requirements into it.
# Usage: scripts/setup-venv.sh [requirements file]   (default: requirements.txt)
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
stamp=".venv/.installed-$(cat requirements*.txt | sha256sum | cut -c1-16)-$(basename "$req")"
if [ ! -f "$stamp" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -U pip
  .venv/bin/pip install -q --disable-pip-version-check -r "$req"
  touch "$stamp"
fi
