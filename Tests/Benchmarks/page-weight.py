#!/usr/bin/env python3
"""Gives each labelled page the weight of a real news page (stdlib only; used by article-bench.py).

The labelled fixtures are 3-6 KB: an article and a little chrome. The pages a news backend fetches
are 100-400 KB, and most of those bytes are not the article: inline application state and
analytics scripts, inline CSS, dozens of meta and preload tags, a mega-menu, teaser rails, a
reader thread, a cookie dialog and a footer of links. This wraps each fixture's own markup in that much chrome,
written here from those shapes (no real page is copied), so the speed rows can also be read at the
weight extraction meets in service. The article itself is untouched, so the fixture's
NAME.expected.txt still labels the weighted page, and any chrome that leaks into the extraction
shows up as lost precision.

  page-weight.py --pages FOLDER [--pages FOLDER...] --out FOLDER

Deterministic: the chrome of a page depends on its name only.
"""
import argparse
import json
import os
import random
import re
import shutil
import sys

WORDS = ("city council market energy rail harbour budget school health climate storm court election "
         "festival museum science space water farm transport housing police river coast bank union "
         "minister report study season league village bridge airport hospital culture travel food").split()
SECTIONS = ("News World Politics Business Markets Technology Science Health Climate Sport Football "
            "Culture Books Film Music Travel Food Opinion Video Podcasts Newsletters Puzzles").split()


def words(rng, count):
    return " ".join(rng.choice(WORDS) for _ in range(count))


def head_chrome(rng, slug):
    parts = []
    for index in range(30):
        name = rng.choice(["twitter:card", "article:tag", "article:section", "robots", "theme-color",
                           "apple-itunes-app", "fb:app_id", "parsely-tags", "sailthru.tags", "viewport"])
        parts.append(f'<meta name="{name}" content="{words(rng, 4)}-{index}">')
    for index in range(20):
        kind = rng.choice(["preload", "preconnect", "dns-prefetch", "stylesheet", "alternate"])
        parts.append(f'<link rel="{kind}" href="https://static.example.net/{slug}/asset-{index}.css" '
                     f'as="style" crossorigin>')
    rules = "".join(f".c{index}{{margin:{index % 7}px {index % 5}px;color:#{rng.randrange(0x1000000):06x};"
                    f"font:{12 + index % 9}px/1.{index % 9} sans-serif}}\n" for index in range(600))
    parts.append(f"<style>{rules}</style>")
    state = {"page": slug, "user": None, "flags": {f"flag_{index}": rng.random() < 0.5 for index in range(200)},
             "teasers": [{"id": rng.randrange(10 ** 8), "headline": words(rng, 9).capitalize(),
                          "url": f"https://www.example.net/news/{index}-{rng.randrange(10 ** 6)}",
                          "image": f"https://img.example.net/{rng.randrange(10 ** 6)}.jpg"} for index in range(220)]}
    parts.append(f"<script>window.__INITIAL_STATE__ = {json.dumps(state)};</script>")
    for index in range(8):
        body = "".join(f"  var v{n} = (window.q{index} || []).push({{event: 'e{n}', t: Date.now()}});\n"
                       f"  for (var i{n} = 0; i{n} < v{n}; i{n}++) {{ if (i{n} > 3 && i{n} <= 9) break; }}\n"
                       for n in range(40))
        parts.append(f"<script>(function(){{\n{body}}})();</script>")
    return "".join(parts)


def body_start_chrome(rng):
    menu = "".join(
        f'<li class="menu-item"><a href="/{section.lower()}">{section}</a><ul class="sub-menu">'
        + "".join(f'<li><a href="/{section.lower()}/{n}">{words(rng, 2).title()}</a></li>' for n in range(6))
        + "</ul></li>" for section in SECTIONS)
    consent = ('<div class="cookie-consent" role="dialog"><h2>We value your privacy</h2>'
               + "".join(f"<p>{words(rng, 35).capitalize()}.</p>" for _ in range(3))
               + '<button class="accept">Accept all</button><button class="reject">Reject</button></div>')
    ads = '<div class="ad-slot ad-leaderboard" data-slot="top"><div id="ad-top"></div></div>'
    icon = ('<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><g><path d="M3 6h18M3 12h18M3 18h18"/>'
            '<circle cx="12" cy="12" r="2"/></g></svg>')
    return (f'{consent}<div class="masthead"><button class="menu-toggle">{icon}</button>'
            f'<nav class="mega-menu" aria-label="Sections"><ul>{menu}</ul></nav></div>{ads}')


def teaser(rng, index, style):
    """One card of a rail, in one of the three shapes news sites use most."""
    url = f"/news/{index}-{rng.randrange(10 ** 6)}"
    image = f'<img src="https://img.example.net/t/{rng.randrange(10 ** 6)}.jpg" alt="" loading="lazy" width="160" height="90">'
    headline = words(rng, 9).capitalize()
    summary = words(rng, 18).capitalize()
    if style == "wrapped":   # the whole card is one link around the picture and the headline
        return (f'<li class="teaser"><a href="{url}">{image}<h3>{headline}</h3></a><p>{summary}.</p>'
                f'<span class="meta">{rng.randrange(1, 59)} minutes ago</span></li>')
    if style == "grid":      # a grid of cards, the headline a link inside a heading
        return (f'<article class="card"><a href="{url}" class="card-media">{image}</a>'
                f'<h3 class="card-title"><a href="{url}">{headline}</a></h3><p>{summary}.</p></article>')
    return f'<li><span class="rank">{index + 1}</span><a href="{url}">{headline}</a></li>'   # numbered list


