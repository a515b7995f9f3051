#!/usr/bin/env bash
# The live dispatch console under load (issue #15, docs/benchmarks.md "The live
# dispatch console"): starts a release `wayfare serve --demo` with N drivers on
# a fresh data directory, streams their locations and keeps B bookings open
# with benches/realtime/load.mjs, then measures
#   1. the server's CPU for the feed with 0, 1 and 20 admin consoles
#      (benches/console/consoles.mjs, socket.io clients, no browser);
#   2. the console in Chromium (ui/e2e/measure/dispatch-console.ts): the map's
#      update per feed message, frames per second while panning, and the JS
#      heap over MEMORY_MINUTES;
# and prints one JSON line per figure.
#
#   benches/console/run.sh                        # 10,000 drivers, 500 bookings, 30 minutes
#   WAYFARE_BIN=target/debug/wayfare CONSOLE_DRIVERS=200 CONSOLE_BOOKINGS=20 MEMORY_MINUTES=1 \
#     CPU_SECONDS=10 benches/console/run.sh     # a quick check that it all works
#
# Other knobs: UPDATE_RATE (location updates a second in all, default one per
# driver), CONSOLE_COUNTS (default 0,1,20), WARMUP_SECONDS, FEED_SECONDS, PAN_SECONDS,
# SCREENSHOTS (a directory: the map before and after panning), WAYFARE_UI_DIR
# (a built UI; default: built into a temporary directory),
# CHROMIUM, WAYFARE_BENCH_PORT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
bin=${WAYFARE_BIN:-$target_dir/release/wayfare}
port=${WAYFARE_BENCH_PORT:-18200}
drivers=${CONSOLE_DRIVERS:-10000}
bookings=${CONSOLE_BOOKINGS:-500}
rate=${UPDATE_RATE:-$drivers}
memory_minutes=${MEMORY_MINUTES:-30}
cpu_seconds=${CPU_SECONDS:-30}
counts=${CONSOLE_COUNTS:-0,1,20}
url="http://127.0.0.1:$port"
[ -x "$bin" ] || { echo "no binary at $bin: cargo build --release -p wayfare-http (or set WAYFARE_BIN)" >&2; exit 2; }
[ -d "$root/benches/realtime/node_modules" ] || npm ci --prefix "$root/benches/realtime" --no-audit --no-fund >/dev/null

if curl -fsS "$url/healthz" >/dev/null 2>&1; then echo "something already answers at $url: set WAYFARE_BENCH_PORT" >&2; exit 2; fi
data=$(mktemp -d /tmp/wayfare-console-bench.XXXXXX)
server=""
load=""
cleanup() {
  local status=$?
  if [ "$status" -ne 0 ] && [ -f "$data/server.log" ]; then
    echo "# the end of the server's log and the load generator's:" >&2
    tail -n 20 "$data/server.log" "$data/load.log" >&2 2>/dev/null || true
  fi
  if [ -n "$load" ]; then kill "$load" 2>/dev/null || true; wait "$load" 2>/dev/null || true; fi
  if [ -n "$server" ]; then
    # A server that does not stop within 10 s of SIGTERM is killed (seen: a
    # socket.io panic at shutdown, "default namespace not found", then a hang).
    kill "$server" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$server" 2>/dev/null && { echo "# the server did not stop on SIGTERM: killed" >&2; kill -9 "$server" 2>/dev/null || true; }
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$data"
  exit "$status"
}
trap cleanup EXIT

ui_dir=${WAYFARE_UI_DIR:-}
if [ -z "$ui_dir" ]; then
  # The UI as it is in this tree, built aside (ui/dist is left alone).
  ui_dir="$data/ui"
  (cd "$root/ui" && npx vite build --outDir "$ui_dir" --emptyOutDir --logLevel error)
fi

# `waves`, as measured in docs/benchmarks.md: the kept bookings go through
# wave after wave of offers and expiries.
WAYFARE_UI_DIR="$ui_dir" WAYFARE_DEMO_SEED__DRIVERS=$drivers WAYFARE_DEMO_SEED__DISPATCH_POLICY=waves \
WAYFARE_AUTH__CODES_PER_CLIENT=1000000 WAYFARE_AUTH__CODES_PER_CONTACT=1000 \
WAYFARE_DEMO_SEED__LIVING=false WAYFARE_DEMO_SEED__HISTORY_DAYS=0 RUST_LOG=${RUST_LOG:-warn} "$bin" serve --demo --data-dir "$data/db" --listen "127.0.0.1:$port" >"$data/server.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do
  curl -fsS "$url/healthz" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$data/server.log" >&2; exit 1; }
  sleep 0.1
done

# The drivers stream for longer than everything below needs; stopped at the end.
seconds=$(( memory_minutes * 60 + cpu_seconds * 3 + 900 ))
node "$root/benches/realtime/load.mjs" --url "$url" --drivers "$drivers" --rate "$rate" --booking-rate 0 \
  --keep-bookings "$bookings" --console 0 --seconds "$seconds" --warmup 5 \
  --workers "${LOAD_WORKERS:-2}" --ready-file "$data/ready" >"$data/load.log" 2>&1 &
load=$!
while [ ! -f "$data/ready" ]; do
  kill -0 "$load" 2>/dev/null || { echo "the load generator stopped:" >&2; cat "$data/load.log" >&2; exit 1; }
  sleep 1
done
echo "# load: $(head -n 2 "$data/load.log" | tr '\n' ' ')"

echo "# server CPU with $counts consoles, ${cpu_seconds} s each, $drivers drivers streaming at $rate updates/s"
node "$here/consoles.mjs" --url "$url" --server-pid "$server" --counts "$counts" --seconds "$cpu_seconds"

echo "# the console in Chromium, heap over $memory_minutes min"
(cd "$root/ui" && WAYFARE_URL="$url" DRIVERS="$drivers" MEMORY_MINUTES="$memory_minutes" npx vite-node e2e/measure/dispatch-console.ts)

kill -0 "$load" 2>/dev/null || { echo "the load generator stopped before the end:" >&2; tail -n 20 "$data/load.log" >&2; exit 1; }
echo "# done (server log: $(grep -c . "$data/server.log") lines, warnings and errors below)"
grep -E "WARN|ERROR" "$data/server.log" | tail -n 5 || true
