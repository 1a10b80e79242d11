#!/usr/bin/env bash
# `make bench-scale`: 100,000 sources, 1, 2 and 4 daemons, then 1,000,000 sources and one daemon, against a loopback farm whose feeds
# answer in 0.2-2 s (Tests/Benchmarks/scale.py says what it prints and how it is scaled). Prints;
# never a timed test.
#
# Environment (all optional):
#   PULSE_BIN            binary to measure               (default .build/release/pulse-ingest)
#   BENCH_SOURCES        sources in the catalogue        (default 100000)
#   BENCH_SECONDS        seconds per daemon count        (default 60)
#   BENCH_DAEMONS        daemon counts to run            (default 1,2,4; empty: none)
#   BENCH_MILLION        then grow to this many sources  (default 1000000; 0: skip) and run one
#                        daemon there: claims, fleet gauges, --status, start and stop statements
#   BENCH_SCALE_PG_PORT  port of the bench's own cluster (default 54399)
#   BENCH_FARM_PORT      port of the loopback feed farm  (default 18090)
# Runs its own PostgreSQL cluster under .build/bench-scale/pg (pg_stat_statements needs
# shared_preload_libraries, which the private cluster of `make test` does not load), stopped
# and removed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${PULSE_BIN:-$root/.build/release/pulse-ingest}
[ -e "$bin" ] && bin=$(realpath "$bin")
work="$root/.build/bench-scale"
cd "$root"
[ -x "$bin" ] || { echo "bench-scale: no binary at $bin (run 'make release', or set PULSE_BIN)" >&2; exit 1; }
command -v psql >/dev/null || { echo "bench-scale: psql missing (make deps)" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work"
export PULSE_PG_ROOT="$work/pg" PULSE_PG_PORT="${BENCH_SCALE_PG_PORT:-54399}"
pg="bash .ci/local-postgres"
cleanup() { $pg stop >/dev/null 2>&1 || true; rm -rf "$work/pg"; }
trap cleanup EXIT
$pg start
cat >> "$work/pg/data/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_stat_statements'
max_connections = 100
CONF
$pg stop && $pg start
postmaster=$(head -n 1 "$work/pg/data/postmaster.pid")
python3 "$here/scale.py" --binary "$bin" --database-url "$($pg url)" --work "$work" --postmaster "$postmaster" \
    --sources "${BENCH_SOURCES:-100000}" --seconds "${BENCH_SECONDS:-60}" --daemons "${BENCH_DAEMONS-1,2,4}" \
    --million "${BENCH_MILLION:-1000000}" --farm-port "${BENCH_FARM_PORT:-18090}"
