#!/usr/bin/env bash
# evaluate-slurm.sh -- `make evaluate-slurm`: the simulator's Slurm model
# against the real Slurm. Replays the first jobs of Pollux workload 1 on a
# Slurm 24.11 test cluster of its own (16 nodes x 4 GPUs, test bed instance
# "evalslurm") at a reduced time scale -- once with Slurm alone, once with
# `strata run --enforce --policy smd` in the loop -- and compares each with
# the simulator (sim, Slurm mode) on the same scaled jobs with the
# same scaled slurmctld settings. Writes docs/evaluation-slurm.json and the
# generated table of docs/evaluation.d/10-slurm-model.md (appended to docs/evaluation.md), section "Slurm model vs the real
# Slurm". Long (about 30 min with the defaults); needs root; not part of
# `make test`. The test bed instance is destroyed at the end.
#
# Two configurations (each compared with the simulator given the same):
#   no-cpus       jobs ask for GPUs only (Slurm's default of one CPU per
#                 task), PriorityWeightJobSize 0: replays slurm and smd
#   cpus-per-gpu  jobs ask for 12 CPUs and 48 GiB per GPU, as the simulator's
#                 jobs hold them, PriorityWeightJobSize 1000 (the job-size
#                 factor counts CPUs): replays slurm. Not smd: Slurm keeps the
#                 CPU and memory totals of the submission when Strata moves a
#                 job to fewer nodes, and such a job is never runnable (see
#                 docs/evaluation.md).
#
# Environment:
#   EVALSLURM_JOBS      jobs of the trace replayed, from the first (default 100)
#   EVALSLURM_SCALE     trace seconds per real second (default 60)
#   EVALSLURM_CONFIGS   configurations to run (default "no-cpus cpus-per-gpu")
#   EVALSLURM_POLICIES  replays to run in every configuration (default: as above)
#   EVALSLURM_CPUS_SMD=1  also replay smd in cpus-per-gpu (ends when only
#                       never-runnable jobs are left; about 10 min more)
#   EVALSLURM_DIR       work directory (default /tmp/strata-evalslurm), one
#                       folder per configuration: jobs, scaled trace, replay
#                       records, the daemon's log
#   EVALSLURM_KEEP=1    keep the test bed running at the end
#   EVALSLURM_DOC=0     write the JSON only (not the doc)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.."
export PATH=/usr/local/go/bin:$PATH
JOBS=${EVALSLURM_JOBS:-100}
SCALE=${EVALSLURM_SCALE:-60}
CONFIGS=${EVALSLURM_CONFIGS:-no-cpus cpus-per-gpu}
BASE=${EVALSLURM_DIR:-/tmp/strata-evalslurm}
STRATA=$PWD/bin/strata
export STRATA_TESTBED=evalslurm
# The instance's own paths and nothing from another bed's env file: testbed.sh
# would take SLURM_TEST_DIR or STRATA_PG_DIR as this instance's directories,
# and slurmctld must not inherit SLURM_JWT (see below).
unset SLURM_TEST_DIR STRATA_PG_DIR STRATA_TESTBED_ENV SLURM_JWT SLURM_REST_URL SLURM_USER_NAME

say() { printf '[%s] evaluate-slurm: %s\n' "$(date +%T)" "$*" >&2; }
[ "$(id -u)" = 0 ] || { echo "evaluate-slurm.sh: the Slurm test bed needs root; run as root or with sudo" >&2; exit 1; }
[ -x "$STRATA" ] || { echo "evaluate-slurm.sh: $STRATA is missing: run make evaluate-slurm (it builds it)" >&2; exit 1; }
for c in $CONFIGS; do
  case $c in no-cpus|cpus-per-gpu) ;; *) echo "evaluate-slurm.sh: EVALSLURM_CONFIGS: unknown configuration '$c' (no-cpus, cpus-per-gpu)" >&2; exit 2 ;; esac
