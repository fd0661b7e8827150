#!/usr/bin/env bash
# Runs pbem on embedded defaults: SQLite under data/, Celery tasks in-process, outgoing mail as
# files under data/mail/, the timers (deadlines, reminders, digests, outbox sweep) in a process of
# their own, and a demo game whose seat links are printed, with the way in to the desk (/admin/).
# Open http://127.0.0.1:8000/ (or where PBEM_LISTEN=host:port says: the links follow it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-venv.sh requirements.txt
.venv/bin/python manage.py migrate --noinput -v0
.venv/bin/python manage.py demo  # its seat links, where mail goes, and the way in to the desk
if [ -z "${CELERY_BROKER_URL:-}" ]; then
  # No broker, so no Celery beat: the same schedule runs in-process (manage.py timers).
  .venv/bin/python manage.py timers &
  timers_pid=$!
  trap 'kill "$timers_pid" 2>/dev/null; wait "$timers_pid" 2>/dev/null' EXIT
  trap 'exit 130' INT TERM
fi
# runserver serves the pages and the long polls alike (those are async views: here each wait holds
# one of runserver's threads, at most PBEM_LIVE_WAITS_PER_PROCESS at a time; production sends them
# to an ASGI process of their own, see README, Production).
.venv/bin/python manage.py runserver --noreload "${PBEM_LISTEN:-127.0.0.1:8000}"
