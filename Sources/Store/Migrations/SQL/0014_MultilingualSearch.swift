// Search in each row's own language (issue 50). Every row gets a second vector, built with the
// text-search configuration of its `language` (our copies of PostgreSQL's Snowball configurations,
// accents folded by `unaccent`), kept by a trigger; search_articles parses a query under each
// configuration the rows use. On a table with rows (a database the backend built, millions of
// rows) nothing is rewritten and no long lock is held: the column is added empty, the trigger
// covers new and changed rows, `--backfill --kind search` fills the rest in batches and builds
// the index CONCURRENTLY, then switches search over; until then search_articles answers as before.
extension Migration {
    static let multilingualSearch = Migration(version: 14, name: "multilingual search",
                                              sql: multilingualSearchSQL + multilingualSearchFormsSQL)
}

private let multilingualSearchSQL = #"""
CREATE SCHEMA IF NOT EXISTS extensions;
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA extensions;
GRANT USAGE ON SCHEMA pulse_ingest TO service_role;

-- One configuration per Snowball language the server ships, plus `simple`, each folding accents
-- (unaccent) before stemming the words that carry them.
DO $cfg$
DECLARE
    dictionary text;
    language record;
    cases text := '';
BEGIN
    SELECT pg_catalog.format('%I.unaccent', n.nspname) INTO dictionary
    FROM pg_catalog.pg_ts_dict d JOIN pg_catalog.pg_namespace n ON n.oid = d.dictnamespace
    WHERE d.dictname = 'unaccent' ORDER BY n.nspname = 'extensions' DESC LIMIT 1;
    FOR language IN
        SELECT v.code, v.config FROM (VALUES
            ('en', 'english'), ('pt', 'portuguese'), ('es', 'spanish'), ('fr', 'french'), ('de', 'german'),
            ('it', 'italian'), ('nl', 'dutch'), ('sv', 'swedish'), ('da', 'danish'), ('no', 'norwegian'),
            ('nb', 'norwegian'), ('nn', 'norwegian'), ('fi', 'finnish'), ('hu', 'hungarian'), ('ro', 'romanian'),
            ('ru', 'russian'), ('tr', 'turkish'), ('ca', 'catalan'), ('eu', 'basque'), ('el', 'greek'),
            ('id', 'indonesian'), ('ga', 'irish'), ('lt', 'lithuanian'), ('ne', 'nepali'), ('sr', 'serbian'),
            ('ta', 'tamil'), ('hy', 'armenian'), ('ar', 'arabic'), ('hi', 'hindi'), ('yi', 'yiddish')) v (code, config)
        JOIN pg_catalog.pg_ts_config c ON c.cfgname = v.config AND c.cfgnamespace = 'pg_catalog'::regnamespace
    LOOP
        IF NOT EXISTS (
            SELECT 1 FROM pg_catalog.pg_ts_config c
            WHERE c.cfgname = language.config AND c.cfgnamespace = 'pulse_ingest'::regnamespace) THEN
            EXECUTE pg_catalog.format('CREATE TEXT SEARCH CONFIGURATION pulse_ingest.%I (COPY = pg_catalog.%I)',
                                      language.config, language.config);
            EXECUTE pg_catalog.format('ALTER TEXT SEARCH CONFIGURATION pulse_ingest.%I '
                                      'ALTER MAPPING FOR word, hword, hword_part WITH %s, pg_catalog.%I',
                                      language.config, dictionary, language.config || '_stem');
        END IF;
        cases := cases || pg_catalog.format(' WHEN %L THEN %L::regconfig', language.code, 'pulse_ingest.' || language.config);
    END LOOP;
    CREATE TEXT SEARCH CONFIGURATION pulse_ingest.simple (COPY = pg_catalog.simple);
    EXECUTE pg_catalog.format('ALTER TEXT SEARCH CONFIGURATION pulse_ingest.simple '
                              'ALTER MAPPING FOR word, hword, hword_part WITH %s, pg_catalog.simple', dictionary);
    -- A row's language code ('pt', 'pt-BR', 'PT') to its configuration; `simple` for the rest.
    EXECUTE 'CREATE FUNCTION pulse_ingest.search_config(language text) RETURNS regconfig '
         || 'LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$ SELECT CASE '
         || 'pg_catalog.split_part(pg_catalog.replace(pg_catalog.lower(coalesce(language, '''')), ''_'', ''-''), ''-'', 1)'
         || cases || ' ELSE ''pulse_ingest.simple''::regconfig END $fn$';
END
$cfg$;

-- Plural forms Snowball leaves apart, folded to the singular before stemming (written by hand:
-- no dictionary PostgreSQL ships does it). Portuguese: eleições/eleição, municipais/municipal,
-- papéis/papel, faróis/farol, homens/homem; Spanish: ciudades/ciudad, papeles/papel, leyes/ley.
-- The same folding runs on the query, so both sides meet whatever it does to a rare word.
CREATE FUNCTION pulse_ingest.search_words(config regconfig, body text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE config
        WHEN 'pulse_ingest.portuguese'::regconfig THEN
            pg_catalog.regexp_replace(pg_catalog.regexp_replace(pg_catalog.regexp_replace(
            pg_catalog.regexp_replace(pg_catalog.regexp_replace(pg_catalog.lower(body),
                '([a-zà-öø-ÿ]{2,})(õe|oe|ãe|ão)s(?![a-zà-öø-ÿ])', '\1ão', 'g'),
                '([a-zà-öø-ÿ]{3,})ais(?![a-zà-öø-ÿ])', '\1al', 'g'),
                '([a-zà-öø-ÿ]{3,})[eé]is(?![a-zà-öø-ÿ])', '\1el', 'g'),
                '([a-zà-öø-ÿ]{3,})[oó]is(?![a-zà-öø-ÿ])', '\1ol', 'g'),
                '([a-zà-öø-ÿ]{3,})ns(?![a-zà-öø-ÿ])', '\1m', 'g')
        WHEN 'pulse_ingest.spanish'::regconfig THEN
            pg_catalog.regexp_replace(pg_catalog.lower(body),
                '([a-zà-öø-ÿ]{3,}[dlrnjy])es(?![a-zà-öø-ÿ])', '\1', 'g')
        ELSE body END
$fn$;

-- The words of `body` as lexemes marked with `mark` ('='), positions kept: they never match a
-- parsed query (the parser never yields a mark), only the marked queries search_articles ranks by.
-- No function PostgreSQL ships renames lexemes; this goes through tsvector's text form.
CREATE FUNCTION pulse_ingest.search_marked(mark text, body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT coalesce(pg_catalog.string_agg(
               '''' || mark || pg_catalog.replace(pg_catalog.replace(u.lexeme, '\', '\\'), '''', '''''') || ''':'
                   || pg_catalog.array_to_string(u.positions, ','), ' '), '')::tsvector
    FROM pg_catalog.unnest(pg_catalog.to_tsvector('pulse_ingest.simple'::regconfig, body)) u
