#!/usr/bin/env python3
"""Article-body quality on the three shared labelled sets, side by side with the peers (stdlib
only; prints, never asserts):

- extraction-dev (../shared/data/extraction-dev, 555 pages, 2006-2013): token 4-shingle F1;
- readability-js (../shared/data/extraction-news-dev/readability-js, Readability.js's 130 test
  pages and the text of its expected output): the same shingle F1;
- modern (../shared/data/extraction-news-dev/modern, 491 pages, 2019-2026): trafilatura's segment
  measure, as that set's README defines it (below).

The shingle measure and the peers' runs are extraction-dev.py's (imported, not repeated). The
segment measure: whitespace runs to one space, trimmed, in the output and in each segment; a `with`
segment found as a substring of the output is a true positive, else a false negative; a `without`
segment found is a false positive, else a true negative; counts pooled over the pages:
P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN), accuracy = (TP+TN)/all.

Every set is also searched for notice bodies: an output that is short and speaks of cookies,
consent, privacy, subscribing or logging in is counted (and listed) as a notice returned as the body.

  article-sets.py [--binary BIN] [--shared DIR] [--python VENV_PYTHON] [--peer-cache DIR]
                  [--losses N] [--sets NAME ...] [--save FILE] [--compare FILE] [--out DIR]
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("extraction_dev", os.path.join(HERE, "extraction-dev.py"))
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)

SPACE = re.compile(r"\s+")
# A notice speaks of these (the sources' languages); a short output that does is a notice body.
NOTICE = re.compile(
    r"\b(?:cookie|consent|datenschutz|einwillig|zustimm|privacy|privacidad|privacidade|confidentialit|"
    r"prywatno|zgod[ay]|subscri|abonn|newsletter|suscr|assin|iscriv|inschrijv|registr|log ?in|"
    r"sign ?in|anmelden|connexion|zaloguj|iniciar sesi|accedi|inloggen|akzeptier|accept|aceptar|"
    r"accetta|akceptuj|accepteer|aceitar|netiquette|kommentier)", re.I)
NOTICE_MAXIMUM_WORDS = 120


def norm(text):
    return SPACE.sub(" ", text).strip()


def is_notice(text):
    """Short and mostly about cookies, consent, subscribing or logging in."""
    words = dev.TOKEN.findall(text)
    if not words or len(words) > NOTICE_MAXIMUM_WORDS:
        return False
    return len(NOTICE.findall(text)) >= 2


class ShingleSet:
    measure = "4-shingle F1 of mean P, R"

    def __init__(self, name, folder):
        self.name, self.folder = name, folder
        self.pages = dev.load_pages(folder, None)
        self.truth = {p: dev.read(os.path.join(folder, "truth", p + ".txt")) for p, _ in self.pages}

    def page_score(self, page, text):
        return dev.score(text, self.truth[page])

    def total(self, scores):
        f, p, r = dev.summary(scores)
        return {"F1": f, "P": p, "R": r}

    def page_f1(self, score):
        return dev.f1(score)


class SegmentSet:
    measure = "segment F1, pooled counts"

    def __init__(self, name, folder):
        self.name, self.folder = name, folder
        self.pages = dev.load_pages(folder, None)
        self.expect = {}
        with open(os.path.join(folder, "expect.jsonl"), encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    self.expect[row["id"]] = ([norm(s) for s in row["with"]], [norm(s) for s in row["without"]])

    def page_score(self, page, text):
        """(TP, FN, FP, TN) of one page."""
        got = norm(text)
        with_, without = self.expect[page]
        tp = sum(1 for s in with_ if got and s in got)
        fp = sum(1 for s in without if got and s in got)
        return (tp, len(with_) - tp, fp, len(without) - fp)

    def total(self, scores):
        tp, fn, fp, tn = (sum(s[i] for s in scores.values()) for i in range(4))
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        return {"F1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0, "P": p, "R": r,
                "acc": (tp + tn) / max(1, tp + fn + fp + tn)}

    def page_f1(self, score):
        tp, fn, fp, _ = score
        return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def main():
    root = os.path.dirname(os.path.dirname(HERE))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.environ.get("PULSE_BIN", os.path.join(root, ".build", "release", "pulse-ingest")))
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared", "data"))
    ap.add_argument("--python", help="a python with trafilatura and readability-lxml (the peers)")
    ap.add_argument("--peer-cache", default="/tmp/article-sets-peers")
    ap.add_argument("--losses", type=int, default=10, help="pages per set listed where we lose most to the best peer")
    ap.add_argument("--sets", nargs="*", default=["extraction-dev", "readability-js", "modern"])
    ap.add_argument("--save", help="write our per-page scores as JSON")
    ap.add_argument("--compare", help="a --save file of an earlier run: print what moved")
    ap.add_argument("--out", help="keep our texts in OUT/<set>/ (default: a temporary folder)")
    args = ap.parse_args()
    binary = os.path.realpath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"article-sets: no binary at {binary}")
    folders = {"extraction-dev": (ShingleSet, "extraction-dev"),
               "readability-js": (ShingleSet, "extraction-news-dev/readability-js"),
               "modern": (SegmentSet, "extraction-news-dev/modern")}
    work = args.out or tempfile.mkdtemp(prefix="article-sets-")
    saved, rows, losses, notices = {}, [], [], []
    for name in args.sets:
        kind, sub = folders[name]
        folder = os.path.realpath(os.path.join(args.shared, sub))
        if not os.path.exists(os.path.join(folder, "pages.tsv")):
            print(f"article-sets: no {name} at {folder}: skipped", file=sys.stderr)
            continue
        labelled = kind(name, folder)
        out = os.path.join(work, name)
        os.makedirs(out, exist_ok=True)
        seconds = dev.run_ours(binary, folder, labelled.pages, out)
        texts = {"pulse-ingest": {p: dev.read(os.path.join(out, p + ".txt")) for p, _ in labelled.pages}}
        if args.python:
            for tool in dev.PEERS:
                got = dev.peer_texts(tool, args.python, HERE, folder, labelled.pages, os.path.join(args.peer_cache, name))
                if got is not None:
                    texts[tool] = got
        scores = {tool: {p: labelled.page_score(p, got[p]) for p, _ in labelled.pages} for tool, got in texts.items()}
        for tool, got in texts.items():
            empty = sum(1 for p, _ in labelled.pages if not dev.TOKEN.search(got[p]))
            noticed = [p for p, _ in labelled.pages if is_notice(got[p])]
            rows.append((name, len(labelled.pages), labelled.measure, tool, labelled.total(scores[tool]), empty, len(noticed),
                         seconds if tool == "pulse-ingest" else None))
            if tool == "pulse-ingest":
                notices += [(name, p, norm(got[p])[:110]) for p in noticed]
        ours = scores["pulse-ingest"]
        saved[name] = ours
        peers = [t for t in texts if t != "pulse-ingest"]
        if peers:
            def gap(page):
                best = max(peers, key=lambda t: labelled.page_f1(scores[t][page]))
                return labelled.page_f1(ours[page]) - labelled.page_f1(scores[best][page]), best
            lost = sorted((gap(p) + (p,) for p, _ in labelled.pages), key=lambda g: g[0])
            losses.append((name, [(d, best, p, labelled.page_f1(ours[p]), len(dev.TOKEN.findall(texts["pulse-ingest"][p])))
                                  for d, best, p in lost[:args.losses] if d < 0]))
        if args.compare:
            with open(args.compare, encoding="utf-8") as fh:
                before = json.load(fh).get(name, {})
            common = {p: tuple(v) for p, v in before.items() if p in ours}
            if common:
                b, a = labelled.total(common), labelled.total({p: ours[p] for p in common})
                moved = sorted(((labelled.page_f1(ours[p]) - labelled.page_f1(common[p]), p) for p in common), key=lambda m: m[0])
                down = [m for m in moved if m[0] < -0.005]
                up = [m for m in moved if m[0] > 0.005]
                print(f"{name}: F1 {b['F1']:.4f} -> {a['F1']:.4f}  P {b['P']:.4f} -> {a['P']:.4f}  R {b['R']:.4f} -> {a['R']:.4f}; "
                      f"{len(up)} pages up, {len(down)} down")
                for delta, page in down[:12] + up[::-1][:12]:
                    print(f"    {page:<40}{delta:+.2f}")
    if not args.out:
        shutil.rmtree(work)

    print(f"\n{'set':<16}{'pages':>6}  {'tool':<18}{'F1':>7}{'P':>7}{'R':>7}{'empty':>7}{'notice':>7}   measure")
    for name, count, measure, tool, total, empty, noticed, seconds in rows:
        extra = f"   {measure}" + (f"; {seconds:.1f} s wall" if seconds is not None else "")
        print(f"{name:<16}{count:>6}  {tool:<18}{total['F1']:>7.3f}{total['P']:>7.3f}{total['R']:>7.3f}{empty:>7}{noticed:>7}{extra if tool == 'pulse-ingest' else ''}")
    for name, rows_lost in losses:
        print(f"\n{name}: pages lost to the best peer (page F1 ours - peer's; our words)")
        for delta, best, page, ours_f1, words in rows_lost:
            print(f"  {page:<40}{ours_f1:>6.2f}{delta:>+7.2f}  {best:<17}{words:>7}")
    print(f"\nNotice bodies (short outputs about cookies, consent, subscribing, logging in): {len(notices)}")
    for name, page, text in notices:
        print(f"  {name}/{page}: {text}")
    if args.save:
        with open(args.save, "w", encoding="utf-8") as fh:
            json.dump(saved, fh)


if __name__ == "__main__":
    main()
