# Sourced by the benchmarks that need PostgreSQL (run from the repository root): starts the
# private cluster, and stops it again at exit if it was not running.
#   scratch_database NAME   sets scratch_url to a fresh, empty database NAME in that cluster
#   drop_scratch_database   drops it again
pg="bash .ci/local-postgres"
scratch_running=0
$pg status >/dev/null 2>&1 && scratch_running=1
$pg start >/dev/null
scratch_cleanup() { [ "$scratch_running" -eq 1 ] || $pg stop >/dev/null 2>&1 || true; }
trap scratch_cleanup EXIT
scratch_admin="$($pg url)"
scratch_admin="${scratch_admin%/*}/postgres"

scratch_database() {
    scratch_name=$1
    psql "$scratch_admin" -X -q -c "DROP DATABASE IF EXISTS $scratch_name" -c "CREATE DATABASE $scratch_name"
    scratch_url="${scratch_admin%/*}/$scratch_name"
}

drop_scratch_database() {
    psql "$scratch_admin" -X -q -c "DROP DATABASE IF EXISTS $scratch_name"
}
