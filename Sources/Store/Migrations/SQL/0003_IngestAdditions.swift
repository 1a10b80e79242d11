// pulse-ingest's own additive changes, applied on both a vanilla database and an adopted
// Supabase project. Only IF NOT EXISTS / NOT VALID forms: nothing existing is rewritten.
extension Migration {
    static let ingestAdditions = Migration(version: 3, name: "ingest additions", sql: #"""
-- The app's category tabs filter on (language, category_slug) ordered by published_at.
CREATE INDEX IF NOT EXISTS idx_articles_language_category_published
    ON public.articles (language, category_slug, published_at DESC);

-- Backstops for two invariants the app relies on; NOT VALID leaves existing rows unchecked.
DO $checks$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'articles_language_iso639_1') THEN
        ALTER TABLE public.articles ADD CONSTRAINT articles_language_iso639_1
            CHECK (language ~ '^[a-z]{2}$') NOT VALID;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'articles_media_type_known') THEN
        ALTER TABLE public.articles ADD CONSTRAINT articles_media_type_known
            CHECK (media_type IS NULL OR media_type IN ('podcast', 'video')) NOT VALID;
    END IF;
END
$checks$;
"""#)
}
