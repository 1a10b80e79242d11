#!/usr/bin/env python3
"""A loopback feed farm for `make bench` (daemon throughput) and `make demo` (stdlib only).

Serves N RSS feeds of M items each from several loopback addresses (127.0.0.1 .. 127.0.0.H, one
port), so the daemon's per-host politeness sees H hosts as it would on the internet. Every feed
has an ETag and answers a matching If-None-Match with 304. A few feeds are slow (they stall before
answering) and a few always fail with 500. POST /control/advance makes a share of the feeds publish
new items (a new ETag), so a second cycle sees a realistic mix of 304s and 200s.

Article links point at `*.farm.pulse-bench.example` names: the feed parser stores only links that
look public (never a loopback or private IP literal). By default nothing fetches them (the
generated config turns enrichment off). With --articles the links are http://aH.farm.pulse-bench.example
on the farm's port, the farm serves those pages (og:image, a body of paragraphs) and writes the
PULSE_RESOLVE pins that send those names to its loopback addresses (--resolve-out), and the
generated config turns enrichment on: `make demo` runs that way.

  feed-farm.py --port 18080 --feeds 2000 --items 30 --hosts 20 --config-out farm.yaml

Control (any host): GET /control/stats (JSON counters), POST /control/mark (reset the "distinct
feeds requested" and "requested more than once" sets), POST /control/advance?share=0.2&new=5.
--delay-min/--delay-max make every feed answer after a realistic delay (`make bench-scale`).
"""
import argparse
import datetime
import hashlib
import json
import random
import threading
import time
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

WORDS = ("council budget transit harbour storm vaccine election market rail strike museum energy "
         "climate court school river festival league bridge housing data science health farm").split()


def slow_feeds(feeds, hosts, every, placement):
    """The feeds that stall: one in `every`, placed on the hosts as `placement` says.

    "stride" takes every Nth feed. Feeds sit on hosts round-robin, so when N is a multiple of the
    host count (the defaults: 100 and 20) every stalling feed lands on one host, and that host's
    max_per_host connections alone set the cold cycle (20 stalls of 2 s, 4 at a time: 10 s).
    "spread" (the default since 2026-11-27) moves the k-th of them k % hosts places back, so they
    fall on different hosts, as slow publishers do on the internet; the count is the same."""
    if not every:
        return set()
    if placement == "stride" or every == 1:
        return set(range(every, feeds + 1, every))
    return {k * every - k % hosts for k in range(1, feeds // every + 1)}


class Farm:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.generation = [0] * (args.feeds + 1)   # per feed: bumped by /control/advance
        self.cache = {}                            # (feed, generation) -> bytes
        self.requests = 0
        self.by_status = {}
        self.distinct = set()
        self.repeated = set()   # feeds requested more than once since the last /control/mark
        self.now = datetime.datetime.now(datetime.timezone.utc)
        self.slow = slow_feeds(args.feeds, args.hosts, args.slow_every, args.slow_placement)
        self.failing = {n for n in range(1, args.feeds + 1) if args.fail_every and n % args.fail_every == 7}
        self.slow_by_host = {}
        for n in self.slow:
            self.slow_by_host[self.host_of(n)] = self.slow_by_host.get(self.host_of(n), 0) + 1
        self.first_request_at = None   # epoch seconds of the first feed request (for the cycle floor)
        # Seconds each host spent answering feed requests (stalls included): with max_per_host
        # connections, a host cannot finish before busy / max_per_host after its first request.
        self.busy_by_host = {}
        # Each request to the host with the most stalling feeds, until the first /control/mark
        # (the cold cycle): (start, end) in epoch seconds, so the bench can show when that host had
        # every connection busy and how much of its capacity went unused before and after. At most
        # one span per feed, so a farm that is never marked (`make demo`) does not grow.
        self.watched_host = max(self.slow_by_host.items(), key=lambda item: item[1])[0] if self.slow_by_host else None
        self.watched_spans = []
        self.last_stall_at = None   # epoch seconds the last stalling request of the cold cycle began
        self.marked = False

    def host_of(self, feed):
        return f"127.0.0.{(feed - 1) % self.args.hosts + 1}"

    def article_host(self, feed):
        return f"a{(feed - 1) % self.args.hosts + 1}.farm.pulse-bench.example"

    def article_url(self, feed, item):
        if self.args.articles:
            return f"http://{self.article_host(feed)}:{self.args.port}/story/{feed}-{item}"
        return f"https://n{feed}.farm.pulse-bench.example/story/{feed}-{item}"

    def article_page(self, feed, item):
        rng = random.Random(feed * 104729 + item)
        title = " ".join(rng.choice(WORDS) for _ in range(8)).capitalize()
        paragraphs = "".join(
            "<p>" + " ".join(rng.choice(WORDS) for _ in range(60)).capitalize() + ".</p>" for _ in range(6))
        return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>"
                f"<meta property=\"og:image\" content=\"https://img.farm.pulse-bench.example/{feed}/{item}-large.jpg\">"
                f"</head><body><nav><a href=\"/\">Farm</a></nav><article><h1>{title}</h1>{paragraphs}</article>"
                "<footer>Farm news</footer></body></html>").encode()

    def feed_body(self, feed):
        generation = self.generation[feed]
        key = (feed, generation)
        body = self.cache.get(key)
        if body is not None:
            return body, generation
        rng = random.Random(feed * 7919 + generation)
        newest = self.args.items + generation * self.args.new_items
        items = []
        for item in range(newest, newest - self.args.items, -1):
            words = [rng.choice(WORDS) for _ in range(8)]
            title = " ".join(words).capitalize()
            published = self.now - datetime.timedelta(minutes=37 * (newest - item) + feed % 60)
            summary = " ".join(rng.choice(WORDS) for _ in range(45))
            items.append(
                f"<item><title>{title} ({feed}-{item})</title>"
                f"<link>{self.article_url(feed, item)}</link>"
                f"<guid isPermaLink=\"false\">farm-{feed}-{item}</guid>"
                f"<pubDate>{format_datetime(published, usegmt=True)}</pubDate>"
                f"<dc:creator>Reporter {rng.randint(1, 40)}</dc:creator>"
                f"<description>&lt;p&gt;{summary.capitalize()}.&lt;/p&gt;</description>"
                f"<media:thumbnail url=\"https://img.farm.pulse-bench.example/{feed}/{item}.jpg\"/>"
                "</item>")
        body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" "
                "xmlns:media=\"http://search.yahoo.com/mrss/\"><channel>"
                f"<title>Farm feed {feed}</title><link>https://n{feed}.farm.pulse-bench.example/</link>"
                "<description>Generated</description>" + "".join(items) + "</channel></rss>").encode()
        self.cache[key] = body
        return body, generation

    def count(self, status, feed=None):
        with self.lock:
            self.requests += 1
            self.by_status[status] = self.by_status.get(status, 0) + 1
            if feed is not None:
                if feed in self.distinct:
                    self.repeated.add(feed)
                self.distinct.add(feed)


