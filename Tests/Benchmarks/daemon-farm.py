#!/usr/bin/env python3
"""Daemon throughput on a loopback feed farm, against a plain COPY of the same rows (stdlib only).

Called by daemon-farm.sh (which builds nothing and starts PostgreSQL); prints, never asserts.
  1. Starts feed-farm.py (N feeds x M items, some slow, some failing, ETags) and a fresh database.
  2. `--migrate` with the farm's config, then the service (`pulse-ingest`, no mode flag) with
     `--allow-networks 127.0.0.0/8`, enrichment off (the farm's article links are not fetchable).
  3. Cycle 1 (cold): until every feed was requested and the row count is stable: sources/s,
     articles/s, CPU seconds per 1,000 articles (utime+stime of the daemon from /proc).
  4. Idle: steady RSS (VmRSS) with every source scheduled; peak RSS (VmHWM).
  5. Cycle 2 (warm): a share of the feeds publish new items, every source is made due; the rest
     answer 304.
  6. Ceiling: the rows the daemon stored, exported, then COPY'd into public.articles emptied by
     TRUNCATE: a plain COPY into articles, with the indexes, checks and foreign keys the daemon's
     rows go through. Until 2026-11-26 the ceiling was an empty LIKE-copy, which has no foreign
     keys and took 6-15% less time than a COPY into articles; it is printed too.
"""
import argparse
import json
import math
import os
import signal
import subprocess
import sys
import time
import urllib.request


