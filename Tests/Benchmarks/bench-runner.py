#!/usr/bin/env python3
"""Times `pulse-ingest --dump-feed` against its baselines and prints the tables (stdlib only).

Called by feed-parse.sh, which installs the tools, generates the corpus and compiles the C loop.
Every tool parses the same files in one process per run (startup included for all of them);
runs are interleaved round-robin so machine load drifts hit every tool alike, and the median
wall time of each is reported. The median CPU time (user+sys of the child) is shown beside it
because the 2-core machine is shared and wall time is the noisier of the two.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

GROUPS = ["rss20", "atom", "rss10", "fixtures"]
GOAL_LIBXML2 = 0.5
GOAL_FEEDPARSER = 30.0
GOAL_GOFEED = 3.0
GOAL_STARTUP_MS = 5.0
STARTUP_RUNS = 40


def run_once(cmd):
    """Wall seconds, CPU seconds and exit status of one run (output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


class Tool:
    def __init__(self, name, argv, runs, must_succeed=True):
        self.name, self.argv, self.runs, self.must_succeed = name, argv, runs, must_succeed


def measure(tools, files, strict, warm=True):
    """{tool name: (median wall, median cpu, last exit code)}; round-robin over the tools."""
    samples = {t.name: [] for t in tools}
    codes = {}
    if warm:
        for t in tools:
            if t.runs > 1:  # the expensive peer gets no warm-up run; files are cached by then
                run_once(t.argv + files)
    for r in range(max(t.runs for t in tools)):
        for t in tools:
            if r >= t.runs:
                continue
            wall, cpu, code = run_once(t.argv + files)
            codes[t.name] = code
            if code < 0 or (strict and t.must_succeed and code != 0):
                sys.exit(f"bench: {t.name} exited {code} on {len(files)} files "
                         f"(reproduce: {' '.join(t.argv)} {' '.join(files[:3])} ...)")
            samples[t.name].append((wall, cpu))
    return {n: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s), codes[n])
            for n, s in samples.items()}


def dump(binary, files):
    """Parsed JSON lines of one --dump-feed run over files (one line per file)."""
    proc = subprocess.run([binary, "--dump-feed", *files], capture_output=True, text=True)
    lines = [json.loads(l) for l in proc.stdout.splitlines() if l.strip()]
    return proc.returncode, lines, proc.stderr


def peak_rss_kb(cmd):
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    return (int(m.group(1)) if m else None), proc.returncode


def select_fixtures(binary, fixture_dir, problems):
    """Fixtures that --dump-feed parses without error, with their item counts."""
    chosen = []
    if not os.path.isdir(fixture_dir):
        return chosen
    for name in sorted(os.listdir(fixture_dir)):
        if not name.endswith((".xml", ".rdf")):
            continue
        path = os.path.join(fixture_dir, name)
        code, lines, err = dump(binary, [path])
        if code < 0:
            problems.append(f"--dump-feed crashed (signal {-code}) on {path}")
            continue
        if code != 0 or not lines or "error" in lines[0]:
            continue
        doc = lines[0]
        chosen.append((path, len(doc["items"]) + len(doc["dropped"]), doc.get("recovered", False)))
    return chosen


def check_counts(binary, files, expected, group, problems):
    """Every generated item must come out as an item or a listed drop, with no error line."""
    code, lines, err = dump(binary, files)
    if code != 0 or len(lines) != len(files):
        problems.append(f"{group}: --dump-feed exited {code} with {len(lines)} lines for {len(files)} files "
                        f"(stderr: {err.strip()[:200]})")
    for path, doc, want in zip(files, lines, expected):
        if "error" in doc:
            problems.append(f"{group}: {path}: {doc['error']}")
        elif want <= 500 and len(doc["items"]) + len(doc["dropped"]) != want:
            problems.append(f"{group}: {path}: {len(doc['items'])} items + {len(doc['dropped'])} dropped, "
                            f"generated {want}")
        elif doc["dropped"] and want <= 500:
            problems.append(f"{group}: {path}: dropped {doc['dropped'][:2]}")


