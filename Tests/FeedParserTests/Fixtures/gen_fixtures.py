#!/usr/bin/env python3
"""Writes the binary encoding fixtures (run from this directory; outputs are committed)."""

def feed(title, desc, decl="UTF-8"):
    d = f' encoding="{decl}"' if decl else ""
    return (f'<?xml version="1.0"{d}?>\n<rss version="2.0"><channel><title>Enc</title>'
            f'<item><title>{title}</title><link>https://enc.example.com/1</link>'
            f'<description>{desc}</description></item></channel></rss>\n')

title = "Café “quoted” – naïve"
open("utf8-bom.xml", "wb").write(b"\xef\xbb\xbf" + feed(title, "bom").encode("utf-8"))
open("utf16le-bom.xml", "wb").write(b"\xff\xfe" + feed(title, "utf16le", "UTF-16").encode("utf-16-le"))
open("utf16be-nobom.xml", "wb").write(feed(title, "utf16be", "UTF-16").encode("utf-16-be"))
# Declared ISO-8859-1 but really windows-1252 (curly quotes and en dash live in 0x80-0x9F).
open("latin1-really-1252.xml", "wb").write(feed(title, "lie", "ISO-8859-1").encode("cp1252"))
# Declared UTF-8 with stray Latin-1 bytes in one field.
good = feed("Café “quoted” – naïve", "STRAY").encode("utf-8")
open("utf8-stray-latin1.xml", "wb").write(good.replace(b"STRAY", "Crème brûlée".encode("latin-1")))
# windows-1251 with no declaration: only the HTTP charset knows.
open("cp1251-http.xml", "wb").write(feed("Привет мир", "кириллица", None).encode("cp1251"))
# Shift_JIS declared in the XML declaration.
open("shift-jis.xml", "wb").write(feed("日本語のタイトル", "説明", "Shift_JIS").encode("shift_jis"))
# Labelled ISO-8859-1 (declaration and HTTP) but actually UTF-8.
open("utf8-labelled-latin1.xml", "wb").write(feed(title, "mislabelled", "ISO-8859-1").encode("utf-8"))
# XML-illegal C0 control characters inside text.
open("controls.xml", "wb").write(feed("Bell\x07 and form\x0cfeed", "esc\x1b[0m").encode("utf-8"))
