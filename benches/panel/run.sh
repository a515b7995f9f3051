#!/usr/bin/env bash
# The admin's bookings grid on 1,000,000 bookings (issue #12, docs/benchmarks.md):
# fills a database with the storage benchmark's city (once; kept in
# $WAYFARE_GRID_DIR), serves it with the demo's admin, and measures in
# Chromium, from the click to the rows drawn: the first page, a sorted page
# and a search.
#   benches/panel/run.sh sqlite
#   benches/panel/run.sh postgres   # uses postgres://postgres@127.0.0.1:5432/wayfare_grid
set -euo pipefail
cd "$(dirname "$0")/../.."
backend="${1:-sqlite}"
dir="${WAYFARE_GRID_DIR:-/tmp/wayfare-grid}/$backend"
port="${PORT:-18080}"
target_dir="${CARGO_TARGET_DIR:-target}"
mkdir -p "$dir"
cargo build --release --locked -p wayfare-http --bin wayfare -p wayfare-benches --bin storage_load
(cd ui && npm run build >/dev/null)
case "$backend" in
  sqlite)
    url="$dir/wayfare.db"
    db_args=()
    ;;
  postgres)
    url="postgres://postgres@127.0.0.1:5432/wayfare_grid"
    db_args=(--database-url "$url")
    if ! psql -h 127.0.0.1 -U postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'wayfare_grid'" | grep -q 1; then
      psql -h 127.0.0.1 -U postgres -c "CREATE DATABASE wayfare_grid" >/dev/null
    fi
    ;;
  *) echo "usage: $0 sqlite|postgres" >&2; exit 2 ;;
esac
if [ ! -f "$dir/filled" ]; then
  "$target_dir/release/storage_load" "$url"
  touch "$dir/filled"
fi
WAYFARE_UI_DIR="$PWD/ui/dist" WAYFARE_DEMO_SEED__LIVING=false WAYFARE_DEMO_SEED__HISTORY_DAYS=0 RUST_LOG=warn "$target_dir/release/wayfare" serve --demo --data-dir "$dir" "${db_args[@]}" \
  --listen "127.0.0.1:$port" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 1
done
(cd ui && WAYFARE_URL="http://127.0.0.1:$port" npx vite-node e2e/measure/bookings-grid.ts)
