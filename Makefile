# pulse-ingest: the two commands a newcomer needs are `make run` and `make test`.
SWIFT ?= swift
CONFIG ?= feeds.yaml
PREFIX ?= /usr/local
export PATH := /opt/swift/usr/bin:$(PATH)

# With no DATABASE_URL, `run` and `test` use a private PostgreSQL cluster under .pgdata/.
PG := bash .ci/local-postgres

.PHONY: all deps build release run test test-unit db-start db-stop db-url clean

all: build

deps:
	@bash .ci/install-deps

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Sets up and runs the service against DATABASE_URL, or the private cluster when it is unset.
run: release
	@if [ -z "$$DATABASE_URL" ]; then $(PG) start; fi
	@url="$${DATABASE_URL:-$$($(PG) url)}"; \
	  DATABASE_URL="$$url" .build/release/pulse-ingest --migrate --config $(CONFIG) && \
	  DATABASE_URL="$$url" exec .build/release/pulse-ingest --config $(CONFIG)

# Every test, unit and integration, against a private cluster started (and stopped) here.
test:
	@bash .ci/install-deps --test
	@running=0; $(PG) status >/dev/null 2>&1 && running=1; \
	  $(PG) start || exit 1; \
	  PULSE_TEST_DATABASE_URL="$$($(PG) url)" PULSE_REQUIRE_PROMTOOL=1 $(SWIFT) test; status=$$?; \
	  [ $$running -eq 1 ] || $(PG) stop; \
	  exit $$status

# Unit tests only (no PostgreSQL needed).
test-unit:
	$(SWIFT) test --skip PostgresTests

db-start:
	@$(PG) start && echo "PostgreSQL running: DATABASE_URL=$$($(PG) url)"

db-stop:
	@$(PG) stop

db-url:
	@$(PG) url

clean:
	$(PG) stop
	rm -rf .build .pgdata
