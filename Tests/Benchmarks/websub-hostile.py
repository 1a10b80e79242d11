#!/usr/bin/env python3
"""`make bench-websub` (second part): the real service's callback under the attacks of issue 47.

1. flood: 12 POSTs of 16 MiB at once to the subscription's real callback (token known, signature
   bogus), while signed pushes keep coming: the service's peak RSS (VmHWM) and whether it kept
   storing.
2. burst: 1,500 signed pushes sent 50 at a time: every push answered 2xx must be stored.
3. crash: kill -9 one second into a 1,500-push burst; the feed lists the burst's last 200 items
   (the service reads at most fetch.max_items_per_feed, 500, of a feed); restart: seconds until
   every listed item is stored, and how many acknowledged pushes were stored.
Uses the bench's loopback hub (websub-bench.py). Prints; never a timed test.
"""
import http.client, importlib.util, os, signal, subprocess, sys, threading, time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("websub_bench", os.path.join(here, "websub-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
STORY = "https://news.bench.example/story/%"


def vm(pid, key):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) // 1024
    return 0


def stored(url, numbers=None):
    rows = bench.psql(url, f"SELECT url FROM public.articles WHERE url LIKE '{STORY}'").splitlines()
    found = {int(r.rsplit("/", 1)[1]) for r in rows}
    return found if numbers is None else found & set(numbers)


def push_one(hub, port, n):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        _, status = hub.push(conn, n)
        conn.close()
        return n, status
    except OSError:
        return n, None


def bogus_post(hub, port, size, results):
    path = urllib.parse.urlsplit(hub.callback).path
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.putrequest("POST", path)
        conn.putheader("Content-Type", "application/atom+xml")
        conn.putheader("X-Hub-Signature", "sha256=" + "00" * 32)
        conn.putheader("Content-Length", str(size))
        conn.endheaders()
        chunk = b"x" * 65536
        for _ in range(size // len(chunk)):
            conn.send(chunk)
        results.append(conn.getresponse().status)
    except OSError as error:
        results.append(type(error).__name__)


class Service:
    def __init__(self, binary, config, env, work):
        self.args = [binary, "--config", config]
        self.env, self.work, self.process = env, work, None

    def start(self, name):
        log = open(os.path.join(self.work, name + ".log"), "w")
        self.process = subprocess.Popen(self.args, env=self.env, stdout=log, stderr=log)
        return self.process


def wait_for(predicate, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


def main():
    args = bench.arguments(1500)
    url = args.database_url
    # The feed body limit is 16 MiB by default: the flood's bodies are read up to it.
    hub, listen_port, config, env = bench.prepare(args, "info")
    service = Service(args.binary, config, env, args.work)
    process = service.start("service-1")
    try:
        if not hub.verified.wait(120):
            sys.exit("bench: the service never subscribed")
        next_n = 1

        # 1. flood
        idle_rss = vm(process.pid, "VmRSS")
        results = []
        threads = [threading.Thread(target=bogus_post, args=(hub, listen_port, 16 << 20, results)) for _ in range(12)]
        for t in threads:
            t.start()
        during = []
        while any(t.is_alive() for t in threads):
            n, status = push_one(hub, listen_port, next_n)
            during.append((n, status))
            next_n += 1
            time.sleep(0.05)
        for t in threads:
            t.join()
        acked = [n for n, s in during if s == 202]
        wait_for(lambda: len(stored(url, acked)) == len(acked), 60)
        print(f"flood: 12 x 16 MiB bogus POSTs answered {sorted(map(str, results))}; "
              f"RSS idle {idle_rss} MB, peak (VmHWM) {vm(process.pid, 'VmHWM')} MB; "
              f"signed pushes meanwhile: {len(acked)} of {len(during)} answered 202, {len(stored(url, acked))} stored")

        # 2. burst, 50 at a time
        numbers = list(range(next_n, next_n + args.pushes))
        next_n += args.pushes
        with ThreadPoolExecutor(50) as pool:
            answers = list(pool.map(lambda n: push_one(hub, listen_port, n), numbers))
        acked = [n for n, s in answers if s is not None and 200 <= s < 300]
        wait_for(lambda: len(stored(url, acked)) == len(acked), 120)
        statuses = {}
        for _, s in answers:
            statuses[s] = statuses.get(s, 0) + 1
        print(f"burst: {args.pushes} pushes 50 at a time: answers {statuses}; "
              f"acknowledged and stored {len(stored(url, acked))} of {len(acked)}")

        # 3. kill -9 one second into a burst; the feed lists its last 200 items
        numbers = list(range(next_n, next_n + args.pushes))
        listed = numbers[-200:]
        hub.feed_entries = [0] + listed
        pool = ThreadPoolExecutor(50)
        futures = [pool.submit(push_one, hub, listen_port, n) for n in numbers]
        time.sleep(1)
        process.send_signal(signal.SIGKILL)
        process.wait()
        pool.shutdown(wait=True)
        acked = [f.result()[0] for f in futures if f.result()[1] == 202]
        before = len(stored(url, numbers))
        restarted = time.time()
        process = service.start("service-2")
        complete = wait_for(lambda: len(stored(url, listed)) == len(listed), 180)
        took = time.time() - restarted
        print(f"crash: killed 1 s into {args.pushes} pushes ({len(acked)} acknowledged, {before} stored at the kill); "
              f"after the restart the feed's {len(listed)} items all stored: {complete}, {took:.1f} s after it; "
              f"acknowledged pushes stored {len(stored(url, acked))} of {len(acked)} "
              f"(the others were never listed by the feed)")
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(30)
        hub.server.shutdown()


if __name__ == "__main__":
    main()
