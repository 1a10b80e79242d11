#!/usr/bin/python3
"""HTTPS servers on 127.0.0.1 for the TLS tests, with certificates made at run time.

Usage: tls_fixture.py DIR

Makes, with the openssl command line, under DIR (which must exist and be empty):
  three certificate authorities A, B and C (ca_a.pem, ca_b.pem, ca_c.pem); a folder of hashed
  links for A and one for C (dir_a/, dir_c/), as OpenSSL's CAPATH reads them; and system/, a
  stand-in for /etc/ssl/certs whose bundle (ca-certificates.crt) holds B and whose hashed link
  is C's.
Serves one HTTPS server per leaf certificate, each on its own ephemeral port:
  a       127.0.0.1 and localhost, issued by A
  b       127.0.0.1 and localhost, issued by B
  c       127.0.0.1 and localhost, issued by C
  self    127.0.0.1 and localhost, self-signed
  expired 127.0.0.1 and localhost, issued by A, valid only in January 2020
  wrong   wrong-host.example only, issued by A
Every server answers GET /feed.xml (a one-item RSS feed), /page.html (an article page), /echo (the
request head as text) and /redirect?to=URL (302 to URL).

When every server is listening it prints one JSON line (the ports and the files) on standard
output. It exits when standard input reaches its end, so it never outlives the test process that
started it, or on SIGTERM.
"""
import json
import os
import signal
import ssl
import subprocess
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FEED = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Intranet news</title><link>https://intranet.example/</link>
<item><title>Private CA works</title><link>https://intranet.example/news/1</link>
<guid>https://intranet.example/news/1</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate>
<description>Fetched over TLS from a private CA.</description></item>
</channel></rss>
"""

PAGE = b"""<!doctype html><html lang="en"><head><title>Private CA works</title></head><body><article>
<h1>Private CA works</h1>
<p>The intranet's news pages are served over TLS with a certificate from the company's own CA, which the
fetcher trusts because PULSE_CA_FILE names it. Nothing else about the page is special at all.</p>
<p>A second paragraph makes the article long enough for the readability scorer to keep it as the body of
the page, the way a real story with a few paragraphs of text would be kept.</p>
</article></body></html>
"""

LOOPBACK_NAMES = "subjectAltName=DNS:localhost,IP:127.0.0.1"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def new_key_args(key):
    return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key]


def make_ca(name, cwd):
    openssl("req", "-x509", *new_key_args(f"ca_{name}.key"), "-out", f"ca_{name}.pem", "-days", "2",
            "-subj", f"/CN=Pulse test CA {name.upper()}", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=cwd)


def make_leaf(name, ca, names, cwd, dates=None):
    """A leaf issued by `ca` for `names`; `dates` (start, end) uses `openssl ca` for fixed dates."""
    openssl("req", "-new", *new_key_args(f"{name}.key"), "-out", f"{name}.csr", "-subj", f"/CN={name} leaf", cwd=cwd)
    with open(os.path.join(cwd, f"{name}.ext"), "w") as ext:
        ext.write(f"[leaf]\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n{names}\n")
    if dates is None:
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"ca_{ca}.pem", "-CAkey", f"ca_{ca}.key",
                "-CAcreateserial", "-days", "2", "-extfile", f"{name}.ext", "-extensions", "leaf",
                "-out", f"{name}.pem", cwd=cwd)
        return
    # `openssl x509 -req` takes no start date; `openssl ca` does, and wants a small database.
    base = os.path.join(cwd, f"{name}-db")
    os.mkdir(base)
    open(os.path.join(base, "index.txt"), "w").close()
    with open(os.path.join(base, "serial"), "w") as serial:
        serial.write("1000\n")
    with open(os.path.join(base, "ca.cnf"), "w") as config:
        config.write(f"[ca]\ndefault_ca=test\n[test]\ndatabase={base}/index.txt\nnew_certs_dir={base}\n"
                     f"serial={base}/serial\ndefault_md=sha256\npolicy=any\nunique_subject=no\n"
                     "[any]\ncommonName=supplied\n")
    openssl("ca", "-batch", "-config", f"{base}/ca.cnf", "-cert", f"ca_{ca}.pem", "-keyfile", f"ca_{ca}.key",
            "-in", f"{name}.csr", "-out", f"{name}.pem", "-notext", "-startdate", dates[0], "-enddate", dates[1],
            "-extfile", f"{name}.ext", "-extensions", "leaf", cwd=cwd)


def hashed_link(ca_pem, folder, cwd):
    """Copies the CA under the subject-hash name OpenSSL's CAPATH lookup opens (HASH.0)."""
    digest = subprocess.run(["openssl", "x509", "-hash", "-noout", "-in", ca_pem], cwd=cwd, check=True,
                            capture_output=True, text=True).stdout.strip()
    os.makedirs(os.path.join(cwd, folder), exist_ok=True)
    with open(os.path.join(cwd, ca_pem), "rb") as source, open(os.path.join(cwd, folder, f"{digest}.0"), "wb") as out:
        out.write(source.read())


