# Wayfare: `make test` runs every test of the repository on a fresh machine.

CARGO ?= cargo
NPM ?= npm
# Where cargo puts what it builds (CARGO_TARGET_DIR when set).
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)

.PHONY: test test-rust test-ui node-deps build-deps ui release run city cluster cluster-down bench lint fmt chaos chaos-cluster soak

# Formatting and lints first (cheap, and a failure says exactly where), then
# the Rust tests, then the web app's.
test: lint test-rust
	$(MAKE) test-ui

# The realtime tests and load generator drive the server with the official
# socket.io-client under Node 20, pinned by their package-lock.json files.
NODE_PACKAGES = http/tests/realtime benches/realtime

# C libraries the Rust build links (OpenSSL's headers, for the simulator's
# Socket.IO client), installed when missing and running as root.
build-deps:
	scripts/ensure-build-deps.sh

node-deps:
	@set -e; for package in $(NODE_PACKAGES); do \
		npm ci --prefix $$package --no-audit --no-fund; \
	done

# The storage and actor suites (and the sign-up route tests) run on SQLite
# always and on PostgreSQL when WAYFARE_TEST_POSTGRES_URL is set: unless it
# is, start (or install) a local PostgreSQL and point them at it. The cluster
# test needs Redis too (WAYFARE_TEST_REDIS_URL): unless it is set, start (or
# install) a local one. In CI (CI=true) a PostgreSQL or a Redis that cannot
# be made to answer fails the run instead of skipping what needs it (and the
# suites fail by themselves when the URL is missing there).
# --all-targets runs each benchmark once as a test, so a broken bench fails here.
# Backtraces are off unless WAYFARE_TEST_BACKTRACE says otherwise: a CI log
# keeps its head and tail, and a backtrace there pushes the failing test's
# own message (a matrix's cells that disagree, say) out of the tail.
test-rust: node-deps build-deps
	@set -e; \
	if [ -z "$${WAYFARE_TEST_POSTGRES_URL:-}" ]; then \
		if url=$$(scripts/ensure-postgres.sh); then \
			export WAYFARE_TEST_POSTGRES_URL="$$url"; \
			echo "make test: the PostgreSQL variants run on $$url"; \
		elif [ "$${CI:-}" = true ]; then \
			echo "make test: PostgreSQL must answer in CI" >&2; exit 1; \
		else \
			echo "make test: no PostgreSQL, the suites run on SQLite only" >&2; \
		fi; \
	fi; \
	if [ -z "$${WAYFARE_TEST_REDIS_URL:-}" ]; then \
		if url=$$(scripts/ensure-redis.sh); then \
			export WAYFARE_TEST_REDIS_URL="$$url"; \
			echo "make test: the cluster test uses Redis at $$url"; \
		elif [ "$${CI:-}" = true ]; then \
			echo "make test: Redis must answer in CI" >&2; exit 1; \
		else \
			echo "make test: no Redis, the cluster test is not run" >&2; \
		fi; \
	fi; \
	export RUST_BACKTRACE="$${WAYFARE_TEST_BACKTRACE:-0}"; \
	set -x; \
	$(CARGO) test --workspace --all-targets --locked

# The web app: installs exactly what package-lock.json says and builds ui/dist,
# which `wayfare serve` serves.
ui:
	cd ui && $(NPM) ci --no-audit --no-fund && $(NPM) run build

# The server's release binary, in $(TARGET_DIR)/release/wayfare.
release: build-deps
	$(CARGO) build --release --locked -p wayfare-http --bin wayfare

# The web app's unit tests (Vitest), then its browser tests: Debian's chromium
# (installed by scripts/ensure-chromium.sh when missing and running as root)
# driven through a whole trip against a real `wayfare serve --demo`. The
# server binary is built as `cargo test --all-targets` built it (same features),
# so after test-rust this build is a no-op.
test-ui: ui
	cd ui && $(NPM) run lint
	cd ui && $(NPM) test
	$(CARGO) build --workspace --all-targets --locked
	scripts/ensure-chromium.sh >/dev/null
	cd ui && WAYFARE_BIN=$(abspath $(TARGET_DIR))/debug/wayfare $(NPM) run e2e

