#!/usr/bin/env bash
# pg-test.sh -- a throw-away PostgreSQL server for tests.
#
# Usage: pg-test.sh up|down|status|env [DIR]
#   up      initdb DIR/data as an unprivileged user (if missing), start postgres on a
#           random free port on 127.0.0.1 (unix socket in DIR), create database
#           "strata_test", write DIR/env with STRATA_TEST_DATABASE=postgres://...
#   down    stop the server and delete DIR (nothing is kept).
#   stop    stop the server but keep DIR (fault tests: Postgres goes away).
#   start   start it again on the same port (after stop).
#   status  pg_ctl status.
#   env     print the path of DIR/env.
# DIR defaults to $STRATA_PG_DIR or /tmp/strata-pg-test.
# The server packages are installed with apt-get when missing (root needed then).
set -euo pipefail

CMD=${1:-up}
DIR=${2:-${STRATA_PG_DIR:-/tmp/strata-pg-test}}
log() { printf '[%s] pg-test: %s\n' "$(date +%T)" "$*" >&2; }
die() { echo "pg-test.sh: $*" >&2; exit 1; }

pg_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  return 1
}

ensure_server() {
  pg_bindir >/dev/null && return 0
  [ "$(id -u)" = 0 ] || die "PostgreSQL server binaries are missing; install them with: sudo apt-get install -y postgresql"
  log "installing postgresql (apt-get)"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; } >/tmp/pg-test-apt.log 2>&1 ||
    die "cannot install postgresql with apt-get: is the Debian mirror reachable? (log: /tmp/pg-test-apt.log)"
  pg_bindir >/dev/null || die "postgresql installed but no initdb found under /usr/lib/postgresql"
}

# Run as an unprivileged user: postgres refuses to run as root.
RUNAS=""
as_user() { if [ -n "$RUNAS" ]; then runuser -u "$RUNAS" -- "$@"; else "$@"; fi; }
pick_user() {
  if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then RUNAS=postgres
    else id strata-test >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin strata-test; RUNAS=strata-test; fi
  fi
}

# free_port: a random port no socket uses (checked by /proc/net/tcp*), below
# the kernel's ephemeral range, so that no outgoing connection takes it
# before Postgres binds it.
free_port() {
  local p i hex lo span
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
  span=$(( lo > 22000 ? lo - 20001 : 40000 ))
  for i in $(seq 1 50); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % span )); hex=$(printf ':%04X' "$p")
    if ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '{print $2}' | grep -q "$hex\$"; then echo "$p"; return 0; fi
  done
  die "no free TCP port found"
}

up() {
  ensure_server; pick_user
  local bin port; bin=$(pg_bindir)
  mkdir -p "$DIR"; DIR=$(cd "$DIR" && pwd)
  if [ -n "$RUNAS" ]; then
    chown "$RUNAS" "$DIR"
    runuser -u "$RUNAS" -- test -w "$DIR" ||
      die "user $RUNAS cannot write $DIR (a parent directory is not searchable by it); choose another DIR"
  fi
  if [ -f "$DIR/env" ] && as_user "$bin/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
    log "already running ($(cat "$DIR/env"))"; return 0
  fi
  if [ ! -s "$DIR/data/PG_VERSION" ]; then
    rm -rf "$DIR/data"
    as_user "$bin/initdb" -D "$DIR/data" -U strata --auth=trust -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 ||
      as_user "$bin/initdb" -D "$DIR/data" -U strata --auth=trust -E UTF8 --locale=C >"$DIR/initdb.log" 2>&1 ||
      { tail -5 "$DIR/initdb.log" >&2; die "initdb failed (log: $DIR/initdb.log)"; }
  fi
  local try
  for try in 1 2 3 4 5; do
    port=$(free_port)
    # fsync off: a test server, thrown away afterwards; durability is not tested through it.
    if as_user "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/postgres.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        start >/dev/null 2>&1; then
      break
    fi
    [ "$try" = 5 ] && { tail -5 "$DIR/postgres.log" >&2; die "postgres did not start (log: $DIR/postgres.log)"; }
  done
  # DIR may hold the data of an earlier server that was not shut down cleanly.
  if [ "$(as_user "$bin/psql" -h 127.0.0.1 -p "$port" -U strata -d postgres -qAt \
        -c "SELECT count(*) FROM pg_database WHERE datname = 'strata_test'")" = 0 ]; then
    as_user "$bin/psql" -h 127.0.0.1 -p "$port" -U strata -d postgres -qAt -c 'CREATE DATABASE strata_test' >/dev/null
  fi
  printf 'STRATA_TEST_DATABASE=postgres://strata@127.0.0.1:%s/strata_test?sslmode=disable\nSTRATA_PG_DIR=%s\nSTRATA_PG_BIN=%s\n' \
    "$port" "$DIR" "$bin" > "$DIR/env"
  log "ready on 127.0.0.1:$port (source $DIR/env)"
}

down() {
  [ -d "$DIR" ] || return 0
  pick_user
  local bin; bin=$(pg_bindir || true)
  if [ -n "$bin" ] && [ -d "$DIR/data" ]; then
    as_user "$bin/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$DIR"
}

port_of() { sed -n 's|^STRATA_TEST_DATABASE=.*@[^:]*:\([0-9]*\)/.*|\1|p' "$DIR/env"; }

case "$CMD" in
  up) up ;;
  stop) pick_user; as_user "$(pg_bindir)/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null ;;
  start)
    pick_user; p=$(port_of); [ -n "$p" ] || die "no $DIR/env: run up first"
    as_user "$(pg_bindir)/pg_ctl" -D "$DIR/data" -l "$DIR/postgres.log" -w -t 30 \
      -o "-c listen_addresses=127.0.0.1 -p $p -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null ;;
  down) down ;;
  status) pick_user; as_user "$(pg_bindir)/pg_ctl" -D "$DIR/data" status ;;
  env) echo "$DIR/env" ;;
  *) sed -n '2,14p' "$0"; exit 2 ;;
esac