def startup_table(args):
    """Process start to exit on one small feed, and the modes that touch no database."""
    small = min((os.path.join(args.fixtures, n) for n in os.listdir(args.fixtures) if n.endswith(".xml")),
                key=os.path.getsize)
    rows = [("pulse-ingest --dump-feed small", [args.binary, "--dump-feed", small]),
            ("pulse-ingest --help", [args.binary, "--help"]),
            ("pulse-ingest --check-config", [args.binary, "--check-config", "--config", args.config]),
            ("gofeed, whole process, small", [args.gofeed, small]),
            ("/bin/true (process floor)", ["/bin/true"])]
    walls = {name: [] for name, _ in rows}
    for _ in range(STARTUP_RUNS):  # round-robin, as in measure()
        for name, cmd in rows:
            walls[name].append(run_once(cmd)[0] * 1000)
    print(f"\nStart-up, exec to exit (median of {STARTUP_RUNS}; goal <= {GOAL_STARTUP_MS:.0f} ms); small = {small}")
    gofeed = statistics.median(walls["gofeed, whole process, small"])
    for name, _ in rows:
        ms = statistics.median(walls[name])
        goal = f"  {'MET' if ms <= GOAL_STARTUP_MS else 'NOT MET'}" if name.startswith("pulse-ingest") else ""
        print(f"  {name:<32}{ms:>8.2f} ms  {ms / gofeed:>5.2f}x gofeed{goal}")


