#!/usr/bin/env python3
"""Deterministic feed corpus for the `make bench` feed-parsing benchmark.

Writes realistic RSS 2.0, Atom 1.0 and RSS 1.0 documents (content:encoded HTML, Media RSS,
enclosures, Dublin Core, multilingual text, entities and CDATA) of varied sizes into OUT_DIR,
plus one large RSS 2.0 feed (--large-mb, default 16) for the peak-RSS measurement, and a
manifest.tsv: group, file, format, bytes, items. Same seed -> byte-identical files.

Usage: gen-feeds.py OUT_DIR [--seed N] [--scale F] [--large-mb N]
"""
import argparse
import datetime as dt
import os
import random
from xml.sax.saxutils import escape

WORDS = (
    "market city council report election climate energy water court data police school health "
    "budget vote rail storm season league transfer launch study research museum festival "
    "minister agency river harbour airport bridge network trial verdict policy tax wages "
    "housing rent inflation growth export harvest drought flood satellite vaccine hospital "
    "the a of and to in on for with at by from after before over under about into new old "
    "first last major local national regional early late said says will would could may"
).split()
# Non-ASCII so the UTF-8 paths (decoding, sanitising, JSON escaping) do real work.
INTL = ["Zürich", "São Paulo", "Kraków", "Ελλάδα", "Москва", "東京", "서울", "Ağrı", "naïve",
        "café", "Åland", "Reykjavík", "€", "–", "“quoted”", "日本語のニュース", "🙂"]
HOSTS = ["news.example.com", "www.example.org", "blog.example.net", "media.example.com"]
AUTHORS = ["Anna Müller", "John Smith", "Li Wei", "María García", "Olu Adeyemi", "Sven Åberg"]
CATEGORIES = ["World", "Politics", "Business", "Tech", "Science", "Sport", "Culture", "Health"]
BASE_DATE = dt.datetime(2025, 6, 1, 12, 0, 0, tzinfo=dt.timezone.utc)


class Corpus:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def words(self, lo, hi):
        r = self.r
        out = []
        for _ in range(r.randint(lo, hi)):
            out.append(r.choice(INTL) if r.random() < 0.04 else r.choice(WORDS))
        return " ".join(out)

    def title(self):
        t = self.words(5, 12).capitalize()
        if self.r.random() < 0.2:
            t += " & more"  # escaped ampersand in titles is common
        return t

    def url(self, kind, i):
        return f"https://{self.r.choice(HOSTS)}/{kind}/2025/06/{i:06d}-{self.r.randint(1000, 9999)}"

    def image(self, i):
        return f"https://{self.r.choice(HOSTS)}/img/{i:06d}/{self.r.randint(1, 99)}.jpg"

    def html_body(self, i, size_class):
        """Article HTML like a CMS emits: paragraphs, links, figures, lists, entities, scripts."""
        r = self.r
        paras = {"short": (1, 2), "medium": (4, 8), "long": (15, 30)}[size_class]
        parts = []
        for p in range(r.randint(*paras)):
            text = escape(self.words(30, 90))
            if r.random() < 0.5:
                text += f' <a href="{self.url("related", i * 100 + p)}?utm_source=rss&amp;utm_medium=feed">{escape(self.words(2, 5))}</a>'
            if r.random() < 0.3:
                text += f" <strong>{escape(self.words(2, 6))}</strong>&nbsp;&mdash; <em>{escape(self.words(2, 6))}</em>"
            parts.append(f"<p>{text}.</p>")
            if r.random() < 0.15:
                parts.append(
                    f'<figure><img src="{self.image(i * 100 + p)}" alt="{escape(self.words(3, 8))}" '
                    f'width="1200" height="675" loading="lazy"/><figcaption>{escape(self.words(5, 15))}'
                    f"</figcaption></figure>")
            if r.random() < 0.05:
                items = "".join(f"<li>{escape(self.words(3, 10))}</li>" for _ in range(r.randint(3, 6)))
                parts.append(f"<ul>{items}</ul>")
        if r.random() < 0.1:
            parts.append('<script type="text/javascript">window.dataLayer=window.dataLayer||[];</script>')
        if r.random() < 0.2:
            parts.append(f'<img src="https://pixel.example.com/t.gif?id={i}" width="1" height="1"/>')
        return "\n".join(parts)

    def item_fields(self, i, n):
        r = self.r
        size_class = r.choices(["short", "medium", "long"], weights=[3, 6, 1])[0]
        return {
            "title": self.title(),
            "link": self.url("news", i),
            "guid": f"urn:uuid:{r.getrandbits(128):032x}" if r.random() < 0.3 else self.url("p", i),
            "date": BASE_DATE - dt.timedelta(minutes=37 * (n - i) + r.randint(0, 30)),
            "author": r.choice(AUTHORS),
            "categories": r.sample(CATEGORIES, r.randint(1, 3)),
            "summary": self.words(20, 60),
            "body": self.html_body(i, size_class),
            "image": self.image(i),
            "has_media": r.random() < 0.7,
            "has_enclosure": r.random() < 0.1,
        }