def make_handler(farm):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # TCP_NODELAY, as web servers set it on keep-alive connections: http.server writes the
        # headers and the body separately, and with Nagle the body waited for the client's delayed
        # ACK, 40 ms on every response after a connection's first (curl: 2 ms for the first request,
        # 44 ms for each reused one). That charged every keep-alive client 40 ms per fetch.
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

        def reply(self, status, body=b"", content_type="text/plain", headers=()):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            if body and self.command != "HEAD":
                self.wfile.write(body)

        def do_GET(self):
            url = urlparse(self.path)
            parts = url.path.strip("/").split("/")
            if parts[0] == "feeds" and len(parts) == 2 and parts[1].endswith(".xml"):
                return self.feed(int(parts[1][:-4]))
            if farm.args.articles and parts[0] == "story" and len(parts) == 2:
                feed, _, item = parts[1].partition("-")
                if feed.isdigit() and item.isdigit():
                    farm.count("page")
                    return self.reply(200, farm.article_page(int(feed), int(item)), "text/html; charset=utf-8")
            if url.path == "/control/stats":
                with farm.lock:
                    stats = {"requests": farm.requests, "by_status": farm.by_status,
                             "distinct_feeds": len(farm.distinct), "repeated_feeds": len(farm.repeated),
                             "feeds": farm.args.feeds,
                             "failing": len(farm.failing), "slow": len(farm.slow),
                             "slow_by_host": farm.slow_by_host, "slow_seconds": farm.args.slow_seconds,
                             "max_per_host": min(farm.args.per_host, farm.args.concurrency),
                             "first_request_at": farm.first_request_at,
                             "busy_by_host": {host: round(busy, 4) for host, busy in farm.busy_by_host.items()},
                             "watched_host": farm.watched_host, "watched_spans": farm.watched_spans,
                             "per_host_rps": farm.args.per_host_rps, "last_stall_at": farm.last_stall_at}
                return self.reply(200, json.dumps(stats).encode(), "application/json")
            self.reply(404, b"not found")

        def do_POST(self):
            url = urlparse(self.path)
            if url.path == "/control/mark":
                with farm.lock:
                    farm.distinct.clear()
                    farm.repeated.clear()
                    farm.marked = True
                return self.reply(204)
            if url.path == "/control/advance":
                query = parse_qs(url.query)
                share = float(query.get("share", ["0.2"])[0])
                rng = random.Random(int(time.time()))
                changed = 0
                with farm.lock:
                    for feed in range(1, farm.args.feeds + 1):
                        if rng.random() < share:
                            farm.generation[feed] += 1
                            changed += 1
                return self.reply(200, json.dumps({"changed": changed}).encode(), "application/json")
            self.reply(404, b"not found")

        def feed(self, feed):
            started = time.monotonic()
            started_epoch = time.time()
            try:
                self.answer_feed(feed)
            finally:
                host = self.server.server_address[0]
                with farm.lock:
                    farm.busy_by_host[host] = farm.busy_by_host.get(host, 0.0) + time.monotonic() - started
                    if host == farm.watched_host and not farm.marked and len(farm.watched_spans) < farm.args.feeds:
                        farm.watched_spans.append((started_epoch, time.time()))

        def answer_feed(self, feed):
            with farm.lock:
                if farm.first_request_at is None:
                    farm.first_request_at = time.time()
            if not 1 <= feed <= farm.args.feeds:
                farm.count(404)
                return self.reply(404, b"no such feed")
            if farm.args.delay_max > 0:
                # A realistic answer time: every feed takes between --delay-min and --delay-max.
                time.sleep(random.uniform(farm.args.delay_min, farm.args.delay_max))
            if feed in farm.slow:
                with farm.lock:
                    if not farm.marked:   # the cold cycle: when its last stall began
                        farm.last_stall_at = max(farm.last_stall_at or 0.0, time.time())
                time.sleep(farm.args.slow_seconds)
            if feed in farm.failing:
                farm.count(500, feed)
                return self.reply(500, b"upstream exploded")
            with farm.lock:
                body, generation = farm.feed_body(feed)
            etag = f"\"farm-{feed}-{generation}\""
            if self.headers.get("If-None-Match") == etag:
                farm.count(304, feed)
                return self.reply(304, headers=[("ETag", etag)])
            farm.count(200, feed)
            self.reply(200, body, "application/rss+xml; charset=utf-8", [("ETag", etag)])

    return Handler