def fmt_rate(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.2f}" if v < 10 else f"{v:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--cloop", required=True)
    ap.add_argument("--xmllint", required=True)
    ap.add_argument("--feedparser-python", required=True)
    ap.add_argument("--gofeed", required=True, help="the gofeed peer binary (gofeed-pass.go)")
    ap.add_argument("--config", required=True, help="feeds.yaml, for the --check-config start-up row")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--fp-runs", type=int, default=3)
    ap.add_argument("--fp-large", action="store_true", help="also time feedparser on the large feed")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    t0 = time.perf_counter()
    problems = []

    groups = {g: [] for g in GROUPS + ["large"]}
    with open(os.path.join(args.corpus, "manifest.tsv")) as fh:
        next(fh)
        for line in fh:
            group, rel, _fmt, size, items = line.rstrip("\n").split("\t")
            groups[group].append((os.path.join(args.corpus, rel), int(items), False))
    groups["fixtures"] = select_fixtures(args.binary, args.fixtures, problems)
    for g in ["rss20", "atom", "rss10", "large"]:
        check_counts(args.binary, [p for p, _, _ in groups[g]], [n for _, n, _ in groups[g]], g, problems)

    fp = [args.feedparser_python, os.path.join(here, "feedparser-pass.py")]
    pulse = Tool("pulse-ingest", [args.binary, "--dump-feed"], args.runs)
    tools = [pulse,
             Tool("libxml2 C loop", [args.cloop], args.runs),
             Tool("libxml2 C loop+touch", [args.cloop, "--touch"], args.runs),
             Tool("xmllint --stream", [args.xmllint, "--stream", "--noout", "--nonet"], args.runs),
             Tool("gofeed", [args.gofeed], args.runs),
             Tool("feedparser", fp, args.fp_runs)]

    results = {}
    for g in GROUPS + ["large"]:
        files = [p for p, _, _ in groups[g]]
        if not files:
            continue
        group_tools = tools if (g != "large" or args.fp_large) else tools[:-1]
        # Fixtures include deliberately malformed documents the baselines may reject.
        results[g] = measure(group_tools, files, strict=(g != "fixtures"))
        print(f"bench: timed {g} ({len(files)} files) at {time.perf_counter() - t0:.0f} s", file=sys.stderr)

    sizes = {g: sum(os.path.getsize(p) for p, _, _ in fs) for g, fs in groups.items()}
    items = {g: sum(n for _, n, _ in fs) for g, fs in groups.items()}

    print()
    print("Feed parsing throughput (median of runs; pulse-ingest runs=%d, feedparser runs=%d)" % (args.runs, args.fp_runs))
    print(f"{'group':<9}{'files':>6}{'MB':>8}{'items':>7}  {'tool':<22}{'wall s':>8}{'cpu s':>8}{'MB/s':>9}{'items/s':>10}")
    rows = list(results.items())
    for g, res in rows:
        mb = sizes[g] / 1e6
        first = True
        for name, (wall, cpu, code) in res.items():
            lead = f"{g:<9}{len(groups[g]):>6}{mb:>8.2f}{items[g]:>7}" if first else " " * 30
            note = f"  (exit {code})" if code else ""
            print(f"{lead}  {name:<22}{wall:>8.3f}{cpu:>8.3f}{fmt_rate(mb / wall):>9}{fmt_rate(items[g] / wall):>10}{note}")
            first = False

    # Totals over the three generated formats (the fixtures are tiny and startup-dominated).
    gen = [g for g in ["rss20", "atom", "rss10"] if g in results]
    total = {name: (sum(results[g][name][0] for g in gen), sum(results[g][name][1] for g in gen))
             for name in results[gen[0]]} if gen else {}

    print()
    print(f"Ratios of pulse-ingest throughput (goals: >= {GOAL_LIBXML2} of libxml2, >= {GOAL_GOFEED:.0f}x gofeed, "
          f">= {GOAL_FEEDPARSER:.0f}x feedparser)")
    print(f"{'group':<11}{'vs C loop':>11}{'vs C+touch':>12}{'vs xmllint':>12}{'vs gofeed':>11}{'vs feedparser':>15}   "
          f"{'(cpu: C loop, feedparser)':>26}")

    def ratio_row(label, res):
        pw, pc = res["pulse-ingest"][:2]
        cells = []
        for name in ["libxml2 C loop", "libxml2 C loop+touch", "xmllint --stream", "gofeed", "feedparser"]:
            cells.append(f"{res[name][0] / pw:.2f}" if name in res else "-")
        cpu = f"{res['libxml2 C loop'][1] / pc:.2f}, " + (f"{res['feedparser'][1] / pc:.1f}x" if "feedparser" in res else "-")
        gfx, fpx = [(c + "x") if c != "-" else "-" for c in cells[3:5]]
        print(f"{label:<11}{cells[0]:>11}{cells[1]:>12}{cells[2]:>12}{gfx:>11}{fpx:>15}   {cpu:>26}")

    for g, res in rows:
        ratio_row(g, res)
    if total:
        ratio_row("generated", total)
        pw = total["pulse-ingest"][0]
        loop, gfr, fpr = (total[n][0] / pw for n in ["libxml2 C loop", "gofeed", "feedparser"])
        print(f"\nGoal vs libxml2 C loop (generated corpus): {loop:.2f} {'MET' if loop >= GOAL_LIBXML2 else 'NOT MET'} "
              f"(>= {GOAL_LIBXML2});  vs gofeed: {gfr:.1f}x {'MET' if gfr >= GOAL_GOFEED else 'NOT MET'} "
              f"(>= {GOAL_GOFEED:.0f}x);  vs feedparser: {fpr:.1f}x {'MET' if fpr >= GOAL_FEEDPARSER else 'NOT MET'} "
              f"(>= {GOAL_FEEDPARSER:.0f}x)")

    startup_table(args)

    if groups["large"]:
        path = groups["large"][0][0]
        print(f"\nPeak RSS on one {sizes['large'] / 2**20:.1f} MiB feed ({items['large']} items): {path}")
        for name, cmd in [("pulse-ingest --dump-feed", [args.binary, "--dump-feed", path]),
                          ("libxml2 C loop", [args.cloop, path]),
                          ("xmllint --stream", [args.xmllint, "--stream", "--noout", "--nonet", path])]:
            kb, code = peak_rss_kb(cmd)
            print(f"  {name:<26}{(kb or 0) / 1024:>8.1f} MiB" + (f"  (exit {code})" if code else ""))

    # Slow cases: the biggest feeds one by one, ratio against the C loop (startup is small there).
    big = sorted((p for g in ["rss20", "atom", "rss10"] for p, _, _ in groups[g] if os.path.getsize(p) >= 500_000),
                 key=os.path.getsize)
    if big:
        print("\nPer-feed ratio vs libxml2 C loop (feeds >= 500 kB, median of 3):")
        per = []
        for p in big:
            res = measure([Tool("p", pulse.argv, 3), Tool("c", [args.cloop], 3)], [p], strict=True, warm=False)
            per.append((res["c"][0] / res["p"][0], p, res["p"][0], os.path.getsize(p)))
        for ratio, p, wall, size in sorted(per):
            print(f"  {ratio:5.2f}  {size / 1e6:6.2f} MB  {size / 1e6 / wall:7.1f} MB/s  {os.path.relpath(p, args.corpus)}")

    if groups["fixtures"]:
        rec = [os.path.basename(p) for p, _, r in groups["fixtures"] if r]
        print(f"\nFixtures used ({len(groups['fixtures'])}, recovered ones marked *): " +
              " ".join(os.path.basename(p) + ("*" if os.path.basename(p) in rec else "") for p, _, _ in groups["fixtures"]))
    print("\nProblems seen in --dump-feed: " + ("none" if not problems else ""))
    for p in problems:
        print("  - " + p)
    print(f"\nbench: done in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
