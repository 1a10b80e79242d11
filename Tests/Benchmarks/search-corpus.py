#!/usr/bin/env python3
"""Generates the search benchmark's catalogue and query sets (`make bench-search`).

Text: the translated message catalogues Debian installs (/usr/share/locale/{es,pt_BR,pt}/LC_MESSAGES/*.mo):
each catalogue's msgids give English text and its msgstrs Portuguese or Spanish, so all three
languages come from real, shipped prose. Nothing is committed: the catalogue is built at bench time.

Writes, into the folder given:
  articles.tsv  title, summary, url, url_hash, published_at, language (COPY text format)
  queries.tsv   language, kind, query, relevant article numbers, article numbers left out of the ranking
                (titles holding the typed form itself); kind `three` (three words of one title) is for
                latency only

Query kinds (per language):
  exact      a word as it stands in titles; relevant: titles holding it
  inflected  the singular for a plural in titles, or the plural for a singular; relevant: titles
             holding the other form
  verb       an infinitive (the base in English) for conjugated forms in titles; relevant: titles
             holding any form of its regular paradigm (every simple tense, gerund, participle in both
             genders and numbers; -ed/-ing/-s in English)
  unaccented a title word typed without its accents; relevant: titles holding the accented word
For `inflected` and `verb` a word spelled with or without accents counts as the same word.
For the last three, titles holding the typed form itself (any spelling) are left out of the ranking before
taking the top 20 (they match any engine), so recall@20 measures the other form alone.
"""
import gettext
import glob
import os
import random
import re
import sys
import unicodedata

random.seed(50)
out = sys.argv[1]
total = int(sys.argv[2]) if len(sys.argv) > 2 else 500_000

FORMAT = re.compile(r"%[-+ #0-9.$*]*[a-zA-Z]|\{[^}]*\}|\$\{[^}]*\}|<[^>]*>|\\[nt]|[_&](?=\w)")
NOT_TEXT = re.compile(r"[^\w' -]+", re.UNICODE)


def clean(text):
    text = NOT_TEXT.sub(" ", FORMAT.sub(" ", text.replace("\n", " ")))
    words = [w.strip("'-") for w in text.split()]
    words = [w for w in words if w and not any(c.isdigit() or c == "_" for c in w)]
    return words if 3 <= len(words) <= 24 else None


def sentences(locales):
    english, translated = set(), set()
    for locale in locales:
        for path in glob.glob(f"/usr/share/locale/{locale}/LC_MESSAGES/*.mo"):
            try:
                with open(path, "rb") as handle:
                    catalog = gettext.GNUTranslations(handle)._catalog
            except Exception:
                continue
            for key, value in catalog.items():
                if not isinstance(key, str) or not key or not value or key == value:
                    continue
                source, target = clean(key), clean(value)
                if source and target:
                    english.add(" ".join(source))
                    translated.add(" ".join(target))
    return sorted(english), sorted(translated)


en_a, pt = sentences(["pt_BR", "pt"])
en_b, es = sentences(["es"])
pools = {"en": sorted(set(en_a) | set(en_b)), "pt": pt, "es": es}
for language, pool in pools.items():
    print(f"search-corpus: {language}: {len(pool)} sentences", file=sys.stderr)


def headline(pool):
    """5-12 words running across two catalogue sentences: real words, rarely the same title twice."""
    words = (random.choice(pool) + " " + random.choice(pool)).split()
    length = random.randint(5, 12)
    start = random.randint(0, max(0, len(words) - length))
    title = " ".join(words[start:start + length])
    return title[0].upper() + title[1:]


def tokens(text):
    return set(re.findall(r"\w+", text.lower()))


title_index = {language: {} for language in pools}
languages = ["en", "pt", "es"]
with open(os.path.join(out, "articles.tsv"), "w", encoding="utf-8") as handle:
    for number in range(total):
        language = languages[number % 3]
        pool = pools[language]
        title = headline(pool)
        summary = random.choice(pool) + ". " + random.choice(pool) + "."
        for word in tokens(title):
            title_index[language].setdefault(word, []).append(number)
        published = f"2026-{1 + number % 11:02d}-{1 + number % 28:02d} {number % 24:02d}:{number % 60:02d}:00+00"
        handle.write(f"{title}\t{summary}\thttps://bench.example/a/{number}\tbench{number:08d}\t{published}\t{language}\n")


def strip_accents(word):
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


VOWELS = "aeiouáéíóúâêôãõà"


def plurals(language, word):
    """The regular plural of a singular (a real reader's other form of the word, by the grammar's rules)."""
    if language == "en":
        return [word[:-1] + "ies"] if word.endswith("y") else [word + "s", word + "es"]
    if language == "pt":
        forms = [word + "s"] if word[-1] in VOWELS else []
        for singular, plural in (("ção", "ções"), ("ão", "ões"), ("al", "ais"), ("el", "éis"), ("ol", "óis"), ("m", "ns"),
                                 ("r", "res"), ("z", "zes"), ("s", "ses")):
            if word.endswith(singular):
                forms.append(word[: -len(singular)] + plural)
        return forms
    # Spanish: -s after a vowel, -es after a consonant (-ión -> -iones, -z -> -ces).
    forms = [word + "s"] if word[-1] in VOWELS else [word + "es"]
    for singular, plural in (("ión", "iones"), ("z", "ces")):
        if word.endswith(singular):
            forms.append(word[: -len(singular)] + plural)
    return forms


