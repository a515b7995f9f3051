#!/usr/bin/env bash
# The booking rate the server sustains under a p99 booking-to-offer ceiling
# (docs/benchmarks.md, "Realtime edge"): runs run.sh (a fresh
# release server each time, 10,000 drivers sending 10,000 updates/s, open
# loop) at rising booking rates and prints one line per rate, stopping after
# the first rate whose p99 is over the ceiling.
#
#   benches/realtime/ceiling.sh [rates…]        default: 50 100 200 400 800
#   CEILING_MS=20 WAYFARE_BENCH_DRIVERS=10000 UPDATES=10000 SECONDS_PER_RATE=30 benches/realtime/ceiling.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ceiling=${CEILING_MS:-20}
updates=${UPDATES:-10000}
seconds=${SECONDS_PER_RATE:-30}
export WAYFARE_BENCH_DRIVERS=${WAYFARE_BENCH_DRIVERS:-10000}
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(50 100 200 400 800)
printf '%-10s %-10s %-10s %-9s %-9s %-9s %-9s %-8s %s\n' scheduled sent/s offered/s p50_ms p99_ms p99.9_ms max_ms missed 'server µs/update'
for rate in "${rates[@]}"; do
  out=$(mktemp)
  "$here/run.sh" --rate "$updates" --booking-rate "$rate" --seconds "$seconds" --console 0 >"$out" 2>&1 || true
  line=$(grep '^RESULT ' "$out" | sed 's/^RESULT //')
  if [ -z "$line" ]; then
    echo "rate $rate: no result" >&2
    tail -20 "$out" >&2
    rm -f "$out"
    exit 1
  fi
  rm -f "$out"
  # One line per rate; exit status 3 once p99 is over the ceiling.
  status=0
  node -e '
    const [line, ceiling] = process.argv.slice(1);
    const r = JSON.parse(line); const b = r.booking_to_offer;
    const cpu = r.server_cpu ? r.server_cpu.microseconds_per_update : "-";
    const row = [b.scheduled_per_second, b.sent_per_second, b.offered_per_second, b.p50_ms, b.p99_ms, b.p999_ms, b.max_ms, b.missed, cpu];
    console.log(row.map((v, i) => String(v).padEnd(i < 3 ? 10 : i < 7 ? 9 : 8)).join(" "));
    process.exit((b.p99_ms ?? Infinity) > Number(ceiling) ? 3 : 0);' "$line" "$ceiling" || status=$?
  [ "$status" -eq 0 ] || [ "$status" -eq 3 ] || exit 1
  if [ "$status" -eq 3 ]; then
    echo "p99 crossed ${ceiling} ms at ${rate} bookings/s"
    exit 0
  fi
done
echo "p99 stayed under ${ceiling} ms up to ${rates[-1]} bookings/s"
