#!/usr/bin/env python3
"""`make bench-scale`: 100,000 sources in one PostgreSQL, 1, 2 and 4 daemons (stdlib only).

The feed farm (feed-farm.py) answers every feed after 200-2,000 ms (uniform), from 100 loopback
hosts; 60% of the sources hold the farm's current ETag (a 304 unless the feed moved on), 10% of
the feeds publish new items. Each run resets the schedule (every source due now), starts N
daemons (service mode, 32 fetches each), lets them run for --seconds, and prints:
sources fetched per second, the claim's mean and max (pg_stat_statements keeps no percentiles:
the max bounds the p99), the slowest per-pass statement on `sources` by mean, PostgreSQL CPU per
fetched source (the cluster's processes, from /proc), each daemon's peak RSS, and double fetches
(feeds the farm served twice in the run: must be 0). Not a test: it prints.

Then (--million, default 1,000,000) the catalogue grows by SQL, as an import writes sources (never
fetched: all due at once), and one daemon runs again. For the one-daemon runs at both sizes it
prints beside each other: the claim's mean, the fleet gauges' cost per interval (computed once per
15 s for the whole fleet), the start statements (the sync's count of unlisted sources and its
compare) and the stop statement (the lease release) from pg_stat_statements, the default
`--status` wall time and `--status --all --json` streamed into a pipe (rows, seconds, peak RSS).

How it is scaled to finish in under 10 minutes on 2 cores: one timed window per daemon count
(--seconds, default 60) instead of whole cycles over the 100,000 sources (a cycle at 4 daemons
would take about 15 minutes); the window is long enough for hundreds of claims per daemon.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request


def psql(url, sql):
    return subprocess.run(["psql", url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def farm_get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return json.loads(response.read() or b"{}")


def farm_post(port, path):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST", data=b"")
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
        return json.loads(body) if body else {}


def cluster_cpu(postmaster):
    """User + system seconds of the postmaster and its live children (backends, walwriter...)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if pid == str(postmaster) or fields[1] == str(postmaster):
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def reset(url, farm_port):
    psql(url, """
        UPDATE public.sources SET next_due_at = NULL, last_fetched_at = NULL, claimed_by = NULL,
               lease_until = NULL, consecutive_failures = 0, circuit_open_until = NULL
        WHERE slug LIKE 'scale-%' AND (last_fetched_at IS NOT NULL OR next_due_at IS NOT NULL OR claimed_by IS NOT NULL
              OR consecutive_failures <> 0 OR circuit_open_until IS NOT NULL)""")
    psql(url, "TRUNCATE public.fetch_logs")
    psql(url, "VACUUM ANALYZE public.sources")
    psql(url, "SELECT pg_stat_statements_reset()")
    farm_post(farm_port, "/control/mark")


def table_counters(url):
    """Updates, HOT updates and dead tuples of `sources` so far (the statistics collector's view)."""
    row = psql(url, """SELECT n_tup_upd, n_tup_hot_upd, n_dead_tup FROM pg_stat_user_tables
                       WHERE relname = 'sources'""").split("|")
    return [int(value) for value in row]


def statement(url, pattern):
    """Calls, mean and max ms of the statements whose text is LIKE `pattern` (ours, constant)."""
    row = psql(url, f"""
        SELECT coalesce(sum(calls), 0), coalesce(round((sum(total_exec_time) / nullif(sum(calls), 0))::numeric, 3), 0),
               coalesce(round(max(max_exec_time)::numeric, 2), 0)
        FROM pg_stat_statements WHERE query LIKE '{pattern}'""").split("|")
    return int(row[0]), float(row[1]), float(row[2])


