#!/usr/bin/env bash
# Makes sure a Redis server answers on 127.0.0.1:PORT (6379 unless given as
# the first argument), then prints the URL the cluster tests read
# (WAYFARE_TEST_REDIS_URL). When none answers, starts one (no persistence:
# the cluster keeps nothing durable in Redis); when Redis is not installed and
# this runs as root, installs Debian's redis-server first.
# Progress goes to stderr; exits non-zero when no server can be made to answer.
set -euo pipefail

host=127.0.0.1
port=${1:-6379}
url="redis://${host}:${port}"

log() { echo "ensure-redis: $*" >&2; }

# Whether something that speaks Redis answers a PING: `+PONG`, or an error
# such as `-NOAUTH`, which is an answer too.
answers() {
    (
        exec 3<>"/dev/tcp/$host/$port"
        printf 'PING\r\n' >&3
        IFS= read -r -t 2 reply <&3 && [[ $reply == [+-]* ]]
    ) 2>/dev/null
}

case $port in
    '' | *[!0-9]*) log "the port must be a number, got '$port'"; exit 2 ;;
esac

if ! answers; then
    if ! command -v redis-server >/dev/null 2>&1; then
        if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            log "Redis is not installed, and installing it needs root and apt-get"
            exit 1
        fi
        log "installing redis-server"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y redis-server >&2 || { apt-get update >&2 && apt-get install -y redis-server >&2; }
    fi
    # The package may have started its own service on 6379.
    if ! answers; then
        logfile="${TMPDIR:-/tmp}/ensure-redis-${port}.log"
        log "starting redis-server on $host:$port (log: $logfile)"
        redis-server --bind "$host" --port "$port" --daemonize yes --save '' --appendonly no \
            --dir "${TMPDIR:-/tmp}" --logfile "$logfile" >&2 || true
    fi
    for _ in $(seq 1 20); do
        answers && break
        sleep 0.5
    done
fi
if ! answers; then
    log "Redis does not answer on $host:$port"
    exit 1
fi
echo "$url"
