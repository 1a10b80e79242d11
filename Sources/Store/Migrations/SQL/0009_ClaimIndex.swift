// When each source may next be claimed, as one stored column that one partial index orders, so a
// claim reads the next N due sources from the index instead of scanning and sorting every source
// (at 100,000 sources the claim took 119 ms and the daemon's next-wake-up query scanned them too).
// `due_at` is the latest of: the scheduled due time (`next_due_at`, else the last fetch plus the
// configured interval), the end of an open circuit, and the end of a live lease. A trigger keeps
// it current on every write to a source, ours, the backend's RPCs' and an operator's alike: the
// expression is not immutable (timestamptz + interval), so it cannot be a generated column.
extension Migration {
    static let claimIndex = Migration(version: 9, name: "claim index", sql: #"""
ALTER TABLE public.sources ADD COLUMN IF NOT EXISTS due_at timestamptz;

CREATE OR REPLACE FUNCTION pulse_ingest.source_due_at() RETURNS trigger
LANGUAGE plpgsql SET search_path = '' AS $fn$
BEGIN
    NEW.due_at := GREATEST(
        coalesce(NEW.next_due_at,
                 NEW.last_fetched_at + pg_catalog.make_interval(hours => NEW.fetch_interval_hours),
                 '-infinity'::timestamptz),
        coalesce(NEW.circuit_open_until, '-infinity'::timestamptz),
        coalesce(NEW.lease_until, '-infinity'::timestamptz));
    RETURN NEW;
END
$fn$;
REVOKE ALL ON FUNCTION pulse_ingest.source_due_at() FROM PUBLIC;

DROP TRIGGER IF EXISTS sources_due_at ON public.sources;
CREATE TRIGGER sources_due_at BEFORE INSERT OR UPDATE ON public.sources
    FOR EACH ROW EXECUTE FUNCTION pulse_ingest.source_due_at();
UPDATE public.sources SET due_at = NULL;

CREATE INDEX IF NOT EXISTS idx_sources_due_at ON public.sources (due_at, slug) WHERE is_active;
-- Migration 4's index, which only the old claim used: one index less to update on every claim.
DROP INDEX IF EXISTS public.idx_sources_next_due_at;
CREATE INDEX IF NOT EXISTS idx_sources_circuit_open ON public.sources (circuit_open_until)
    WHERE is_active AND circuit_open_until IS NOT NULL;
"""#)
}
