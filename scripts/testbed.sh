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
#
# Accounting (slurmdbd): SLURM_TEST_ACCOUNTING=1 reaches
# slurm-test-cluster.sh, so the bed's cluster itself has accounting and the
# env file says SLURM_ACCOUNTING=1 and SLURM_OPERATOR_USER=strata.
# STRATA_TESTBED_ACCT=1 (what `make test` sets) instead starts, beside the
# bed's cluster and at the same time, a second one-node cluster with
# accounting in the Slurm directory + "-acct", for the tests that need
# slurmdbd; the env file then also has SLURM_ACCT_REST_URL,
# SLURM_ACCT_USER_NAME, SLURM_ACCT_JWT and SLURM_ACCT_TEST_DIR. down and
# destroy always handle that companion too. Names ending in "-acct" are
# reserved for it.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=${STRATA_TESTBED:-default}
case "$NAME" in
  *[!a-z0-9-]*|"") echo "testbed.sh: STRATA_TESTBED=$NAME: use lower-case letters, digits and '-'" >&2; exit 2 ;;
  *-acct) echo "testbed.sh: STRATA_TESTBED=$NAME: names ending in -acct are reserved (accounting companions)" >&2; exit 2 ;;
esac
CACHE=/var/cache/strata-test
if [ "$NAME" = default ]; then
  ENVF=/tmp/strata-testbed.env PGDIR=/tmp/strata-pg-test SLURMDIR=$CACHE/slurm
else
  [ "$NAME" != base ] && [ "$NAME" != slurm ] || { echo "testbed.sh: STRATA_TESTBED=$NAME is reserved" >&2; exit 2; }
  ENVF=/tmp/strata-testbed-$NAME.env PGDIR=/tmp/strata-pg-$NAME SLURMDIR=$CACHE/$NAME
fi
ACCTDIR=$SLURMDIR-acct   # the accounting companion (STRATA_TESTBED_ACCT=1)
export STRATA_PG_DIR=$PGDIR SLURM_TEST_DIR=$SLURMDIR

# reap: run-PID instances left by a `make test` that was killed.
reap() {
  local d pid
  for d in "$CACHE"/run-*; do
    [ -d "$d" ] || continue
    pid=${d##*/run-}; pid=${pid%-acct}
    case "$pid" in *[!0-9]*|"") continue ;; esac
    kill -0 "$pid" 2>/dev/null && continue
    [ "$d" = "$SLURMDIR" ] || [ "$d" = "$ACCTDIR" ] && continue
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
    acct_pid=""
    if [ "${STRATA_TESTBED_ACCT:-0}" = 1 ]; then
      SLURM_TEST_ACCOUNTING=1 SLURM_TEST_NODES=1 SLURM_TEST_CONF_EXTRA= \
        "$HERE/slurm-test-cluster.sh" up "$ACCTDIR" & acct_pid=$!
    fi
    "$HERE/pg-test.sh" up "$PGDIR"
    "$HERE/slurm-test-cluster.sh" up "$SLURMDIR"
    if [ -n "$acct_pid" ]; then
      wait "$acct_pid" || { echo "testbed.sh: the accounting cluster ($ACCTDIR) did not come up" >&2; exit 1; }
    fi
    cat "$PGDIR/env" "$SLURMDIR/env" > "$ENVF"
    echo "SLURM_TEST_DIR=$SLURMDIR" >> "$ENVF"
    if [ -n "$acct_pid" ]; then
      sed -n 's/^SLURM_\(REST_URL\|USER_NAME\|JWT\)=/SLURM_ACCT_\1=/p' "$ACCTDIR/env" >> "$ENVF"
      echo "SLURM_ACCT_TEST_DIR=$ACCTDIR" >> "$ENVF"
    fi
    chmod 600 "$ENVF"
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    printf '[%s] test bed %s ready in %d.%03d s; env: %s\n' "$(date +%T)" "$NAME" $((ms / 1000)) $((ms % 1000)) "$ENVF" >&2
    ;;
  down|destroy)
    "$HERE/pg-test.sh" down "$PGDIR" || true
    if [ "$1" = destroy ]; then
      "$HERE/slurm-test-cluster.sh" destroy "$SLURMDIR" || true
      [ ! -d "$ACCTDIR" ] || "$HERE/slurm-test-cluster.sh" destroy "$ACCTDIR" || true
    else
      "$HERE/slurm-test-cluster.sh" down "$SLURMDIR" || true
      [ ! -d "$ACCTDIR" ] || "$HERE/slurm-test-cluster.sh" down "$ACCTDIR" || true
    fi
    rm -f "$ENVF"
    ;;
  env) echo "$ENVF" ;;
  *) sed -n '2,36p' "$0"; exit 2 ;;
esac
