#!/usr/bin/env bash
# The whole test suite, several runs in a row, under a parallel CPU load (issue 28: "a test suite
# that a newcomer's two cores finish in a predictable time with no flake"). Each run is the
# README's test command (scripts/test.sh); after each one the test Redis database must be empty
# (no queued task, no kombu binding, no cache key left behind) and no test database may remain.
# Stops at the first failed run or leftover, and prints one line a run. (No -q here: the
# project's addopts has one, and -qq drops pytest's summary line.)
#
#   scripts/suite-under-load.sh [runs (5)] [busy processes (one per core; 0 when the machine is
#                               busy already)]
#
# Needs PostgreSQL and Redis on 127.0.0.1, like the tests (DATABASE_URL / PBEM_TEST_REDIS_URL to
# choose others: the Redis database given must be one nothing else uses).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
busy="${2:-$(nproc 2>/dev/null || echo 2)}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/pbem_soak}"
export PBEM_TEST_REDIS_URL="${PBEM_TEST_REDIS_URL:-redis://127.0.0.1:6379/14}"
redis_db="${PBEM_TEST_REDIS_URL##*/}"
db_name="${DATABASE_URL##*/}"
logs="$(mktemp -d)"

load_pids=()
stop_load() { [ "${#load_pids[@]}" -eq 0 ] || kill "${load_pids[@]}" 2>/dev/null || true; }
trap stop_load EXIT
# Each busy loop in a session of its own, as another program's processes would be: with the
# kernel's autogroup scheduling (Debian's default) a loop in this script's session would share
# the suite's own slice of the CPU and starve it (a run took 33 min instead of about 15).
for _ in $(seq "$busy"); do
  setsid python3 -c 'while True: pass' &
  load_pids+=($!)
done

leftovers() {
  local keys dbs
  keys="$(redis-cli -h 127.0.0.1 -n "$redis_db" --scan | head -20)"
  dbs="$(psql -h 127.0.0.1 -U postgres -Atc \
    "select datname from pg_database where datname like 'test_${db_name}%'" postgres)"
  [ -z "$keys" ] || echo "keys left in Redis db $redis_db: $(echo "$keys" | tr '\n' ' ')"
  [ -z "$dbs" ] || echo "test databases left: $(echo "$dbs" | tr '\n' ' ')"
}

redis-cli -h 127.0.0.1 -n "$redis_db" flushdb >/dev/null
for run in $(seq "$runs"); do
  start=$(date +%s)
  load_before="$(cut -d' ' -f1 /proc/loadavg)"
  rc=0
  scripts/test.sh >"$logs/run-$run.log" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then outcome=passed; else outcome="FAILED (exit $rc)"; fi
  summary="$(grep -E '[0-9]+ (passed|failed).* in [0-9.]+s' "$logs/run-$run.log" | tail -1 || true)"
  left="$(leftovers)"
  echo "run $run/$runs: $outcome in $(( $(date +%s) - start )) s, load average $load_before then" \
    "$(cut -d' ' -f1 /proc/loadavg); ${summary:-no summary line}${left:+; $left}"
  if [ "$outcome" != passed ] || [ -n "$left" ]; then
    grep -E '^(FAILED|ERROR) |KeyboardInterrupt|Interrupted' "$logs/run-$run.log" | head -20 || true
    echo "the run's whole output: $logs/run-$run.log"
    exit 1
  fi
done
rm -rf "$logs"
