// Per-source scheduling and leases, so several daemons on several hosts can share one database:
// a daemon claims due sources with FOR UPDATE SKIP LOCKED and a lease; a crashed daemon's leases
// simply expire. Additive only; the API roles' column grants do not include these columns.
extension Migration {
    static let scheduling = Migration(version: 4, name: "scheduling and leases", sql: #"""
ALTER TABLE public.sources ADD COLUMN IF NOT EXISTS next_due_at timestamptz;
ALTER TABLE public.sources ADD COLUMN IF NOT EXISTS claimed_by text;
ALTER TABLE public.sources ADD COLUMN IF NOT EXISTS lease_until timestamptz;
CREATE INDEX IF NOT EXISTS idx_sources_next_due_at ON public.sources (next_due_at) WHERE is_active;

-- The service checks at start that the schema is current; it runs as service_role.
GRANT USAGE ON SCHEMA pulse_ingest TO service_role;
GRANT SELECT ON pulse_ingest.schema_migrations TO service_role;
"""#)
}
