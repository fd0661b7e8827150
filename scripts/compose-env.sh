#!/usr/bin/env bash
# Writes .env for docker-compose.yml: a random SECRET_KEY and database passwords (the compose file
# has no default for any secret). An existing file is kept unless --force is given.
# PBEM_COMPOSE_ENV: where to write (default .env beside docker-compose.yml).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${PBEM_COMPOSE_ENV:-.env}"
if [ -s "$target" ] && [ "${1:-}" != "--force" ]; then
  echo "$target exists: kept as it is (--force writes new secrets, which locks you out of an existing database)"
  exit 0
fi
random() { python3 -c 'import secrets, sys; print(secrets.token_urlsafe(int(sys.argv[1])))' "$1"; }
umask 077
cat > "$target" <<ENV
SECRET_KEY=$(random 50)
POSTGRES_PASSWORD=$(random 24)
PBEM_OWNER_DB_PASSWORD=$(random 24)
PBEM_APP_DB_PASSWORD=$(random 24)
ENV
echo "wrote $target (SECRET_KEY and the database passwords, readable by you alone)"
