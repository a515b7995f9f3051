#!/usr/bin/env bash
# Issue #17's chaos run on three nodes (`make chaos-cluster`; long, not part
# of `make test`; docs/benchmarks.md, "Three nodes under crashes and load").
#
# 1. A fresh PostgreSQL database (CHAOS_DATABASE, default wayfare_chaos,
#    dropped and created) and the local Redis; node3 reaches Redis through
#    benches/chaos/tcp-proxy.mjs, so its link alone can be cut.
# 2. Three nodes (scripts/cluster.sh, in .cluster/ or CLUSTER_DIR) behind
#    HAProxy on http://127.0.0.1:CHAOS_PORT, node I on CHAOS_PORT+I, seeded
#    with 20 + CHAOS_DRIVERS demo drivers under the `waves` policy, the
#    sign-in limits lifted as benches/realtime/run.sh does.
# 3. Load for the whole run: benches/realtime/load.mjs through HAProxy with
#    CHAOS_DRIVERS streaming drivers (driver21 on) sending CHAOS_UPDATE_RATE
#    updates/s and booking CHAOS_LOAD_BOOKING_RATE rides/s (preloaded with
#    load-on-cluster.mjs: sign-in at node1, sockets that reconnect); and
#    http/tests/realtime/crash.mjs booking CHAOS_CRASH_BOOKING_RATE rides/s
#    over the three nodes (CRASH_URLS) with the twenty demo drivers running
#    trips. When crash.mjs prints `@@KILL i`, node i+1 is SIGKILLed, started
#    again CHAOS_DOWN_SECONDS later and, once ready, crash.mjs is told
#    `@@RESTARTED`.
# 4. Meanwhile, half a kill period after kill CHAOS_POSTGRES_AFTER_KILL,
#    CHAOS_REDIS_AFTER_KILL and CHAOS_PARTITION_AFTER_KILL (0: before the
#    first kill; `off`: never): PostgreSQL is restarted, Redis is restarted
#    (it keeps nothing), node3's link to Redis is dropped for
#    CHAOS_PARTITION_SECONDS. Every event is logged with its time.
# 5. CHAOS_SETTLE_SECONDS after the load stops, the checks: crash.mjs's
#    verdict; load.mjs's figures (benches/chaos/load-report.mjs); `wayfare
#    audit`; no active booking with a timer overdue, or NEW and untouched for
#    longer than the dispatch retry; bookings by status; the cluster metrics
#    summed over the nodes; for each kill, how long until the dead node held
#    no lease (the takeover, before its restart CHAOS_DOWN_SECONDS later),
#    with the median and p99 over the kills; panics and warnings in the node
#    logs.
#    Exits 1 on a problem.
# 6. Everything it started is stopped at the end, whatever happens. The
#    logs stay in .cluster/ (node*.log, haproxy.log, chaos-*), the checks'
#    output in .cluster/chaos-summary.txt.
#
#   benches/chaos/cluster.sh                          # the full run, ~7 minutes
#   CHAOS_KILLS=2 CHAOS_KILL_EVERY=20 CHAOS_DRIVERS=500 CHAOS_UPDATE_RATE=250 \
#     CHAOS_LOAD_BOOKING_RATE=18 CHAOS_CRASH_BOOKING_RATE=2 CHAOS_SECONDS_AFTER=25 \
#     CHAOS_POSTGRES_AFTER_KILL=0 CHAOS_REDIS_AFTER_KILL=1 CHAOS_PARTITION_AFTER_KILL=2 \
#     benches/chaos/cluster.sh                        # a short one, ~2 minutes
#
# Needs the release binary (WAYFARE_BIN, default target/release/wayfare; it
# is not built here), Node 20 with the modules of benches/realtime and
# http/tests/realtime (make node-deps), PostgreSQL (CHAOS_POSTGRES_URL, a
# superuser's URL to its `postgres` database) and Redis (CHAOS_REDIS_URL)
# on this machine, HAProxy, and the rights to restart both servers (root).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cluster=$root/scripts/cluster.sh
run=${CLUSTER_DIR:-$root/.cluster}
case $run in /*) ;; *) run=$PWD/$run ;; esac
export CLUSTER_DIR=$run
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
bin=${WAYFARE_BIN:-$target_dir/release/wayfare}
export WAYFARE_BIN=$bin

drivers=${CHAOS_DRIVERS:-2000}
update_rate=${CHAOS_UPDATE_RATE:-1000}
load_booking_rate=${CHAOS_LOAD_BOOKING_RATE:-90}
crash_booking_rate=${CHAOS_CRASH_BOOKING_RATE:-10}
kills=${CHAOS_KILLS:-10}
kill_every=${CHAOS_KILL_EVERY:-30}
seconds_after=${CHAOS_SECONDS_AFTER:-15}
down_seconds=${CHAOS_DOWN_SECONDS:-5}
lease_ttl_ms=${CHAOS_LEASE_TTL_MS:-5000}
partition_seconds=${CHAOS_PARTITION_SECONDS:-10}
postgres_after=${CHAOS_POSTGRES_AFTER_KILL:-$((kills / 4))}
redis_after=${CHAOS_REDIS_AFTER_KILL:-$((kills / 2))}
partition_after=${CHAOS_PARTITION_AFTER_KILL:-$((kills * 3 / 4))}
settle_seconds=${CHAOS_SETTLE_SECONDS:-30}
# A kill takes the down time and a start (a few seconds) on top of its period.
load_seconds=${CHAOS_LOAD_SECONDS:-$((kills * (kill_every + down_seconds + 5) + seconds_after + 10))}
port=${CHAOS_PORT:-18300}
stats_port=$((port + 99))
proxy_port=${CHAOS_REDIS_PROXY_PORT:-$((port + 79))}
database=${CHAOS_DATABASE:-wayfare_chaos}
postgres_url=${CHAOS_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
redis_url=${CHAOS_REDIS_URL:-redis://127.0.0.1:6379}
# A NEW booking nobody took is dispatched again this often (engine
# DISPATCH_RETRY_MS, docs/simulations.md); its timers may be this late.
dispatch_retry_ms=60000
timer_grace_ms=15000

for number in "$drivers" "$update_rate" "$load_booking_rate" "$crash_booking_rate" "$kills" "$kill_every" \
	"$seconds_after" "$down_seconds" "$lease_ttl_ms" "$partition_seconds" "$settle_seconds" "$load_seconds" \
	"$port" "$proxy_port"; do
	[[ $number =~ ^[0-9]+$ ]] || {
		echo "chaos: not a whole number: $number (CHAOS_… variables)" >&2
		exit 2
	}
done
for after in "$postgres_after" "$redis_after" "$partition_after"; do
	[[ $after =~ ^([0-9]+|off)$ ]] || {
		echo "chaos: CHAOS_…_AFTER_KILL takes a kill's number or off, not $after" >&2
		exit 2
	}
done

base=${postgres_url%%\?*}
database_url=${base%/*}/$database
address=${base#*://}
address=${address##*@}
address=${address%%/*}
postgres_port=${address##*:}
[ "$postgres_port" != "$address" ] || postgres_port=5432
cluster_url=http://127.0.0.1:$port
node_url() { echo "http://127.0.0.1:$((port + $1))"; }

events=$run/chaos-events.log
summary=$run/chaos-summary.txt
started_ms=$(date +%s%3N)

now_ms() { date +%s%3N; }
# Seconds since the start, from milliseconds.
since() {
	local ms=$(($1 - started_ms))
	printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}
# An event of the run, with its time, in chaos-events.log and on stderr.
event() {
	local now line
	now=$(now_ms)
	line="$(date -d "@${now:0:-3}.${now: -3}" '+%F %T.%3N') +$(since "$now")s  $*"
	echo "$line" >>"$events"
	echo "chaos: $line" >&2
}
die() {
	echo "chaos: $*" >&2
	exit 2
}
psql_admin() { psql -w -X -Atq -v ON_ERROR_STOP=1 -d "$postgres_url" "$@"; }
psql_run() { psql -w -X -Atq -v ON_ERROR_STOP=1 -d "$database_url" "$@"; }
redis_ping() { [ "$(redis-cli -u "$1" ping 2>/dev/null)" = PONG ]; }

# ---- PostgreSQL and Redis restarts ---------------------------------------------------

# How this machine's PostgreSQL restarts: Debian's pg_ctlcluster for the
# cluster on its port, else pg_ctl on its data directory as the owner.
postgres_restart_command=()
find_postgres_restart() {
	local cluster_line data owner pg_ctl candidates
	if command -v pg_lsclusters >/dev/null 2>&1 && command -v pg_ctlcluster >/dev/null 2>&1; then
		cluster_line=$(pg_lsclusters --no-header 2>/dev/null | awk -v port="$postgres_port" '$3 == port { print $1, $2; exit }')
		if [ -n "$cluster_line" ]; then
			read -r -a postgres_restart_command <<<"pg_ctlcluster $cluster_line restart"
			return 0
		fi
	fi
	data=$(psql_admin -c 'SHOW data_directory') || return 1
	owner=$(stat -c %U "$data" 2>/dev/null) || return 1
	candidates=(/usr/lib/postgresql/*/bin/pg_ctl)
	pg_ctl=$(command -v pg_ctl || echo "${candidates[-1]}")
	[ -x "$pg_ctl" ] || return 1
	if [ "$(id -un)" = "$owner" ]; then
		postgres_restart_command=("$pg_ctl" -D "$data" -w -m fast restart)
	else
		postgres_restart_command=(su "$owner" -s /bin/sh -c "'$pg_ctl' -D '$data' -w -m fast -l '$data/chaos-restart.log' restart")
	fi
}

