#!/usr/bin/env bash
# `make demo`: the whole product on a machine with no internet. The private PostgreSQL (database
# pulse_demo), the loopback feed farm of the benchmark and the service ingesting it, in the
# foreground with its logs; Ctrl-C stops the service (it drains and releases its leases), then
# the farm. Enrichment is on: the farm serves the article pages too. One progress line per pass
# (sources, failures, items, new, enriched, rate). Watch it from another terminal:
#   curl -s 127.0.0.1:9464/metrics | grep ^pulse_      # Prometheus metrics
#   psql "$(bash .ci/local-postgres url | sed 's|/pulse$|/pulse_demo|')" -c 'SELECT count(*) FROM articles'
# Environment: DEMO_FEEDS (default 2000), DEMO_HOSTS (20), DEMO_FARM_PORT (18090), PULSE_BIN.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${PULSE_BIN:-$root/.build/release/pulse-ingest}
work="$root/.build/demo"
cd "$root"
[ -x "$bin" ] || { echo "demo: no binary at $bin (run 'make release')" >&2; exit 1; }
mkdir -p "$work"
bash .ci/local-postgres start >/dev/null
base=$(bash .ci/local-postgres url)
psql "${base%/*}/postgres" -X -q -Atc "SELECT 1 FROM pg_database WHERE datname = 'pulse_demo'" | grep -q 1 \
    || psql "${base%/*}/postgres" -X -q -c "CREATE DATABASE pulse_demo"
export DATABASE_URL="${base%/*}/pulse_demo"

# --articles: the farm also serves the article pages (og:image, a body), so enrichment runs as in
# production; PULSE_RESOLVE sends the pages' public-looking names to the farm's loopback addresses.
rm -f "$work/resolve"
python3 "$here/feed-farm.py" --port "${DEMO_FARM_PORT:-18090}" --feeds "${DEMO_FEEDS:-2000}" \
    --hosts "${DEMO_HOSTS:-20}" --config-out "$work/farm.yaml" --articles --resolve-out "$work/resolve" &
farm=$!
daemon=""
stop_farm() {
    kill "$farm" 2>/dev/null; wait "$farm" 2>/dev/null || true
    echo "demo: stopped (PostgreSQL keeps running: make db-stop)" >&2
}
trap stop_farm EXIT
# Ctrl-C reaches the whole foreground process group, the service included, and it drains on its
# own: passing the signal on would be a second one, which makes it exit at once. So INT only
# wakes the wait below; a TERM sent to this script alone is passed on.
trap ':' INT
trap '[ -n "$daemon" ] && kill -TERM "$daemon" 2>/dev/null' TERM
for _ in $(seq 50); do [ -s "$work/resolve" ] && break; sleep 0.1; done
PULSE_RESOLVE=$(cat "$work/resolve")
export PULSE_RESOLVE
"$bin" --migrate --config "$work/farm.yaml" --allow-networks 127.0.0.0/8
echo "demo: the service is starting; metrics on http://127.0.0.1:9464/metrics; Ctrl-C stops" >&2
echo "demo: its rows are in the database pulse_demo (not make db-url's pulse): psql '$DATABASE_URL'" >&2
"$bin" --config "$work/farm.yaml" --allow-networks 127.0.0.0/8 --metrics-address 127.0.0.1:9464 &
daemon=$!
status=0
while kill -0 "$daemon" 2>/dev/null; do
    status=0
    wait "$daemon" || status=$?
done
exit "$status"
