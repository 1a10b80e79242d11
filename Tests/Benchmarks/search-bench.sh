#!/usr/bin/env bash
# make bench-search: multilingual search (issue 50) on a generated catalogue of real text.
# Builds a database the way the backend's migrations would (Tests/MigrationsTests/Fixtures), loads
# SEARCH_BENCH_ROWS articles in English, Portuguese and Spanish (search-corpus.py), adopts it with
# `--migrate`, measures search_articles on the `english` search_vector (the baseline), runs
# `--backfill --kind search` (batches, concurrent index, switch) and measures again.
# Prints recall@20 per language and query kind, p50/p95 latency for 1- and 3-word queries, and
# the two indexes' sizes.
#   PULSE_BIN            binary (default .build/release/pulse-ingest)
#   SEARCH_BENCH_ROWS    articles (default 500000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bin=${PULSE_BIN:-$root/.build/release/pulse-ingest}
rows=${SEARCH_BENCH_ROWS:-500000}
source Tests/Benchmarks/scratch-database.sh
work=$(mktemp -d)
trap 'rm -rf "$work"; scratch_cleanup' EXIT
seconds() { date +%s.%N; }

echo "bench-search: generating $rows articles from the installed message catalogues" >&2
python3 Tests/Benchmarks/search-corpus.py "$work" "$rows"
scratch_database pulse_bench_search
sql() { psql "$scratch_url" -X -q -v ON_ERROR_STOP=1 "$@"; }
sql -f Tests/MigrationsTests/Fixtures/backend-schema.sql
t0=$(seconds)
sql -c "\\copy public.articles (title, summary, url, url_hash, published_at, language) FROM '$work/articles.tsv'"
sql -c "VACUUM ANALYZE public.articles"
t1=$(seconds)
DATABASE_URL="$scratch_url" "$bin" --migrate --config "$root/feeds.yaml" >/dev/null
t2=$(seconds)
# The english index as it is before the fill (the fill's updates add entries to it too).
english_bytes=$(sql -At -c "SELECT pg_relation_size('public.idx_articles_search')")
sql <<SQL
CREATE TABLE bench_queries (language text, kind text, query text, relevant int[], excluded int[]);
\\copy bench_queries FROM '$work/queries.tsv'
CREATE TABLE bench_recall (label text, language text, kind text, recall float8, queries bigint);
CREATE TABLE bench_latency (label text, words int, filter text, ms float8);
SQL
sql -v label=english -c "SET bench.label = 'english'" -f Tests/Benchmarks/search-bench.sql
t3=$(seconds)
DATABASE_URL="$scratch_url" "$bin" --backfill --kind search
t4=$(seconds)
sql -c "ANALYZE public.articles"
# Like for like: the english index built in one pass too, as the per-language one is (the one the
# load left was built row by row and is the bigger for it).
english_fresh_bytes=$(sql -At -c "CREATE INDEX bench_english_fresh ON public.articles USING gin (search_vector)" \
    -c "SELECT pg_relation_size('public.bench_english_fresh')" -c "DROP INDEX public.bench_english_fresh")
sql -v label=per-language -c "SET bench.label = 'per-language'" -f Tests/Benchmarks/search-bench.sql

printf '\nbench-search: %s articles; load %.0f s, --migrate (adoption) %.1f s, --backfill --kind search %.0f s\n' \
    "$rows" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$(echo "$t4 - $t3" | bc)"
sql -v english_bytes="$english_bytes" -v english_fresh_bytes="$english_fresh_bytes" <<'SQL'
\pset footer off
\echo 'recall@20 (search_language = the query''s language): english baseline vs per-language index'
SELECT b.language, b.kind, b.queries, round(b.recall::numeric, 3) AS english, round(n.recall::numeric, 3) AS per_language
FROM bench_recall b JOIN bench_recall n ON n.language = b.language AND n.kind = b.kind AND n.label = 'per-language'
WHERE b.label = 'english'
ORDER BY array_position(ARRAY['en', 'pt', 'es'], b.language), array_position(ARRAY['exact', 'inflected', 'verb', 'unaccented'], b.kind);
\echo 'search_articles latency (server side, ms; second round of each query set)'
SELECT label, words, filter, count(*) AS calls,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p50,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p95
FROM bench_latency GROUP BY label, words, filter ORDER BY filter DESC, words, label;
\echo 'full-text index size (english: as the load left it, before the fill; and built in one pass)'
SELECT pg_size_pretty(:english_bytes::bigint) AS english_search_vector,
       pg_size_pretty(pg_relation_size('public.idx_articles_search_lang')) AS per_language,
       round(pg_relation_size('public.idx_articles_search_lang')::numeric / :english_bytes, 2) AS ratio,
       pg_size_pretty(:english_fresh_bytes::bigint) AS english_one_pass,
       round(pg_relation_size('public.idx_articles_search_lang')::numeric / :english_fresh_bytes, 2) AS ratio_one_pass;
SQL
drop_scratch_database
