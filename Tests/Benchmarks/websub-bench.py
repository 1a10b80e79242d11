#!/usr/bin/env python3
"""`make bench-websub`: push-to-row latency of the real service on loopback.

A hub of our own (this script) serves one feed that names it, verifies intent against the
service's callback like a WebSub hub, then pushes N signed Atom documents of one new entry each,
one after another. Latency is the article row's created_at (its insert transaction) minus the
moment the push was sent, same clock. Then the feed is polled with some of the pushed entries in it:
each must still be stored exactly once. Prints; never a timed test.
"""
import argparse, hashlib, hmac, http.server, json, os, signal, socket, subprocess, sys, threading, time
import urllib.parse, urllib.request
from datetime import datetime, timezone

HUB_HOST = "hub.bench.example"
FEED_HOST = "feeds.bench.example"


def psql(url, sql):
    return subprocess.run(["psql", url, "-X", "-q", "-A", "-t", "-c", sql], check=True, capture_output=True,
                          text=True).stdout.strip()


def atom(hub, topic, entries):
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    items = "".join(f"<entry><title>Bench story {n}</title><id>urn:bench:{n}</id>"
                    f"<link href=\"https://news.bench.example/story/{n}\"/><updated>{now}</updated></entry>"
                    for n in entries)
    return (f"<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Bench</title>"
            f"<link rel=\"hub\" href=\"{hub}\"/><link rel=\"self\" href=\"{topic}\"/>{items}</feed>").encode()


class Hub:
    def __init__(self, port):
        self.port = port
        self.secret = None
        self.callback = None
        self.verified = threading.Event()
        self.feed_entries = [0]
        self.hub_url = f"http://{HUB_HOST}:{port}/hub"
        self.topic = f"http://{FEED_HOST}:{port}/feeds/bench.xml"
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                body = atom(hub.hub_url, hub.topic, hub.feed_entries)
                self.send_response(200)
                self.send_header("Content-Type", "application/atom+xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                form = urllib.parse.parse_qs(self.rfile.read(length).decode())
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                threading.Thread(target=hub.verify, args=({k: v[0] for k, v in form.items()},)).start()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def verify(self, form):
        if form.get("hub.mode") != "subscribe":
            return
        challenge = os.urandom(12).hex()
        query = urllib.parse.urlencode({"hub.mode": "subscribe", "hub.topic": form["hub.topic"],
                                        "hub.challenge": challenge, "hub.lease_seconds": form.get("hub.lease_seconds", "864000")})
        with urllib.request.urlopen(form["hub.callback"] + "?" + query, timeout=10) as reply:
            if reply.status == 200 and reply.read().decode() == challenge:
                self.secret, self.callback = form["hub.secret"], form["hub.callback"]
                self.verified.set()

    def push(self, conn, n):
        body = atom(self.hub_url, self.topic, [n])
        signature = "sha256=" + hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
        path = urllib.parse.urlsplit(self.callback).path
        sent = time.time()
        conn.request("POST", path, body=body, headers={
            "Content-Type": "application/atom+xml", "X-Hub-Signature": signature,
            "Link": f"<{self.hub_url}>; rel=\"hub\", <{self.topic}>; rel=\"self\""})
        reply = conn.getresponse()
        reply.read()
        return sent, reply.status


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def arguments(pushes):
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--pushes", type=int, default=pushes)
    return parser.parse_args()


def prepare(args, log_level):
    """The hub, the service's listen port, a feeds.yaml with WebSub on and one source `bench` on
    the hub's feed, the service's environment (hub and feed names pinned to loopback); migrated."""
    hub_port, listen_port = free_port(), free_port()
    hub = Hub(hub_port)
    config = os.path.join(args.work, "feeds.yaml")
    with open(config, "w") as f:
        f.write(f"""version: 1
enrichment: {{ enabled: false }}
websub: {{ enabled: true, callback_url: "http://127.0.0.1:{listen_port}/websub", listen: "127.0.0.1:{listen_port}", lease_seconds: 864000, allow_http_hubs: true }}
sources:
  - {{ slug: bench, name: Bench, feed_url: "{hub.topic}", category: world, language: en }}
""")
    env = dict(os.environ, DATABASE_URL=args.database_url, PULSE_RESOLVE=f"{HUB_HOST}:{hub_port}:127.0.0.1,{FEED_HOST}:{hub_port}:127.0.0.1",
               PULSE_ALLOW_NETWORKS="127.0.0.1/32", PULSE_LOG_LEVEL=log_level)
    subprocess.run([args.binary, "--migrate", "--config", config, "--allow-networks", "127.0.0.0/8"], env=env, check=True, capture_output=True)
    return hub, listen_port, config, env


def main():
    args = arguments(1000)
    import http.client

    hub, listen_port, config, env = prepare(args, "warning")
    log = open(os.path.join(args.work, "service.log"), "w")
    service = subprocess.Popen([args.binary, "--config", config], env=env, stdout=log, stderr=log)
    try:
        started = time.time()
        if not hub.verified.wait(120):
            sys.exit("bench: the service never subscribed (see %s)" % log.name)
        print(f"subscribed and verified {time.time() - started:.2f} s after start")
        conn = http.client.HTTPConnection("127.0.0.1", listen_port, timeout=10)
        sent = {}
        for n in range(1, args.pushes + 1):
            sent[n], status = hub.push(conn, n)
            if status != 202:
                sys.exit(f"bench: push {n} answered {status}")
        deadline = time.time() + 120
        url = args.database_url
        while time.time() < deadline:
            if int(psql(url, "SELECT count(*) FROM public.articles WHERE url LIKE 'https://news.bench.example/story/%'")) > args.pushes:
                break
            time.sleep(0.2)
        rows = psql(url, "SELECT url, extract(epoch FROM created_at) FROM public.articles "
                         "WHERE url LIKE 'https://news.bench.example/story/%'").splitlines()
        latencies = []
        for row in rows:
            link, created = row.split("|")
            n = int(link.rsplit("/", 1)[1])
            if n in sent:
                latencies.append(float(created) - sent[n])
        print(f"pushes: {args.pushes}, rows from pushes: {len(latencies)}")
        print(f"push-to-row latency: p50 {percentile(latencies, 50) * 1000:.1f} ms, "
              f"p99 {percentile(latencies, 99) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms")
        # Pushed and polled: the feed now lists 50 pushed entries; a poll must store none again.
        hub.feed_entries = [0] + list(range(1, 51))
        before = psql(url, "SELECT last_fetched_at FROM public.sources WHERE slug = 'bench'")
        psql(url, "UPDATE public.sources SET next_due_at = now() WHERE slug = 'bench'")
        while psql(url, "SELECT last_fetched_at FROM public.sources WHERE slug = 'bench'") == before and time.time() < deadline:
            time.sleep(0.2)
        dupes = psql(url, "SELECT count(*) FROM (SELECT url FROM public.articles GROUP BY url HAVING count(*) > 1) d")
        total = psql(url, "SELECT count(*) FROM public.articles")
        print(f"after a poll listing 50 pushed entries: {total} rows ({args.pushes + 1} expected), {dupes} stored twice")
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(30)
        hub.server.shutdown()


if __name__ == "__main__":
    main()
