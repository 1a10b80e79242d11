-- The search benchmark's measurements, run twice by search-bench.sh: with search_articles on the
-- `english` search_vector (before the switch) and on the per-language index (after). :'label'
-- names the run; results go to bench_recall and bench_latency.

-- recall@20: the first 20 results (of up to 100, titles holding the typed form itself left out)
-- that are relevant, over min(20, relevant).
INSERT INTO bench_recall
SELECT :'label', q.language, q.kind, avg(r.recall), count(*)
FROM bench_queries q,
LATERAL (
    SELECT count(*) FILTER (WHERE t.n = ANY (q.relevant))::float8 / least(20, cardinality(q.relevant)) AS recall
    FROM (SELECT split_part(s.url, '/', 5)::int AS n
          FROM public.search_articles(q.query, 100, q.language, 0) s
          WHERE NOT split_part(s.url, '/', 5)::int = ANY (q.excluded)
          LIMIT 20) t
) r
WHERE q.kind <> 'three'
GROUP BY q.language, q.kind;

-- Latency of the call as the app makes it (with its language) and across all languages, one
-- warm-up round first; server-side time per call.
DO $bench$
DECLARE
    q record;
    started timestamptz;
    round integer;
BEGIN
    FOR round IN 1..2 LOOP
        FOR q IN SELECT b.language, b.query, b.kind FROM bench_queries b
                 WHERE b.kind IN ('exact', 'inflected', 'verb', 'unaccented', 'three') LOOP
            started := clock_timestamp();
            PERFORM count(*) FROM public.search_articles(q.query, 20, q.language, 0);
            IF round = 2 THEN
                INSERT INTO bench_latency VALUES (current_setting('bench.label'), CASE WHEN q.kind = 'three' THEN 3 ELSE 1 END,
                    'language', extract(epoch FROM clock_timestamp() - started) * 1000);
            END IF;
            started := clock_timestamp();
            PERFORM count(*) FROM public.search_articles(q.query, 20, NULL, 0);
            IF round = 2 THEN
                INSERT INTO bench_latency VALUES (current_setting('bench.label'), CASE WHEN q.kind = 'three' THEN 3 ELSE 1 END,
                    'all', extract(epoch FROM clock_timestamp() - started) * 1000);
            END IF;
        END LOOP;
    END LOOP;
END
$bench$;
