// The RPCs of the data contract. All SECURITY DEFINER with an empty search_path and fully
// qualified names, so a caller's search_path cannot redirect them.
extension Migration {
    static let baseFunctions = Migration(version: 2, name: "base functions", adoption: .functions([
        "search_articles", "cleanup_old_articles", "prune_old_image_urls", "prune_old_content",
        "batch_update_article_images", "batch_update_article_content", "bump_backfill_attempts",
        "batch_update_source_fetch_state", "get_db_size_bytes",
    ]), sql: #"""
CREATE FUNCTION public.search_articles(
    search_query text, result_limit integer DEFAULT 20,
    search_language text DEFAULT NULL, result_offset integer DEFAULT 0)
RETURNS TABLE (
    id uuid, title text, summary text, content text, url text, image_url text, thumbnail_url text,
    author text, published_at timestamptz, language text, source_id uuid, category_id uuid,
    source_name text, source_slug text, category_name text, category_slug text, media_type text,
    media_url text, media_duration integer, media_mime_type text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = ''
AS $fn$
    SELECT a.id, a.title, a.summary, a.content, a.url, a.image_url, a.thumbnail_url,
           a.author::text, a.published_at, a.language::text, a.source_id, a.category_id,
           a.source_name::text, a.source_slug::text, a.category_name::text, a.category_slug::text,
           a.media_type::text, a.media_url, a.media_duration, a.media_mime_type::text
    FROM public.articles a,
         pg_catalog.plainto_tsquery('english'::regconfig, search_query) AS q
    WHERE search_query IS NOT NULL
      AND pg_catalog.btrim(search_query) <> ''
      AND pg_catalog.length(search_query) <= 200
      AND a.search_vector @@ q
      AND (search_language IS NULL OR a.language = search_language)
    ORDER BY pg_catalog.ts_rank(a.search_vector, q) DESC, a.published_at DESC
    LIMIT LEAST(GREATEST(coalesce(result_limit, 20), 0), 100)
    OFFSET GREATEST(coalesce(result_offset, 0), 0)
$fn$;

CREATE FUNCTION public.cleanup_old_articles(retention_days integer)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE removed integer;
BEGIN
    IF retention_days IS NULL OR retention_days <= 0 THEN RAISE EXCEPTION 'retention_days must be > 0'; END IF;
    DELETE FROM public.articles WHERE created_at < pg_catalog.now() - pg_catalog.make_interval(days => retention_days);
    GET DIAGNOSTICS removed = ROW_COUNT;
    RETURN removed;
END
$fn$;

CREATE FUNCTION public.prune_old_image_urls(retention_days integer)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
    IF retention_days IS NULL OR retention_days <= 0 THEN RAISE EXCEPTION 'retention_days must be > 0'; END IF;
    UPDATE public.articles SET image_url = NULL, thumbnail_url = NULL
    WHERE created_at < pg_catalog.now() - pg_catalog.make_interval(days => retention_days)
      AND (image_url IS NOT NULL OR thumbnail_url IS NOT NULL);
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

CREATE FUNCTION public.prune_old_content(retention_days integer)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
    IF retention_days IS NULL OR retention_days <= 0 THEN RAISE EXCEPTION 'retention_days must be > 0'; END IF;
    UPDATE public.articles SET content = NULL
    WHERE created_at < pg_catalog.now() - pg_catalog.make_interval(days => retention_days)
      AND content IS NOT NULL;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

CREATE FUNCTION public.batch_update_article_images(updates jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
    UPDATE public.articles a SET image_url = u.image_url
    FROM pg_catalog.jsonb_to_recordset(updates) AS u(id uuid, image_url text)
    WHERE a.id = u.id AND u.image_url ~ '^https?://';
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

CREATE FUNCTION public.batch_update_article_content(updates jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
    UPDATE public.articles a SET content = u.content
    FROM pg_catalog.jsonb_to_recordset(updates) AS u(id uuid, content text)
    WHERE a.id = u.id;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

CREATE FUNCTION public.bump_backfill_attempts(article_ids text[], kind text)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
    IF kind = 'image' THEN
        UPDATE public.articles SET image_backfill_attempts = image_backfill_attempts + 1,
                                   image_backfill_last_attempt_at = pg_catalog.now()
        WHERE id::text = ANY (article_ids);
    ELSIF kind = 'content' THEN
        UPDATE public.articles SET content_backfill_attempts = content_backfill_attempts + 1,
                                   content_backfill_last_attempt_at = pg_catalog.now()
        WHERE id::text = ANY (article_ids);
    ELSE
        RAISE EXCEPTION 'kind must be image or content, not %', kind;
    END IF;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

CREATE FUNCTION public.batch_update_source_fetch_state(updates jsonb)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $fn$
DECLARE changed integer;
BEGIN
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

CREATE FUNCTION public.get_db_size_bytes()
RETURNS bigint LANGUAGE sql STABLE SECURITY DEFINER SET search_path = ''
AS $fn$ SELECT pg_catalog.pg_database_size(pg_catalog.current_database()) $fn$;

REVOKE EXECUTE ON FUNCTION
    public.search_articles(text, integer, text, integer),
    public.cleanup_old_articles(integer), public.prune_old_image_urls(integer),
    public.prune_old_content(integer), public.batch_update_article_images(jsonb),
    public.batch_update_article_content(jsonb), public.bump_backfill_attempts(text[], text),
    public.batch_update_source_fetch_state(jsonb), public.get_db_size_bytes()
FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.search_articles(text, integer, text, integer)
    TO anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION
    public.cleanup_old_articles(integer), public.prune_old_image_urls(integer),
    public.prune_old_content(integer), public.batch_update_article_images(jsonb),
    public.batch_update_article_content(jsonb), public.bump_backfill_attempts(text[], text),
    public.batch_update_source_fetch_state(jsonb), public.get_db_size_bytes()
TO service_role;
"""#)
}
