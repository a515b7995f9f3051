#!/usr/bin/env bash
# One realtime-edge measurement (docs/benchmarks.md, "Realtime edge"): starts a
# release `wayfare serve --demo` with 2,000 drivers on a fresh data directory,
# runs load.mjs against it with the options given (defaults: 20,000 updates/s
# for 30 s, 5 bookings/s), prints its report and stops the server.
#
#   benches/realtime/run.sh [load.mjs options…]
#   WAYFARE_BIN=path/to/wayfare benches/realtime/run.sh --rate 10000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${WAYFARE_BIN:-$root/${CARGO_TARGET_DIR:-target}/release/wayfare}
port=${WAYFARE_BENCH_PORT:-18100}
drivers=${WAYFARE_BENCH_DRIVERS:-2000}
[ -x "$bin" ] || { echo "no release binary at $bin: cargo build --release -p wayfare-http" >&2; exit 2; }
[ -d "$here/node_modules" ] || npm ci --prefix "$here" --no-audit --no-fund >/dev/null
data=$(mktemp -d /tmp/wayfare-bench.XXXXXX)
log="$data/server.log"
# `waves` offers at once: the default, `batch`, would hold each booking for
# its window, and booking-to-offer would measure the window, not the server.
WAYFARE_DEMO_SEED__DRIVERS=$drivers WAYFARE_DEMO_SEED__DISPATCH_POLICY=waves \
WAYFARE_AUTH__CODES_PER_CLIENT=1000000 WAYFARE_AUTH__CODES_PER_CONTACT=1000 \
WAYFARE_DEMO_SEED__LIVING=false WAYFARE_DEMO_SEED__HISTORY_DAYS=0 RUST_LOG=${RUST_LOG:-warn} "$bin" serve --demo --data-dir "$data" --listen "127.0.0.1:$port" >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 200); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
node "$here/load.mjs" --url "http://127.0.0.1:$port" --drivers "$drivers" --seconds 30 --warmup 5 \
  --rate 20000 --booking-rate 5 --server-pid "$server" "$@"
