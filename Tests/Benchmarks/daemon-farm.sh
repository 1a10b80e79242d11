#!/usr/bin/env bash
# Daemon benchmark behind `make bench`: the service ingesting a loopback feed farm (2,000 feeds x
# 30 items by default, some slow, some failing, ETags and 304s) into PostgreSQL, against a plain
# COPY of the same rows measured in the same run. Prints; never a timed test.
#
# Environment (all optional):
#   PULSE_BIN          binary to measure               (default .build/release/pulse-ingest)
#   BENCH_FEEDS        feeds in the farm               (default 2000)
#   BENCH_ITEMS        items per feed                  (default 30)
#   BENCH_HOSTS        loopback addresses serving them (default 20)
#   BENCH_SLOW_PLACEMENT  spread (default): the 1% of feeds that stall 2 s sit on different hosts;
#                      stride: every 100th feed, all on one host at 20 hosts (this bench until
#                      2026-11-27), where that host's 4 connections alone take 10 s
#   BENCH_FARM_PORT    the farm's port                 (default 18080)
#   PULSE_PG_PORT      the private cluster's port      (default: see .ci/local-postgres)
# Uses a scratch database `pulse_bench` in the private cluster (started, and stopped again if it
# was not running); work files under .build/bench-daemon.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${PULSE_BIN:-$root/.build/release/pulse-ingest}
[ -e "$bin" ] && bin=$(realpath "$bin")
work="$root/.build/bench-daemon"
cd "$root"
[ -x "$bin" ] || { echo "bench: no binary at $bin (run 'make release', or set PULSE_BIN)" >&2; exit 1; }
command -v psql >/dev/null || { echo "bench: psql missing (make deps)" >&2; exit 1; }

pg="bash .ci/local-postgres"
running=0
$pg status >/dev/null 2>&1 && running=1
$pg start >/dev/null
cleanup() { [ "$running" -eq 1 ] || $pg stop >/dev/null 2>&1 || true; }
trap cleanup EXIT

base=$($pg url)
admin="${base%/*}/postgres"
psql "$admin" -X -q -c "DROP DATABASE IF EXISTS pulse_bench" -c "CREATE DATABASE pulse_bench"
rm -rf "$work" && mkdir -p "$work"
python3 "$here/daemon-farm.py" --binary "$bin" --database-url "${base%/*}/pulse_bench" --work "$work" \
    --feeds "${BENCH_FEEDS:-2000}" --items "${BENCH_ITEMS:-30}" --hosts "${BENCH_HOSTS:-20}" \
    --farm-port "${BENCH_FARM_PORT:-18080}" --slow-placement "${BENCH_SLOW_PLACEMENT:-spread}"
psql "$admin" -X -q -c "DROP DATABASE IF EXISTS pulse_bench"
