#!/usr/bin/env python3
"""Article-body quality on the labelled development set (../shared/data/extraction-dev): token
4-shingle F1 of `pulse-ingest --dump-article --text`, and of trafilatura and readability-lxml when
a venv with them is given (stdlib only; prints, never asserts).

The measure is the set's own (its README): tokens are the `\\w+` runs of the text, case kept;
shingles are windows of 4 tokens counted as a multiset (a text of under 4 tokens is one shingle);
per page precision = shared / predicted and recall = shared / true (an empty output scores 0 and
0); over the set the mean precision and mean recall, and F1 of those two means.

The pages are read where they are, never copied: the binary gets one list of `PATH<TAB>URL` lines
(`--files-from`) and writes one text per page into a scratch folder, so one process does them all.

  extraction-dev.py [--binary BIN] [--data DIR] [--python VENV_PYTHON] [--losses N]
                    [--save FILE] [--compare FILE] [--only ID ...]

--python runs the peers (peer-extract.py) once and keeps their texts under --peer-cache (default
/tmp/extraction-dev-peers), keyed by the tool's version, so later runs score them from there.
--save writes our per-page scores as JSON; --compare prints what moved against such a file.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOKEN = re.compile(r"\w+")
SHINGLE = 4
PEERS = ["trafilatura", "readability-lxml"]


def shingles(text):
    tokens = TOKEN.findall(text)
    if not tokens:
        return collections.Counter()
    return collections.Counter(" ".join(tokens[i:i + SHINGLE]) for i in range(max(1, len(tokens) - SHINGLE + 1)))


def score(predicted, truth):
    """(precision, recall) of one page."""
    got, want = shingles(predicted), shingles(truth)
    if not got or not want:
        return 0.0, 0.0
    shared = sum((got & want).values())
    return shared / sum(got.values()), shared / sum(want.values())


def summary(scores):
    """F1 of the means, mean P, mean R over a {page: (p, r)} map."""
    if not scores:
        return 0.0, 0.0, 0.0
    p = sum(s[0] for s in scores.values()) / len(scores)
    r = sum(s[1] for s in scores.values()) / len(scores)
    return (2 * p * r / (p + r) if p + r else 0.0), p, r


def f1(pr):
    p, r = pr
    return 2 * p * r / (p + r) if p + r else 0.0


def loss_class(pr, predicted):
    """What went wrong on a page, in the four classes the losses are sorted into."""
    p, r = pr
    if not TOKEN.search(predicted):
        return "empty"
    if p < 0.3 and r < 0.3:
        return "wrong block"
    if p >= r:
        return "partial" if r < 0.8 else "ok"
    return "boilerplate" if p < 0.8 else "ok"


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except FileNotFoundError:
        return ""


def load_pages(data, only):
    pages = []
    with open(os.path.join(data, "pages.tsv"), encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            page, url = line.rstrip("\n").split("\t")[:2]
            if only and page not in only:
                continue
            pages.append((page, url))
    return pages


def run_ours(binary, data, pages, out):
    with tempfile.NamedTemporaryFile("w", suffix=".list", delete=False) as fh:
        for page, url in pages:
            fh.write(f"{os.path.join(data, 'html', page + '.html')}\t{url}\n")
        listing = fh.name
    try:
        start = time.perf_counter()
        proc = subprocess.run([binary, "--dump-article", "--text", "--out-dir", out, "--files-from", listing],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
    finally:
        os.remove(listing)
    if proc.returncode not in (0, 65):
        sys.exit(f"extraction-dev: {binary} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:400]}")
    return seconds


def peer_texts(tool, python, here, data, pages, cache):
    """The peer's text per page, from the cache when it has them all for this tool version."""
    version = subprocess.run([python, "-c", "import importlib.metadata as m, sys; "
                              f"print(m.version({'trafilatura' if tool == 'trafilatura' else 'readability-lxml'!r}))"],
                             capture_output=True, text=True)
    if version.returncode != 0:
        print(f"extraction-dev: no {tool} in {python}", file=sys.stderr)
        return None
    folder = os.path.join(cache, f"{tool}-{version.stdout.strip()}")
    missing = [page for page, _ in pages if not os.path.exists(os.path.join(folder, page + ".txt"))]
    if missing:
        os.makedirs(folder, exist_ok=True)
        print(f"extraction-dev: running {tool} on {len(missing)} pages (cached in {folder})", file=sys.stderr)
        files = [os.path.join(data, "html", page + ".html") for page in missing]
        subprocess.run(["nice", "-n", "19", python, os.path.join(here, "peer-extract.py"), tool, folder, *files],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return {page: read(os.path.join(folder, page + ".txt")) for page, _ in pages}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    default_binary = os.environ.get("PULSE_BIN") or next(
        (b for b in (os.path.join(root, ".build", kind, "pulse-ingest") for kind in ("release", "debug")) if os.path.exists(b)),
        os.path.join(root, ".build", "release", "pulse-ingest"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=default_binary)
    ap.add_argument("--data", default=os.environ.get("EXTRACTION_DEV", os.path.join(root, "..", "shared", "data", "extraction-dev")))
    ap.add_argument("--python", help="a python with trafilatura and readability-lxml (the peers)")
    ap.add_argument("--peer-cache", default="/tmp/extraction-dev-peers")
    ap.add_argument("--losses", type=int, default=25, help="pages listed where we lose most to the best peer (or to the truth)")
    ap.add_argument("--out", help="keep our texts in this folder (default: a temporary one)")
    ap.add_argument("--save", help="write our per-page precision and recall here (JSON)")
    ap.add_argument("--compare", help="a --save file of an earlier run: print the pages that moved")
    ap.add_argument("--only", nargs="*", help="these page ids only")
    args = ap.parse_args()
    data = os.path.realpath(args.data)
    if not os.path.exists(os.path.join(data, "pages.tsv")):
        sys.exit(f"extraction-dev: no pages.tsv in {data}")
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"extraction-dev: no binary at {args.binary}")
    pages = load_pages(data, set(args.only or []))
    truths = {page: read(os.path.join(data, "truth", page + ".txt")) for page, _ in pages}

    out = args.out or tempfile.mkdtemp(prefix="extraction-dev-")
    os.makedirs(out, exist_ok=True)
    seconds = run_ours(os.path.realpath(args.binary), data, pages, out)
    ours = {page: read(os.path.join(out, page + ".txt")) for page, _ in pages}
    if not args.out:
        shutil.rmtree(out)
    texts = {"pulse-ingest": ours}
    if args.python:
        for tool in PEERS:
            got = peer_texts(tool, args.python, here, data, pages, args.peer_cache)
            if got is not None:
                texts[tool] = got
    scores = {tool: {page: score(got[page], truths[page]) for page, _ in pages} for tool, got in texts.items()}

    print(f"Extraction on the development set: {len(pages)} pages ({data}); 4-shingle F1 of the mean P and R")
    print(f"{'tool':<18}{'F1':>7}{'P':>7}{'R':>7}{'empty':>7}")
    for tool, got in texts.items():
        f, p, r = summary(scores[tool])
        empty = sum(1 for page, _ in pages if not TOKEN.search(got[page]) and TOKEN.search(truths[page]))
        print(f"{tool:<18}{f:>7.3f}{p:>7.3f}{r:>7.3f}{empty:>7}")
    print(f"(pulse-ingest: {os.path.realpath(args.binary)}, {seconds:.1f} s wall for all pages)")

    ours_scores = scores["pulse-ingest"]
    classes = collections.Counter()
    lost = collections.defaultdict(float)
    for page, _ in pages:
        kind = loss_class(ours_scores[page], ours[page])
        classes[kind] += 1
        lost[kind] += 1 - f1(ours_scores[page])
    print("\nOur pages by class (F1 lost per page summed; 'ok' is P and R >= 0.8):")
    for kind in ["empty", "wrong block", "partial", "boilerplate", "ok"]:
        print(f"  {kind:<12}{classes[kind]:>5} pages, {lost[kind]:>7.1f} F1 lost")

    if args.losses:
        peers = [t for t in texts if t != "pulse-ingest"]
        def best_peer(page):
            if not peers:
                return None, 1.0
            tool = max(peers, key=lambda t: f1(scores[t][page]))
            return tool, f1(scores[tool][page])
        rows = sorted(pages, key=lambda pu: f1(ours_scores[pu[0]]) - best_peer(pu[0])[1])[:args.losses]
        against = "the best peer" if peers else "the truth"
        print(f"\nPages where we lose most to {against}:")
        print(f"  {'page':<22}{'F1':>6}{'P':>6}{'R':>6}  {'class':<12}{'peer F1':>8}  {'ours/truth words':>17}")
        for page, _ in rows:
            tool, peer = best_peer(page)
            p, r = ours_scores[page]
            words = f"{len(TOKEN.findall(ours[page]))}/{len(TOKEN.findall(truths[page]))}"
            print(f"  {page:<22}{f1((p, r)):>6.2f}{p:>6.2f}{r:>6.2f}  {loss_class((p, r), ours[page]):<12}"
                  f"{peer if tool else float('nan'):>8.2f}  {words:>17}")

    if args.compare:
        with open(args.compare, encoding="utf-8") as fh:
            before = {k: tuple(v) for k, v in json.load(fh).items()}
        moved = [(f1(ours_scores[p]) - f1(before[p]), p) for p, _ in pages if p in before
                 and abs(f1(ours_scores[p]) - f1(before[p])) > 0.005]
        up = sorted((m for m in moved if m[0] > 0), reverse=True)
        down = sorted(m for m in moved if m[0] < 0)
        common = {p: before[p] for p, _ in pages if p in before}
        bf, bp, br = summary(common)
        f, p, r = summary({k: ours_scores[k] for k in common})
        print(f"\nAgainst {args.compare}: F1 {bf:.4f} -> {f:.4f}, P {bp:.4f} -> {p:.4f}, R {br:.4f} -> {r:.4f}; "
              f"{len(up)} pages up (+{sum(m[0] for m in up):.2f}), {len(down)} down ({sum(m[0] for m in down):.2f})")
        for delta, page in up[:15] + down[:15]:
            print(f"  {page:<22}{f1(before[page]):>6.2f} -> {f1(ours_scores[page]):.2f}")
    if args.save:
        with open(args.save, "w", encoding="utf-8") as fh:
            json.dump(ours_scores, fh, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