done
for p in ${EVALSLURM_POLICIES:-}; do
  case $p in slurm|smd) ;; *) echo "evaluate-slurm.sh: EVALSLURM_POLICIES: unknown replay '$p' (slurm, smd)" >&2; exit 2 ;; esac
done

mkdir -p "$BASE"
go build -o "$BASE/evalslurm" ./scripts/evalslurm

cleanup() {
  if [ "${EVALSLURM_KEEP:-0}" = 1 ]; then
    say "keeping the test bed (env: /tmp/strata-testbed-evalslurm.env; destroy: STRATA_TESTBED=evalslurm scripts/testbed.sh destroy)"
  else
    say "destroying the test bed instance evalslurm"
    "$HERE/testbed.sh" destroy >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

dirs=""
for c in $CONFIGS; do
  OUT=$BASE/$c
  case $c in
    no-cpus)      args=(-job-cpus default -job-size-weight 0); policies=${EVALSLURM_POLICIES:-slurm smd} ;;
    cpus-per-gpu) args=(-job-cpus per-gpu -job-size-weight 1000); policies=${EVALSLURM_POLICIES:-slurm}
                  [ "${EVALSLURM_CPUS_SMD:-0}" = 1 ] && policies="$policies smd" ;;
  esac
  say "1. configuration $c: first $JOBS jobs of Pollux workload 1 at scale 1/$SCALE into $OUT"
  mkdir -p "$OUT"
  "$BASE/evalslurm" prepare -dir "$OUT" -jobs "$JOBS" -scale "$SCALE" -label "$c" "${args[@]}" \
    -trace sim/testdata/pollux_workload1.csv -scaling sim/testdata/pollux_scaling.csv
  say "   slurm.conf lines: $(tr '\n' ' ' < "$OUT/slurm.conf.extra")"
  for p in $policies; do
    say "2. $c: replay '$p' on a fresh test bed (16 nodes x 4 GPUs, scaled slurmctld settings)"
    # A new instance for each replay. The bed's variables stay in a
    # subshell: a slurmctld started with SLURM_JWT in its environment takes
    # auth/jwt as its AuthType, then dies reading slurm.conf ("AuthType
    # change requires restart of all Slurm daemons").
    for try in 1 2; do
      "$HERE/testbed.sh" destroy >/dev/null 2>&1 || true
      SLURM_TEST_NODES=16 SLURM_TEST_CPUS=48 SLURM_TEST_MEM_MB=196608 SLURM_TEST_GPU_TYPE=scaled \
        SLURM_TEST_CONF_EXTRA="$(cat "$OUT/slurm.conf.extra")" "$HERE/testbed.sh" up >"$OUT/testbed-up.log" 2>&1 && break
      say "   the test bed did not come up (try $try of 2; log $OUT/testbed-up.log): $(grep -m1 fatal "$OUT/testbed-up.log" || tail -1 "$OUT/testbed-up.log")"
      [ "$try" = 2 ] && { cat "$OUT/testbed-up.log" >&2; exit 1; }
    done
    (
      set -a; . /tmp/strata-testbed-evalslurm.env; set +a
      if [ "$p" = smd ]; then
        "$STRATA" db migrate --database-url "$STRATA_TEST_DATABASE" >/dev/null
      fi
      "$BASE/evalslurm" replay -dir "$OUT" -policy "$p" -strata "$STRATA" -database-url "$STRATA_TEST_DATABASE"
    )
  done
  dirs=${dirs:+$dirs,}$OUT
done

say "3. compare with the simulator"
doc=docs/evaluation.d/10-slurm-model.md
[ "${EVALSLURM_DOC:-1}" = 0 ] && doc=""
"$BASE/evalslurm" compare -dir "$dirs" -json docs/evaluation-slurm.json -doc "$doc" \
  -commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
say "done: docs/evaluation-slurm.json${doc:+ and the table in $doc}; records in $BASE"
