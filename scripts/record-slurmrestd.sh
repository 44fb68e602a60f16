#!/usr/bin/env bash
# record-slurmrestd.sh -- record slurmrestd's answers for the recorded-JSON
# stand-in (slurm/slurmtest.NewServer) from a running test bed.
#
# Usage: record-slurmrestd.sh OUTDIR VERSION...
#   with a bed's env file sourced (SLURM_REST_URL, SLURM_USER_NAME,
#   SLURM_JWT, SLURM_TEST_DIR). For each VERSION (v0.0.42, v0.0.44, ...) it
#   writes OUTDIR/VERSION/{openapi,jobs,nodes,partitions,jobs_state}.json:
#   the answers to GET /slurm/VERSION/{jobs,nodes,partitions,jobs/state}
#   as slurmrestd printed them, and openapi.json with the paths of that
#   version only (what `slurmrestd -d data_parser/VERSION` would offer), so
#   the stand-in serves each recording under its own version. The versions
#   are read one after another within a second or two: submit jobs that do
#   not change state meanwhile (pending with a begin time, running long).
#   With SLURM_ACCOUNTING=1 in the env file, slurmdb_jobs.json too.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUTDIR VERSION..." >&2; exit 2; }
: "${SLURM_REST_URL:?source a test bed env file first}" "${SLURM_JWT:?}" "${SLURM_USER_NAME:?}"
out=$1; shift
get() { curl -fsS -H "X-SLURM-USER-TOKEN: $SLURM_JWT" -H "X-SLURM-USER-NAME: $SLURM_USER_NAME" "$SLURM_REST_URL$1"; }
openapi=$(get /openapi/v3)
for v in "$@"; do
  mkdir -p "$out/$v"
  printf '%s' "$openapi" | V=$v python3 -c '
import json, os, sys
v = os.environ["V"]
paths = json.load(sys.stdin)["paths"]
keep = {p: {} for p in sorted(paths) if p.startswith(("/slurm/" + v + "/", "/slurmdb/" + v + "/"))}
if not keep:
    sys.exit("slurmrestd does not serve " + v)
json.dump({"paths": keep}, sys.stdout, indent=2)
print()' > "$out/$v/openapi.json"
  get "/slurm/$v/jobs/" > "$out/$v/jobs.json"
  get "/slurm/$v/nodes/" > "$out/$v/nodes.json"
  get "/slurm/$v/partitions/" > "$out/$v/partitions.json"
  get "/slurm/$v/jobs/state/" > "$out/$v/jobs_state.json"
  if [ "${SLURM_ACCOUNTING:-0}" = 1 ]; then
    now=$(date +%s)
    get "/slurmdb/$v/jobs/?start_time=$((now - 86400))&end_time=$now&skip_steps=true" > "$out/$v/slurmdb_jobs.json"
  fi
  echo "recorded $v into $out/$v" >&2
done