postgres_answers() { pg_isready -q -d "$postgres_url" 2>/dev/null; }

restart_postgres() {
	local began
	began=$(now_ms)
	event "postgres: restarting (${postgres_restart_command[*]})"
	"${postgres_restart_command[@]}" >>"$events" 2>&1 || event "postgres: the restart command failed"
	for _ in $(seq 1 600); do
		postgres_answers && break
		sleep 0.1
	done
	if postgres_answers; then
		event "postgres: answering again, $(($(now_ms) - began)) ms after the restart began"
	else
		event "postgres: NOT answering 60 s after the restart"
	fi
}

# The local Redis is restarted as it runs now: its port, binding, directory,
# log and pid files, persistence off or on as it is.
redis_start_command=()
find_redis_restart() {
	local name value
	redis_start_command=(redis-server)
	for name in port bind dir logfile pidfile save appendonly protected-mode; do
		value=$(redis-cli -u "$redis_url" config get "$name" 2>/dev/null | sed -n 2p) || return 1
		if [ "$name" = bind ]; then
			# Several addresses are several words.
			read -r -a words <<<"$value"
			redis_start_command+=(--bind "${words[@]}")
		else
			redis_start_command+=("--$name" "$value")
		fi
	done
	redis_start_command+=(--daemonize yes)
}