def statuses(args, url, config):
    """Default `--status` wall time (median of 3 runs, the process's start included), and
    `--status --all --json` streamed into a pipe: rows, seconds, the process's peak RSS (MB)."""
    environment = dict(os.environ, DATABASE_URL=url)
    times = []
    for _ in range(3):
        started = time.monotonic()
        subprocess.run([args.binary, "--status", "--config", config], env=environment, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.monotonic() - started)
    started = time.monotonic()
    process = subprocess.Popen([args.binary, "--status", "--all", "--json", "--config", config], env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = 0
    while chunk := process.stdout.read(1 << 20):
        lines += chunk.count(b"\n")
    rows = max(0, lines - 2)   # "[", a line per row, "]"
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"bench-scale: --status --all --json exited with {process.returncode}")
    return {"status_s": sorted(times)[1], "all_rows": rows, "all_s": time.monotonic() - started,
            "all_rss": usage.ru_maxrss / 1024}


def catalogue(args, url, config):
    """What a one-daemon run cost beyond claims: the fleet gauges per interval (the count, and the
    sample when a count passed the ceiling), the start and stop statements, then --status."""
    counts = statement(url, "%FROM public.source_totals) AS active%")
    sample = statement(url, "%TABLESAMPLE SYSTEM%")
    unlisted = statement(url, "%WHERE slug = ANY ($1::text[])) AS unlisted%")
    compare = statement(url, "%FOR UPDATE OF s%")
    release = statement(url, "UPDATE public.sources SET claimed_by = NULL, lease_until = NULL WHERE claimed_by%")
    stored = psql(url, "SELECT round(compute_ms::numeric, 1) || ' ms by ' || computed_by FROM public.fleet_gauges")
    figures = {"gauge_computations": counts[0],
               "gauges_ms": counts[1] + (sample[1] * sample[0] / counts[0] if counts[0] else 0),
               "gauges_stored": stored or "-", "unlisted_ms": unlisted[1], "compare_ms": compare[1],
               "release_ms": release[1]}
    figures.update(statuses(args, url, config))
    return figures


def run(args, url, daemons_count, postmaster, config):
    reset(url, args.farm_port)
    counters_before = table_counters(url)
    before = farm_get(args.farm_port, "/control/stats")
    cpu_before = cluster_cpu(postmaster)
    environment = dict(os.environ, DATABASE_URL=url)
    environment.pop("NOTIFY_SOCKET", None)
    daemons = []
    for index in range(daemons_count):
        log = open(os.path.join(args.work, f"daemon-{daemons_count}-{index}.log"), "w")
        daemons.append(subprocess.Popen(
            [args.binary, "--config", config, "--allow-networks", "127.0.0.0/8", "--log-level", "warning"],
            env=environment, stdout=subprocess.DEVNULL, stderr=log))
    started = time.monotonic()
    time.sleep(args.seconds)
    elapsed = time.monotonic() - started
    cpu = cluster_cpu(postmaster) - cpu_before
    rss = [peak_rss_mb(daemon.pid) for daemon in daemons]
    stats = farm_get(args.farm_port, "/control/stats")
    fetched = int(psql(url, "SELECT count(*) FROM public.sources WHERE slug LIKE 'scale-%' AND last_fetched_at IS NOT NULL"))
    for daemon in daemons:
        daemon.send_signal(signal.SIGTERM)
    for daemon in daemons:
        try:
            daemon.wait(timeout=40)
        except subprocess.TimeoutExpired:
            daemon.kill()
    time.sleep(1)   # the statistics collector reports at most every 0.5 s
    updates, hot, dead = [after - before for after, before in zip(table_counters(url), counters_before)]
    passes = int(psql(url, "SELECT count(*) FROM public.fetch_logs"))
    claim = psql(url, """
        SELECT coalesce(sum(calls), 0), coalesce(round((sum(total_exec_time) / nullif(sum(calls), 0))::numeric, 3), 0),
               coalesce(round(max(max_exec_time)::numeric, 2), 0)
        FROM pg_stat_statements WHERE query LIKE '%WITH due AS%'""").split("|")
    slowest = psql(url, """
        SELECT round(mean_exec_time::numeric, 3) || ' ms ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 60)
        FROM pg_stat_statements
        WHERE query ~* '(update|from|into)\\s+public\\.sources' AND query NOT LIKE '%WITH due AS%' AND calls > 10
          AND query NOT LIKE 'UPDATE public.sources SET next_due_at = NULL%' AND query NOT LIKE '%AS circuit_open%'
        ORDER BY mean_exec_time DESC LIMIT 1""")
    # The fleet gauges are no per-pass statement: one daemon of the fleet computes them every 15 s
    # (the others read the stored figures); calls of the count, whichever daemon made them.
    calls, mean, _ = statement(url, "%FROM public.source_totals) AS active%")
    gauges = f"{calls} computations, count mean {mean} ms"
    extra = catalogue(args, url, config) if daemons_count == 1 else {}
    return {
        **extra,
        "daemons": daemons_count, "seconds": elapsed, "fetched": fetched, "rate": fetched / elapsed,
        "claims": int(claim[0]), "claim_mean": float(claim[1]), "claim_max": float(claim[2]),
        "slowest": slowest or "-", "gauges": gauges, "pg_cpu_per_source_ms": 1000 * cpu / max(fetched, 1),
        "rss": rss, "double": stats["repeated_feeds"], "updates": updates, "hot": hot, "dead": dead,
        "passes": passes,
        "statuses": {code: count - before["by_status"].get(code, 0) for code, count in stats["by_status"].items()},
    }


