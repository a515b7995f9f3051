#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers on 127.0.0.1:5432 with a `test`
# database the `postgres` user reaches without a password, then prints the
# URL the storage tests use. Starts an installed cluster that is stopped; when
# PostgreSQL is not installed and this runs as root, installs it first.
# Progress goes to stderr; exits non-zero when no server can be made to answer.
set -euo pipefail

host=127.0.0.1
port=5432
url="postgres://postgres@${host}:${port}/test"

log() { echo "ensure-postgres: $*" >&2; }
answers() { pg_isready -q -h "$host" -p "$port" 2>/dev/null; }
as_postgres() { psql -h "$host" -p "$port" -U postgres -d postgres -Atq "$@"; }

installed_here=false
if ! answers; then
    if ! command -v pg_ctlcluster >/dev/null 2>&1; then
        if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            log "PostgreSQL is not installed, and installing it needs root and apt-get"
            exit 1
        fi
        log "installing postgresql"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y postgresql >&2 || { apt-get update >&2 && apt-get install -y postgresql >&2; }
        installed_here=true
    fi
    for version in $(ls /etc/postgresql 2>/dev/null); do
        log "starting cluster $version/main"
        pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || true
    done
    for _ in $(seq 1 30); do
        answers && break
        sleep 1
    done
fi
if ! answers; then
    log "PostgreSQL does not answer on $host:$port"
    exit 1
fi

# A fresh Debian cluster asks for a password over TCP; the throwaway cluster
# installed above trusts local connections instead.
if ! as_postgres -c 'SELECT 1' >/dev/null 2>&1 && [ "$installed_here" = true ]; then
    for hba in /etc/postgresql/*/main/pg_hba.conf; do
        sed -i '1i host all postgres 127.0.0.1/32 trust' "$hba"
    done
    for version in $(ls /etc/postgresql); do
        pg_ctlcluster --skip-systemctl-redirect "$version" main reload >&2
    done
fi
if ! as_postgres -c 'SELECT 1' >/dev/null 2>&1; then
    log "the postgres user cannot sign in over TCP without a password"
    exit 1
fi
if [ "$(as_postgres -c "SELECT count(*) FROM pg_database WHERE datname = 'test'")" = 0 ]; then
    log "creating database test"
    as_postgres -c 'CREATE DATABASE test' >&2
fi
echo "$url"
