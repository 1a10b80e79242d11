// search_articles' `language` column as upstream's signature types it (character varying, the
// column's own type) instead of text: a typed client decoding the RPC's result sees the same shape
// on both schemas. The result type is part of a function's identity for CREATE OR REPLACE, so it
// is dropped and created again, with its grants, in the migration's transaction. Only our own
// function is replaced: where migration 2 was adopted (the backend built the schema), or the
// function already says `character varying`, the step is adopted untouched.
extension Migration {
    static let searchLanguageType = Migration(
        version: 8, name: "search_articles language type",
        adoption: .condition("""
            SELECT NOT EXISTS (SELECT 1 FROM pulse_ingest.schema_migrations WHERE version = 2 AND mode = 'applied')
                OR coalesce(pg_catalog.pg_get_function_result(
                       pg_catalog.to_regprocedure('public.search_articles(text, integer, text, integer)'))
                   LIKE '%language character varying%', false)
            """), sql: searchLanguageTypeSQL)
}

private let searchLanguageTypeSQL = #"""
DROP FUNCTION public.search_articles(text, integer, text, integer);

CREATE FUNCTION public.search_articles(
    search_query text, result_limit integer DEFAULT 20,
    search_language text DEFAULT NULL, result_offset integer DEFAULT 0)
RETURNS TABLE (
    id uuid, title text, summary text, content text, url text, image_url text, thumbnail_url text,
    author text, published_at timestamptz, language character varying, source_id uuid, category_id uuid,
    source_name text, source_slug text, category_name text, category_slug text, media_type text,
    media_url text, media_duration integer, media_mime_type text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = ''
AS $fn$
    SELECT a.id, a.title, a.summary, a.content, a.url, a.image_url, a.thumbnail_url,
           a.author::text, a.published_at, a.language::character varying, a.source_id, a.category_id,
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

REVOKE EXECUTE ON FUNCTION public.search_articles(text, integer, text, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.search_articles(text, integer, text, integer) TO anon, authenticated, service_role;
"""#
