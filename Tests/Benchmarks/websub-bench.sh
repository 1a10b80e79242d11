#!/usr/bin/env bash
# `make bench-websub`: the service with WebSub on, a loopback hub (websub-bench.py) that verifies
# and pushes; push-to-row latency p50/p99 over 1,000 pushes, and rows stored exactly once when the
# same item is both pushed and polled. Uses a scratch database `pulse_bench_websub` in the private
# cluster. Prints; never a timed test.
#   PULSE_BIN      binary to measure (default .build/release/pulse-ingest)
#   BENCH_PUSHES   pushes (default 1000)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${PULSE_BIN:-$root/.build/release/pulse-ingest}
[ -x "$bin" ] || { echo "bench: no binary at $bin (run 'make release', or set PULSE_BIN)" >&2; exit 1; }
bin=$(realpath "$bin")
work="$root/.build/bench-websub"
cd "$root"
. "$here/scratch-database.sh"
scratch_database pulse_bench_websub
rm -rf "$work" && mkdir -p "$work"
python3 "$here/websub-bench.py" --binary "$bin" --database-url "$scratch_url" --work "$work" \
    --pushes "${BENCH_PUSHES:-1000}"
drop_scratch_database
# The callback under attack (issue 47): a flood of 16 MiB bogus bodies, a 1,500-push burst, a kill -9.
scratch_database pulse_bench_websub
rm -rf "$work" && mkdir -p "$work"
python3 "$here/websub-hostile.py" --binary "$bin" --database-url "$scratch_url" --work "$work" \
    --pushes "${BENCH_HOSTILE_PUSHES:-1500}"
drop_scratch_database