# Builds everything and serves the demo city at http://localhost:8080, with
# its data in data/run (kept between runs; delete it to start afresh).
run: ui release
	$(TARGET_DIR)/release/wayfare serve --demo --data-dir data/run --listen 0.0.0.0:8080

# The demo city busy (the live dispatch console's demo): 2000 drivers moving,
# bookings waiting and being offered, driven by the load generator
# (scripts/busy-city.sh; DRIVERS=, BOOKINGS= to change; data in data/city).
city: ui release
	CARGO_TARGET_DIR=$(TARGET_DIR) scripts/busy-city.sh

# The demo city on a cluster at http://localhost:8080: three nodes in cluster
# mode on one PostgreSQL database (wayfare_cluster) and the local Redis,
# behind HAProxy (installed when missing). Builds what it needs
# (scripts/cluster.sh builds release and ui; NODES=, PORT= to change; state
# and logs in .cluster/). `scripts/cluster.sh kill 2` crashes a node;
# `make cluster-down` stops them all.
cluster:
	scripts/cluster.sh up

cluster-down:
	scripts/cluster.sh down

# Issue 17's long crash run, not part of `make test` (which runs a short one):
# 100 bookings/s on one node, SIGKILLed every 30 s for 5 minutes and started
# again, on SQLite and on PostgreSQL; then what the clients were told is
# checked against the server and `wayfare audit` checks the database.
chaos: node-deps build-deps
	@set -e; \
	url=$${WAYFARE_TEST_POSTGRES_URL:-$$(scripts/ensure-postgres.sh)}; \
	WAYFARE_TEST_POSTGRES_URL="$$url" CI=true CRASH_BOOKING_RATE=100 CRASH_KILLS=10 CRASH_KILL_EVERY=30 \
	CRASH_SECONDS_AFTER=15 $(CARGO) test --locked -p wayfare-http --test realtime bookings_pouring_in_survive_sigkill \
		-- --nocapture --test-threads 1

# Issue 17's chaos run on three nodes, not part of `make test` (about 7
# minutes): a release cluster behind HAProxy (scripts/cluster.sh, in .cluster/)
# on a fresh PostgreSQL database (wayfare_chaos) and the local Redis; 2,000
# drivers streaming and 100 bookings/s through it (load.mjs and crash.mjs)
# while a node is SIGKILLed every 30 s and started again, PostgreSQL and
# Redis are restarted once each and node3's link to Redis is cut for 10 s.
# Then crash.mjs's checks, the load's, `wayfare audit`, lost timers, the
# cluster metrics and the failover times (benches/chaos/cluster.sh; CHAOS_…
# variables to change; summary in .cluster/chaos-summary.txt). It restarts
# the machine's PostgreSQL and Redis: run it (as root) where nothing else
# needs them.
chaos-cluster: node-deps release
	WAYFARE_BIN=$(abspath $(TARGET_DIR))/release/wayfare benches/chaos/cluster.sh

# Issue 17's soak: 2,000 drivers streaming for 30 minutes on one release
# node; fails on a lost acknowledgement or 5% memory growth.
soak: release
	WAYFARE_BIN=$(abspath $(TARGET_DIR))/release/wayfare benches/soak/run.sh

bench: build-deps
	$(CARGO) bench -p wayfare-benches

# No import circle of more than two files in any crate (issue #36).
CRATES = engine storage maps actors http simulations benches

lint: build-deps
	$(CARGO) fmt --all --check
	@set -e; for crate in $(CRATES); do python3 scripts/import-cycles.py $$crate/src; done
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

fmt:
	$(CARGO) fmt --all
