// Issue 48, a million sources on one database (branch `scale`; renumber freely at merge: nothing
// else refers to the version). Four things, so that no statement a daemon runs at start, at stop
// or per interval reads the whole of `sources`:
// - `idx_sources_claimed_by`: the lease release at stop and the lease renewal find this worker's
//   rows (only rows in flight have a `claimed_by`: a finished source clears it) instead of
//   scanning 1,000,000 rows (326 ms at 1M).
// - `idx_sources_status`: the active sources in `--status`'s worst-first order (but for open
//   circuits, which depend on the clock), so its default view reads the first 50 entries instead
//   of sorting every source (2.3 s at 1M on a loaded machine); the gauges count failing sources
//   from its head. Every update of a source already adds an entry to each index (the due_at
//   index makes them non-HOT), so this one costs one more index insert per write.
// - `source_totals`: how many sources there are and how many are active, kept by triggers (writes
//   that add, remove, or switch a source on or off are rare; claims and fetch-state writes touch
//   neither count, so they never fire the row trigger: it is `UPDATE OF is_active` with a WHEN),
//   for the sync's count of unlisted sources (205 ms scan at 1M) and the gauges.
// - `fleet_gauges`: the figures one daemon per interval computes for the whole fleet (see
//   `ArticleStore.fleetGauges`); every other daemon and `--status` read them.
// On a big existing table the two CREATE INDEX read the table once each while writes to
// `sources` wait: 0.7 s (claimed_by: few entries) and 7.3 s (status: a million slugs sorted) at
// 1,000,000 sources on a 2-core machine under a load of 20. CREATE INDEX CONCURRENTLY cannot run
// inside the migrator's single transaction; meanwhile a daemon's claim waits up to its
// lock_timeout, fails, and the daemon backs off and claims again, so nothing is lost. To avoid
// even that on a very large table, create the two indexes CONCURRENTLY by hand first (same names
// and definitions): IF NOT EXISTS then skips them.
extension Migration {
    static let fleetGauges = Migration(version: 15, name: "fleet gauges and claimed_by index", sql: #"""
CREATE INDEX IF NOT EXISTS idx_sources_claimed_by ON public.sources (claimed_by) WHERE claimed_by IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_sources_status ON public.sources
    (consecutive_failures DESC, last_fetched_at ASC NULLS FIRST, slug) WHERE is_active;

CREATE TABLE IF NOT EXISTS public.source_totals (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    sources bigint NOT NULL,
    active bigint NOT NULL
);

-- SECURITY DEFINER: whoever writes `sources` (the worker, the backend's RPCs, an operator) keeps
-- the counts without a grant on the table.
CREATE OR REPLACE FUNCTION pulse_ingest.count_sources_rows() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $fn$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE public.source_totals SET sources = 0, active = 0;
    ELSIF TG_OP = 'INSERT' THEN
        UPDATE public.source_totals t SET sources = t.sources + c.n, active = t.active + c.a
        FROM (SELECT count(*) AS n, count(*) FILTER (WHERE is_active) AS a FROM changed_rows) c WHERE c.n > 0;
    ELSE
        UPDATE public.source_totals t SET sources = t.sources - c.n, active = t.active - c.a
        FROM (SELECT count(*) AS n, count(*) FILTER (WHERE is_active) AS a FROM changed_rows) c WHERE c.n > 0;
    END IF;
    RETURN NULL;
END
$fn$;
REVOKE ALL ON FUNCTION pulse_ingest.count_sources_rows() FROM PUBLIC;

CREATE OR REPLACE FUNCTION pulse_ingest.count_sources_activity() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $fn$
BEGIN
    UPDATE public.source_totals SET active = active + CASE WHEN NEW.is_active IS TRUE THEN 1 ELSE -1 END;
    RETURN NULL;
END
$fn$;
REVOKE ALL ON FUNCTION pulse_ingest.count_sources_activity() FROM PUBLIC;

DROP TRIGGER IF EXISTS sources_count_inserted ON public.sources;
CREATE TRIGGER sources_count_inserted AFTER INSERT ON public.sources
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION pulse_ingest.count_sources_rows();
DROP TRIGGER IF EXISTS sources_count_deleted ON public.sources;
CREATE TRIGGER sources_count_deleted AFTER DELETE ON public.sources
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION pulse_ingest.count_sources_rows();
DROP TRIGGER IF EXISTS sources_count_truncated ON public.sources;
CREATE TRIGGER sources_count_truncated AFTER TRUNCATE ON public.sources
    FOR EACH STATEMENT EXECUTE FUNCTION pulse_ingest.count_sources_rows();
DROP TRIGGER IF EXISTS sources_count_activity ON public.sources;
CREATE TRIGGER sources_count_activity AFTER UPDATE OF is_active ON public.sources
    FOR EACH ROW WHEN ((OLD.is_active IS TRUE) IS DISTINCT FROM (NEW.is_active IS TRUE))
    EXECUTE FUNCTION pulse_ingest.count_sources_activity();

-- Counted after the triggers exist: CREATE TRIGGER's lock holds writers off until this commits,
-- so no row is counted twice or missed.
INSERT INTO public.source_totals (id, sources, active)
SELECT true, count(*), count(*) FILTER (WHERE is_active) FROM public.sources
ON CONFLICT (id) DO UPDATE SET sources = excluded.sources, active = excluded.active;

CREATE TABLE IF NOT EXISTS public.fleet_gauges (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    computed_at timestamptz NOT NULL,
    computed_by text NOT NULL,
    compute_ms double precision NOT NULL,
    sources bigint NOT NULL,
    active bigint NOT NULL,
    due bigint NOT NULL,
    circuit_open bigint NOT NULL,
    failing bigint NOT NULL,
    -- True when a figure above the exact-count ceiling was estimated from a sample.
    estimated boolean NOT NULL DEFAULT false
);

ALTER TABLE public.source_totals ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.fleet_gauges ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.source_totals, public.fleet_gauges FROM PUBLIC, anon, authenticated;
GRANT SELECT ON public.source_totals TO service_role;
GRANT SELECT, INSERT, UPDATE ON public.fleet_gauges TO service_role;
"""#)
}