def insert_sources(url, args, first, last):
    """Sources `first`..`last` as an import writes them, in statements of 100,000 rows."""
    for start in range(first, last + 1, 100_000):
        psql(url, f"""
            INSERT INTO public.sources (name, slug, feed_url, category_id, language, is_active, etag)
            SELECT 'Scale ' || i, 'scale-' || i,
                   'http://127.0.0.' || ((i - 1) % {args.hosts} + 1) || ':{args.farm_port}/feeds/' || i || '.xml',
                   (SELECT id FROM public.categories WHERE slug = 'world'), 'en', true,
                   CASE WHEN i % 10 < 6 THEN '"farm-' || i || '-0"' END
            FROM generate_series({start}, {min(last, start + 99_999)}) AS i
            ON CONFLICT (slug) DO NOTHING""")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--postmaster", type=int, required=True, help="pid of the cluster's postmaster")
    parser.add_argument("--sources", type=int, default=100_000)
    parser.add_argument("--hosts", type=int, default=100)
    parser.add_argument("--farm-port", type=int, default=18090)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--daemons", default="1,2,4", help="daemon counts at --sources ('' for none)")
    parser.add_argument("--million", type=int, default=1_000_000,
                        help="then grow the catalogue to this many sources and run one daemon (0: skip)")
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    url = args.database_url

    farm = subprocess.Popen([sys.executable, os.path.join(here, "feed-farm.py"), "--port", str(args.farm_port),
                             "--feeds", str(max(args.sources, args.million)), "--items", "3", "--new-items", "2", "--hosts", str(args.hosts),
                             "--slow-every", "0", "--fail-every", "0", "--delay-min", "0.2", "--delay-max", "2.0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        farm.stdout.readline()   # "feed-farm: ..." once it listens
        config = os.path.join(args.work, "scale.yaml")
        with open(config, "w") as out:
            # One listed source: the 100,000 of the catalogue live in the database only, and the
            # sync leaves sources the file does not list alone (prune_unlisted is off).
            out.write(f"""version: 1
fetch:
  max_concurrent_fetches: {args.concurrency}
  max_per_host: 4
  per_host_requests_per_second: 50
  total_timeout_seconds: 30
enrichment:
  enabled: false
sources:
  - slug: scale-listed
    name: Listed
    feed_url: http://127.0.0.1:{args.farm_port}/feeds/1.xml
    category: world
    language: en
""")
        psql(url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        subprocess.run([args.binary, "--migrate", "--config", config, "--allow-networks", "127.0.0.0/8"], env=dict(os.environ, DATABASE_URL=url),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        insert_sources(url, args, 1, args.sources)
        changed = farm_post(args.farm_port, "/control/advance?share=0.1")["changed"]
        print(f"bench-scale: {args.sources:,} sources on {args.hosts} loopback hosts, answers in 0.2-2.0 s, "
              f"60% with a current ETag, {changed:,} feeds with new items; {args.concurrency} fetches per daemon, "
              f"{args.seconds:.0f} s per run")
        results = [run(args, url, int(n), args.postmaster, config) for n in args.daemons.split(",") if n]
        if args.million > args.sources:
            # As an import writes them: never fetched, so all due at once (a backlog of a million).
            started = time.monotonic()
            insert_sources(url, args, args.sources + 1, args.million)
            print(f"bench-scale: {args.million - args.sources:,} more sources inserted in "
                  f"{time.monotonic() - started:.0f} s; one daemon for {args.seconds:.0f} s at {args.million:,}")
            million = run(args, url, 1, args.postmaster, config)
            million["sources"] = args.million
            results.append(million)
    finally:
        farm.terminate()
        farm.wait()

    one = results[0]["rate"] or 1
    print()
    print(f"{'sources':>9} {'daemons':>7} {'fetched/s':>9} {'x one':>6} {'claims':>7} {'claim mean':>10} {'claim max':>9} "
          f"{'PG CPU/source':>13} {'peak RSS (MB)':>16} {'double':>6}")
    for r in results:
        rss = "/".join(f"{value:.0f}" for value in r["rss"])
        print(f"{r.get('sources', args.sources):>9,} {r['daemons']:>7} {r['rate']:>9.1f} {r['rate'] / one:>6.2f} {r['claims']:>7} "
              f"{r['claim_mean']:>8.3f} ms {r['claim_max']:>6.1f} ms {r['pg_cpu_per_source_ms']:>10.3f} ms "
              f"{rss:>16} {r['double']:>6}")
    for r in results:
        print(f"  {r.get('sources', args.sources):,}, {r['daemons']} daemon(s): slowest other statement on sources (mean): {r['slowest']}; "
              f"fleet gauges (once per 15 s for the fleet): {r['gauges']}; farm answers {r['statuses']}")
        print(f"     sources: {r['updates']:,} row updates ({r['updates'] / max(r['fetched'], 1):.1f} per fetch), "
              f"{r['hot']:,} HOT, {r['dead']:,} dead tuples at the end; fetch_logs: {r['passes']:,} rows "
              f"({r['passes'] / max(r['seconds'], 1):.1f}/s)")
    print("  claim p99: pg_stat_statements keeps mean, stddev and max only; the max bounds it.")
    single = [r for r in results if r["daemons"] == 1]
    if single:
        print()
        print("one daemon, by catalogue size (gauges: the fleet's figures once per 15 s; start: the sync's count of")
        print("unlisted sources and its compare; stop: the lease release; --status: median of 3, process start included)")
        print(f"{'sources':>9} {'claim mean':>10} {'gauges':>9} {'start':>15} {'stop':>8} {'--status':>8} "
              f"{'--status --all --json':>32}")
        for r in single:
            size = r.get("sources", args.sources)
            print(f"{size:>9,} {r['claim_mean']:>7.3f} ms {r['gauges_ms']:>6.1f} ms "
                  f"{r['unlisted_ms']:>5.2f} + {r['compare_ms']:>5.2f} ms {r['release_ms']:>5.3f} ms "
                  f"{r['status_s']:>6.2f} s {r['all_rows']:>10,} rows {r['all_s']:>6.1f} s {r['all_rss']:>5.0f} MB")
        for r in single:
            print(f"  {r.get('sources', args.sources):,}: last gauges computed in {r['gauges_stored']}; "
                  f"{r['gauge_computations']} computations in the run")


if __name__ == "__main__":
    main()