def cdata(html):
    return "<![CDATA[" + html.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def rss20(c, n):
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n'
           '<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" '
           'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/" '
           'xmlns:atom="http://www.w3.org/2005/Atom">\n<channel>\n'
           f"<title>{escape(c.title())}</title>\n<link>https://news.example.com/</link>\n"
           f"<description>{escape(c.words(10, 20))}</description>\n<language>en-gb</language>\n"
           '<atom:link href="https://news.example.com/rss" rel="self" type="application/rss+xml"/>\n'
           "<ttl>15</ttl>\n"]
    for i in range(n):
        f = c.item_fields(i, n)
        cats = "".join(f"<category>{x}</category>" for x in f["categories"])
        guid_attr = "" if f["guid"].startswith("http") else ' isPermaLink="false"'
        media = (f'<media:content url="{f["image"]}" medium="image" type="image/jpeg" width="1200" height="675">'
                 f'<media:title>{escape(c.words(3, 8))}</media:title></media:content>'
                 f'<media:thumbnail url="{f["image"]}?w=320" width="320" height="180"/>') if f["has_media"] else ""
        enclosure = (f'<enclosure url="https://cdn.example.com/audio/{i}.mp3" length="{c.r.randint(10**6, 10**8)}" '
                     'type="audio/mpeg"/>') if f["has_enclosure"] else ""
        # Half the descriptions are entity-escaped HTML, half CDATA: both appear in the wild.
        desc_html = f"<p>{escape(f['summary'])}</p>"
        desc = cdata(desc_html) if i % 2 else escape(desc_html)
        out.append(
            f"<item>\n<title>{escape(f['title'])}</title>\n<link>{f['link']}</link>\n"
            f"<guid{guid_attr}>{f['guid']}</guid>\n"
            f"<pubDate>{f['date'].strftime('%a, %d %b %Y %H:%M:%S +0000')}</pubDate>\n"
            f"<dc:creator>{escape(f['author'])}</dc:creator>\n{cats}\n"
            f"<description>{desc}</description>\n"
            f"<content:encoded>{cdata(f['body'])}</content:encoded>\n{media}{enclosure}\n</item>\n")
    out.append("</channel>\n</rss>\n")
    return "".join(out)


def atom(c, n):
    out = ['<?xml version="1.0" encoding="utf-8"?>\n'
           '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" xml:lang="de">\n'
           f'<title type="text">{escape(c.title())}</title>\n<id>tag:example.org,2025:feed</id>\n'
           '<link rel="alternate" type="text/html" href="https://www.example.org/"/>\n'
           '<link rel="self" href="https://www.example.org/atom.xml"/>\n'
           f"<updated>{BASE_DATE.strftime('%Y-%m-%dT%H:%M:%SZ')}</updated>\n"]
    for i in range(n):
        f = c.item_fields(i, n)
        stamp = f["date"].strftime("%Y-%m-%dT%H:%M:%S+00:00")
        cats = "".join(f'<category term="{x.lower()}" label="{x}"/>' for x in f["categories"])
        # Mostly escaped HTML content; every 5th entry inline XHTML (a different walker path).
        if i % 5 == 4:
            xhtml = f["body"].replace("&nbsp;", "&#160;").replace("&mdash;", "&#8212;")
            content = f'<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">{xhtml}</div></content>'
        else:
            content = f'<content type="html">{escape(f["body"])}</content>'
        media = f'<media:thumbnail url="{f["image"]}" width="640" height="360"/>' if f["has_media"] else ""
        out.append(
            f"<entry>\n<title type=\"html\">{escape(escape(f['title']))}</title>\n"
            f'<link rel="alternate" type="text/html" href="{f["link"]}"/>\n<id>{f["guid"]}</id>\n'
            f"<published>{stamp}</published>\n<updated>{stamp}</updated>\n"
            f"<author><name>{escape(f['author'])}</name></author>\n{cats}\n"
            f'<summary type="text">{escape(f["summary"])}</summary>\n{content}\n{media}\n</entry>\n')
    out.append("</feed>\n")
    return "".join(out)


