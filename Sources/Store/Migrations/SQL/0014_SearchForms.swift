// Part of migration 14 (multilingual search): a query word's other regular forms. Snowball gives a
// word and its plural different stems now and then (Portuguese "próximo" -> proxim, "próximos" ->
// prox: -imos is taken for a verb ending; Spanish "tareas" -> tar), and it gives one stem to a verb
// and to the nouns derived from it ("separar", "separada", "separadores" -> separ), so the titles
// holding the verb's own forms tie with the rest. Written by hand (no dictionary PostgreSQL or
// Supabase ships has Portuguese or Spanish morphology; an ispell dictionary would need files on the
// server): the regular plural or singular of a word, and for a Portuguese or Spanish infinitive
// its regular paradigm. search_query matches the number forms too; search_articles ranks titles
// holding any form (accents folded) right after the exact phrase. Irregular verbs and spelling
// changes (ficar/fique) are not generated: they still match by stem, only without the boost.
let multilingualSearchFormsSQL = #"""
CREATE FUNCTION pulse_ingest.search_forms(config regconfig, word text, verbs boolean) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = '' AS $fn$
DECLARE
    w text := pg_catalog.lower(word);
    forms text[] := '{}';
    vowel text := '[aeiouáéíóúâêôãõà]';
    root text := pg_catalog.left(w, -2);
    endings text;
BEGIN
    IF w !~ '^[a-zà-öø-ÿ]{3,}$' THEN
        RETURN forms;
    END IF;
    IF config = 'pulse_ingest.portuguese'::regconfig THEN
        forms := forms || CASE
            WHEN w ~ '(õe|ãe|ão)s$' THEN ARRAY[pg_catalog.regexp_replace(w, '(õe|ãe|ão)s$', 'ão')]
            WHEN w ~ 'ão$' THEN ARRAY[root || 'ões', root || 'ães', root || 'ãos']
            WHEN w ~ 'ais$' THEN ARRAY[pg_catalog.left(w, -3) || 'al']
            WHEN w ~ '[eé]is$' THEN ARRAY[pg_catalog.left(w, -3) || 'el']
            WHEN w ~ '[oó]is$' THEN ARRAY[pg_catalog.left(w, -3) || 'ol']
            WHEN w ~ 'al$' THEN ARRAY[root || 'ais']
            WHEN w ~ 'el$' THEN ARRAY[root || 'éis']
            WHEN w ~ 'ol$' THEN ARRAY[root || 'óis']
            WHEN w ~ 'ns$' THEN ARRAY[root || 'm']
            WHEN w ~ 'm$' THEN ARRAY[pg_catalog.left(w, -1) || 'ns']
            WHEN w ~ '[rzs]es$' THEN ARRAY[root]
            WHEN w ~ '[rz]$' THEN ARRAY[w || 'es']
            WHEN w ~ (vowel || 's$') THEN ARRAY[pg_catalog.left(w, -1)]
            WHEN w ~ (vowel || '$') THEN ARRAY[w || 's']
            ELSE '{}'::text[] END;
        endings := CASE WHEN NOT verbs OR pg_catalog.length(w) < 5 THEN NULL
            WHEN w ~ 'ar$' THEN 'o as a amos ais am ei aste ou astes aram ava avas ávamos áveis avam arei arás ará '
                'aremos areis arão aria arias aríamos aríeis ariam e es emos eis em asse asses ássemos ásseis assem '
                'armos ardes arem ares ando ado ada ados adas'
            WHEN w ~ 'er$' THEN 'o es e emos eis em i este eu estes eram ia ias íamos íeis iam erei erás erá eremos '
                'ereis erão eria erias eríamos eríeis eriam a as amos ais am esse esses êssemos êsseis essem ermos '
                'erdes erem eres endo ido ida idos idas'
            WHEN w ~ 'ir$' THEN 'o es e imos is em i iste iu istes iram ia ias íamos íeis iam irei irás irá iremos '
                'ireis irão iria irias iríamos iríeis iriam a as amos ais am isse isses íssemos ísseis issem irmos '
                'irdes irem ires indo ido ida idos idas' END;
    ELSIF config = 'pulse_ingest.spanish'::regconfig THEN
        forms := forms || CASE
            WHEN w ~ 'iones$' THEN ARRAY[pg_catalog.left(w, -5) || 'ión']
            WHEN w ~ 'i[oó]n$' THEN ARRAY[pg_catalog.left(w, -3) || 'iones']
            WHEN w ~ 'ces$' THEN ARRAY[pg_catalog.left(w, -3) || 'z']
            WHEN w ~ 'z$' THEN ARRAY[pg_catalog.left(w, -1) || 'ces']
            WHEN w ~ ('[^aeiouáéíóú]es$') THEN ARRAY[root]
            WHEN w ~ (vowel || 's$') THEN ARRAY[pg_catalog.left(w, -1)]
            WHEN w ~ (vowel || '$') THEN ARRAY[w || 's']
            ELSE ARRAY[w || 'es'] END;
        endings := CASE WHEN NOT verbs OR pg_catalog.length(w) < 5 THEN NULL
            WHEN w ~ 'ar$' THEN 'o as a amos áis an é aste ó asteis aron aba abas ábamos abais aban aré arás ará '
                'aremos aréis arán aría arías aríamos aríais arían e es emos éis en ara aras áramos arais aran ase '
                'ases ásemos aseis asen ando ado ada ados adas'
            WHEN w ~ 'er$' THEN 'o es e emos éis en í iste ió imos isteis ieron ía ías íamos íais ían eré erás erá '
                'eremos eréis erán ería erías eríamos eríais erían a as amos áis an iera ieras iéramos ierais ieran '
                'iese ieses iésemos ieseis iesen iendo ido ida idos idas'
            WHEN w ~ 'ir$' THEN 'o es e imos ís en í iste ió isteis ieron ía ías íamos íais ían iré irás irá iremos '
                'iréis irán iría irías iríamos iríais irían a as amos áis an iera ieras iéramos ierais ieran iese '
                'ieses iésemos ieseis iesen iendo ido ida idos idas' END;
    ELSIF config = 'pulse_ingest.english'::regconfig THEN
        forms := forms || CASE
            WHEN w ~ '[^aeiou]ies$' THEN ARRAY[pg_catalog.left(w, -3) || 'y']
            WHEN w ~ '[^aeiou]y$' THEN ARRAY[root || 'ies']
            WHEN w ~ '(s|x|z|ch|sh)es$' THEN ARRAY[root]
            WHEN w ~ '[^su]s$' THEN ARRAY[pg_catalog.left(w, -1)]
            WHEN w ~ '(s|x|z|ch|sh)$' THEN ARRAY[w || 'es']
            ELSE ARRAY[w || 's'] END;
        IF verbs AND w !~ 's$' AND pg_catalog.length(w) > 3 THEN
            forms := forms || ARRAY[pg_catalog.regexp_replace(w, 'e$', '') || 'ed', pg_catalog.regexp_replace(w, 'e$', '') || 'ing'];
        END IF;
    END IF;
    IF endings IS NOT NULL THEN
        forms := forms || ARRAY(SELECT root || e FROM pg_catalog.unnest(pg_catalog.string_to_array(endings, ' ')) e);
    END IF;
    RETURN forms;
END
$fn$;
"""#