def psql(url, sql, *extra):
    result = subprocess.run(["psql", url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql, *extra],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench: psql failed: {result.stderr.strip()} (SQL: {sql[:120]})")
    return result.stdout.strip()


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def rss_kb(pid, key):
    return int(proc_status(pid)[key].split()[0])


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        parts = stat.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def saturation(spans, capacity):
    """When a host had all `capacity` connections busy, from (start, end) request spans: the first
    and last such instant, and the connection-seconds left unused before, between and after them."""
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    busy, first_full, last_full = 0, None, None
    for instant, step in events:
        if step < 0 and busy >= capacity:
            last_full = instant
        busy += step
        if busy >= capacity and first_full is None:
            first_full = instant
    if first_full is None:
        return None

    def used(lo, hi):
        return sum(max(0.0, min(end, hi) - max(start, lo)) for start, end in spans)

    first, last = min(start for start, _ in spans), max(end for _, end in spans)
    return {"first": first, "last": last, "full_from": first_full, "full_until": last_full,
            "idle_before": capacity * (first_full - first) - used(first, first_full),
            "idle_between": capacity * (last_full - first_full) - used(first_full, last_full),
            "idle_after": capacity * (last - last_full) - used(last_full, last)}


def farm_stats(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/control/stats", timeout=5) as response:
        return json.load(response)


def farm_post(port, path):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST", data=b"")
    with urllib.request.urlopen(request, timeout=5) as response:
        body = response.read()
        return json.loads(body) if body else {}


class ChangeWatch:
    """One psql session that reads the newest `created_at` (an index lookup) on request.

    The watch must not compete with the daemon for the 2 cores: a psql process and a new backend
    four times a second, each counting a table that grows to 50 MB, took about a tenth of the
    machine during the cold cycle. Rows are counted once, after the cycle."""

    def __init__(self, url):
        self.process = subprocess.Popen(["psql", url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def newest(self):
        self.process.stdin.write("SELECT coalesce(max(created_at)::text, '-') FROM public.articles;\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            sys.exit("bench: the watching psql session ended")
        return line.strip()

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def wait_cycle(args, url, pid, started_rows, timeout):
    """Waits until every feed was requested and no row has been stored for 1.5 s.

    The cycle ends at the later of the last new row and the moment the last feed was first
    requested (a warm cycle's rows settle long before its last 304)."""
    deadline = time.monotonic() + timeout
    watch = ChangeWatch(url)
    try:
        last_newest, changed_at, all_seen_at = None, None, None
        while time.monotonic() < deadline:
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                sys.exit("bench: the daemon exited during the cycle (see the log above)")
            stats = farm_stats(args.farm_port)
            newest = watch.newest()
            now = time.monotonic()
            if newest != last_newest:
                changed_at, last_newest = now, newest
            if all_seen_at is None and stats["distinct_feeds"] >= args.feeds:
                all_seen_at = now
            if all_seen_at is not None and now - changed_at >= 1.5:
                rows = int(psql(url, "SELECT count(*) FROM public.articles"))
                return rows - started_rows, stats, max(changed_at, all_seen_at)
            time.sleep(0.25)
    finally:
        watch.close()
    sys.exit(f"bench: cycle not finished within {timeout} s "
             f"({farm_stats(args.farm_port)['distinct_feeds']}/{args.feeds} feeds requested)")


def run_cycle(name, args, url, daemon, rows_before):
    cpu_before = cpu_seconds(daemon.pid)
    status_before = farm_stats(args.farm_port)["by_status"]
    start = time.monotonic()
    inserted, stats, finished = wait_cycle(args, url, daemon.pid, rows_before, args.timeout)
    wall = finished - start
    cpu = cpu_seconds(daemon.pid) - cpu_before
    stats["by_status"] = {code: count - status_before.get(code, 0) for code, count in stats["by_status"].items()}
    return {"name": name, "wall": wall, "cpu": cpu, "inserted": inserted, "stats": stats}


def export_rows(url, folder):
    """The stored rows as a COPY file, and the column list it holds (generated columns left out)."""
    dump = os.path.join(folder, "articles.copy")
    columns = psql(url, """
        SELECT string_agg(quote_ident(column_name), ',' ORDER BY ordinal_position)
        FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = 'articles' AND is_generated = 'NEVER'
        """)
    psql(url, f"\\copy (SELECT {columns} FROM public.articles) TO '{dump}'")
    return dump, columns


def copy_ceiling(url, dump, columns, rows_expected, table):
    """Seconds to COPY the exported rows into `table`, emptied first (median of 3).

    `public.articles` is the ceiling: the same indexes, generated column, checks and foreign keys
    the daemon's rows go through (the bench's database is a scratch one, so its rows may go).
    `like` is an empty LIKE-copy of it, which LIKE ... INCLUDING ALL makes without the two foreign
    keys: this bench's ceiling until 2026-11-26, printed so older results stay comparable."""
    times = []
    for _ in range(3):
        if table == "like":
            psql(url, "DROP SCHEMA IF EXISTS bench_copy CASCADE; CREATE SCHEMA bench_copy; "
                      "CREATE TABLE bench_copy.articles (LIKE public.articles INCLUDING ALL)")
            target = "bench_copy.articles"
        else:
            psql(url, "TRUNCATE public.articles")
            target = "public.articles"
        start = time.monotonic()
        psql(url, f"\\copy {target} ({columns}) FROM '{dump}'")
        times.append(time.monotonic() - start)
        copied = int(psql(url, f"SELECT count(*) FROM {target}"))
        if copied != rows_expected:
            sys.exit(f"bench: COPY stored {copied} rows in {target}, expected {rows_expected}")
    if table == "like":
        psql(url, "DROP SCHEMA bench_copy CASCADE")
    return sorted(times)[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--feeds", type=int, default=2000)
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--farm-port", type=int, default=18080)
    parser.add_argument("--slow-placement", choices=("spread", "stride"), default="spread")
    parser.add_argument("--metrics-port", type=int, default=19464)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--idle-seconds", type=float, default=20)
    parser.add_argument("--advance-share", type=float, default=0.2)
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    os.makedirs(args.work, exist_ok=True)
    config = os.path.join(args.work, "farm.yaml")
    url = args.database_url

    farm = subprocess.Popen([sys.executable, os.path.join(here, "feed-farm.py"), "--port", str(args.farm_port),
                             "--feeds", str(args.feeds), "--items", str(args.items), "--hosts", str(args.hosts),
                             "--slow-placement", args.slow_placement, "--config-out", config],
                            stdout=subprocess.PIPE, text=True)
    daemon = None
    try:
        print(farm.stdout.readline().strip(), file=sys.stderr)
        env = dict(os.environ, DATABASE_URL=url)
        subprocess.run([args.binary, "--migrate", "--config", config, "--allow-networks", "127.0.0.0/8", "--log-level", "warning"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        log = open(os.path.join(args.work, "daemon.log"), "w")
        daemon = subprocess.Popen([args.binary, "--config", config, "--allow-networks", "127.0.0.0/8",
                                   "--metrics-address", f"127.0.0.1:{args.metrics_port}", "--log-level", "warning"],
                                  env=env, stdout=log, stderr=log)
        launched = time.time()
        cold = run_cycle("cold", args, url, daemon, 0)
        first, last = (float(v) for v in psql(url, "SELECT extract(epoch FROM min(created_at)), "
                                                   "extract(epoch FROM max(created_at)) FROM public.articles").split("|"))
        cold["rows_span"] = (first - launched, last - launched)
        # The last rows wait on the farm's deliberately slow feeds (a 2 s stall each), not on the
        # daemon: the rate up to the 99th-percentile row is printed beside the whole span.
        p99 = float(psql(url, "SELECT extract(epoch FROM percentile_disc(0.99) WITHIN GROUP (ORDER BY created_at)) "
                              "FROM public.articles"))
        cold["bulk_rate"] = 0.99 * cold["inserted"] / max(p99 - first, 0.001)
        rows_after_cold = cold["inserted"]
        peak_after_cold = rss_kb(daemon.pid, "VmHWM")
        time.sleep(args.idle_seconds)
        steady = rss_kb(daemon.pid, "VmRSS")

        changed = farm_post(args.farm_port, f"/control/advance?share={args.advance_share}")["changed"]
        farm_post(args.farm_port, "/control/mark")
        psql(url, "UPDATE public.sources SET next_due_at = now() WHERE is_active")
        daemon.send_signal(signal.SIGHUP)   # reload = wake now, instead of at the next idle poll
        warm = run_cycle("warm", args, url, daemon, rows_after_cold)
        peak = rss_kb(daemon.pid, "VmHWM")
        scheduled = int(psql(url, "SELECT count(*) FROM public.sources WHERE is_active AND next_due_at > now()"))
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
        total_rows = int(psql(url, "SELECT count(*) FROM public.articles"))
        dump, columns = export_rows(url, args.work)
        copy_bytes = os.path.getsize(dump)
        copy_seconds_like = copy_ceiling(url, dump, columns, total_rows, "like")
        copy_seconds = copy_ceiling(url, dump, columns, total_rows, "public.articles")
    finally:
        if daemon and daemon.poll() is None:
            daemon.kill()
        farm.terminate()
        farm.wait()

    copy_rate = total_rows / copy_seconds
    print(f"\nDaemon on a loopback farm: {args.feeds} feeds x {args.items} items on {args.hosts} hosts "
          f"({cold['stats']['failing']} failing, {cold['stats']['slow']} slow, placed {args.slow_placement}), enrichment off, "
          f"binary {args.binary}")
    print(f"{'cycle':<6} {'wall s':>7} {'sources/s':>10} {'articles':>9} {'articles/s':>11} "
          f"{'CPU s/1k art':>13} {'HTTP 200/304/500':>17}")
    for cycle in (cold, warm):
        by = cycle["stats"]["by_status"]
        per_k = cycle["cpu"] / (cycle["inserted"] / 1000) if cycle["inserted"] else float("nan")
        print(f"{cycle['name']:<6} {cycle['wall']:>7.1f} {args.feeds / cycle['wall']:>10.1f} {cycle['inserted']:>9} "
              f"{cycle['inserted'] / cycle['wall']:>11.0f} {per_k:>13.3f} "
              f"{by.get('200', 0):>7}/{by.get('304', 0)}/{by.get('500', 0)}")
    print(f"cold cycle: first row stored {cold['rows_span'][0]:.1f} s after the daemon started (source sync, "
          f"first fetches), last row at {cold['rows_span'][1]:.1f} s; inserting took "
          f"{cold['rows_span'][1] - cold['rows_span'][0]:.1f} s = "
          f"{cold['inserted'] / max(cold['rows_span'][1] - cold['rows_span'][0], 0.001):.0f} rows/s")
    print(f"warm cycle: {changed} feeds published 5 new items each; the rest could answer 304 "
          f"(HTTP counts include retries of the failing feeds)")
    print(f"RSS: peak {peak / 1024:.1f} MB (after the cold cycle {peak_after_cold / 1024:.1f} MB), "
          f"steady {steady / 1024:.1f} MB idle with {scheduled} sources scheduled (goal <= 64 MB)")
    print(f"COPY ceiling: {total_rows} rows ({copy_bytes / 1e6:.1f} MB) in {copy_seconds:.2f} s = "
          f"{copy_rate:.0f} rows/s into public.articles, emptied (its indexes, checks and foreign keys)")
    cold_rate = cold["inserted"] / cold["wall"]
    print(f"  (into an empty LIKE-copy without the foreign keys, this bench's ceiling before 2026-11-26: "
          f"{copy_seconds_like:.2f} s, cold-cycle ratio {cold_rate / (total_rows / copy_seconds_like):.3f})")
    ratio = cold_rate / copy_rate
    print(f"ratio: cold-cycle articles/s / COPY rows/s = {ratio:.3f} (goal >= 0.5)")
    print(f"bulk: {cold['bulk_rate']:.0f} rows/s from the first row to the 99th-percentile row = "
          f"{cold['bulk_rate'] / copy_rate:.3f} of COPY (the last 1% wait on the farm's stalled feeds)")
    # The farm's own lower bound on the cold cycle: a host's stalling feeds each hold one of its
    # max_per_host connections for slow_seconds, whatever the daemon does, so that host needs
    # ceil(slow / max_per_host) * slow_seconds from the first request on.
    stats = cold["stats"]
    if stats.get("slow_by_host") and stats.get("first_request_at"):
        host, slow = max(stats["slow_by_host"].items(), key=lambda item: item[1])
        stall = math.ceil(slow / stats["max_per_host"]) * stats["slow_seconds"]
        floor = stats["first_request_at"] - launched + stall
        print(f"farm floor: {host} serves {slow} of the {stats['slow']} stalling feeds ({stats['slow_seconds']:.1f} s each); "
              f"at max_per_host {stats['max_per_host']} they take >= {stall:.1f} s from the first request "
              f"({stats['first_request_at'] - launched:.1f} s after launch), so the cold cycle cannot end before "
              f"{floor:.1f} s: ratio <= {cold['inserted'] / floor / copy_rate:.3f} of COPY however fast rows are stored")
        # Which feeds stall is not known ahead, so the one requested last ends the cycle no earlier
        # than its stall does, however early every other row was stored.
        if stats.get("last_stall_at"):
            tail = stats["last_stall_at"] - launched + stats["slow_seconds"]
            print(f"last stall: the last stalling feed was requested {stats['last_stall_at'] - launched:.1f} s after launch, "
                  f"so the cold cycle cannot end before {tail:.1f} s: ratio <= {cold['inserted'] / tail / copy_rate:.3f} "
                  f"of COPY in this run")
        # The same bound with every request that host answered, as the farm timed it (its normal
        # feeds too, generated by this Python farm on the machine the daemon and PostgreSQL share).
        busy = stats.get("busy_by_host", {}).get(host)
        if busy:
            served = stats["first_request_at"] - launched + busy / stats["max_per_host"]
            print(f"farm floor with service times: {host} was busy {busy:.1f} s answering its feeds in the cold "
                  f"cycle; at max_per_host {stats['max_per_host']} it cannot have finished before {served:.1f} s: "
                  f"ratio <= {cold['inserted'] / served / copy_rate:.3f} of COPY in this run")
        # Where the cycle's time over that bound goes: the watched host's connections unused before
        # they were first all busy (its feeds come up in slug order, no faster than the farm serves
        # the rest), in between (the configured politeness spaces request starts to one host; its
        # normal feeds are answered in about 1 ms, so a freed connection waits out the spacing) and
        # after they last were (its last stalls end one by one: which feeds stall is not known
        # ahead, so they cannot be started first).
        spans = stats.get("watched_spans") if stats.get("watched_host") == host else None
        window = saturation(spans, stats["max_per_host"]) if spans else None
        if window:
            capacity = stats["max_per_host"]
            rps = stats.get("per_host_rps") or 0
            spacing = (f"request starts to one host are spaced {1000 / rps:.0f} ms apart by the config's "
                       f"per_host_requests_per_second" if rps > 0 else "the gaps between one answer and the next request")
            print(f"{host}'s connections: all {capacity} busy from {window['full_from'] - launched:.1f} s to "
                  f"{window['full_until'] - launched:.1f} s (in between, {window['idle_between'] / capacity:.1f} s of "
                  f"the {capacity} went unused: {spacing}); unused before that {window['idle_before'] / capacity:.1f} s, "
                  f"after it {window['idle_after'] / capacity:.1f} s; its last feed was answered at "
                  f"{window['last'] - launched:.1f} s")


if __name__ == "__main__":
    main()
