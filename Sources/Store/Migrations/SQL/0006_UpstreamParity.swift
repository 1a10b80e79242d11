// The maintenance RPCs and operational objects exactly as the live backend's clients and its
// security suite expect them (names, argument names, defaults, return types, url_hash keys and the
// request.jwt.claims caller gate), replacing the first shapes of migration 2. A database that the
// backend's own migrations built already has them: there the step is adopted, untouched.
extension Migration {
    static let upstreamParity = Migration(
        version: 6, name: "upstream rpc parity",
        adoption: .condition("""
            SELECT EXISTS (
                SELECT 1 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'public' AND p.proname = 'cleanup_old_articles'
                  AND p.proargnames = ARRAY['days_to_keep'])
            """), sql: upstreamParitySQL)
}

/// The caller gate, inlined in each write function: a PostgREST caller whose JWT says
/// service_role, or a direct connection as `postgres` (migrations, the SQL editor). The GRANTs are
/// the real boundary; the gate still holds if a later GRANT widens by mistake.
private let callerGate = """
    IF NOT (coalesce(NULLIF(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '')
                = 'service_role'
            OR SESSION_USER = 'postgres') THEN
        RAISE EXCEPTION 'access denied: service_role only (session_user=%)', SESSION_USER
            USING ERRCODE = '42501';
    END IF;
"""

private let upstreamParitySQL = #"""
DROP FUNCTION public.cleanup_old_articles(integer);
DROP FUNCTION public.prune_old_image_urls(integer);
DROP FUNCTION public.prune_old_content(integer);
DROP FUNCTION public.bump_backfill_attempts(text[], text);
DROP FUNCTION public.get_db_size_bytes();

-- Deletes in batches of 5,000 so one call never holds a huge delete; days_to_keep defaults to 30.
CREATE FUNCTION public.cleanup_old_articles(days_to_keep integer DEFAULT 30)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' SET statement_timeout = '5min'
AS $fn$
DECLARE
    cutoff timestamptz := pg_catalog.now() - pg_catalog.make_interval(days => days_to_keep);
    total integer := 0;
    batch integer;
BEGIN
"""# + callerGate + #"""
    LOOP
        DELETE FROM public.articles a
        WHERE a.id IN (SELECT o.id FROM public.articles o WHERE o.created_at < cutoff
                       ORDER BY o.created_at LIMIT 5000);
        GET DIAGNOSTICS batch = ROW_COUNT;
        EXIT WHEN batch = 0;
        total := total + batch;
    END LOOP;
    RETURN total;
END
$fn$;

CREATE FUNCTION public.prune_old_image_urls(days_to_keep integer)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' SET statement_timeout = '5min'
AS $fn$
DECLARE
    cutoff timestamptz := pg_catalog.now() - pg_catalog.make_interval(days => days_to_keep);
    total bigint := 0;
    batch bigint;
BEGIN
"""# + callerGate + #"""
    LOOP
        UPDATE public.articles a SET image_url = NULL, thumbnail_url = NULL
        WHERE a.id IN (SELECT o.id FROM public.articles o WHERE o.created_at < cutoff
                         AND (o.image_url IS NOT NULL OR o.thumbnail_url IS NOT NULL) LIMIT 5000);
        GET DIAGNOSTICS batch = ROW_COUNT;
        EXIT WHEN batch = 0;
        total := total + batch;
    END LOOP;
    RETURN total;
END
$fn$;

CREATE FUNCTION public.prune_old_content(days_to_keep integer)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' SET statement_timeout = '5min'
AS $fn$
DECLARE
    cutoff timestamptz := pg_catalog.now() - pg_catalog.make_interval(days => days_to_keep);
    total bigint := 0;
    batch bigint;
BEGIN
"""# + callerGate + #"""
    LOOP
        UPDATE public.articles a SET content = NULL
        WHERE a.id IN (SELECT o.id FROM public.articles o WHERE o.created_at < cutoff
                         AND o.content IS NOT NULL LIMIT 5000);
        GET DIAGNOSTICS batch = ROW_COUNT;
        EXIT WHEN batch = 0;
        total := total + batch;
    END LOOP;
    RETURN total;
END
$fn$;