def rss10(c, n):
    fields = [c.item_fields(i, n) for i in range(n)]
    seq = "".join(f'<rdf:li rdf:resource="{f["link"]}"/>' for f in fields)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n'
           '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" '
           'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">\n'
           '<channel rdf:about="https://blog.example.net/rss">\n'
           f"<title>{escape(c.title())}</title>\n<link>https://blog.example.net/</link>\n"
           f"<description>{escape(c.words(10, 20))}</description>\n<dc:language>fr</dc:language>\n"
           f"<items><rdf:Seq>{seq}</rdf:Seq></items>\n</channel>\n"]
    for f in fields:
        out.append(
            f'<item rdf:about="{f["link"]}">\n<title>{escape(f["title"])}</title>\n<link>{f["link"]}</link>\n'
            f"<description>{escape(f['summary'])}</description>\n"
            f"<dc:date>{f['date'].strftime('%Y-%m-%dT%H:%M:%SZ')}</dc:date>\n"
            f"<dc:creator>{escape(f['author'])}</dc:creator>\n<dc:subject>{f['categories'][0]}</dc:subject>\n"
            f"<content:encoded>{escape(f['body'])}</content:encoded>\n</item>\n")
    out.append("</rdf:RDF>\n")
    return "".join(out)


FORMATS = {"rss20": (rss20, "xml"), "atom": (atom, "xml"), "rss10": (rss10, "rdf")}
# Item counts per format: many small and typical feeds (what the daemon mostly sees), a few big ones.
SIZES = [10] * 6 + [25] * 6 + [50] * 4 + [100] * 2 + [300, 500]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=20250601)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the item counts")
    ap.add_argument("--large-mb", type=float, default=16.0, help="size of large/rss20-large.xml")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    manifest = []

    def write(group, name, fmt, text, items):
        path = os.path.join(args.out_dir, group, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = text.encode("utf-8")
        with open(path, "wb") as fh:
            fh.write(data)
        manifest.append((group, os.path.relpath(path, args.out_dir), fmt, len(data), items))

    for fmt, (gen, ext) in FORMATS.items():
        for k, n in enumerate(SIZES):
            n = max(1, int(n * args.scale))
            c = Corpus(args.seed * 1000 + k * 10 + list(FORMATS).index(fmt))
            write(fmt, f"{fmt}-{k:02d}-{n}items.{ext}", fmt, gen(c, n), n)

    # The large feed: grow the item count until the document reaches the requested size.
    target = int(args.large_mb * 1024 * 1024)
    n = 1000
    while True:
        text = rss20(Corpus(args.seed + 7), n)
        size = len(text.encode("utf-8"))
        if size >= target:
            break
        n = int(n * target / size * 1.02) + 1
    write("large", "rss20-large.xml", "rss20", text, n)

    with open(os.path.join(args.out_dir, "manifest.tsv"), "w") as fh:
        fh.write("group\tfile\tformat\tbytes\titems\n")
        for row in manifest:
            fh.write("\t".join(map(str, row)) + "\n")
    total = sum(r[3] for r in manifest if r[0] != "large")
    print(f"gen-feeds: {len(manifest) - 1} feeds, {total / 1e6:.1f} MB + large {size / 1e6:.1f} MB"
          f" ({n} items) in {args.out_dir}")


if __name__ == "__main__":
    main()
