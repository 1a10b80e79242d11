// A source's `language_detection` in its row, beside the columns the source sync already writes:
// sources imported from a file (`--import-sources`) have no feeds.yaml entry to carry it, and an
// export must give it back. The sync writes it from feeds.yaml too; the service reads it with the
// source (and still honours the config's own list).
extension Migration {
    static let sourceLanguageDetection = Migration(version: 10, name: "source language detection", sql: #"""
ALTER TABLE public.sources ADD COLUMN IF NOT EXISTS language_detection boolean NOT NULL DEFAULT true;
"""#)
}
