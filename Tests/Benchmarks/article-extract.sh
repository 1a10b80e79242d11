#!/usr/bin/env bash
# Article-extraction benchmark behind `make bench`: quality (token F1 against the labelled pages)
# and pages/s of `pulse-ingest --dump-article --text` in one process, as ratios against
# trafilatura and readability-lxml (PyPI, in a throwaway venv) on the same pages in the same run,
# plus peak RSS. Twice: on the labelled pages as written, and on the same pages wrapped in a real
# news page's weight of chrome (page-weight.py). Never a timed test: it only prints.
#
# Environment (all optional):
#   PULSE_BIN        binary to measure                  (default .build/release/pulse-ingest)
#   BENCH_OUT        venv and work folder               (default .build/bench-articles, git-ignored)
#   BENCH_PAGES      extra folders of NAME.html + NAME.expected.txt, colon-separated (for example
#                    a held-out set kept outside the repo); the test fixtures are always included
#   BENCH_COPIES     copies of each page in the speed corpus (default 20)
#   BENCH_RUNS       timed runs per tool                (default 3)
#   BENCH_LOSSES     pages listed per shared set where we lose most to the best peer (default 10)
#   BENCH_SCRATCH    where timed runs write their outputs (default /dev/shm when it is a writable
#                    tmpfs, else BENCH_OUT): creating and deleting 320 files per run in one folder of
#                    an ext4 disk made the kernel's inode search cost from 0.02 s to 0.27 s of system
#                    time per run within one session, whichever tool ran
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${PULSE_BIN:-$root/.build/release/pulse-ingest}
[ -e "$bin" ] && bin=$(realpath "$bin")
out=$(realpath -m "${BENCH_OUT:-$root/.build/bench-articles}")
venv="$out/venv"
cd "$root"

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$bin" ] || die "no binary at $bin (run 'make release', or set PULSE_BIN)"
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    runner=(); [ "$(id -u)" -ne 0 ] && runner=(sudo)
    "${runner[@]}" apt-get install -y -q python3-venv >/dev/null || die "could not install python3-venv"
fi

# callgrind counts the instructions-per-page row (valgrind); installed like python3-venv above.
if ! command -v valgrind >/dev/null 2>&1; then
    runner=(); [ "$(id -u)" -ne 0 ] && runner=(sudo)
    "${runner[@]}" apt-get install -y -q valgrind >/dev/null || echo "bench: no valgrind: the instructions row is skipped" >&2
fi

mkdir -p "$out"
if ! "$venv/bin/python" -c 'import trafilatura, readability' 2>/dev/null; then
    echo "bench: creating $venv with trafilatura and readability-lxml from PyPI" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    # pip 23's resolver fails on the lxml[html_clean] extra both peers require; a current pip does not.
    "$venv/bin/pip" install -q -U pip || die "pip could not upgrade itself"
    "$venv/bin/pip" install -q 'trafilatura>=2,<3' 'readability-lxml>=0.8' \
        || die "pip could not install trafilatura and readability-lxml"
fi
echo "bench: $("$venv/bin/python" -c 'import importlib.metadata as m; print("trafilatura", m.version("trafilatura"), "readability-lxml", m.version("readability-lxml"))'), binary $bin" >&2

pages=(--pages Tests/ReadabilityTests/Fixtures/pages)
IFS=: read -r -a extra <<< "${BENCH_PAGES:-}"
for folder in "${extra[@]}"; do
    [ -n "$folder" ] && pages+=(--pages "$folder")
done
# gumbo's own parse of the same pages: the floor our CPU per page is measured against.
# Linked as pulse-ingest links gumbo, from Debian's static archive (Package.swift, CGumboGuard):
# against the shared library the floor itself ran 10-20% slower, through gumbo's own PLT calls.
# shellcheck disable=SC2046  # pkg-config prints several words on purpose
cc -O2 -o "$out/gumbo-parse" "$here/gumbo-parse.c" $(pkg-config --cflags gumbo) -Wl,-l:libgumbo.a \
    || die "could not compile gumbo-parse.c against libgumbo.a (Debian: libgumbo-dev)"
scratch=${BENCH_SCRATCH:-}
if [ -z "$scratch" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
    scratch=$(mktemp -d /dev/shm/pulse-bench-XXXXXX)
    trap 'rm -rf "$scratch"' EXIT
fi
echo "bench: timed runs write into ${scratch:-$out}" >&2
python3 "$here/article-bench.py" --binary "$bin" --python "$venv/bin/python" "${pages[@]}" \
    --work "$out" ${scratch:+--scratch "$scratch"} --copies "${BENCH_COPIES:-20}" --runs "${BENCH_RUNS:-3}" \
    --gumbo "$out/gumbo-parse" --instructions --title "The labelled pages as written (3-6 KB each)"
# The same pages at the weight of a real news page (page-weight.py: inline state and analytics
# scripts, CSS, a mega-menu, teaser rails, a footer; ~150 KB each), labelled by the same texts.
rm -rf "$out/weighted" && mkdir -p "$out/weighted/pages"
python3 "$here/page-weight.py" "${pages[@]}" --out "$out/weighted/pages" || die "page-weight.py failed"
python3 "$here/article-bench.py" --binary "$bin" --python "$venv/bin/python" --pages "$out/weighted/pages" \
    --work "$out/weighted" ${scratch:+--scratch "$scratch"} --copies "${BENCH_COPIES:-20}" --runs "${BENCH_RUNS:-3}" \
    --gumbo "$out/gumbo-parse" --title "The same pages at a news site's weight (page-weight.py, ~150 KB each)"
# The three labelled sets beside the repository (../shared/data, never copied in): extraction-dev
# (555 pages, 2006-2013) and Readability.js's 130 test pages by token-shingle F1, the modern set (491
# pages, 2019-2026) by trafilatura's segment measure; pulse-ingest beside trafilatura and
# readability-lxml, empty outputs, notices returned as the body, and the pages lost to the best peer.
# SHARED_DATA names another copy of ../shared/data.
shared=${SHARED_DATA:-$root/../shared/data}
if [ -d "$shared" ]; then
    echo
    echo "== The shared labelled sets ($shared)"
    python3 "$here/article-sets.py" --binary "$bin" --shared "$shared" --python "$venv/bin/python" \
        --peer-cache "$out/article-sets-peers" --losses "${BENCH_LOSSES:-10}"
else
    echo "bench: no labelled sets at $shared (SHARED_DATA): skipped" >&2
fi
