#!/bin/sh
# Runs once, when the PostgreSQL volume is first initialised (/docker-entrypoint-initdb.d/): the
# two roles of pbem/ops/dbroles.py. pbem_owner owns the database and its tables (migrations run as it);
# pbem_app is what the web, worker, beat and smtpd containers connect as: it may read and append
# the log but not change it, and owns nothing, so it cannot TRUNCATE, ALTER or DROP a table or
# disable the log's trigger. The superuser (POSTGRES_USER) is used by no app container.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
     -v owner_password="$PBEM_OWNER_DB_PASSWORD" -v app_password="$PBEM_APP_DB_PASSWORD" <<'SQL'
CREATE ROLE pbem_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE pbem_app LOGIN PASSWORD :'app_password';
CREATE DATABASE pbem OWNER pbem_owner;
\connect pbem
-- Only the owner creates objects (PostgreSQL 15's default, said here for older servers too).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SQL
