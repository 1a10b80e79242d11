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

. "$here/scratch-database.sh"
scratch_database pulse_bench
rm -rf "$work" && mkdir -p "$work"
python3 "$here/daemon-farm.py" --binary "$bin" --database-url "$scratch_url" --work "$work" \
    --feeds "${BENCH_FEEDS:-2000}" --items "${BENCH_ITEMS:-30}" --hosts "${BENCH_HOSTS:-20}" \
    --farm-port "${BENCH_FARM_PORT:-18080}" --slow-placement "${BENCH_SLOW_PLACEMENT:-spread}"
drop_scratch_database
