#!/usr/bin/env bash
# bench-store.sh -- the telemetry store at a large site's volume (issue 27;
# docs/evaluation.md § Scale, "Telemetry store").
#
# Starts a throwaway Postgres of its own (scripts/pg-test.sh in
# $STRATA_BENCH_PG_DIR, default /var/tmp/strata-bench-store: not the test
# bed's), then runs scripts/benchstore: a year of jobs and hourly rollups
# (bulk COPY), then 1,000 GPUs' samples every 10 s ingested through
# Strata's own path up to each size of BENCH_STORE_SIZES, measuring at each;
# after the largest, `strata db retention`, a year of daily partitions and
# a collector restart with a full spool. One JSON line per size on stdout
# (also appended to $BENCH_STORE_OUT, default out/bench-store.jsonl).
#
# The server is pg-test.sh's (fsync, synchronous_commit and
# full_page_writes off: a test server) with shared_buffers and max_wal_size
# raised (BENCH_STORE_SHARED_BUFFERS, default 1GB; 8GB of WAL). With
# BENCH_STORE_FSYNC_SIZE (default 1e6; 0 skips it) it then restarts the
# server with fsync, synchronous_commit and full_page_writes on and
# ingests that many samples into a fresh database, for the cost of
# durability. BENCH_STORE_HISTORY (default 8760h) is the bulk-loaded
# history; BENCH_STORE_YEAR_REPORTS=false skips the year's reports (minutes
# each on a loaded 2-core machine); BENCH_STORE_SPOOL_BYTES (default 1 GiB)
# the spool filled and drained. The data directory is deleted at the end
# unless BENCH_STORE_KEEP=1, which also keeps the database bench_store (and
# the server running) for EXPLAIN ANALYZE of its reports.
#
#   BENCH_STORE_SIZES=1e6,1e7,1e8 scripts/bench-store.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH

SIZES=${BENCH_STORE_SIZES:-1e6,1e7,1e8}
HISTORY=${BENCH_STORE_HISTORY:-8760h}
SPOOL=${BENCH_STORE_SPOOL_BYTES:-1073741824}
FSYNC_SIZE=${BENCH_STORE_FSYNC_SIZE:-1e6}
BUFFERS=${BENCH_STORE_SHARED_BUFFERS:-1GB}
YEAR_REPORTS=${BENCH_STORE_YEAR_REPORTS:-true}
OUT=${BENCH_STORE_OUT:-out/bench-store.jsonl}
export STRATA_PG_DIR=${STRATA_BENCH_PG_DIR:-/var/tmp/strata-bench-store}
log() { printf '[%s] bench-store: %s\n' "$(date +%T)" "$*" >&2; }
die() { echo "bench-store.sh: $*" >&2; exit 1; }

# Disk: about 170 bytes a sample (heap and index), 4 GB for a year of
# rollups, jobs and assignments, the spool, and half again for WAL and slack.
largest=$(tr ',' '\n' <<<"$SIZES" | awk '{ if ($1 + 0 > m) m = $1 + 0 } END { printf "%.0f", m }')
need=$(awk -v n="$largest" -v s="$SPOOL" 'BEGIN { printf "%.0f", (n * 170 + 4e9 + 2 * s) * 1.5 }')
mkdir -p "$(dirname "$STRATA_PG_DIR")"
avail=$(df -B1 --output=avail "$(dirname "$STRATA_PG_DIR")" | tail -1)
[ "$avail" -gt "$need" ] ||
  die "$((need >> 30)) GiB needed for $largest samples, $((avail >> 30)) GiB free under $(dirname "$STRATA_PG_DIR"): lower BENCH_STORE_SIZES"
log "largest size $largest samples: about $((need >> 30)) GiB needed, $((avail >> 30)) GiB free"

mkdir -p bin "$(dirname "$OUT")"
go build -o bin/strata ./cmd/strata
go build -o bin/benchstore ./scripts/benchstore

cleanup() { [ "${BENCH_STORE_KEEP:-0}" = 1 ] || scripts/pg-test.sh down; }
trap cleanup EXIT
scripts/pg-test.sh up
set -a; . "$STRATA_PG_DIR/env"; set +a
port=$(sed -n 's|.*@127.0.0.1:\([0-9]*\)/.*|\1|p' <<<"$STRATA_TEST_DATABASE")
psql() { "$STRATA_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U strata "$@"; }
psql -d postgres -c "ALTER SYSTEM SET shared_buffers = '$BUFFERS'" -c "ALTER SYSTEM SET max_wal_size = '8GB'"
scripts/pg-test.sh stop && scripts/pg-test.sh start
psql -d postgres -c 'DROP DATABASE IF EXISTS bench_store' -c 'CREATE DATABASE bench_store'
url="postgres://strata@127.0.0.1:$port/bench_store?sslmode=disable"

log "sizes $SIZES, history $HISTORY, spool $SPOOL bytes (fsync off)"
bin/benchstore -database-url "$url" -sizes "$SIZES" -history "$HISTORY" -spool-bytes "$SPOOL" \
  -spool-dir "$STRATA_PG_DIR" -strata bin/strata -year-reports="$YEAR_REPORTS" -label "fsync=off" | tee -a "$OUT"
[ "${BENCH_STORE_KEEP:-0}" = 1 ] || psql -d postgres -c 'DROP DATABASE bench_store'

if [ "$FSYNC_SIZE" != 0 ]; then
  log "fsync, synchronous_commit and full_page_writes on: $FSYNC_SIZE samples"
  scripts/pg-test.sh stop
  # pg-test.sh start would turn them off again on its command line.
  runas=(); [ "$(id -u)" = 0 ] && runas=(runuser -u "$(stat -c %U "$STRATA_PG_DIR/data")" --)
  "${runas[@]}" "$STRATA_PG_BIN/pg_ctl" -D "$STRATA_PG_DIR/data" -l "$STRATA_PG_DIR/postgres.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $STRATA_PG_DIR -c fsync=on -c synchronous_commit=on -c full_page_writes=on" \
    start >/dev/null
  psql -d postgres -c 'CREATE DATABASE bench_fsync'
  bin/benchstore -database-url "postgres://strata@127.0.0.1:$port/bench_fsync?sslmode=disable" -sizes "$FSYNC_SIZE" \
    -history 720h -spool-bytes 0 -year-partitions=false -year-reports=false -spool-dir "$STRATA_PG_DIR" -strata bin/strata \
    -label "fsync=on" | tee -a "$OUT"
fi
