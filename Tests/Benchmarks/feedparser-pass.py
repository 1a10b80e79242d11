#!/usr/bin/env python3
"""The peer baseline: Python feedparser over the same files, one process, like `--dump-feed`.

Usage: feedparser-pass.py FILE...   (run with the benchmark venv's python)
Prints "entries=N" to stderr; exits 1 if a file raised.
"""
import sys

import feedparser


def main():
    entries, failed = 0, 0
    for path in sys.argv[1:]:
        with open(path, "rb") as fh:
            data = fh.read()
        try:
            entries += len(feedparser.parse(data).entries)
        except Exception as exc:  # a crash in the peer is reported, not fatal to the benchmark
            print(f"{path}: {exc!r}", file=sys.stderr)
            failed = 1
    print(f"entries={entries}", file=sys.stderr)
    return failed


if __name__ == "__main__":
    sys.exit(main())
