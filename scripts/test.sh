#!/usr/bin/env bash
# Runs the test suite (arguments go to pytest). Uses DATABASE_URL / CELERY_BROKER_URL when set;
# otherwise the local PostgreSQL and Redis when they answer on 127.0.0.1, else SQLite (the tests
# that need PostgreSQL or Redis then skip, saying why).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-venv.sh requirements-dev.txt
if [ -z "${DATABASE_URL:-}" ] && .venv/bin/python -c "import socket; socket.create_connection(('127.0.0.1', 5432), 1)" 2>/dev/null; then
  export DATABASE_URL=postgres://postgres@127.0.0.1:5432/pbem
fi
if [ -z "${PBEM_TEST_REDIS_URL:-}" ] && .venv/bin/python -c "import socket; socket.create_connection(('127.0.0.1', 6379), 1)" 2>/dev/null; then
  export PBEM_TEST_REDIS_URL=redis://127.0.0.1:6379/15
fi
workers="${PBEM_TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}"
[ "$workers" -gt 1 ] && set -- -n "$workers" "$@"
exec .venv/bin/python -m pytest "$@"
