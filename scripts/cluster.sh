#!/usr/bin/env bash
# A Wayfare cluster on this machine (`make cluster`): NODES `wayfare serve`
# nodes (default 3) in cluster mode on one PostgreSQL database and one Redis,
# behind HAProxy with sticky sessions, serving the demo city at
# http://localhost:PORT (default 8080). docs/operations.md, "Running several
# nodes", explains the parts.
#
#   scripts/cluster.sh up [--nodes N] [--port PORT] [--database-url URL]
#                         [--redis-url URL] [--stats-port PORT] [--no-build]
#   scripts/cluster.sh down             stop everything `up` started
#   scripts/cluster.sh status           exits 1 when a process is not running
#   scripts/cluster.sh kill I           SIGKILL node I (a crash)
#   scripts/cluster.sh stop I           SIGTERM node I (a graceful stop)
#   scripts/cluster.sh start I          start node I again (same name, port, log)
#
# `up` builds the release binary and the web app (`make release ui`; skipped
# with --no-build), checks that PostgreSQL and Redis answer, creates the
# database when it is missing, installs HAProxy when it is missing and this
# runs as root, then starts node1 (it seeds the demo city), waits until it is
# ready, starts node2…nodeN and HAProxy. Node I is `nodeI` on
# 127.0.0.1:PORT+I. The database is kept between runs; drop it to start
# afresh (psql postgres://postgres@127.0.0.1:5432/postgres -c 'DROP DATABASE
# wayfare_cluster'). Pids, logs, the HAProxy configuration and the nodes'
# data directory (uploads, the prepared road graph) are in .cluster/
# (CLUSTER_DIR). Other WAYFARE_… variables in the environment reach every
# node, e.g. WAYFARE_CLUSTER__LEASE_TTL_MS=3000. REDIS_URL_<I> in `up`'s
# environment gives node I a Redis URL of its own (the same Redis, reached
# another way: benches/chaos/cluster.sh sends node3's through a proxy whose
# link it cuts); it is kept with the cluster's state for `start I`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
run=${CLUSTER_DIR:-$root/.cluster}
case $run in /*) ;; *) run=$PWD/$run ;; esac
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
bin=${WAYFARE_BIN:-$target_dir/release/wayfare}
template=$root/scripts/cluster/haproxy.cfg.in
default_database_url=postgres://postgres@127.0.0.1:5432/wayfare_cluster
state=$run/cluster.env
# The nodes believe X-Forwarded-For from HAProxy, which reaches them from here.
trusted_proxies=${WAYFARE_AUTH__TRUSTED_PROXIES:-'["127.0.0.1/32"]'}

log() { echo "cluster: $*" >&2; }
die() {
	log "$*"
	exit 1
}

usage() {
	{
		echo usage:
		sed -n '/^#   scripts\/cluster.sh up/,/^#   scripts\/cluster.sh start/s/^#   /  /p' "$0"
	} >&2
	exit 2
}

# The pid in FILE when that process still runs and its command line contains
# WORD (so a pid the system gave to another process since does not count).
alive() {
	local file=$1 word=$2 pid
	[ -f "$file" ] || return 1
	pid=$(cat "$file")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
	if [ -r "/proc/$pid/cmdline" ]; then
		tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$word" || return 1
	fi
	echo "$pid"
}

node_pid() { alive "$run/node$1.pid" "--node node$1 "; }
# Node I's Redis URL: its own (REDIS_URL_<I> at `up`) or the cluster's.
node_redis_url() {
	local own=redis_url_$1
	echo "${!own:-$redis_url}"
}
haproxy_pid() { alive "$run/haproxy.pid" "$run/haproxy.cfg"; }
node_port() { echo $((port + $1)); }

# True when something accepts connections on 127.0.0.1:PORT.
listening() { (: <"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

load_state() {
	[ -f "$state" ] || die "no cluster in $run: scripts/cluster.sh up starts one"
	# shellcheck source=/dev/null
	. "$state"
}

node_number() {
	if ! [[ ${1:-} =~ ^[1-9][0-9]*$ ]] || [ "$1" -gt "$nodes" ]; then
		die "no node ${1:-} (nodes 1 to $nodes)"
	fi
}

# The end of FILE's last run (from its last "=== … starting" line).
last_run() {
	awk '/^=== / { run = "" } { run = run $0 "\n" } END { printf "%s", run }' "$1" | tail -n 20 >&2 || true
}

# Waits until node I's /readyz answers 200; stops with the end of its log
# when it exits or TIMEOUT seconds pass.
wait_ready() {
	local i=$1 timeout=$2 pid url
	url="http://127.0.0.1:$(node_port "$i")/readyz"
	for _ in $(seq 1 $((timeout * 10))); do
		curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null && return 0
		if ! pid=$(node_pid "$i"); then
			last_run "$run/node$i.log"
			die "node$i exited (its log: $run/node$i.log)"
		fi
		sleep 0.1
	done
	last_run "$run/node$i.log"
	die "node$i (pid $pid) not ready at $url after ${timeout} s (its log: $run/node$i.log)"
}

# Starts node I in its own session, so that it outlives this script and a
# Ctrl-C in the terminal. Every node gets --demo: the first seeds the city
# and the others find it seeded; each then has the dev outbox and the test
# payment gateway, as `make run` does.
start_node() {
	local i=$1 pid node_listen
	if pid=$(node_pid "$i"); then
		log "node$i already runs (pid $pid)"
		return 0
	fi
	node_listen=127.0.0.1:$(node_port "$i")
	listening "$(node_port "$i")" && die "something already listens on $node_listen"
	echo "=== $(date '+%F %T') starting node$i on $node_listen" >>"$run/node$i.log"
	NO_COLOR=1 WAYFARE_AUTH__TRUSTED_PROXIES=$trusted_proxies setsid "$bin" serve --demo \
		--database-url "$database_url" --redis-url "$(node_redis_url "$i")" --node "node$i" \
		--listen "$node_listen" --data-dir "$run/data" </dev/null >>"$run/node$i.log" 2>&1 &
	echo $! >"$run/node$i.pid"
}

# Waits up to SECONDS for process PID to exit; true when it did.
wait_exit() {
	local pid=$1 seconds=$2 state
	for _ in $(seq 1 $((seconds * 10))); do
		kill -0 "$pid" 2>/dev/null || return 0
		# A zombie has exited; its parent (init, here) just has not reaped it.
		state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || return 0
		[ "$state" != Z ] || return 0
		sleep 0.1
	done
	return 1
}

# Sends SIGNAL to node I and waits up to SECONDS for it to exit, then
# SIGKILLs it.
signal_node() {
	local i=$1 signal=$2 seconds=$3 pid
	if ! pid=$(node_pid "$i"); then
		log "node$i does not run"
		return 0
	fi
	kill -s "$signal" "$pid"
	wait_exit "$pid" "$seconds" && return 0
	log "node$i (pid $pid) still runs ${seconds} s after SIG$signal: SIGKILL"
	kill -s KILL "$pid" 2>/dev/null || true
}

# The processes of this cluster that run, as " node1 node2 haproxy".
running_processes() {
	local file i
	for file in "$run"/node*.pid; do
		[ -f "$file" ] || continue
		i=${file##*/node}
		i=${i%.pid}
		node_pid "$i" >/dev/null && printf ' node%s' "$i"
	done
	haproxy_pid >/dev/null && printf ' haproxy'
	return 0
}

