#!/usr/bin/env bash
# Throughput and CPU cost of location updates and bookings on 1, 2 and 3
# cluster nodes (docs/benchmarks.md, "Several nodes"). For each node count:
# a fresh PostgreSQL database, `scripts/cluster.sh up --nodes N` with
# DRIVERS seeded drivers behind HAProxy, then two runs of
# benches/realtime/load.mjs through HAProxy:
#   updates:  DRIVERS drivers sending as fast as acks come back (--rate 0),
#             no bookings: acknowledged updates/s and node CPU per update;
#   bookings: BOOKING_RATE bookings/s with the drivers nearly still (100
#             updates/s): booking-to-offer latency and node CPU per booking.
# CPU is every node's utime+stime over the measured window (from /proc),
# HAProxy, PostgreSQL and Redis not included (they are listed apart).
#
#   benches/cluster/run.sh [NODE_COUNTS...]      default: 1 2 3
#   DRIVERS=2000 SECONDS_EACH=30 BOOKING_RATE=50 benches/cluster/run.sh 1 3
# Pid lists are split into words on purpose (cpu_of $(node_pids)).
# shellcheck disable=SC2046
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
drivers=${DRIVERS:-2000}
seconds=${SECONDS_EACH:-30}
booking_rate=${BOOKING_RATE:-50}
base=${DATABASE_BASE:-postgres://postgres@127.0.0.1:5432}
database=wayfare_bench_cluster
port=${PORT:-18300}
run_dir=$root/.cluster-bench
load=$root/benches/realtime/load.mjs
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 2 3)
[ -d "$root/benches/realtime/node_modules" ] || npm ci --prefix "$root/benches/realtime" --no-audit --no-fund >/dev/null

cluster() { CLUSTER_DIR=$run_dir "$root/scripts/cluster.sh" "$@"; }
trap 'cluster down >/dev/null 2>&1 || true' EXIT

clock_ticks=$(getconf CLK_TCK)
# utime+stime of the listed pids, in seconds.
cpu_of() {
	local total=0 pid fields
	for pid in "$@"; do
		read -r -a fields <"/proc/$pid/stat"
		# Fields 14 and 15 (1-based) after a command name without spaces.
		total=$((total + fields[13] + fields[14]))
	done
	awk -v t="$total" -v hz="$clock_ticks" 'BEGIN { printf "%.3f", t / hz }'
}
node_pids() { cat "$run_dir"/node*.pid; }
pids_of() { pgrep -d ' ' -x "$1" || true; }

# One load.mjs run; prints its RESULT json and the CPU seconds of the nodes
# (and of PostgreSQL and Redis) over the streaming window.
measure() {
	local label=$1
	shift
	local ready=$run_dir/ready.$label out=$run_dir/load.$label.log
	rm -f "$ready"
	# Sign-in at node1 (each node keeps its own dev outbox), through the
	# chaos run's preload.
	CHAOS_SIGN_IN_URL=http://127.0.0.1:$((port + 1)) node --import "$root/benches/chaos/load-on-cluster.mjs" "$load" --url "http://127.0.0.1:$port" --drivers "$drivers" --seconds "$seconds" --warmup 5 \
		--console 0 --ready-file "$ready" "$@" >"$out" 2>&1 &
	local generator=$!
	while [ ! -f "$ready" ]; do
		kill -0 "$generator" 2>/dev/null || {
			cat "$out" >&2
			return 1
		}
		sleep 0.2
	done
	local nodes0 pg0 redis0 start end
	nodes0=$(cpu_of $(node_pids))
	pg0=$(cpu_of $(pids_of postgres))
	redis0=$(cpu_of $(pids_of redis-server))
	start=$(date +%s.%N)
	wait "$generator" || {
		cat "$out" >&2
		return 1
	}
	end=$(date +%s.%N)
	echo "$label window=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}')s nodes_cpu=$(awk -v a="$nodes0" -v b="$(cpu_of $(node_pids))" 'BEGIN{printf "%.2f", b-a}')s postgres_cpu=$(awk -v a="$pg0" -v b="$(cpu_of $(pids_of postgres))" 'BEGIN{printf "%.2f", b-a}')s redis_cpu=$(awk -v a="$redis0" -v b="$(cpu_of $(pids_of redis-server))" 'BEGIN{printf "%.2f", b-a}')s"
	grep '^RESULT ' "$out"
}

for nodes in "${counts[@]}"; do
	echo "== $nodes node(s), $drivers drivers"
	cluster down >/dev/null 2>&1 || true
	psql -q "$base/postgres" -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" >/dev/null
	WAYFARE_DEMO_SEED__DRIVERS=$drivers WAYFARE_DEMO_SEED__DISPATCH_POLICY=waves \
		WAYFARE_AUTH__CODES_PER_CLIENT=1000000 WAYFARE_AUTH__CODES_PER_CONTACT=1000 RUST_LOG=${RUST_LOG:-warn} \
		cluster up --no-build --nodes "$nodes" --port "$port" --stats-port $((port + 100)) \
		--database-url "$base/$database" >/dev/null
	measure "updates-$nodes" --rate 0 --booking-rate 0
	measure "bookings-$nodes" --rate 100 --booking-rate "$booking_rate"
done