def write_config(farm, path):
    args = farm.args
    lines = [
        "# Generated by Tests/Benchmarks/feed-farm.py: a loopback farm, not real sources.",
        "version: 1",
        "fetch:",
        f"  max_concurrent_fetches: {args.concurrency}",
        f"  max_per_host: {min(args.per_host, args.concurrency)}",
        f"  per_host_requests_per_second: {args.per_host_rps}",
        "  total_timeout_seconds: 30",
        "enrichment:",
        f"  enabled: {'true' if args.articles else 'false'}",
        "sources:",
    ]
    for feed in range(1, args.feeds + 1):
        lines += [
            f"  - slug: farm-{feed:05d}",
            f"    name: Farm feed {feed}",
            f"    feed_url: http://{farm.host_of(feed)}:{args.port}/feeds/{feed}.xml",
            f"    category: {('world', 'technology', 'business', 'science')[feed % 4]}",
            f"    language: {('en', 'pt', 'es')[feed % 3]}",
        ]
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--feeds", type=int, default=2000)
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--new-items", type=int, default=5, help="items a feed publishes per /control/advance")
    parser.add_argument("--hosts", type=int, default=20, help="loopback addresses 127.0.0.1..127.0.0.H")
    parser.add_argument("--slow-every", type=int, default=100, help="one feed in N stalls (0: none; where: --slow-placement)")
    parser.add_argument("--slow-seconds", type=float, default=2.0)
    parser.add_argument("--slow-placement", choices=("spread", "stride"), default="spread",
                        help="spread: the stalling feeds fall on different hosts; stride: every Nth feed, "
                             "which puts them all on one host when N is a multiple of --hosts")
    parser.add_argument("--fail-every", type=int, default=50, help="feeds with N %% this == 7 answer 500 (0: none)")
    parser.add_argument("--delay-min", type=float, default=0.0, help="every feed answers after a uniform delay (seconds)")
    parser.add_argument("--delay-max", type=float, default=0.0, help="... of at most this many seconds (0: no delay)")
    parser.add_argument("--config-out", help="write a feeds.yaml for the farm here")
    parser.add_argument("--concurrency", type=int, default=32, help="fetch.max_concurrent_fetches in the config")
    parser.add_argument("--per-host", type=int, default=4, help="fetch.max_per_host in the config")
    parser.add_argument("--per-host-rps", type=float, default=50, help="fetch.per_host_requests_per_second")
    parser.add_argument("--articles", action="store_true", help="serve article pages; enrichment on in the config")
    parser.add_argument("--resolve-out", help="with --articles: write the PULSE_RESOLVE value here")
    args = parser.parse_args()
    if not 1 <= args.hosts <= 254:
        parser.error("--hosts must be 1..254")
    farm = Farm(args)
    if args.config_out:
        write_config(farm, args.config_out)
    if args.articles and args.resolve_out:
        pins = [f"a{h}.farm.pulse-bench.example:{args.port}:127.0.0.{h}" for h in range(1, args.hosts + 1)]
        with open(args.resolve_out, "w") as out:
            out.write(",".join(pins))
    handler = make_handler(farm)
    servers = []
    for host in range(1, args.hosts + 1):
        ThreadingHTTPServer.request_queue_size = 256
        server = ThreadingHTTPServer((f"127.0.0.{host}", args.port), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    print(f"feed-farm: {args.feeds} feeds x {args.items} items on 127.0.0.1-{args.hosts}:{args.port} "
          f"({len(farm.slow)} slow, {len(farm.failing)} failing)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        for server in servers:
            server.shutdown()


if __name__ == "__main__":
    main()
