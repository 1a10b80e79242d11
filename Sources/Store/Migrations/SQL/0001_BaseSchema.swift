// The Pulse schema of the data contract, for a vanilla PostgreSQL (>= 15). On a database that
// already holds it (created by the backend's Supabase migrations) this migration is adopted, not
// run: see `Migrator.shouldAdopt`.
extension Migration {
    static let baseSchema = Migration(version: 1, name: "base schema", adoption: .relations([
        "categories", "sources", "articles", "fetch_logs", "articles_with_source", "source_health",
    ]), clusterRoles: [
        ClusterRole("anon", creation: "CREATE ROLE anon NOLOGIN"),
        ClusterRole("authenticated", creation: "CREATE ROLE authenticated NOLOGIN"),
        ClusterRole("service_role", creation: "CREATE ROLE service_role NOLOGIN BYPASSRLS"),
    ], sql: #"""
-- Supabase's API roles. Concurrent first migrations on one cluster may race to create them.
DO $roles$
BEGIN
    BEGIN CREATE ROLE anon NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
    BEGIN CREATE ROLE authenticated NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
    BEGIN CREATE ROLE service_role NOLOGIN BYPASSRLS;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
END
$roles$;

GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;

CREATE TABLE public.categories (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name varchar(100) NOT NULL UNIQUE,
    slug varchar(100) NOT NULL UNIQUE,
    display_order integer DEFAULT 0,
    created_at timestamptz DEFAULT now()
);

INSERT INTO public.categories (name, slug, display_order) VALUES
    ('World', 'world', 1), ('Technology', 'technology', 2), ('Business', 'business', 3),
    ('Sports', 'sports', 4), ('Entertainment', 'entertainment', 5), ('Science', 'science', 6),
    ('Health', 'health', 7), ('Politics', 'politics', 8), ('Podcasts', 'podcasts', 9),
    ('Videos', 'videos', 10);

CREATE TABLE public.sources (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name varchar(255) NOT NULL,
    slug varchar(100) NOT NULL UNIQUE,
    feed_url text NOT NULL,
    website_url text,
    logo_url text,
    category_id uuid REFERENCES public.categories (id),
    is_active boolean DEFAULT true,
    last_fetched_at timestamptz,
    created_at timestamptz DEFAULT now(),
    updated_at timestamptz DEFAULT now(),
    language varchar(5) NOT NULL DEFAULT 'en',
    fetch_interval_hours integer NOT NULL DEFAULT 2,
    etag text,
    last_modified text,
    consecutive_failures integer NOT NULL DEFAULT 0,
    circuit_open_until timestamptz,
    max_content_length integer
);

CREATE TABLE public.articles (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    title text NOT NULL,
    summary text,
    content text,
    url text NOT NULL,
    url_hash varchar(64) NOT NULL UNIQUE,
    image_url text,
    thumbnail_url text,
    author varchar(255),
    source_id uuid REFERENCES public.sources (id) ON DELETE CASCADE,
    category_id uuid REFERENCES public.categories (id),
    published_at timestamptz NOT NULL,
    created_at timestamptz DEFAULT now(),
    media_type varchar(20),
    media_url text,
    media_duration integer,
    media_mime_type varchar(50),
    language varchar(5) NOT NULL DEFAULT 'en',
    source_name varchar(255),
    source_slug varchar(100),
    category_name varchar(100),
    category_slug varchar(100),
    image_backfill_attempts integer NOT NULL DEFAULT 0,
    image_backfill_last_attempt_at timestamptz,
    content_backfill_attempts integer NOT NULL DEFAULT 0,
    content_backfill_last_attempt_at timestamptz,
    search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') ||
        setweight(to_tsvector('english'::regconfig, coalesce(summary, '')), 'B')
    ) STORED
);

-- lz4 needs a server built with it (Debian's and Supabase's are); otherwise keep pglz.
DO $lz4$
BEGIN
    ALTER TABLE public.articles ALTER COLUMN content SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    RAISE NOTICE 'lz4 compression unavailable; articles.content keeps the default';
END
$lz4$;

CREATE TABLE public.fetch_logs (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    started_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    sources_processed integer DEFAULT 0,
    articles_fetched integer DEFAULT 0,
    articles_inserted integer DEFAULT 0,
    articles_skipped integer DEFAULT 0,
    errors jsonb DEFAULT '[]'::jsonb,
    status varchar(20) DEFAULT 'running'
);

CREATE INDEX idx_articles_published_at ON public.articles (published_at DESC);
CREATE INDEX idx_articles_source_id ON public.articles (source_id);
CREATE INDEX idx_articles_category_id ON public.articles (category_id);
CREATE INDEX idx_articles_created_at ON public.articles (created_at DESC);
CREATE INDEX idx_articles_search_vector ON public.articles USING gin (search_vector);
CREATE INDEX idx_articles_source_published ON public.articles (source_id, published_at DESC);
CREATE INDEX idx_articles_language ON public.articles (language);
CREATE INDEX idx_articles_language_published ON public.articles (language, published_at DESC);
CREATE INDEX idx_fetch_logs_started_at ON public.fetch_logs (started_at DESC);

CREATE VIEW public.articles_with_source WITH (security_invoker = on) AS
SELECT id, title, summary, content, url, image_url, thumbnail_url, author, published_at, created_at,
       language, source_id, category_id, source_name, source_slug, category_name, category_slug,
       media_type, media_url, media_duration, media_mime_type, search_vector
FROM public.articles;

CREATE VIEW public.source_health WITH (security_invoker = on) AS
SELECT s.id, s.name, s.slug, s.is_active, s.consecutive_failures, s.circuit_open_until,
       coalesce(s.circuit_open_until > now(), false) AS circuit_open,
       s.last_fetched_at,
       (SELECT max(a.published_at) FROM public.articles a WHERE a.source_id = s.id) AS most_recent_article_at,
       (SELECT count(*) FROM public.articles a
         WHERE a.source_id = s.id AND a.created_at > now() - interval '24 hours') AS articles_last_24h
FROM public.sources s;

-- Row-level security: reads only, and no write policies at all (writers bypass RLS as service_role).
ALTER TABLE public.categories ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.sources ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.articles ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.fetch_logs ENABLE ROW LEVEL SECURITY;
CREATE POLICY "categories are public" ON public.categories FOR SELECT TO anon, authenticated USING (true);
CREATE POLICY "active sources are public" ON public.sources FOR SELECT TO anon, authenticated USING (is_active);
CREATE POLICY "articles are public" ON public.articles FOR SELECT TO anon, authenticated USING (true);

-- Supabase grants everything in public to the API roles by default; narrow it to the contract.
REVOKE ALL ON public.categories, public.sources, public.articles, public.fetch_logs,
              public.articles_with_source, public.source_health FROM PUBLIC, anon, authenticated;
GRANT SELECT ON public.categories TO anon, authenticated;
GRANT SELECT (id, name, slug, website_url, logo_url, category_id, language, is_active)
    ON public.sources TO anon, authenticated;
GRANT SELECT (id, title, summary, content, url, image_url, thumbnail_url, author, published_at,
              created_at, language, source_id, category_id, source_name, source_slug, category_name,
              category_slug, media_type, media_url, media_duration, media_mime_type, search_vector)
    ON public.articles TO anon, authenticated;
GRANT SELECT ON public.articles_with_source TO anon, authenticated;
GRANT ALL ON public.categories, public.sources, public.articles, public.fetch_logs,
             public.articles_with_source, public.source_health TO service_role;
"""#)
}