# The regular paradigm of an infinitive: every simple tense, the gerund and the participle in
# both genders and numbers (a title saying "lista separada" holds a form of "separar" as surely
# as one saying "separou"). Irregular verbs and spelling changes (ficar/fique) are not generated.
PARADIGMS = {
    "pt": {
        "ar": "o as a amos ais am ei aste ou astes aram ava avas ávamos áveis avam arei arás ará aremos areis arão "
              "aria arias aríamos aríeis ariam e es emos eis em asse asses ássemos ásseis assem armos ardes arem "
              "ares ando ado ada ados adas",
        "er": "o es e emos eis em i este eu estes eram ia ias íamos íeis iam erei erás erá eremos ereis erão eria "
              "erias eríamos eríeis eriam a as amos ais am esse esses êssemos êsseis essem ermos erdes erem eres "
              "endo ido ida idos idas",
        "ir": "o es e imos is em i iste iu istes iram ia ias íamos íeis iam irei irás irá iremos ireis irão iria "
              "irias iríamos iríeis iriam a as amos ais am isse isses íssemos ísseis issem irmos irdes irem ires "
              "indo ido ida idos idas",
    },
    "es": {
        "ar": "o as a amos áis an é aste ó asteis aron aba abas ábamos abais aban aré arás ará aremos aréis arán "
              "aría arías aríamos aríais arían e es emos éis en ara aras áramos arais aran ase ases ásemos aseis "
              "asen ando ado ada ados adas",
        "er": "o es e emos éis en í iste ió imos isteis ieron ía ías íamos íais ían eré erás erá eremos eréis "
              "erán ería erías eríamos eríais erían a as amos áis an iera ieras iéramos ierais ieran iese ieses "
              "iésemos ieseis iesen iendo ido ida idos idas",
        "ir": "o es e imos ís en í iste ió isteis ieron ía ías íamos íais ían iré irás irá iremos iréis irán "
              "iría irías iríamos iríais irían a as amos áis an iera ieras iéramos ierais ieran iese ieses "
              "iésemos ieseis iesen iendo ido ida idos idas",
    },
}


def conjugations(language, word):
    if language == "en":
        stem = word[:-1] if word.endswith("e") else word
        return [stem + "ed", stem + "ing", word + "s"] if len(word) > 3 else []
    endings = PARADIGMS[language].get(word[-2:], "").split()
    return [word[:-2] + ending for ending in endings if word[:-2] + ending != word] if len(word) > 4 else []


def usable(numbers):
    return 2 <= len(numbers) <= 400


rows = []
per_kind = 40
for language in languages:
    index = title_index[language]
    words = sorted(w for w in index if len(w) >= 5 and not w.isdigit())
    random.shuffle(words)
    exact = [w for w in words if usable(index[w])][:per_kind]
    inflected, verb, unaccented = [], [], []
    for word in words:
        if len(inflected) < per_kind:
            for plural in plurals(language, word):
                if plural in index and 2 <= len(index[plural]) <= 40 and len(index[word]) <= 40:
                    inflected.append((word, plural))
                    break
        if len(verb) < per_kind and len(index.get(word, [])) <= 40:
            forms = [form for form in conjugations(language, word) if form in index]
            if forms and usable(sorted({n for form in forms for n in index[form]})):
                verb.append((word, forms))
        plain = strip_accents(word)
        if len(unaccented) < per_kind and plain != word and usable(index[word]) and len(index.get(plain, [])) <= 40:
            unaccented.append((plain, word))
    # Half the inflection queries ask for the plural of a singular in titles.
    inflected = [(b, a) if i % 2 else (a, b) for i, (a, b) in enumerate(inflected)]
    for word in exact:
        rows.append((language, "exact", word, index[word], []))
    # A title holding the target spelled with or without its accents ("direccion", "dirección") holds
    # the same word: relevant for the inflection and verb kinds (the index folds accents, as the issue asks).
    spellings = {}
    for word in index:
        spellings.setdefault(strip_accents(word), []).append(word)
    for kind, pairs in (("inflected", inflected), ("verb", verb), ("unaccented", unaccented)):
        for typed, targets in pairs:
            targets = [targets] if isinstance(targets, str) else targets
            typed_spellings = [typed]
            if kind != "unaccented":
                targets = {spelling for target in targets for spelling in spellings[strip_accents(target)]}
                typed_spellings = spellings.get(strip_accents(typed), [typed])
            excluded = {n for spelling in typed_spellings for n in index.get(spelling, [])}
            relevant = sorted({n for target in targets for n in index[target]} - excluded)
            if relevant:
                rows.append((language, kind, typed, relevant, sorted(excluded)))
    for _ in range(100):
        words = [w for w in re.findall(r"\w+", headline(pools[language])) if len(w) >= 4]
        if len(words) >= 3:
            rows.append((language, "three", " ".join(words[:3]), [], []))
    print(f"search-corpus: {language}: {len(exact)} exact, {len(inflected)} inflected, {len(verb)} verb, "
          f"{len(unaccented)} unaccented queries", file=sys.stderr)

with open(os.path.join(out, "queries.tsv"), "w", encoding="utf-8") as handle:
    for language, kind, query, relevant, excluded in rows:
        handle.write(f"{language}\t{kind}\t{query}\t{{{','.join(map(str, relevant))}}}\t{{{','.join(map(str, excluded))}}}\n")