-- Upstream's payloads key rows by url_hash; an unchanged value is not counted as an update.
CREATE OR REPLACE FUNCTION public.batch_update_article_images(updates jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
"""# + callerGate + #"""
    UPDATE public.articles a SET image_url = u.image_url
    FROM pg_catalog.jsonb_to_recordset(updates) AS u(url_hash text, image_url text)
    WHERE a.url_hash = u.url_hash AND a.image_url IS DISTINCT FROM u.image_url;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

CREATE OR REPLACE FUNCTION public.batch_update_article_content(updates jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
"""# + callerGate + #"""
    UPDATE public.articles a SET content = u.content
    FROM pg_catalog.jsonb_to_recordset(updates) AS u(url_hash text, content text)
    WHERE a.url_hash = u.url_hash AND (coalesce(a.content, '') = '' OR a.content IS DISTINCT FROM u.content);
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

CREATE FUNCTION public.bump_backfill_attempts(url_hashes text[], kind text)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
"""# + callerGate + #"""
    IF pg_catalog.cardinality(url_hashes) > 10000 THEN
        RAISE EXCEPTION 'too many url_hashes (at most 10000)';
    END IF;
    IF kind = 'image' THEN
        UPDATE public.articles SET image_backfill_attempts = image_backfill_attempts + 1,
                                   image_backfill_last_attempt_at = pg_catalog.now()
        WHERE url_hash = ANY (url_hashes);
    ELSIF kind = 'content' THEN
        UPDATE public.articles SET content_backfill_attempts = content_backfill_attempts + 1,
                                   content_backfill_last_attempt_at = pg_catalog.now()
        WHERE url_hash = ANY (url_hashes);
    ELSE
        RAISE EXCEPTION 'unknown backfill kind: %', kind;
    END IF;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

CREATE OR REPLACE FUNCTION public.batch_update_source_fetch_state(updates jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
"""# + callerGate + #"""
    UPDATE public.sources s SET
        etag = u.etag, last_modified = u.last_modified,
        consecutive_failures = coalesce(u.consecutive_failures, s.consecutive_failures),
        circuit_open_until = u.circuit_open_until,
        last_fetched_at = coalesce(u.last_fetched_at, s.last_fetched_at),
        updated_at = pg_catalog.now()
    FROM pg_catalog.jsonb_to_recordset(updates) AS u(
        id uuid, etag text, last_modified text, consecutive_failures integer,
        circuit_open_until timestamptz, last_fetched_at timestamptz)
    WHERE s.id = u.id;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

-- Invoker rights: the size is not worth a definer's privileges.
CREATE FUNCTION public.get_db_size_bytes()
RETURNS bigint LANGUAGE sql STABLE SET search_path = ''
AS $fn$ SELECT pg_catalog.pg_database_size(pg_catalog.current_database()) $fn$;

REVOKE ALL ON FUNCTION
    public.cleanup_old_articles(integer), public.prune_old_image_urls(integer),
    public.prune_old_content(integer), public.batch_update_article_images(jsonb),
    public.batch_update_article_content(jsonb), public.bump_backfill_attempts(text[], text),
    public.batch_update_source_fetch_state(jsonb), public.get_db_size_bytes()
FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION
    public.cleanup_old_articles(integer), public.prune_old_image_urls(integer),
    public.prune_old_content(integer), public.batch_update_article_images(jsonb),
    public.batch_update_article_content(jsonb), public.bump_backfill_attempts(text[], text),
    public.batch_update_source_fetch_state(jsonb), public.get_db_size_bytes()
TO service_role;

-- The watchdog counts what was published in the last day, not what was stored.
CREATE OR REPLACE VIEW public.source_health WITH (security_invoker = on) AS
SELECT s.id, s.name, s.slug, s.is_active, s.consecutive_failures, s.circuit_open_until,
       coalesce(s.circuit_open_until > pg_catalog.now(), false) AS circuit_open,
       s.last_fetched_at,
       (SELECT max(a.published_at) FROM public.articles a WHERE a.source_id = s.id) AS most_recent_article_at,
       (SELECT count(*) FROM public.articles a
         WHERE a.source_id = s.id AND a.published_at > pg_catalog.now() - interval '24 hours') AS articles_last_24h
FROM public.sources s;

ALTER INDEX IF EXISTS public.idx_articles_search_vector RENAME TO idx_articles_search;
"""#
