#!/usr/bin/env bash
# The soak test of issue 17 (docs/benchmarks.md, "Soak"): a release
# `wayfare serve --demo` with 2,000 drivers streaming for 30 minutes on one
# node. Passes when every update was acknowledged (load.mjs exits 0: no
# refusal, no unacknowledged update, no dropped socket, every booking
# offered) and the server's resident memory grew less than 5% from the end
# of the warm-up to the end of the run.
#
#   benches/soak/run.sh                      # 30 minutes (make soak)
#   SOAK_SECONDS=300 benches/soak/run.sh     # a shorter look
#   SOAK_HEAPTRACK=/tmp/heap benches/soak/run.sh   # the server under heaptrack:
#       /tmp/heap/wayfare.zst, for `heaptrack_print -M` (the heap over time)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${WAYFARE_BIN:-$root/${CARGO_TARGET_DIR:-target}/release/wayfare}
port=${WAYFARE_BENCH_PORT:-18150}
drivers=${SOAK_DRIVERS:-2000}
seconds=${SOAK_SECONDS:-1800}
# Each driver sends about one position every two seconds, as the driver app does.
rate=${SOAK_RATE:-1000}
# Memory settles once every socket, actor and cache exists: compare from here.
# Each socket's write buffer grows to the largest frame it has carried (an
# offer), so the warm-up books fast enough to offer rides to the drivers
# many times over before memory is compared.
warmup=${SOAK_WARMUP:-300}
warmup_booking_rate=${SOAK_WARMUP_BOOKING_RATE:-20}
[ "$warmup" -lt "$seconds" ] || warmup=$((seconds / 5))
[ -x "$bin" ] || { echo "no release binary at $bin: cargo build --release -p wayfare-http" >&2; exit 2; }
loadgen="$root/benches/realtime"
[ -d "$loadgen/node_modules" ] || npm ci --prefix "$loadgen" --no-audit --no-fund >/dev/null
data=$(mktemp -d /tmp/wayfare-soak.XXXXXX)
log="$data/server.log"
heaptrack=()
if [ -n "${SOAK_HEAPTRACK:-}" ]; then
  mkdir -p "$SOAK_HEAPTRACK"
  heaptrack=(heaptrack -o "$SOAK_HEAPTRACK/wayfare")
fi
WAYFARE_DEMO_SEED__DRIVERS=$drivers WAYFARE_DEMO_SEED__DISPATCH_POLICY=waves \
WAYFARE_AUTH__CODES_PER_CLIENT=1000000 WAYFARE_AUTH__CODES_PER_CONTACT=1000 \
WAYFARE_DEMO_SEED__LIVING=false WAYFARE_DEMO_SEED__HISTORY_DAYS=0 RUST_LOG=${RUST_LOG:-warn} "${heaptrack[@]}" "$bin" serve --demo --data-dir "$data" --listen "127.0.0.1:$port" >"$log" 2>&1 &
server=$!
sampler=
trap 'kill $sampler "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 600); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
# Under heaptrack the server is the profiler's child: sample and stop it.
if [ ${#heaptrack[@]} -gt 0 ]; then
  wrapper=$server
  server=$(pgrep -P "$wrapper" -f -- "$bin serve")
  trap 'kill $sampler "$server" 2>/dev/null; wait "$wrapper" 2>/dev/null; rm -rf "$data"' EXIT
fi

# Resident memory every 10 s: seconds since the start, then kB resident in
# all, anonymous (the heap) and file-backed (the binary and SQLite's
# memory-mapped database), and the kB SQLite itself holds (its page caches,
# from /metrics), to tell a leak from a cache of a growing file.
samples="$data/rss.csv"
started=$(date +%s)
( while kill -0 "$server" 2>/dev/null; do
    sqlite_kb=$(curl -fsS "http://127.0.0.1:$port/metrics" 2>/dev/null |
      awk '/^wayfare_sqlite_memory_bytes / { printf "%d", $2 / 1024 }')
    echo "$(( $(date +%s) - started )),$(awk '/^(VmRSS|RssAnon|RssFile):/ { printf "%s%s", sep, $2; sep = "," }' "/proc/$server/status"),${sqlite_kb:-0}" >>"$samples"
    sleep 10
  done ) &
sampler=$!

status=0
node "$loadgen/load.mjs" --url "http://127.0.0.1:$port" --drivers "$drivers" --seconds "$seconds" --warmup "$warmup" \
  --rate "$rate" --booking-rate 1 --warmup-booking-rate "$warmup_booking_rate" --server-pid "$server" || status=$?
kill "$sampler" 2>/dev/null || true

# The warm-up's last minute against the run's last minute (the mean of each,
# so one sample taken mid-allocation does not decide).
read -r before after sqlite_before sqlite_after < <(awk -F, -v w="$warmup" -v s="$seconds" '
  $1 >= w - 60 && $1 <= w { b += $2; sb += $5; nb++ }
  $1 >= s - 60 { a += $2; sa += $5; na++ }
  END { nb = nb ? nb : 1; na = na ? na : 1; printf "%d %d %d %d\n", b / nb, a / na, sb / nb, sa / na }' "$samples")
growth=$(awk -v b="$before" -v a="$after" 'BEGIN { printf "%.2f", (a - b) * 100 / b }')
echo "soak: $drivers drivers, $rate updates/s for $seconds s; resident memory ${before} kB after the warm-up, ${after} kB at the end: ${growth}% growth"
echo "soak: of which SQLite held ${sqlite_before} kB after the warm-up and ${sqlite_after} kB at the end"
echo "soak: samples (seconds, resident, anonymous, file, SQLite kB), one a minute:"
awk -F, 'NR % 6 == 1' "$samples" | tr '\n' ' '; echo
echo "SOAK {\"drivers\":$drivers,\"seconds\":$seconds,\"rate\":$rate,\"rss_kb_after_warmup\":$before,\"rss_kb_at_end\":$after,\"growth_percent\":$growth,\"sqlite_kb_after_warmup\":$sqlite_before,\"sqlite_kb_at_end\":$sqlite_after,\"load_exit\":$status}"
[ "$status" -eq 0 ] || { echo "soak: the load generator failed (exit $status)" >&2; exit 1; }
awk -v g="$growth" 'BEGIN { exit !(g < 5) }' || { echo "soak: memory grew ${growth}% (limit 5%)" >&2; exit 1; }
echo "soak: passed"
