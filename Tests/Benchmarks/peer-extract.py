#!/usr/bin/env python3
"""The peer baselines for article extraction, one process over many pages like `--dump-article`.

Usage: peer-extract.py trafilatura|readability-lxml OUT_DIR FILE...
Runs with the benchmark venv's python. Writes OUT_DIR/<basename>.txt per input (the plain text of
the extracted article) and prints "pages=N failed=M" to stderr.
"""
import os
import sys


def trafilatura_text(html):
    import trafilatura
    # Comments are not part of the article body; everything else is trafilatura's default.
    return trafilatura.extract(html, include_comments=False) or ""


def readability_text(html):
    import lxml.html
    from readability import Document
    summary = Document(html).summary(html_partial=True)
    root = lxml.html.fromstring(summary)
    # One paragraph per block element, as our --text output is laid out.
    blocks = [el.text_content().strip() for el in root.iter("p", "h1", "h2", "h3", "h4", "h5", "h6",
                                                             "li", "pre", "blockquote", "td")]
    blocks = [b for b in blocks if b]
    return "\n\n".join(blocks) if blocks else root.text_content().strip()


def main():
    tool, out_dir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    extract = {"trafilatura": trafilatura_text, "readability-lxml": readability_text}[tool]
    extract("<html><body><p>warm-up</p></body></html>")  # imports, so both peers pay them alike
    failed = 0
    for path in files:
        with open(path, "rb") as fh:
            raw = fh.read()
        try:
            text = extract(raw.decode("utf-8", errors="replace"))
        except Exception as exc:  # a crash in a peer is counted, not fatal to the benchmark
            print(f"{tool}: {path}: {exc!r}", file=sys.stderr)
            text, failed = "", failed + 1
        name = os.path.splitext(os.path.basename(path))[0]
        with open(os.path.join(out_dir, name + ".txt"), "w", encoding="utf-8") as fh:
            fh.write(text)
    print(f"pages={len(files)} failed={failed}", file=sys.stderr)
    return 1 if failed == len(files) else 0


if __name__ == "__main__":
    sys.exit(main())