def make_files(cwd):
    for name in ("a", "b", "c"):
        make_ca(name, cwd)
    make_leaf("a", "a", LOOPBACK_NAMES, cwd)
    make_leaf("b", "b", LOOPBACK_NAMES, cwd)
    make_leaf("c", "c", LOOPBACK_NAMES, cwd)
    make_leaf("expired", "a", LOOPBACK_NAMES, cwd, dates=("20200101000000Z", "20200131000000Z"))
    make_leaf("wrong", "a", "subjectAltName=DNS:wrong-host.example", cwd)
    openssl("req", "-x509", *new_key_args("self.key"), "-out", "self.pem", "-days", "2", "-subj", "/CN=self leaf",
            "-addext", LOOPBACK_NAMES, cwd=cwd)
    hashed_link("ca_a.pem", "dir_a", cwd)
    hashed_link("ca_c.pem", "dir_c", cwd)
    hashed_link("ca_c.pem", "system", cwd)
    with open(os.path.join(cwd, "ca_b.pem"), "rb") as source, \
            open(os.path.join(cwd, "system", "ca-certificates.crt"), "wb") as out:
        out.write(source.read())


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/feed.xml":
            self.answer(200, FEED, [("Content-Type", "application/rss+xml")])
        elif url.path == "/page.html":
            self.answer(200, PAGE, [("Content-Type", "text/html; charset=utf-8")])
        elif url.path == "/echo":
            self.answer(200, (self.requestline + "\r\n" + str(self.headers)).encode(), [("Content-Type", "text/plain")])
        elif url.path == "/redirect":
            target = urllib.parse.parse_qs(url.query).get("to", [""])[0]
            self.answer(302, b"", [("Location", target)])
        else:
            self.answer(404, b"not found", [("Content-Type", "text/plain")])

    def answer(self, status, body, headers):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class TLSServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, context):
        super().__init__(("127.0.0.1", 0), Handler)
        self.context = context

    def finish_request(self, request, client_address):
        # The handshake runs on the connection's own thread, so a client that refuses the
        # certificate (what most tests expect) never holds up the accept loop.
        request.settimeout(30)
        try:
            connection = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        self.RequestHandlerClass(connection, client_address, self)

    def handle_error(self, request, client_address):
        pass


def serve(cwd, leaf):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(cwd, f"{leaf}.pem"), os.path.join(cwd, f"{leaf}.key"))
    server = TLSServer(context)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def main():
    # A child inherits its parent thread's signal mask, and the test runner's worker threads
    # block SIGTERM: unblocked here (before any thread starts), so stopping by pid works.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    cwd = os.path.abspath(sys.argv[1])
    make_files(cwd)
    ports = {leaf: serve(cwd, leaf) for leaf in ("a", "b", "c", "self", "expired", "wrong")}
    files = {name: os.path.join(cwd, name) for name in ("ca_a.pem", "ca_b.pem", "ca_c.pem", "dir_a", "dir_c", "system")}
    sys.stdout.write(json.dumps({"ports": ports, "files": files}) + "\n")
    sys.stdout.flush()
    # Standard input is the test process's pipe: its end means that process is gone or done.
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except subprocess.CalledProcessError as failure:
        sys.stderr.write(f"tls_fixture: {' '.join(failure.cmd)} failed: {failure.stderr.decode(errors='replace')}\n")
        sys.exit(1)
