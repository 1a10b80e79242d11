#!/usr/bin/env bash
# Feed-parsing benchmark behind `make bench`: throughput of `pulse-ingest --dump-feed` (MB/s,
# items/s) as ratios against baselines measured in the same run — libxml2's streaming reader
# (a minimal C loop compiled here, and `xmllint --stream`) as the ceiling, gofeed (the Go worker's
# parser, from Debian) and Python feedparser as the peers, plus peak RSS on one large feed and
# the start-up time of the dump modes. Never a timed test: it only prints.
#
# Environment (all optional):
#   PULSE_BIN       binary to measure            (default .build/release/pulse-ingest)
#   BENCH_OUT       corpus, C loop, venv folder  (default .build/bench-feeds, git-ignored)
#   BENCH_RUNS      runs per fast tool           (default 7)
#   BENCH_FP_RUNS   runs of feedparser           (default 3; it is ~100x slower)
#   BENCH_SEED      corpus seed                  (default 20250601)
#   BENCH_SCALE     multiply generated item counts (default 1)
#   BENCH_LARGE_MB  size of the peak-RSS feed    (default 16)
#   BENCH_FP_LARGE  1: also time feedparser on the large feed (adds ~25 s per run)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${PULSE_BIN:-$root/.build/release/pulse-ingest}
[ -e "$bin" ] && bin=$(realpath "$bin")   # PULSE_BIN may be relative to the caller's folder
out=$(realpath -m "${BENCH_OUT:-$root/.build/bench-feeds}")
cd "$root"
venv="$out/venv"

die() { echo "bench: $*" >&2; exit 1; }

apt_install() {
    local runner=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "missing Debian packages: $* (install them: apt-get install -y $*)"
        runner=(sudo)
    fi
    echo "bench: installing Debian packages: $*" >&2
    "${runner[@]}" apt-get install -y -q "$@" >/dev/null || {
        "${runner[@]}" apt-get update -q >/dev/null && "${runner[@]}" apt-get install -y -q "$@" >/dev/null; } \
        || die "could not install $* with apt-get"
}

[ -x "$bin" ] || die "no binary at $bin (run 'make release', or set PULSE_BIN)"
"$bin" --help >/dev/null 2>&1 || die "$bin does not run"

missing=()
command -v xmllint >/dev/null || missing+=(libxml2-utils)
[ -x /usr/bin/time ] || missing+=(time)
command -v cc >/dev/null || missing+=(gcc)
command -v pkg-config >/dev/null || missing+=(pkg-config)
pkg-config --exists libxml-2.0 2>/dev/null || missing+=(libxml2-dev)
command -v python3 >/dev/null || missing+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
command -v go >/dev/null || missing+=(golang-go)
[ -d /usr/share/gocode/src/github.com/mmcdole/gofeed ] || missing+=(golang-github-mmcdole-gofeed-dev)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

mkdir -p "$out"
# The throwaway venv with the peer; never committed (under the git-ignored build folder).
if ! "$venv/bin/python" -c 'import feedparser' 2>/dev/null; then
    echo "bench: creating $venv with feedparser from PyPI" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install -q 'feedparser>=6,<7' || die "pip could not install feedparser"
fi

# Regenerated every run: deterministic from the seed, so the numbers compare across runs.
rm -rf "$out/corpus"
python3 "$here/gen-feeds.py" "$out/corpus" --seed "${BENCH_SEED:-20250601}" \
    --scale "${BENCH_SCALE:-1}" --large-mb "${BENCH_LARGE_MB:-16}" >&2

# shellcheck disable=SC2046  # pkg-config prints several words on purpose
cc -O2 -o "$out/libxml2-stream" "$here/libxml2-stream.c" $(pkg-config --cflags --libs libxml-2.0) \
    || die "could not compile the libxml2 C loop"

# gofeed, the old Go worker's parser, from Debian's packaged source (GOPATH mode: no module proxy).
GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$out/gocache" GOFLAGS= \
    go build -o "$out/gofeed-pass" "$here/gofeed-pass.go" || die "could not build the gofeed peer"

echo "bench: $("$venv/bin/python" -c 'import feedparser; print("feedparser", feedparser.__version__)'), \
$(xmllint --version 2>&1 | head -1), binary $bin" >&2

fp_large=()
[ "${BENCH_FP_LARGE:-0}" = 1 ] && fp_large=(--fp-large)
exec python3 "$here/bench-runner.py" --binary "$bin" --corpus "$out/corpus" \
    --fixtures Tests/FeedParserTests/Fixtures --cloop "$out/libxml2-stream" --xmllint "$(command -v xmllint)" \
    --feedparser-python "$venv/bin/python" --gofeed "$out/gofeed-pass" --config feeds.yaml --runs "${BENCH_RUNS:-7}" --fp-runs "${BENCH_FP_RUNS:-3}" \
    "${fp_large[@]}"
