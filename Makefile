# pulse-ingest: the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
CONFIG ?= feeds.yaml
PREFIX ?= /usr/local
export PATH := /opt/swift/usr/bin:$(PATH)

# With no DATABASE_URL, `run` and `test` use a private PostgreSQL cluster under .pgdata/.
PG := bash .ci/local-postgres

.PHONY: all deps build release run test test-unit bench bench-feeds bench-articles bench-daemon bench-language bench-scale demo fuzz db-start db-stop db-url clean install check-units

all: build

deps:
	@bash .ci/install-deps

build: deps
	$(SWIFT) build

# The Swift runtime is linked statically so the installed binary runs without /opt/swift; so it
# needs no RUNPATH of $$ORIGIN either, whose probing (ten paths per library before ld.so.cache) was
# 3-4% of a start, and which would load a libc.so.6 dropped beside the binary.
#
# libstdc++ and libgcc are linked statically as well: loading libstdc++.so and libgcc_s, with the
# symbol lookups their relocations need, was 0.5-0.7 ms of every start (--help 3.24 -> 2.53 ms).
# The -L directory holds only libstdc++.a, so the link's -lstdc++ finds the archive first. The
# libraries opened on first use (CLD2; ICU under libxml2) load the shared libstdc++ for themselves:
# nothing C++ crosses between the two copies (pulse_cld2.cc passes C types, and CLD2 does not throw).
# Without libstdc++.a (it comes with g++'s libstdc++-dev) the link stays as it was.
#
# -cross-module-optimization lets the optimiser inline and specialise across our small modules
# (TextScan, TextKey and TagSlot are called from Readability, LanguageTagger and OpenGraph in their
# inner loops): 0.8% fewer instructions on the 68-page extraction subset, and 0.6-2.8% less CPU on
# the 340-page one pinned to one core (minimum and median of 20 interleaved rounds).
STATIC_CXX := $(CURDIR)/.build/static-cxx
release: deps
	@mkdir -p $(STATIC_CXX); archive=$$(clang -print-file-name=libstdc++.a 2>/dev/null); \
	  if [ -f "$$archive" ]; then ln -sf "$$archive" $(STATIC_CXX)/libstdc++.a; \
	  else rm -f $(STATIC_CXX)/libstdc++.a; echo "make release: no libstdc++.a; libstdc++ stays shared" >&2; fi
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath \
	  -Xlinker -L$(STATIC_CXX) -Xswiftc -Xclang-linker -Xswiftc -static-libgcc \
	  -Xswiftc -cross-module-optimization
	@if readelf -d .build/release/pulse-ingest 2>/dev/null | grep -q 'NEEDED.*libstdc++'; then \
	  echo "make release: libstdc++ is linked shared: every start pays ~0.5 ms to load it" >&2; fi
	@if nm .build/release/pulse-ingest 2>/dev/null | grep -q ' __CFInitialize$$'; then \
	  echo "make release: swift-corelibs-foundation is linked (an 'import Foundation'): every start pays ~1 ms" >&2; fi

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

# 100,000 sources, 1, 2 and 4 daemons, feeds answering in 0.2-2 s (not part of `make bench`: ~6 min).
bench-scale: release
	bash Tests/Benchmarks/scale.sh

# Accuracy of the stored-language rule, old and new side by side, on labelled texts we wrote.
bench-language: deps
	$(SWIFT) build -c release --product language-bench
	.build/release/language-bench Tests/Benchmarks/language/*.tsv Tests/LanguageTaggerTests/Fixtures/*.tsv

# The product with no internet: private PostgreSQL, the benchmark's loopback feed farm, the service.
demo: release
	bash Tests/Benchmarks/demo.sh

# Unit tests only (no PostgreSQL needed).
test-unit:
	$(SWIFT) test --skip PostgresTests

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