$fn$;

-- Title (A) and summary (B) stemmed in the row's own language; then the title's words accents
-- folded ('='): the exact-form keys that rank "eleições" above "eleitoral" for a query
-- `eleicoes`, and "separada" above "separadores" for `separar` (search_forms).
CREATE FUNCTION pulse_ingest.search_document(language text, title text, summary text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    -- One expression (no FROM), so PostgreSQL inlines it: 3x faster per row than with a subquery.
    SELECT pg_catalog.setweight(pg_catalog.to_tsvector(pulse_ingest.search_config(language),
               pulse_ingest.search_words(pulse_ingest.search_config(language), coalesce(title, ''))), 'A')
        || pg_catalog.setweight(pg_catalog.to_tsvector(pulse_ingest.search_config(language),
               pulse_ingest.search_words(pulse_ingest.search_config(language), coalesce(summary, ''))), 'B')
        || pulse_ingest.search_marked('=', coalesce(title, ''))
$fn$;

-- The configurations the stored rows use: a query is parsed under each of them (and `simple`).
CREATE TABLE pulse_ingest.search_configs (config regconfig PRIMARY KEY);
INSERT INTO pulse_ingest.search_configs VALUES ('pulse_ingest.simple');

-- ready: every row has its vector and idx_articles_search_lang is valid, so search_articles uses
-- them; until then it searches the `english` search_vector as before. cursor: where the
-- batched fill (`--backfill --kind search`) has got to, so a stopped fill resumes.
CREATE TABLE pulse_ingest.search_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    ready boolean NOT NULL DEFAULT false,
    cursor uuid,
    filled bigint NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
INSERT INTO pulse_ingest.search_state DEFAULT VALUES;
GRANT SELECT ON pulse_ingest.search_state TO service_role;

-- Nullable, no default: adding it rewrites nothing (a STORED generated column would rewrite the
-- whole table under an exclusive lock).
ALTER TABLE public.articles ADD COLUMN search_vector_lang tsvector;

-- New rows and rows whose title, summary or language change get their vector here.
CREATE FUNCTION pulse_ingest.articles_search_vector() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $fn$
DECLARE
    row_config regconfig := pulse_ingest.search_config(NEW.language);
BEGIN
    NEW.search_vector_lang := pulse_ingest.search_document(NEW.language, NEW.title, NEW.summary);
    IF NOT EXISTS (SELECT 1 FROM pulse_ingest.search_configs c WHERE c.config = row_config) THEN
        INSERT INTO pulse_ingest.search_configs VALUES (row_config) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NEW;
END
$fn$;
CREATE TRIGGER articles_search_vector_lang BEFORE INSERT OR UPDATE OF title, summary, language
    ON public.articles FOR EACH ROW EXECUTE FUNCTION pulse_ingest.articles_search_vector();

-- The lexemes of `vector`, each prefixed with `mark` (or not: ''), as one OR query; NULL when it
-- holds none. Built through tsquery's text form (no function PostgreSQL ships ORs lexemes).
CREATE FUNCTION pulse_ingest.search_lexemes_query(mark text, vector tsvector) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = '' AS $fn$
    SELECT pg_catalog.string_agg(
               '''' || mark || pg_catalog.replace(pg_catalog.replace(u.lexeme, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery
    FROM pg_catalog.unnest(vector) u
$fn$;

-- A query's words (split at spaces and punctuation), each once.
CREATE FUNCTION pulse_ingest.search_pieces(query text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = '' AS $fn$
    SELECT p FROM pg_catalog.regexp_split_to_table(pg_catalog.lower(query), '[[:space:][:punct:]]+') p WHERE p <> ''
$fn$;

-- A query as the OR of its parse under each configuration the rows use, or only under the
-- language asked for (and `simple`): under each, the AND of its words, each word OR its regular
-- forms (search_forms: Snowball stems some plurals and verb forms apart, e.g. Spanish "compara" ->
-- comp, "comparar" -> compar). A word the configuration drops (a stop word) is left out. NULL when
-- no configuration finds a word in it.
CREATE FUNCTION pulse_ingest.search_query(query text, language text) RETURNS tsquery
LANGUAGE plpgsql STABLE SET search_path = '' SET client_min_messages = warning AS $fn$
DECLARE
    each_config regconfig;
    piece text;
    word_query tsquery;
    part tsquery;
    combined tsquery;
BEGIN
    FOR each_config IN
        SELECT c.config FROM pulse_ingest.search_configs c
        WHERE language IS NULL OR c.config IN (pulse_ingest.search_config(language), 'pulse_ingest.simple'::regconfig)
    LOOP
        part := NULL;
        FOR piece IN SELECT pulse_ingest.search_pieces(query) LOOP
            CONTINUE WHEN pg_catalog.numnode(pg_catalog.plainto_tsquery(each_config, pulse_ingest.search_words(each_config, piece))) = 0;
            -- One parse of the word and all its forms: their distinct stems, OR'd.
            word_query := pulse_ingest.search_lexemes_query('', pg_catalog.to_tsvector(each_config,
                pulse_ingest.search_words(each_config, piece || ' '
                    || pg_catalog.array_to_string(pulse_ingest.search_forms(each_config, piece, true), ' '))));
            part := CASE WHEN part IS NULL THEN word_query ELSE part OPERATOR(pg_catalog.&&) word_query END;
        END LOOP;
        CONTINUE WHEN part IS NULL;
        combined := CASE WHEN combined IS NULL THEN part ELSE combined OPERATOR(pg_catalog.||) part END;
    END LOOP;
    RETURN combined;
END
$fn$;

-- The query's words, accents folded, as a phrase of lexemes marked as search_marked marks a
-- title's. NULL without words.
CREATE FUNCTION pulse_ingest.search_marked_phrase(mark text, query text) RETURNS tsquery
LANGUAGE sql STABLE SET search_path = '' AS $fn$
    SELECT pg_catalog.string_agg(
               '''' || mark || pg_catalog.replace(pg_catalog.replace(p.lexeme, '\', '\\'), '''', '''''') || '''',
               ' <-> ' ORDER BY p.position)::tsquery
    FROM (SELECT u.lexeme, pg_catalog.unnest(u.positions) AS position
          FROM pg_catalog.unnest(pg_catalog.to_tsvector('pulse_ingest.simple'::regconfig,
               query)) u) p
$fn$;

-- Every word of the query, in the form typed or one of its regular forms (search_forms, under the
-- language asked for or every configuration the rows use), as marked title words: titles holding
-- the word itself rather than a relative that shares its stem. NULL without words.
CREATE FUNCTION pulse_ingest.search_forms_query(query text, language text) RETURNS tsquery
LANGUAGE plpgsql STABLE SET search_path = '' AS $fn$
DECLARE
    piece text;
    word_query tsquery;
    combined tsquery;
BEGIN
    FOR piece IN SELECT pulse_ingest.search_pieces(query) LOOP
        word_query := pulse_ingest.search_lexemes_query('=', pg_catalog.to_tsvector('pulse_ingest.simple'::regconfig,
            piece || ' ' || coalesce((SELECT pg_catalog.string_agg(pg_catalog.array_to_string(
                                          pulse_ingest.search_forms(c.config, piece, true), ' '), ' ')
                                      FROM pulse_ingest.search_configs c
                                      WHERE language IS NULL OR c.config = pulse_ingest.search_config(language)), '')));
        CONTINUE WHEN word_query IS NULL;
        combined := CASE WHEN combined IS NULL THEN word_query ELSE combined OPERATOR(pg_catalog.&&) word_query END;
    END LOOP;
    RETURN combined;
END
$fn$;

-- The fill, one batch per call (each its own short transaction): the next `batch_size` rows by id
-- after the saved cursor; rows the trigger already filled are left alone. Returns how many rows
-- it looked at (0: the pass is over) and how many it filled.
CREATE FUNCTION pulse_ingest.search_backfill_batch(batch_size integer, OUT scanned_rows integer, OUT filled_rows integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $fn$
DECLARE
    last uuid;
BEGIN
    SELECT s.cursor INTO last FROM pulse_ingest.search_state s FOR UPDATE;
    WITH batch AS (
        SELECT a.id FROM public.articles a
        WHERE last IS NULL OR a.id > last ORDER BY a.id LIMIT batch_size
    ), done AS (
        UPDATE public.articles a
        SET search_vector_lang = pulse_ingest.search_document(a.language, a.title, a.summary)
        FROM batch b WHERE a.id = b.id AND a.search_vector_lang IS NULL
        RETURNING a.language
    ), configs AS (
        INSERT INTO pulse_ingest.search_configs
        SELECT DISTINCT pulse_ingest.search_config(d.language) FROM done d
        ON CONFLICT DO NOTHING
    )
    SELECT (SELECT count(*) FROM batch), (SELECT count(*) FROM done), (SELECT b.id FROM batch b ORDER BY b.id DESC LIMIT 1)
    INTO scanned_rows, filled_rows, last;
    IF scanned_rows > 0 THEN
        UPDATE pulse_ingest.search_state
        SET cursor = last, filled = pulse_ingest.search_state.filled + filled_rows,
            updated_at = pg_catalog.now();
    END IF;
END
$fn$;

-- After the pass, a check: rows still without a vector (none expected, since the trigger covers
-- every row written after the migration) are found by a scan and filled. Returns how many.
CREATE FUNCTION pulse_ingest.search_backfill_rest(batch_size integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $fn$
DECLARE
    changed integer;
BEGIN
    WITH done AS (
        UPDATE public.articles a
        SET search_vector_lang = pulse_ingest.search_document(a.language, a.title, a.summary)
        WHERE a.id IN (SELECT r.id FROM public.articles r WHERE r.search_vector_lang IS NULL LIMIT batch_size)
          AND a.search_vector_lang IS NULL
        RETURNING a.language
    ), configs AS (
        INSERT INTO pulse_ingest.search_configs
        SELECT DISTINCT pulse_ingest.search_config(d.language) FROM done d
        ON CONFLICT DO NOTHING
    )
    SELECT count(*) INTO changed FROM done;
    RETURN changed;
END
$fn$;

-- Switches search over when every row has its vector and the index is valid; says whether it did.
CREATE FUNCTION pulse_ingest.search_switch_over() RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $fn$
BEGIN
    IF EXISTS (SELECT 1 FROM public.articles a WHERE a.search_vector_lang IS NULL)
       OR NOT coalesce((SELECT i.indisvalid AND i.indisready FROM pg_catalog.pg_index i
                        WHERE i.indexrelid = pg_catalog.to_regclass('public.idx_articles_search_lang')), false) THEN
        RETURN false;
    END IF;
    UPDATE pulse_ingest.search_state SET ready = true, updated_at = pg_catalog.now();
    RETURN true;
END
$fn$;

REVOKE ALL ON FUNCTION pulse_ingest.search_backfill_batch(integer), pulse_ingest.search_backfill_rest(integer),
    pulse_ingest.search_switch_over() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pulse_ingest.search_backfill_batch(integer), pulse_ingest.search_backfill_rest(integer),
    pulse_ingest.search_switch_over() TO service_role;

-- An empty table (a fresh database) gets its index now and searches the new way at once; a table
-- with rows waits for `--backfill --kind search`, which builds the index CONCURRENTLY.
DO $fresh$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM public.articles) THEN
        CREATE INDEX idx_articles_search_lang ON public.articles USING gin (search_vector_lang);
        UPDATE pulse_ingest.search_state SET ready = true;
    END IF;
END
$fresh$;

-- Same signature, result, grants, length cap and 3 s statement timeout as the backend's; before the
-- switch it answers exactly as before (the `english` search_vector). After it, the query matches
-- under every configuration the rows use (or the language asked for), and ranks: the exact phrase
-- in a title (accents folded) first, then titles holding every word in a regular form of its own
-- (search_forms: plural, singular, a verb's paradigm), then ts_rank.
DROP FUNCTION public.search_articles(text, integer, text, integer);
CREATE FUNCTION public.search_articles(
    search_query text, result_limit integer DEFAULT 20,
    search_language text DEFAULT NULL, result_offset integer DEFAULT 0)
RETURNS TABLE (
    id uuid, title text, summary text, content text, url text, image_url text, thumbnail_url text,
    author text, published_at timestamptz, language character varying, source_id uuid, category_id uuid,
    source_name text, source_slug text, category_name text, category_slug text, media_type text,
    media_url text, media_duration integer, media_mime_type text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = '' SET statement_timeout = '3s'
AS $fn$
#variable_conflict use_column
DECLARE
    wanted integer := LEAST(GREATEST(coalesce(result_limit, 20), 0), 100);
    skipped integer := GREATEST(coalesce(result_offset, 0), 0);
    words tsquery;
    matching tsquery;
    exact tsquery;
    forms tsquery;
BEGIN
    IF search_query IS NULL OR pg_catalog.btrim(search_query) = '' OR pg_catalog.length(search_query) > 200 THEN
        RETURN;
    END IF;
    IF NOT coalesce((SELECT s.ready FROM pulse_ingest.search_state s), false) THEN
        words := pg_catalog.plainto_tsquery('english'::regconfig, search_query);
        RETURN QUERY
        SELECT a.id, a.title, a.summary, a.content, a.url, a.image_url, a.thumbnail_url,
               a.author::text, a.published_at, a.language::character varying, a.source_id, a.category_id,
               a.source_name::text, a.source_slug::text, a.category_name::text, a.category_slug::text,
               a.media_type::text, a.media_url, a.media_duration, a.media_mime_type::text
        FROM public.articles a
        WHERE a.search_vector @@ words AND (search_language IS NULL OR a.language = search_language)
        ORDER BY pg_catalog.ts_rank(a.search_vector, words) DESC, a.published_at DESC
        LIMIT wanted OFFSET skipped;
        RETURN;
    END IF;
    words := pulse_ingest.search_query(search_query, search_language);
    IF words IS NULL THEN RETURN; END IF;
    exact := pulse_ingest.search_marked_phrase('=', search_query);
    forms := pulse_ingest.search_forms_query(search_query, search_language);
    -- The ranking reads every match; when the exact phrase (then the words in their own forms) alone
    -- fills the page, only those rows are read (the index holds the marked title words too): the
    -- same answer, without ranking thousands of stem matches.
    matching := words;
    IF exact IS NOT NULL AND (SELECT count(*) FROM (SELECT 1 FROM public.articles a
            WHERE a.search_vector_lang @@ (words OPERATOR(pg_catalog.&&) exact)
              AND (search_language IS NULL OR a.language::text || '' = search_language)
            LIMIT wanted + skipped) n) >= wanted + skipped THEN
        matching := words OPERATOR(pg_catalog.&&) exact;
    ELSIF forms IS NOT NULL AND (SELECT count(*) FROM (SELECT 1 FROM public.articles a
            WHERE a.search_vector_lang @@ (words OPERATOR(pg_catalog.&&) (forms OPERATOR(pg_catalog.||) coalesce(exact, forms)))
              AND (search_language IS NULL OR a.language::text || '' = search_language)
            LIMIT wanted + skipped) n) >= wanted + skipped THEN
        matching := words OPERATOR(pg_catalog.&&) (forms OPERATOR(pg_catalog.||) coalesce(exact, forms));
    END IF;
    RETURN QUERY
    SELECT a.id, a.title, a.summary, a.content, a.url, a.image_url, a.thumbnail_url,
           a.author::text, a.published_at, a.language::character varying, a.source_id, a.category_id,
           a.source_name::text, a.source_slug::text, a.category_name::text, a.category_slug::text,
           a.media_type::text, a.media_url, a.media_duration, a.media_mime_type::text
    FROM public.articles a
    -- `|| ''`: the language is checked on the rows the text index finds; as an index condition the
    -- planner ANDed the (language, ...) btree's 170,000 entries a language into every search (100 ms).
    WHERE a.search_vector_lang @@ matching AND (search_language IS NULL OR a.language::text || '' = search_language)
    ORDER BY coalesce(a.search_vector_lang @@ exact, false) DESC, coalesce(a.search_vector_lang @@ forms, false) DESC,
             pg_catalog.ts_rank(a.search_vector_lang, words) DESC, a.published_at DESC
    LIMIT wanted OFFSET skipped;
END
$fn$;

REVOKE ALL ON FUNCTION public.search_articles(text, integer, text, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.search_articles(text, integer, text, integer) TO anon, authenticated, service_role;
"""#