postgres_answers() { pg_isready -q -d "$database_url" 2>/dev/null; }

# Creates the URL's database when it is missing, connected to the server's
# `postgres` database with the same user and parameters.
ensure_database() {
	local base query database admin exists
	base=${database_url%%\?*}
	query=${database_url:${#base}}
	database=${base##*/}
	[[ $database =~ ^[A-Za-z0-9_]+$ ]] || die "cannot tell the database's name from $database_url"
	admin=${base%/*}/postgres$query
	exists=$(psql -w -X -Atq -v ON_ERROR_STOP=1 -d "$admin" -c "SELECT 1 FROM pg_database WHERE datname = '$database'") ||
		die "cannot sign in to PostgreSQL as $admin (psql's message above)"
	if [ "$exists" != 1 ]; then
		log "creating database $database"
		psql -w -X -q -v ON_ERROR_STOP=1 -d "$admin" -c "CREATE DATABASE \"$database\"" >&2
	fi
}

# Whether the Redis at URL answers a PING.
redis_answers() {
	local url=$1 address host redis_port
	if command -v redis-cli >/dev/null 2>&1; then
		[ "$(redis-cli -u "$url" ping 2>/dev/null)" = PONG ]
		return
	fi
	# No redis-cli: any answer to a PING will do.
	address=${url#*://}
	address=${address##*@}
	address=${address%%/*}
	host=${address%:*}
	redis_port=${address##*:}
	[ "$host" != "$address" ] || redis_port=6379
	(
		exec 3<>"/dev/tcp/$host/$redis_port"
		printf 'PING\r\n' >&3
		read -r -t 2 reply <&3 && [ -n "$reply" ]
	) 2>/dev/null
}

# Debian's haproxy, installed when missing and running as root. This script
# runs it itself, not as the system's service.
ensure_haproxy() {
	command -v haproxy >/dev/null 2>&1 && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		die "HAProxy is missing; install it with: sudo apt-get install -y haproxy"
	fi
	exec 9>/var/lock/wayfare-ensure-haproxy.lock
	flock 9
	if ! command -v haproxy >/dev/null 2>&1; then
		log "installing Debian's haproxy"
		export DEBIAN_FRONTEND=noninteractive
		apt-get -o DPkg::Lock::Timeout=600 update >&2
		apt-get -o DPkg::Lock::Timeout=600 install -y haproxy >&2
	fi
	exec 9>&-
}

# Writes $run/haproxy.cfg from the template and checks it with `haproxy -c`.
write_haproxy_config() {
	local text servers="" i
	text=$(<"$template")
	for i in $(seq 1 "$nodes"); do
		servers+="    server node$i 127.0.0.1:$(node_port "$i") cookie node$i"$'\n'
	done
	text=${text//@SERVERS@/${servers%$'\n'}}
	text=${text//@PORT@/$port}
	text=${text//@STATS_PORT@/$stats_port}
	text=${text//@RUN_DIR@/$run}
	printf '%s\n' "$text" >"$run/haproxy.cfg"
	haproxy -c -q -f "$run/haproxy.cfg" || die "HAProxy refuses $run/haproxy.cfg (its message above)"
}

start_haproxy() {
	local pid
	if pid=$(haproxy_pid); then
		log "HAProxy already runs (pid $pid)"
		return 0
	fi
	# A new log each time: HAProxy makes its stdout non-blocking, which drops
	# O_APPEND, so it would write over an older log from its start.
	setsid haproxy -db -f "$run/haproxy.cfg" </dev/null >"$run/haproxy.log" 2>&1 &
	echo $! >"$run/haproxy.pid"
	# Ready when its checks have found a node up (two checks a second apart).
	for _ in $(seq 1 100); do
		curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/readyz" 2>/dev/null && return 0
		haproxy_pid >/dev/null || {
			last_run "$run/haproxy.log"
			die "HAProxy exited (its log: $run/haproxy.log)"
		}
		sleep 0.1
	done
	die "no node ready behind HAProxy at http://127.0.0.1:$port after 10 s (scripts/cluster.sh status)"
}

# `up`'s exit trap: a failure stops what was started.
up_failed() {
	local code=$?
	[ "$code" = 0 ] && return 0
	log "stopping what started (logs in $run)"
	cmd_down >/dev/null 2>&1 || true
	exit "$code"
}

cmd_up() {
	nodes=${NODES:-3}
	port=${PORT:-8080}
	stats_port=8404
	database_url=$default_database_url
	redis_url=redis://127.0.0.1:6379
	local build=true i running p ports=() own url node_urls=()
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes) nodes=${2:?--nodes N} && shift ;;
		--port) port=${2:?--port PORT} && shift ;;
		--stats-port) stats_port=${2:?--stats-port PORT} && shift ;;
		--database-url) database_url=${2:?--database-url URL} && shift ;;
		--redis-url) redis_url=${2:?--redis-url URL} && shift ;;
		--no-build) build=false ;;
		*) usage ;;
		esac
		shift
	done
	[[ $nodes =~ ^[1-9][0-9]*$ ]] || die "--nodes takes a number from 1"
	if ! [[ $port =~ ^[1-9][0-9]*$ ]] || [ $((port + nodes)) -gt 65535 ]; then
		die "--port takes a port number"
	fi
	[[ $stats_port =~ ^[1-9][0-9]*$ ]] || die "--stats-port takes a port number"
	# Node I's own Redis URL, from REDIS_URL_<I>: kept in the state as redis_url_I.
	for i in $(seq 1 "$nodes"); do
		own=REDIS_URL_$i
		if [ -n "${!own:-}" ]; then
			node_urls+=("redis_url_$i" "${!own}")
			printf -v "redis_url_$i" '%s' "${!own}"
		fi
	done

	running=$(running_processes)
	if [ -n "$running" ]; then
		(
			if [ -f "$state" ]; then
				wanted="$nodes $port $database_url"
				load_state
				echo "The cluster is already up at http://localhost:$port (running:$running)."
				for i in $(seq 1 "$nodes"); do
					node_pid "$i" >/dev/null || echo "node$i does not run: scripts/cluster.sh start $i starts it."
				done
				[ "$wanted" = "$nodes $port $database_url" ] ||
					log "it runs with $nodes nodes on port $port and $database_url: down first to change that"
			else
				echo "Part of a cluster runs (running:$running)."
			fi
			echo "scripts/cluster.sh status shows it; scripts/cluster.sh down stops it."
		)
		return 0
	fi

	for tool in curl psql pg_isready setsid flock; do
		command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (Debian: apt-get install -y curl postgresql-client util-linux)"
	done
	mkdir -p "$run/data"

	if ! postgres_answers && [ "$database_url" = "$default_database_url" ]; then
		log "PostgreSQL does not answer on 127.0.0.1:5432: scripts/ensure-postgres.sh starts (or installs) it"
		"$root/scripts/ensure-postgres.sh" >/dev/null || true
	fi
	postgres_answers || die "PostgreSQL does not answer at $database_url: start it, or give --database-url"
	ensure_database
	redis_answers "$redis_url" || die "Redis does not answer at $redis_url: start it (Debian: apt-get install -y redis-server), or give --redis-url"
	for ((p = 1; p < ${#node_urls[@]}; p += 2)); do
		url=${node_urls[p]}
		redis_answers "$url" || die "Redis does not answer at $url (${node_urls[p - 1]^^})"
	done
	ensure_haproxy
	write_haproxy_config
	ports=("$port" "$stats_port")
	for i in $(seq 1 "$nodes"); do
		ports+=("$(node_port "$i")")
	done
	for p in "${ports[@]}"; do
		listening "$p" && die "something already listens on port $p: stop it, or give --port (--stats-port)"
	done

	if [ "$build" = true ]; then
		log "building the release binary and the web app (make release ui)"
		make -C "$root" --no-print-directory release ui >&2
	fi
	[ -x "$bin" ] || die "no binary at $bin: make release builds it"
	"$bin" serve --help 2>/dev/null | grep -q -- --redis-url ||
		die "$bin has no cluster mode (serve --redis-url): build the current code"

	{
		printf '%s=%q\n' nodes "$nodes" port "$port" stats_port "$stats_port" \
			database_url "$database_url" redis_url "$redis_url" bin "$bin" ${node_urls[@]+"${node_urls[@]}"}
	} >"$state"
	# From here on a failure, or a Ctrl-C, stops what was started.
	trap up_failed EXIT
	trap 'exit 130' INT TERM

	log "starting node1 (it seeds the demo city and prepares the road graph the first time)"
	start_node 1
	wait_ready 1 600
	for i in $(seq 2 "$nodes"); do
		log "starting node$i"
		start_node "$i"
	done
	for i in $(seq 2 "$nodes"); do
		wait_ready "$i" 120
	done
	log "starting HAProxy"
	start_haproxy
	trap - EXIT INT TERM

	echo
	echo "Wayfare, $nodes nodes behind HAProxy:  http://localhost:$port"
	echo "  sign in as rider1@demo.wayfare, driver1@demo.wayfare or admin@demo.wayfare; the code is at"
	echo "  http://localhost:$port/api/v1/dev/outbox?to=rider1@demo.wayfare in the same browser (each node"
	echo "  keeps its own outbox, and HAProxy's cookie sends a browser to one node)"
	for i in $(seq 1 "$nodes"); do
		url=$(node_redis_url "$i")
		if [ "$url" = "$redis_url" ]; then url=""; else url="   Redis: $url"; fi
		echo "  node$i: http://127.0.0.1:$(node_port "$i")   log: $run/node$i.log$url"
	done
	echo "  HAProxy's page: http://127.0.0.1:$stats_port/   log: $run/haproxy.log"
	echo "  scripts/cluster.sh status | kill I | stop I | start I | down"
}

cmd_down() {
	local file i pid pids=() stopped=""
	if pid=$(haproxy_pid); then
		kill "$pid"
		stopped+=" haproxy"
	fi
	# SIGTERM every node at once, then wait for each: a graceful stop hands
	# its bookings over and takes a few seconds.
	for file in "$run"/node*.pid; do
		[ -f "$file" ] || continue
		i=${file##*/node}
		i=${i%.pid}
		if pid=$(node_pid "$i"); then
			kill "$pid"
			pids+=("$pid")
			stopped+=" node$i"
		fi
	done
	for pid in "${pids[@]}"; do
		wait_exit "$pid" 30 || {
			log "pid $pid still runs 30 s after SIGTERM: SIGKILL"
			kill -s KILL "$pid" 2>/dev/null || true
		}
	done
	rm -f "$run"/node*.pid "$run/haproxy.pid" "$run/haproxy.sock" "$state"
	if [ -n "$stopped" ]; then
		echo "stopped:$stopped (logs in $run)"
	else
		echo "nothing was running"
	fi
}

cmd_status() {
	local i pid ready healthy=0 checks="" line
	if [ ! -f "$state" ]; then
		echo "no cluster is up (in $run)"
		return 1
	fi
	load_state
	# HAProxy's view of each node (UP, DOWN, DRAIN, MAINT), from its CSV page.
	if pid=$(haproxy_pid); then
		checks=$(curl -fsS --max-time 2 "http://127.0.0.1:$stats_port/;csv" 2>/dev/null || true)
		echo "haproxy  pid $pid  http://localhost:$port  (page: http://127.0.0.1:$stats_port/)"
	else
		echo "haproxy  not running"
		healthy=1
	fi
	for i in $(seq 1 "$nodes"); do
		if pid=$(node_pid "$i"); then
			ready=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$(node_port "$i")/readyz" || true)
			case $ready in 200) ready=ready ;; 000) ready="not answering" ;; *) ready="readyz $ready" ;; esac
			line="pid $pid  127.0.0.1:$(node_port "$i")  $ready"
		else
			line="not running"
			healthy=1
		fi
		if [ -n "$checks" ]; then
			line+="  haproxy: $(echo "$checks" | awk -F, -v node="node$i" '$1 == "wayfare" && $2 == node { print $18 }')"
		fi
		echo "node$i    $line"
	done
	return "$healthy"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
up) cmd_up "$@" ;;
down) cmd_down ;;
status) cmd_status ;;
kill | stop | start)
	[ $# = 1 ] || usage
	load_state
	node_number "$1"
	case $cmd in
	kill)
		signal_node "$1" KILL 5
		echo "node$1 killed: the other nodes take its bookings over once their leases lapse; scripts/cluster.sh start $1 brings it back"
		;;
	stop)
		signal_node "$1" TERM 30
		echo "node$1 stopped: it handed its bookings over; scripts/cluster.sh start $1 brings it back"
		;;
	start)
		start_node "$1"
		wait_ready "$1" 120
		echo "node$1 ready at http://127.0.0.1:$(node_port "$1")"
		;;
	esac
	;;
*) usage ;;
esac
