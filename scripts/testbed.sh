#!/usr/bin/env bash
# testbed.sh -- the test bed of `make test` and `make demo`: a throwaway
# Postgres and the Slurm test cluster, with one env file for both.
#
# Usage: testbed.sh up|down|env
#   up    start both (idempotent), write $STRATA_TESTBED_ENV (default
#         /tmp/strata-testbed.env) with STRATA_TEST_DATABASE, SLURM_REST_URL,
#         SLURM_USER_NAME, SLURM_JWT; source it with `set -a; . FILE; set +a`.
#   down  stop both; the Slurm chroot stays cached in /var/cache/strata-test.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ENVF=${STRATA_TESTBED_ENV:-/tmp/strata-testbed.env}
PGDIR=${STRATA_PG_DIR:-/tmp/strata-pg-test}
SLURMDIR=${SLURM_TEST_DIR:-/var/cache/strata-test/slurm}
export STRATA_PG_DIR=$PGDIR SLURM_TEST_DIR=$SLURMDIR

case "${1:-up}" in
  up)
    "$HERE/deps.sh"
    t0=$(date +%s%N)
    "$HERE/pg-test.sh" up "$PGDIR"
    "$HERE/slurm-test-cluster.sh" up "$SLURMDIR"
    cat "$PGDIR/env" "$SLURMDIR/env" > "$ENVF"
    echo "SLURM_TEST_DIR=$SLURMDIR" >> "$ENVF"
    chmod 600 "$ENVF"
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    printf '[%s] test bed ready in %d.%03d s; env: %s\n' "$(date +%T)" $((ms / 1000)) $((ms % 1000)) "$ENVF" >&2
    ;;
  down)
    "$HERE/pg-test.sh" down "$PGDIR" || true
    "$HERE/slurm-test-cluster.sh" down "$SLURMDIR" || true
    rm -f "$ENVF"
    ;;
  env) echo "$ENVF" ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
esac