start_redis() {
	local dir=/
	for ((i = 1; i < ${#redis_start_command[@]}; i++)); do
		[ "${redis_start_command[i]}" = --dir ] && dir=${redis_start_command[i + 1]}
	done
	(cd "$dir" && "${redis_start_command[@]}") >>"$events" 2>&1
}

restart_redis() {
	local began
	began=$(now_ms)
	event "redis: restarting (SHUTDOWN NOSAVE, then ${redis_start_command[*]})"
	redis-cli -u "$redis_url" shutdown nosave >/dev/null 2>&1 || true
	for _ in $(seq 1 100); do
		redis_ping "$redis_url" || break
		sleep 0.05
	done
	start_redis || event "redis: redis-server did not start"
	for _ in $(seq 1 200); do
		redis_ping "$redis_url" && break
		sleep 0.05
	done
	if redis_ping "$redis_url"; then
		event "redis: answering again, $(($(now_ms) - began)) ms after the shutdown"
	else
		event "redis: NOT answering 10 s after the restart"
	fi
}

drop_node3_link() {
	event "node3's link to Redis: dropped (connections reset, new ones refused) for ${partition_seconds} s"
	kill -s USR1 "$proxy_pid"
	sleep "$partition_seconds"
	kill -s USR2 "$proxy_pid"
	event "node3's link to Redis: restored"
}

# ---- kills ------------------------------------------------------------------------

# The takeover after kill K of node N at KILL_MS, apart from N's restart:
# polls the leases every 50 ms until N holds none (the survivors declared N
# dead once its heartbeat lapsed, let its leases lapse and took its bookings
# over, or released the finished ones), or until N is started again (a
# restart takes back what is left, so there is no takeover figure then).
# Each figure is read when the query that saw none returned: at most one
# poll (~70 ms) late. Then counts where the leases N held at the kill (KEYS,
# kind:key lines) went. One line in chaos-failover.txt.
measure_failover() {
	local k=$1 node=$2 kill_ms=$3 keys=$4 left="" now taken="" held others back released list
	local restart_ms=$((kill_ms + down_seconds * 1000))
	while :; do
		left=$(psql_run -c "SELECT count(*) FROM leases WHERE node = 'node$node'" 2>/dev/null) || left=""
		now=$(now_ms)
		if [ "$left" = 0 ]; then
			taken=$((now - kill_ms))
			break
		fi
		[ "$now" -lt "$restart_ms" ] || break
		sleep 0.05
	done
	held=$(grep -c . "$keys" || true)
	others=- back=- released=-
	if [ "$held" -gt 0 ]; then
		list=$(paste -sd, "$keys")
		IFS='|' read -r others back released < <(psql_run -c "
			SELECT count(*) FILTER (WHERE l.node <> 'node$node'), count(*) FILTER (WHERE l.node = 'node$node'),
			       count(*) FILTER (WHERE l.node IS NULL)
			FROM unnest(string_to_array('$list', ',')) AS k(id)
			LEFT JOIN leases l ON l.kind || ':' || l.key = k.id" 2>/dev/null || echo '-|-|-')
	fi
	echo "$k node$node held=$held takeover_ms=${taken:-none} taken_by_others=$others taken_back=$back released=$released" >>"$run/chaos-failover.txt"
	if [ -n "$taken" ]; then
		event "kill $k: node$node's $held leases all taken over ${taken} ms after the kill ($others by other nodes, $back by node$node again, $released finished)"
	else
		event "kill $k: node$node still held $left leases when it was started again, $((restart_ms - kill_ms)) ms after the kill"
	fi
}

# Kill K: crash.mjs's `@@KILL INDEX`. SIGKILLs node INDEX+1 (its metrics and
# leases read just before), starts it again after the down time, waits for
# its /readyz, tells crash.mjs `@@RESTARTED`, and waits for the failover's
# measure. Runs in the background, so crash.mjs's output keeps being read.
kill_node() {
	local k=$1 node=$(($2 + 1)) kill_ms keys poller rss rest
	keys=$run/chaos-failover/kill$k.keys
	curl -fsS --max-time 2 -o "$run/chaos-metrics/kill$k-node$node.prom" "$(node_url "$node")/metrics" 2>/dev/null ||
		rm -f "$run/chaos-metrics/kill$k-node$node.prom"
	psql_run -c "SELECT kind || ':' || key FROM leases WHERE node = 'node$node'" >"$keys" 2>/dev/null || : >"$keys"
	rss=$(awk '/^VmRSS/ { printf "%d MB", $2 / 1024 }' "/proc/$(cat "$run/node$node.pid")/status" 2>/dev/null || echo '? MB')
	event "kill $k: SIGKILL node$node (holding $(grep -c . "$keys") leases, RSS $rss; load average $(cut -d' ' -f1-3 /proc/loadavg))"
	kill_ms=$(now_ms)
	# The poller starts with the kill, not when `kill` returns: that waits
	# for the process to be gone, and an init that reaps late (a
	# container's) would add its delay to every figure.
	measure_failover "$k" "$node" "$kill_ms" "$keys" &
	poller=$!
	echo "$poller" >>"$run/chaos-pids"
	# The node started next must not hold crash.mjs's pipes.
	"$cluster" kill "$node" {crash_in}>&- {crash_out}<&- >/dev/null 2>>"$events" || event "kill $k: scripts/cluster.sh kill $node failed"
	# Down for the down time from the kill (the process takes a moment to go).
	rest=$((kill_ms + down_seconds * 1000 - $(now_ms)))
	[ "$rest" -le 0 ] || sleep "$((rest / 1000)).$(printf '%03d' $((rest % 1000)))"
	event "kill $k: node$node gone $(($(now_ms) - kill_ms)) ms ago, starting it again"
	if "$cluster" start "$node" {crash_in}>&- {crash_out}<&- >>"$events" 2>&1; then
		echo "$k node$node ready_ms=$(($(now_ms) - kill_ms))" >>"$run/chaos-restarts.txt"
		event "kill $k: node$node ready, $(($(now_ms) - kill_ms)) ms after the kill"
	else
		echo "$k node$node ready_ms=none" >>"$run/chaos-restarts.txt"
		event "kill $k: node$node did NOT come back (its log: $run/node$node.log)"
	fi
	echo @@RESTARTED >&"$crash_in" || event "kill $k: crash.mjs no longer listens"
	wait "$poller" || true
}

# The events due half a kill period after kill K (0: after the start).
schedule_after_kill() {
	local k=$1 half=$((kill_every / 2))
	if [ "$postgres_after" = "$k" ]; then
		(sleep "$half" && restart_postgres) &
		background+=($!)
	fi
	if [ "$redis_after" = "$k" ]; then
		(sleep "$half" && restart_redis) &
		background+=($!)
	fi
	if [ "$partition_after" = "$k" ]; then
		(sleep "$half" && drop_node3_link) &
		background+=($!)
	fi
}

# ---- the end, whatever happens ------------------------------------------------------

proxy_pid=""
load_pid=""
crash_pid=""
background=()
teardown() {
	local code=$? pid
	trap - EXIT INT TERM
	set +e
	echo "chaos: stopping everything (logs in $run)" >&2
	for pid in "$crash_pid" "$load_pid" "${background[@]}"; do
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done
	if [ -f "$run/chaos-pids" ]; then
		while read -r pid; do kill "$pid" 2>/dev/null; done <"$run/chaos-pids"
	fi
	# Services an interrupted event left down come back first.
	if [ -n "$proxy_pid" ]; then
		kill -s USR2 "$proxy_pid" 2>/dev/null
	fi
	if [ ${#redis_start_command[@]} -gt 0 ] && ! redis_ping "$redis_url"; then
		echo "chaos: Redis is down: starting it" >&2
		start_redis
	fi
	if ! postgres_answers; then
		echo "chaos: PostgreSQL does not answer: restarting it" >&2
		"${postgres_restart_command[@]}" >>"$events" 2>&1
	fi
	"$cluster" down >&2
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
	wait 2>/dev/null
	exit "$code"
}

# ---- before the run -----------------------------------------------------------------

# HAProxy is not checked here: `scripts/cluster.sh up` installs Debian's
# when it is missing and this runs as root, and says how otherwise.
for tool in node psql pg_isready redis-cli curl setsid; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is missing"
done
[ -x "$bin" ] || die "no binary at $bin: make release builds it"
"$bin" serve --help 2>/dev/null | grep -q -- --redis-url || die "$bin has no cluster mode (serve --redis-url): build the current code"
for package in benches/realtime http/tests/realtime; do
	[ -d "$root/$package/node_modules" ] || npm ci --prefix "$root/$package" --no-audit --no-fund >/dev/null
done
if "$cluster" status 2>/dev/null | grep -q ' pid '; then
	die "a cluster runs in $run: scripts/cluster.sh down stops it (or set CLUSTER_DIR)"
fi
for p in "$proxy_port" "$port"; do
	(: <"/dev/tcp/127.0.0.1/$p") 2>/dev/null && die "something already listens on port $p (CHAOS_PORT, CHAOS_REDIS_PROXY_PORT)"
done
postgres_answers || die "PostgreSQL does not answer at $postgres_url (CHAOS_POSTGRES_URL)"
redis_ping "$redis_url" || die "Redis does not answer at $redis_url (CHAOS_REDIS_URL)"
case $redis_url in
redis://127.0.0.1* | redis://localhost*) ;;
*) die "Redis must run on this machine to be restarted: $redis_url" ;;
esac
find_postgres_restart || die "cannot tell how to restart PostgreSQL here"
find_redis_restart || die "cannot read Redis' configuration to restart it"
others=$(psql_admin -c "SELECT string_agg(DISTINCT datname, ', ') FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname IS NOT NULL")
[ -z "$others" ] || echo "chaos: note: PostgreSQL has other clients (databases: $others); its restart will cut them off too" >&2

mkdir -p "$run"
rm -rf "$run"/node*.log "$run/haproxy.log" "$run"/chaos-* "$run/chaos-metrics" "$run/chaos-failover"
mkdir -p "$run/chaos-metrics" "$run/chaos-failover"
trap teardown EXIT
trap 'exit 130' INT TERM
# A write to a crash.mjs that exited fails instead of killing this script.
trap '' PIPE

event "chaos run: $kills kills every ${kill_every} s (down ${down_seconds} s), lease TTL ${lease_ttl_ms} ms;" \
	"load.mjs: $drivers drivers, $update_rate updates/s, $load_booking_rate bookings/s for ${load_seconds} s;" \
	"crash.mjs: $crash_booking_rate bookings/s; postgres restart after kill $postgres_after," \
	"redis restart after kill $redis_after, node3's link dropped after kill $partition_after"
event "database $database_url: dropped and created"
psql_admin -c "DROP DATABASE IF EXISTS \"$database\" WITH (FORCE)"
psql_admin -c "CREATE DATABASE \"$database\""

node "$here/tcp-proxy.mjs" "$proxy_port" "${redis_url#redis://}" >>"$run/chaos-redis-proxy.log" 2>&1 &
proxy_pid=$!
for _ in $(seq 1 50); do
	redis_ping "redis://127.0.0.1:$proxy_port" && break
	sleep 0.1
done
redis_ping "redis://127.0.0.1:$proxy_port" || die "the Redis proxy does not answer (its log: $run/chaos-redis-proxy.log)"

# Every node (and each restart) gets these: the cluster.sh commands below
# pass the environment on.
export WAYFARE_DEMO_SEED__DRIVERS=$((drivers + 20))
export WAYFARE_DEMO_SEED__DISPATCH_POLICY=waves
export WAYFARE_AUTH__CODES_PER_CLIENT=1000000
export WAYFARE_AUTH__CODES_PER_CONTACT=1000
export WAYFARE_CLUSTER__LEASE_TTL_MS=$lease_ttl_ms
export WAYFARE_CLUSTER__PREFIX=${CHAOS_REDIS_PREFIX:-wayfare-chaos}
export REDIS_URL_3=redis://127.0.0.1:$proxy_port
event "starting the cluster (node3's Redis through 127.0.0.1:$proxy_port)"
"$cluster" up --no-build --nodes 3 --port "$port" --stats-port "$stats_port" \
	--database-url "$database_url" --redis-url "$redis_url" >>"$events" 2>&1 ||
	die "the cluster did not start (scripts/cluster.sh's messages in $events)"
tr '\0' ' ' <"/proc/$(cat "$run/node3.pid")/cmdline" | grep -qF -- "--redis-url redis://127.0.0.1:$proxy_port " ||
	die "node3 does not reach Redis through the proxy on port $proxy_port"
event "cluster up at $cluster_url"

# ---- the run ----------------------------------------------------------------------

event "load.mjs: signing in $drivers drivers (at node1) and streaming through HAProxy"
(
	cd "$root/benches/realtime"
	CHAOS_SIGN_IN_URL=$(node_url 1) CHAOS_LOAD_TALLY=$run/chaos-load-tally.json exec node \
		--import "$here/load-on-cluster.mjs" load.mjs --url "$cluster_url" --drivers "$drivers" --first-driver 21 \
		--rate "$update_rate" --booking-rate "$load_booking_rate" --seconds "$load_seconds" --warmup 5 \
		--ready-file "$run/chaos-load-ready.json"
) >"$run/chaos-load.log" 2>&1 &
load_pid=$!
for _ in $(seq 1 6000); do
	[ -f "$run/chaos-load-ready.json" ] && break
	kill -0 "$load_pid" 2>/dev/null || {
		tail -n 20 "$run/chaos-load.log" >&2
		die "load.mjs exited before its drivers streamed (its log: $run/chaos-load.log)"
	}
	sleep 0.1
done
[ -f "$run/chaos-load-ready.json" ] || die "load.mjs's drivers not streaming after 10 minutes"
event "load.mjs: $(head -n 1 "$run/chaos-load.log")"

crash_urls="$(node_url 1),$(node_url 2),$(node_url 3)"
event "crash.mjs: starting, CRASH_URLS=$crash_urls"
coproc CRASH {
	cd "$root/http/tests/realtime" || exit 1
	WAYFARE_URL=$(node_url 1) CRASH_URLS=$crash_urls CRASH_BOOKING_RATE=$crash_booking_rate CRASH_KILLS=$kills \
		CRASH_KILL_EVERY=$kill_every CRASH_SECONDS_AFTER=$seconds_after exec node crash.mjs 2>&1
}
# shellcheck disable=SC2153 # CRASH_PID is the coprocess', set by coproc
crash_pid=$CRASH_PID
# Copies of the pipes: bash drops CRASH when the coprocess exits.
exec {crash_out}<&"${CRASH[0]}" {crash_in}>&"${CRASH[1]}"

kill_count=0
crash_result=""
while IFS= read -r line <&"$crash_out"; do
	printf '%s %s\n' "$(date '+%T.%3N')" "$line" >>"$run/chaos-crash.log"
	case $line in
	'@@KILL '*)
		kill_count=$((kill_count + 1))
		kill_node "$kill_count" "${line#@@KILL }" &
		background+=($!)
		continue
		;;
	'RESULT '*) crash_result=${line#RESULT } ;;
	esac
	echo "chaos: crash.mjs: $line" >&2
	if [[ $line =~ ^\[realtime\]\ kill\ ([0-9]+):\ node\ [0-9]+\ is\ back ]]; then
		schedule_after_kill "${BASH_REMATCH[1]}"
	elif [[ $line =~ streaming\ drivers\ connected ]]; then
		schedule_after_kill 0
	fi
done
crash_status=0
wait "$crash_pid" || crash_status=$?
crash_pid=""
exec {crash_out}<&- {crash_in}>&-
event "crash.mjs: exited with $crash_status"
load_status=0
wait "$load_pid" || load_status=$?
load_pid=""
load_end=$(now_ms)
event "load.mjs: exited with $load_status"
for pid in "${background[@]}"; do
	wait "$pid" || true
done
background=()
rest=$((settle_seconds * 1000 - ($(now_ms) - load_end)))
if [ "$rest" -gt 0 ]; then
	event "waiting $((rest / 1000)) s more, ${settle_seconds} s after the load, before reading the database"
	sleep "$((rest / 1000)).$((rest % 1000 / 100))"
fi

# ---- the checks -------------------------------------------------------------------

problems=()
problem() {
	problems+=("$1")
	echo "  PROBLEM: $1"
}

checks() {
	local count values n median node metric final whole file
	# Every check runs, whatever an earlier one met.
	set +e

	echo "== Chaos run on three nodes, $(date '+%F %T')"
	echo "   $kills kills every ${kill_every} s (down ${down_seconds} s), lease TTL ${lease_ttl_ms} ms; load.mjs $drivers drivers," \
		"$update_rate updates/s, $load_booking_rate bookings/s; crash.mjs $crash_booking_rate bookings/s"
	echo "   events (chaos-events.log):"
	grep -E '^[0-9-]+ [0-9:.]+ \+[0-9.]+s  (kill [0-9]+: (SIGKILL|node[0-9] (ready|did NOT)|.* taken over|.* when it was started again)|postgres:|redis:|node3.s link)' "$events" | sed 's/^/     /'

	echo
	echo "== crash.mjs (exit status ${crash_status:-none})"
	if [ -n "$crash_result" ]; then
		echo "  RESULT $crash_result"
		count=$(node -e 'console.log(JSON.parse(process.argv[1]).problems)' "$crash_result")
		[ "$count" = 0 ] || problem "crash.mjs found $count problems (chaos-crash.log)"
	else
		problem "crash.mjs printed no RESULT (chaos-crash.log)"
	fi
	[ "$crash_status" = 0 ] || {
		problem "crash.mjs exited with ${crash_status:-no status}"
		grep -v '^[0-9:.]* @@' "$run/chaos-crash.log" | tail -n 12 | sed 's/^/  | /'
	}

	echo
	echo "== load.mjs through HAProxy (exit status $load_status: it fails on any drop, which a kill makes)"
	node "$here/load-report.mjs" "$run/chaos-load.log" "$run/chaos-load-tally.json" || problem "load.mjs's figures (above)"

	echo
	echo "== wayfare audit"
	if NO_COLOR=1 RUST_LOG=warn "$bin" audit --database-url "$database_url" >"$run/chaos-audit.txt" 2>&1; then
		sed 's/^/  /' "$run/chaos-audit.txt"
	else
		sed 's/^/  /' "$run/chaos-audit.txt"
		problem "wayfare audit found broken invariants"
	fi

	echo
	echo "== the database, ${settle_seconds} s after the load"
	echo "  bookings created: $(psql_run -F' ' -c "SELECT count(*), round((max(created_at) - min(created_at)) / 1000.0), round(count(*) / greatest(1, (max(created_at) - min(created_at)) / 1000.0), 1) FROM bookings" |
		awk '{ printf "%d in %d s, %s/s (both scripts)", $1, $2, $3 }')"
	echo "  bookings by status: $(psql_run -F' ' -c "SELECT status, count(*) FROM bookings GROUP BY status ORDER BY count(*) DESC" | paste -sd, | sed 's/,/, /g')"
	values=$(psql_run -F' ' -c "SELECT status, count(*) FROM bookings WHERE active GROUP BY status ORDER BY count(*) DESC" | paste -sd, | sed 's/,/, /g')
	echo "  still active: ${values:-none}"
	echo "  (a NEW booking whose cancel a client sent while its node was away stays NEW until its auto-cancel, 30 minutes after its trip date)"
	values=$(psql_run -F' ' -c "
		SELECT b.id, b.status, t.key, (t.value->>'at')::bigint - (extract(epoch FROM now()) * 1000)::bigint
		FROM bookings b, jsonb_each(b.doc->'timers') t
		WHERE b.active AND jsonb_typeof(t.value) = 'object'
		  AND (t.value->>'at')::bigint < (extract(epoch FROM now()) * 1000)::bigint - $timer_grace_ms")
	count=$(grep -c . <<<"$values" || true)
	echo "  active bookings with a timer more than $((timer_grace_ms / 1000)) s overdue: $count"
	if [ "$count" -gt 0 ]; then
		head -n 10 <<<"$values" | awk '{ printf "    %s %s %s due %.1f s ago\n", $1, $2, $3, -$4 / 1000 }'
		problem "$count timers overdue: lost in a failover"
	fi
	values=$(psql_run -F' ' -c "
		SELECT id, (extract(epoch FROM now()) * 1000)::bigint - updated_at FROM bookings
		WHERE status = 'NEW' AND (doc->>'bookLater')::boolean IS NOT TRUE
		  AND updated_at < (extract(epoch FROM now()) * 1000)::bigint - $((dispatch_retry_ms + timer_grace_ms))")
	count=$(grep -c . <<<"$values" || true)
	echo "  NEW bookings untouched for longer than the dispatch retry ($((dispatch_retry_ms / 1000)) s) + $((timer_grace_ms / 1000)) s: $count"
	if [ "$count" -gt 0 ]; then
		head -n 10 <<<"$values" | awk '{ printf "    %s untouched for %.1f s\n", $1, $2 / 1000 }'
		problem "$count NEW bookings no longer dispatched: their timers were lost"
	fi
	echo "  leases left: $(psql_run -F' ' -c "SELECT node, count(*), count(*) FILTER (WHERE expires_at < (extract(epoch FROM now()) * 1000)::bigint) FROM leases GROUP BY node ORDER BY node" |
		awk '{ printf "%s%s %d (%d lapsed)", sep, $1, $2, $3; sep = ", " } END { if (!NR) printf "none" }')"

	echo
	echo "== cluster metrics, summed over the nodes"
	mkdir -p "$run/chaos-metrics"
	for node in 1 2 3; do
		curl -fsS --max-time 5 -o "$run/chaos-metrics/final-node$node.prom" "$(node_url "$node")/metrics" 2>/dev/null ||
			problem "node$node's /metrics does not answer at the end"
	done
	for metric in wayfare_cluster_bookings_taken_over_total wayfare_cluster_forwarded_total wayfare_actor_restarts_total; do
		final=$(cat "$run"/chaos-metrics/final-node*.prom 2>/dev/null | awk -v name="$metric" 'index($1, name) == 1 && (length($1) == length(name) || substr($1, length(name) + 1, 1) == "{") { sum += $2 } END { print sum + 0 }')
		whole=$(cat "$run"/chaos-metrics/*.prom 2>/dev/null | awk -v name="$metric" 'index($1, name) == 1 && (length($1) == length(name) || substr($1, length(name) + 1, 1) == "{") { sum += $2 } END { print sum + 0 }')
		echo "  $metric: $final since each node's last start; $whole over the run (with each killed node's last scrape)"
		cat "$run"/chaos-metrics/*.prom 2>/dev/null | awk -v name="$metric" 'index($1, name) == 1 && substr($1, length(name) + 1, 1) == "{" { sum[$1] += $2 } END { for (key in sum) printf "    %s %d\n", key, sum[key] }' | sort
	done

	echo
	echo "== failover: from each kill until the dead node held no lease (taken over by the others, before its restart)"
	if [ -f "$run/chaos-failover.txt" ]; then
		sort -n "$run/chaos-failover.txt" | sed 's/^/  kill /'
		values=$(grep -v 'held=0 ' "$run/chaos-failover.txt" | sed -n 's/.*takeover_ms=\([0-9]*\) .*/\1/p' | sort -n)
		n=$(grep -c . <<<"$values" || true)
		if [ "$n" -gt 0 ]; then
			median=$(sed -n "$(((n + 1) / 2))p" <<<"$values")
			# Nearest rank: with fewer than 100 kills, p99 is the largest.
			p99=$(sed -n "$(((n * 99 + 99) / 100))p" <<<"$values")
			echo "  takeover over the $n kills whose node held leases: min $(head -n 1 <<<"$values") ms, median $median ms, p99 $p99 ms, max $(tail -n 1 <<<"$values") ms"
		fi
		count=$(grep -c 'takeover_ms=none' "$run/chaos-failover.txt" || true)
		[ "$count" = 0 ] || problem "$count kills left leases untaken until the dead node's restart (${down_seconds} s)"
	fi
	[ "$(grep -c . "$run/chaos-failover.txt" 2>/dev/null || echo 0)" = "$kill_count" ] || problem "$kill_count kills, $(grep -c . "$run/chaos-failover.txt" 2>/dev/null || echo 0) failover measures"
	if [ -f "$run/chaos-restarts.txt" ]; then
		values=$(sed -n 's/.*ready_ms=\([0-9]*\)$/\1/p' "$run/chaos-restarts.txt" | sort -n)
		n=$(grep -c . <<<"$values" || true)
		[ "$n" -eq 0 ] || echo "  a killed node ready again (down ${down_seconds} s, then its start): min $(head -n 1 <<<"$values") ms, median $(sed -n "$(((n + 1) / 2))p" <<<"$values") ms, max $(tail -n 1 <<<"$values") ms after the kill"
		count=$(grep -c 'ready_ms=none' "$run/chaos-restarts.txt" || true)
		[ "$count" = 0 ] || problem "$count killed nodes did not come back"
	fi
	[ "$kill_count" = "$kills" ] || problem "crash.mjs asked for $kill_count kills of $kills"

	echo
	echo "== HAProxy's health checks (haproxy.log): times each node was marked down, and back up"
	for node in 1 2 3; do
		echo "  node$node: down $(grep -c "^Server wayfare/node$node is DOWN" "$run/haproxy.log"), up $(grep -c "^Server wayfare/node$node is UP" "$run/haproxy.log")"
	done

	echo
	echo "== the nodes' logs"
	for node in 1 2 3; do
		file=$run/node$node.log
		echo "  node$node: $(grep -c '^=== ' "$file") starts, $(grep -c 'panicked' "$file" || true) panics," \
			"$(grep -c ' ERROR ' "$file" || true) errors, $(grep -c ' WARN ' "$file" || true) warnings," \
			"$(grep -c 'fenced' "$file" || true) 'fenced', $(grep -c 'not restored' "$file" || true) 'not restored'"
		grep -E ' (ERROR|WARN) ' "$file" | sed -E 's/^[^ ]+ +//; s/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<id>/g' |
			cut -c1-200 | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/    /'
		if grep -q 'panicked' "$file"; then
			grep -m 3 'panicked' "$file" | sed 's/^/    /'
			problem "node$node panicked"
		fi
	done

	echo
	if [ ${#problems[@]} -eq 0 ]; then
		echo "== PASSED: no problem found"
	else
		echo "== FAILED: ${#problems[@]} problems"
		printf '  - %s\n' "${problems[@]}"
	fi
	return 0
}

checks | tee "$summary"
# The verdict is the summary's last section (checks ran in a pipeline's subshell).
grep -q '^== PASSED' "$summary"
