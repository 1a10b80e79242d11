# pulse-ingest: the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
SHELL := /bin/bash
CONFIG ?= feeds.yaml
PREFIX ?= /usr/local
export PATH := /opt/swift/usr/bin:$(PATH)

# With no DATABASE_URL, `run` and `test` use a private PostgreSQL cluster under .pgdata/.
PG := bash .ci/local-postgres

.PHONY: all deps build release run test test-unit bench bench-feeds bench-articles bench-daemon bench-language bench-scale bench-websub bench-search demo fuzz db-start db-stop db-url clean install check-units

all: build

deps:
	@bash .ci/install-deps

build: deps
	$(SWIFT) build

# Only the service's binary (the benchmark and fuzz tools are built by their own targets). The
# Swift runtime is linked statically, so the installed binary runs without /opt/swift.
# -cross-module-optimization lets the optimiser inline our small modules' helpers into the
# extraction's inner loops; it costs the build nothing measurable (236 s CPU with it, 245 s
# without, on 2 cores).
release: deps
	@[ -x .build/release/pulse-ingest ] || echo "make release: the first build compiles the packages too: about 3 minutes on 2 cores" >&2
	@# The one warning dropped is glibc's about mktemp, which the static Foundation library uses; it is
	@# said at every link and is about the toolchain, not this code.
	set -o pipefail; $(SWIFT) build -c release --product pulse-ingest --static-swift-stdlib \
	  -Xswiftc -cross-module-optimization 2>&1 | sed "/the use of .mktemp' is dangerous/d"

# Sets up and runs the service against DATABASE_URL, or the private cluster when it is unset.
run: release
	@if [ -z "$$DATABASE_URL" ]; then $(PG) start; fi
	@url="$${DATABASE_URL:-$$($(PG) url)}"; private=$${DATABASE_URL:+no}; \
	  trap ':' INT TERM; \
	  DATABASE_URL="$$url" .build/release/pulse-ingest --migrate --config $(CONFIG) && \
	  DATABASE_URL="$$url" .build/release/pulse-ingest --config $(CONFIG); status=$$?; \
	  if [ -z "$$private" ]; then echo "make run: the private PostgreSQL keeps running (stop it with 'make db-stop')" >&2; fi; \
	  exit $$status

# Every test, unit and integration, against a private cluster started (and stopped) here; then the
# contrib alert rules (promtool) and the systemd units; a summary of failures at the end.
test:
	@SWIFT=$(SWIFT) bash .ci/make-test

# Benchmarks: each prints ratios against a baseline measured in the same run (Tests/Benchmarks/).
bench: bench-feeds bench-articles bench-daemon bench-language

bench-feeds: release
	bash Tests/Benchmarks/feed-parse.sh

bench-articles: release
	bash Tests/Benchmarks/article-extract.sh

bench-daemon: release
	bash Tests/Benchmarks/daemon-farm.sh

# 100,000 sources, 1, 2 and 4 daemons, feeds answering in 0.2-2 s, then 1,000,000 sources and one daemon
# (not part of `make bench`: ~15 min; BENCH_DAEMONS= BENCH_MILLION=0 and the like select steps).
bench-scale: release
	bash Tests/Benchmarks/scale.sh

# WebSub on loopback: a hub of our own verifies and pushes 1,000 items; push-to-row p50/p99, and
# items both pushed and polled stored once (not part of `make bench`).
bench-websub: release
	bash Tests/Benchmarks/websub-bench.sh

# Multilingual search (issue 50): 500,000 generated articles, recall@20, latency and index size of the
# per-language index against the `english` one (not part of `make bench`: several minutes).
bench-search: release
	bash Tests/Benchmarks/search-bench.sh

# Accuracy of the stored-language rule on labelled texts we wrote.
bench-language: deps
	$(SWIFT) build -c release --product language-bench
	.build/release/language-bench Tests/Benchmarks/language/*.tsv Tests/LanguageTaggerTests/Fixtures/*.tsv

# The product with no internet: private PostgreSQL, the benchmark's loopback feed farm, the service.
demo: release
	bash Tests/Benchmarks/demo.sh

# Unit tests only (no PostgreSQL needed): the tests marked `.needsDatabase` skip themselves without
# PULSE_TEST_DATABASE_URL.
test-unit:
	env -u PULSE_TEST_DATABASE_URL -u PULSE_TEST_POOLER_URL $(SWIFT) test

# Mutation fuzzing of the feed parser and the page analyser from Tests/Fuzz/Corpus for a fixed time;
# crashing (findings/current) and slow (slow-*) inputs are kept under .build/fuzz-findings.
FUZZ_SECONDS ?= 60
fuzz:
	$(SWIFT) build -c release --product pulse-fuzz
	.build/release/pulse-fuzz $(FUZZ_SECONDS) Tests/Fuzz/Corpus .build/fuzz-findings

db-start:
	@$(PG) start && echo "PostgreSQL running: DATABASE_URL=$$($(PG) url)"

db-stop:
	@$(PG) stop

db-url:
	@$(PG) url

clean:
	$(PG) stop
	rm -rf .build .pgdata

DESTDIR ?=
UNITDIR ?= /etc/systemd/system
SYSCONFDIR ?= /etc/pulse-ingest
UNITS := pulse-ingest.service pulse-ingest-prune.service pulse-ingest-prune.timer \
         pulse-ingest-backfill.service pulse-ingest-backfill.timer

# Installs the release binary, units and default config (`make release` first, then `sudo make install`).
# An existing feeds.yaml is never overwritten; the env file is installed only as .example.
install:
	@test -x .build/release/pulse-ingest || { echo "no release build: run 'make release' first" >&2; exit 1; }
	install -d -m 755 $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR) \
	  $(DESTDIR)$(PREFIX)/share/doc/pulse-ingest
	install -s -m 755 .build/release/pulse-ingest $(DESTDIR)$(PREFIX)/bin/pulse-ingest
	for unit in $(UNITS); do \
	  sed 's|/usr/local/|$(PREFIX)/|g' systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit.new && \
	  chmod 644 $(DESTDIR)$(UNITDIR)/$$unit.new && \
	  mv $(DESTDIR)$(UNITDIR)/$$unit.new $(DESTDIR)$(UNITDIR)/$$unit || exit 1; \
	done
	test -e $(DESTDIR)$(SYSCONFDIR)/feeds.yaml || install -m 644 feeds.yaml $(DESTDIR)$(SYSCONFDIR)/feeds.yaml
	install -m 644 systemd/pulse-ingest.env.example $(DESTDIR)$(SYSCONFDIR)/pulse-ingest.env.example
	install -m 644 README.md $(DESTDIR)$(PREFIX)/share/doc/pulse-ingest/README.md
	install -m 644 systemd/README.md $(DESTDIR)$(PREFIX)/share/doc/pulse-ingest/systemd.md
	@echo "installed. Next: systemd/README.md (env file, --migrate, systemctl daemon-reload, enable --now)"

# Unit checks without a running systemd (verify, security exposure <= 2.0); with a release build,
# also runs the binary under the units' seccomp and W^X rules.
check-units:
	bash systemd/check-units $(if $(wildcard .build/release/pulse-ingest),--binary .build/release/pulse-ingest)
