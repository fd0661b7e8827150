#!/usr/bin/env bash
# Runs pbem on embedded defaults: SQLite under data/, Celery tasks in-process, outgoing mail as
# files under data/mail/, and a demo game whose seat links are printed. Open http://127.0.0.1:8000/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-venv.sh requirements.txt
.venv/bin/python manage.py migrate --noinput -v0
.venv/bin/python manage.py demo
exec .venv/bin/python manage.py runserver --noreload "${PBEM_LISTEN:-127.0.0.1:8000}"