def rail(rng, title, count, style, class_name):
    items = "".join(teaser(rng, n, style) for n in range(count))
    if style == "grid":
        return f'<section class="{class_name}"><h2>{title}</h2><div class="grid">{items}</div></section>'
    tag = "ol" if style == "ranked" else "ul"
    return f'<section class="{class_name}"><h2>{title}</h2><{tag}>{items}</{tag}></section>'


def comment(rng, index, style, depth=0):
    """One reader comment: an author line, 45-60 words, and a reply control."""
    name = f"{rng.choice(['Reader', 'Harbourfan', 'Commuter', 'Local'])}{rng.randrange(1, 999)}"
    author = (f'<div class="who"><b>{name}</b> wrote: <time datetime="2024-05-0{index % 9 + 1}">'
              f'{rng.randrange(1, 23)} hours ago</time></div>')
    text = "".join(f"<p>{words(rng, rng.randrange(20, 31)).capitalize()}.</p>" for _ in range(2))
    control = (f'<a href="#reply-{index}" class="act">Reply</a> <a href="#report-{index}">Report</a>'
               if style != "buttons" else
               f'<button type="button" data-reply="{index}">Reply</button> <span class="likes">{rng.randrange(40)}</span>')
    replies = ""
    if depth == 0 and index % 5 == 2:
        nested = "".join(comment(rng, index * 10 + n, style, depth + 1) for n in range(2))
        replies = f'<ol class="replies">{nested}</ol>' if style != "buttons" else f'<div class="replies">{nested}</div>'
    if style == "buttons":
        return f'<article class="entry">{author}{text}<div class="acts">{control}</div>{replies}</article>'
    return f'<li class="entry">{author}{text}<div class="acts">{control}</div>{replies}</li>'


def conversation(rng):
    """A server-rendered reader thread of 15 comments, with neutral class names (a thread named
    "comments" is already dropped by Readability's class-name patterns): items of 45-60 words
    outscore a short article, as the rails did, and must be told apart by their shape."""
    style = rng.choice(["links", "buttons"])
    items = "".join(comment(rng, n, style) for n in range(15))
    thread = f'<ol class="thread">{items}</ol>' if style == "links" else f'<div class="thread">{items}</div>'
    return (f'<section class="conversation"><h2>15 replies</h2>{thread}'
            '<form action="/reply"><textarea name="text"></textarea><button>Post</button></form></section>')


def body_end_chrome(rng):
    # Neutral class names on purpose: the rails must be told apart by their shape.
    styles = ["wrapped", "grid", "ranked"]
    rng.shuffle(styles)
    rails = (rail(rng, "More stories", 20, styles[0], "stream")
             + rail(rng, "Around the site", 12, styles[1], "cards")
             + rail(rng, "Most read", 10, styles[2], "list"))
    newsletter = ('<div class="newsletter"><h2>Sign up to the morning briefing</h2><form action="/subscribe">'
                  '<input type="email" name="email"><button>Sign up</button></form></div>')
    columns = "".join('<div class="footer-column"><ul>'
                      + "".join(f'<li><a href="/{n}">{words(rng, 2).title()}</a></li>' for n in range(20))
                      + "</ul></div>" for _ in range(6))
    # Some pages (half, on average) carry an edition picker: after a <select> page analysis keeps
    # the raw text of the rest of the page (see InertText.swift).
    picker = ('<select name="edition"><option>UK</option><option>US</option><option>International</option></select>'
              if rng.random() < 0.5 else "")
    footer = f'<footer class="site-footer">{columns}{picker}<p class="legal">{words(rng, 40).capitalize()}.</p></footer>'
    scripts = "".join(f'<script async src="https://static.example.net/js/bundle-{n}.js"></script>' for n in range(6))
    line = 'document.querySelectorAll(".c%d").forEach(function(e){e.dataset.seen=1});'
    tail = "".join("<script>" + (line % n) * 30 + "</script>" for n in range(5))
    return conversation(rng) + rails + newsletter + footer + scripts + tail


def weigh(html, slug):
    rng = random.Random(slug)
    head_end = re.search(r"</head\s*>", html, re.I)
    body_open = re.search(r"<body[^>]*>", html, re.I)
    body_close = re.search(r"</body\s*>", html, re.I)
    if not (head_end and body_open and body_close):
        sys.exit(f"page-weight: {slug}: needs <head>...</head><body>...</body>")
    return (html[:head_end.start()] + head_chrome(rng, slug) + html[head_end.start():body_open.end()]
            + body_start_chrome(rng) + html[body_open.end():body_close.start()] + body_end_chrome(rng)
            + html[body_close.start():])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", action="append", required=True, help="folder of NAME.html + NAME.expected.txt")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for folder in args.pages:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".html"):
                continue
            slug = name[:-5]
            expected = os.path.join(folder, slug + ".expected.txt")
            if not os.path.exists(expected):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as page:
                weighted = weigh(page.read(), slug)
            with open(os.path.join(args.out, name), "w", encoding="utf-8") as out:
                out.write(weighted)
            shutil.copyfile(expected, os.path.join(args.out, slug + ".expected.txt"))


if __name__ == "__main__":
    main()
