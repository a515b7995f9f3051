#!/usr/bin/env bash
# A busy demo city for the live dispatch console (`make city`): serves the
# demo at http://localhost:8080 like `make run`, but seeded with DRIVERS demo
# drivers (default 2000) in data/city, and drives it with the load generator
# (benches/realtime/load.mjs): every driver online and moving, BOOKINGS
# bookings (default 100) kept open, going through their waves of offers, and
# a booking a second made and cancelled once offered. Sign in as
# admin@demo.wayfare and open Live dispatch; book as a rider and accept as
# one of driver1…driver20 (their apps) to follow a trip from request to drop.
# Ctrl-C stops both.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
bin=${WAYFARE_BIN:-$target_dir/release/wayfare}
drivers=${DRIVERS:-2000}
bookings=${BOOKINGS:-100}
port=${PORT:-8080}
data=${CITY_DATA:-$root/data/city}
url="http://127.0.0.1:$port"
[ -x "$bin" ] || { echo "no binary at $bin: make city builds it" >&2; exit 2; }
[ -d "$root/benches/realtime/node_modules" ] || npm ci --prefix "$root/benches/realtime" --no-audit --no-fund >/dev/null
if curl -fsS "$url/healthz" >/dev/null 2>&1; then echo "something already answers at $url (make run?): stop it or set PORT" >&2; exit 2; fi

server=""
load=""
stop() {
  [ -n "$load" ] && kill "$load" 2>/dev/null || true
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM

# The load generator signs every driver in from this machine: the sign-in
# limits are lifted for this local demo only.
# The load generator plays every driver, so the living demo (which would play
# the same people) stays off; the seeded history is kept.
WAYFARE_DEMO_SEED__LIVING=false WAYFARE_DEMO_SEED__DRIVERS=$drivers WAYFARE_AUTH__CODES_PER_CLIENT=1000000 WAYFARE_AUTH__CODES_PER_CONTACT=1000 \
  "$bin" serve --demo --data-dir "$data" --listen "0.0.0.0:$port" &
server=$!
for _ in $(seq 1 600); do
  curl -fsS "$url/healthz" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || exit 1
  sleep 0.1
done
echo "# $drivers drivers going online; the console: $url/dispatch (admin@demo.wayfare)"
node "$root/benches/realtime/load.mjs" --url "$url" --drivers "$drivers" --rate "$drivers" --booking-rate 1 \
  --keep-bookings "$bookings" --seconds "${SECONDS_TO_RUN:-86400}" --warmup 5 --workers 2 &
load=$!
wait "$load"
