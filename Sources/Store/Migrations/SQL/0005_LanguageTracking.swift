// Language detection bookkeeping: which rows carry a detected language (the others still have
// the source's), and backfill attempts for it like the image and content ones.
extension Migration {
    static let languageTracking = Migration(version: 5, name: "language detection tracking", sql: #"""
ALTER TABLE public.articles ADD COLUMN IF NOT EXISTS language_detected boolean NOT NULL DEFAULT false;
ALTER TABLE public.articles ADD COLUMN IF NOT EXISTS language_backfill_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE public.articles ADD COLUMN IF NOT EXISTS language_backfill_last_attempt_at timestamptz;
"""#)
}
