#!/usr/bin/env bash
# testbed.sh -- the test bed of `make test` and `make demo`: a throwaway
# Postgres and the Slurm test cluster, with one env file for both.
#
# Usage: testbed.sh up|down|destroy|env
#   up       start both (idempotent), write the env file with
#            STRATA_TEST_DATABASE, SLURM_REST_URL, SLURM_USER_NAME, SLURM_JWT,
#            SLURM_TEST_DIR; source it with `set -a; . FILE; set +a`.
#   down     stop both; the instance's Slurm directory stays for the next up.
#   destroy  down, then delete the instance's Slurm directory (the shared
#            base chroot stays in /var/cache/strata-test/base).
#   env      print the path of the env file.
#
# Instances: STRATA_TESTBED=NAME (default "default") names a test bed with its
# own directories and ports, so several run side by side on one machine:
#   default  env /tmp/strata-testbed.env, Postgres /tmp/strata-pg-test,
#            Slurm /var/cache/strata-test/slurm (REST on 127.0.0.1:6820)
#   NAME     env /tmp/strata-testbed-NAME.env, Postgres /tmp/strata-pg-NAME,
#            Slurm /var/cache/strata-test/NAME (free ports)
# `make test` uses an instance of its own per run (run-PID) and destroys it
# at the end; `up` also destroys run-PID instances whose process is gone.
# Only STRATA_TESTBED chooses the paths: SLURM_TEST_DIR and STRATA_PG_DIR in
# the environment (set by sourcing some bed's env file) are ignored, so a
# shell that sourced one bed never stops or deletes another.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=${STRATA_TESTBED:-default}
case "$NAME" in
  *[!a-z0-9-]*|"") echo "testbed.sh: STRATA_TESTBED=$NAME: use lower-case letters, digits and '-'" >&2; exit 2 ;;
esac
CACHE=/var/cache/strata-test
if [ "$NAME" = default ]; then
  ENVF=/tmp/strata-testbed.env PGDIR=/tmp/strata-pg-test SLURMDIR=$CACHE/slurm
else
  [ "$NAME" != base ] && [ "$NAME" != slurm ] || { echo "testbed.sh: STRATA_TESTBED=$NAME is reserved" >&2; exit 2; }
  ENVF=/tmp/strata-testbed-$NAME.env PGDIR=/tmp/strata-pg-$NAME SLURMDIR=$CACHE/$NAME
fi
export STRATA_PG_DIR=$PGDIR SLURM_TEST_DIR=$SLURMDIR

# reap: run-PID instances left by a `make test` that was killed.
reap() {
  local d pid
  for d in "$CACHE"/run-*; do
    [ -d "$d" ] || continue
    pid=${d##*/run-}
    case "$pid" in *[!0-9]*|"") continue ;; esac
    kill -0 "$pid" 2>/dev/null && continue
    [ "$d" = "$SLURMDIR" ] && continue
    printf '[%s] removing the test bed of an ended run (%s)\n' "$(date +%T)" "$d" >&2
    "$HERE/slurm-test-cluster.sh" destroy "$d" >/dev/null 2>&1 || true
    "$HERE/pg-test.sh" down "/tmp/strata-pg-run-$pid" >/dev/null 2>&1 || true
    rm -f "/tmp/strata-testbed-run-$pid.env"
  done
}

case "${1:-up}" in
  up)
    "$HERE/deps.sh"
    reap
    t0=$(date +%s%N)
    "$HERE/pg-test.sh" up "$PGDIR"
    "$HERE/slurm-test-cluster.sh" up "$SLURMDIR"
    cat "$PGDIR/env" "$SLURMDIR/env" > "$ENVF"
    echo "SLURM_TEST_DIR=$SLURMDIR" >> "$ENVF"
    chmod 600 "$ENVF"
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    printf '[%s] test bed %s ready in %d.%03d s; env: %s\n' "$(date +%T)" "$NAME" $((ms / 1000)) $((ms % 1000)) "$ENVF" >&2
    ;;
  down|destroy)
    "$HERE/pg-test.sh" down "$PGDIR" || true
    if [ "$1" = destroy ]; then
      "$HERE/slurm-test-cluster.sh" destroy "$SLURMDIR" || true
    else
      "$HERE/slurm-test-cluster.sh" down "$SLURMDIR" || true
    fi
    rm -f "$ENVF"
    ;;
  env) echo "$ENVF" ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
