#!/usr/bin/env bash
# evaluate-partitions.sh -- the partitions (islands) comparison of
# docs/evaluation.md § "Partitions": the Pollux workloads on a cluster split
# into a T4 and a V100 partition, every job listing both; Slurm alone, smd
# with the top tier on, smd with it off (each job planned in the first
# partition it lists). Writes the JSON reports to docs/img/eval/partitions/
# and the table part of docs/evaluation.d/40-partitions.md (the prose above
# its marker line, an HTML comment that does not show in the rendered page,
# is kept).
#
# Environment: STRATA_TRACES (folder with peers/pollux_workload*.csv), STRATA_BIN,
# PARTITIONS_CLUSTER (default 16x4:t4,parts=slow:8:t4/fast:8:v100).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
traces=${STRATA_TRACES:-traces}
peers=$traces/peers
. scripts/need-traces.sh
need_traces evaluate-partitions "$traces" peers/pollux_scaling.csv peers/pollux_workload{1..6}.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${STRATA_BIN:-}
if [[ -z "$bin" ]]; then
	go build -o "$tmp/strata" ./cmd/strata
	bin=$tmp/strata
fi
cluster=${PARTITIONS_CLUSTER:-16x4:t4,parts=slow:8:t4/fast:8:v100}
# The speeds the planner assumes are the simulator's truth too (V100 twice a
# T4: FP32 15.7 against 8.1 TFLOP/s).
for tt in true false; do
	printf '[planner]\ntop-tier = %s\n[planner.gpu-speed]\nt4 = 1.0\nv100 = 2.0\n' "$tt" >"$tmp/top-$tt.toml"
done
img=docs/img/eval/partitions
rm -rf "$img" && mkdir -p "$img"
reports=()
for w in 1 2 3 4 5 6; do
	name=pollux_workload$w
	echo "evaluate-partitions: $name" >&2
	common=(simulate --trace "$peers/$name.csv" --scaling "$peers/pollux_scaling.csv" --cluster "$cluster" --interval 60s --json)
	"$bin" --config "$tmp/top-true.toml" "${common[@]}" --policy slurm,smd --label "$name, top tier on" >"$img/$name-on.json"
	"$bin" --config "$tmp/top-false.toml" "${common[@]}" --policy smd --label "$name, top tier off" >"$img/$name-off.json"
	reports+=("$img/$name-on.json" "$img/$name-off.json")
done
doc=docs/evaluation.d/40-partitions.md
marker='<!-- evaluate-partitions: generated below, do not edit -->'
grep -qxF "$marker" "$doc" || { echo "evaluate-partitions: $doc lacks the line $marker" >&2; exit 1; }
{
	awk -v m="$marker" '$0 == m { exit } { print }' "$doc"
	echo "$marker"
	echo
	"$bin" simulate --markdown --whatif "${reports[@]}"
} >"$tmp/doc.md"
mv "$tmp/doc.md" "$doc"
echo "evaluate-partitions: wrote $doc and $img/" >&2
