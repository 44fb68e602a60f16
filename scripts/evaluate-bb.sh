#!/usr/bin/env bash
# evaluate-bb.sh -- the burst-buffer comparison of docs/evaluation.md
# § "Burst buffers that bind", in Slurm mode: Slurm alone (its own
# burst-buffer handling), smd with the pool hidden from the planner (Slurm
# still enforces it), smd pool-aware, and smd on the same trace without a
# pool, on
#   - the six Pollux workloads (16 × 4 T4, elastic jobs with scaling curves),
#   - Shockwave's 120-job trace (8 × 4 V100, fixed sizes),
#   - three Microsoft ITP clusters of ElasticFlow's traces (64 or 32 × 8 A100,
#     fixed sizes, the traces' synthetic deadlines dropped: the comparison is
#     average JCT),
# each job given burst-buffer data and host memory by `--synth-bb` (the
# catalog of its paper's models). Writes the JSON reports to
# docs/img/eval/burst-buffers/ and the tables of
# docs/evaluation.d/20-burst-buffers.md below its marker line
# "<!-- evaluate-bb: generated below, do not edit -->" (the prose
# above it is kept; the marker, an HTML comment, does not show in the
# rendered page); `STRATA_EVAL_RENDER_ONLY=1 scripts/evaluate.sh` then
# copies the section into docs/evaluation.md.
#
# Needs jq and python3. Environment: STRATA_TRACES (the folder with peers/), STRATA_BIN,
# BB_SEEDS (default "1 2 3"), BB_JOBS (simulations at once, default 2),
# BB_RENDER_ONLY=1 (rewrite the tables from the JSON reports already there).
# A few minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
traces=${STRATA_TRACES:-traces}
peers=$traces/peers
. scripts/need-traces.sh
need_traces evaluate-bb "$traces" peers/pollux_scaling.csv peers/pollux_workload{1..6}.csv peers/shockwave_tacc120.csv peers/itp_cluster{01,05,10}.csv
for tool in jq python3; do
	command -v "$tool" >/dev/null || { echo "evaluate-bb: needs $tool (apt-get install $tool)" >&2; exit 1; }
done
traces=$(cd "$traces" && pwd)
peers=$traces/peers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${STRATA_BIN:-}
if [[ -z "$bin" ]]; then
	go build -o "$tmp/strata" ./cmd/strata
	bin=$tmp/strata
fi
seeds=${BB_SEEDS:-1 2 3}
jobs=${BB_JOBS:-2}
out=$root/docs/img/eval/burst-buffers
render_only=${BB_RENDER_ONLY:-0}
[[ $render_only == 1 ]] || { rm -rf "$out" && mkdir -p "$out"; }

# workload NAME TRACE CLUSTER "POOLS" [simulate args]: one line per
# (workload, seed, pool) in $tmp/runs, run below.
workload() {
	local name=$1 trace=$2 cluster=$3 pools=$4
	shift 4
	for seed in $seeds; do
		"$bin" simulate --trace "$trace" --synth-bb "$seed" --write-trace "$tmp/$name-s$seed.csv"
		if [[ $name == itp* ]]; then # drop the synthetic deadlines (and their weights)
			python3 -c 'import csv,sys
r=list(csv.reader(open(sys.argv[1]))); keep=[i for i,h in enumerate(r[0]) if h not in ("deadline_s","tardiness_weight")]
w=csv.writer(open(sys.argv[1],"w",newline=""),lineterminator="\n")
[w.writerow([x[i] for i in keep]) for x in r]' "$tmp/$name-s$seed.csv"
		fi
		for pool in $pools; do
			echo "$name $seed $pool $cluster${*:+ $*}" >>"$tmp/runs"
		done
	done
}
for w in 1 2 3 4 5 6; do
	workload pollux$w "$peers/pollux_workload$w.csv" 16x4:t4,mem=192G "256G 384G 512G" --scaling "$peers/pollux_scaling.csv"
done
workload shockwave "$peers/shockwave_tacc120.csv" 8x4:v100,mem=192G "256G 384G 512G"
seeds_all=$seeds
seeds=1 # the ITP traces are long (1,595–3,629 jobs): one draw
workload itp01 "$peers/itp_cluster01.csv" 64x8:a100 "2T 3T 4T"
workload itp05 "$peers/itp_cluster05.csv" 64x8:a100 "2T 3T 4T"
workload itp10 "$peers/itp_cluster10.csv" 32x8:a100 "1T 1536G 2T"
seeds=$seeds_all

# one RUN: the three runs with the pool (and, once per workload and seed,
# the run without).
one() {
	local name=$1 seed=$2 pool=$3 cluster=$4
	shift 4
	local tr=$name-s$seed.csv base=$out/$name-s$seed-$pool
	cd "$tmp" # the reports name the trace by its file name, not a temporary path
	"$bin" simulate --trace "$tr" --cluster "$cluster,bb=$pool,bbbw=1G/s" --interval 60s "$@" --policy slurm,smd --json >"$base.json"
	"$bin" simulate --trace "$tr" --cluster "$cluster,bb=$pool,bbbw=1G/s" --interval 60s "$@" --policy smd --hide-burst-buffer --json >"$base-hidden.json"
	if [[ ! -f $out/$name-s$seed-nopool.json ]]; then
		"$bin" simulate --trace "$tr" --cluster "$cluster" --interval 60s "$@" --policy smd --json >"$out/$name-s$seed-nopool.json.tmp" &&
			mv "$out/$name-s$seed-nopool.json.tmp" "$out/$name-s$seed-nopool.json"
	fi
	echo "evaluate-bb: $name seed $seed pool $pool" >&2
}
export -f one
export bin tmp out root
# The no-pool run is shared by the pools of a workload: run the first pool
# of each (workload, seed) alone first, then the rest in parallel.
if [[ $render_only != 1 ]]; then
awk '!seen[$1" "$2]++' "$tmp/runs" | xargs -d '\n' -P "$jobs" -n 1 bash -c 'set -euo pipefail; one $1' _
awk 'seen[$1" "$2]++' "$tmp/runs" | xargs -d '\n' -P "$jobs" -n 1 bash -c 'set -euo pipefail; one $1' _

# The shared-bandwidth what-if: the first pool of Pollux 1 and ITP 05 with
# a total of 2 GiB/s shared by all transfers (each at most 1 GiB/s).
for spec in "pollux1 256G 16x4:t4,mem=192G --scaling $peers/pollux_scaling.csv" "itp05 2T 64x8:a100"; do
	set -- $spec
	name=$1 pool=$2 cluster=$3
	shift 3
	base=$out/$name-s1-$pool-shared
	cd "$tmp"
	"$bin" simulate --trace "$name-s1.csv" --cluster "$cluster,bb=$pool,bbbw=1G/s,bbpoolbw=2G/s" --interval 60s "$@" --policy slurm,smd --json >"$base.json"
	"$bin" simulate --trace "$name-s1.csv" --cluster "$cluster,bb=$pool,bbbw=1G/s,bbpoolbw=2G/s" --interval 60s "$@" --policy smd --hide-burst-buffer --json >"$base-hidden.json"
	cd "$root"
done
fi

# Tables. r FILE POLICY-INDEX FIELD: a figure of one run.
r() { jq -r ".results[$2]$3" "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row() { # row NAME SEED POOL: the main table's row
	local b=$out/$1-s$2-$3
	local sl hi aw np
	sl=$(r "$b.json" 0 .avg_jct_s) aw=$(r "$b.json" 1 .avg_jct_s) hi=$(r "$b-hidden.json" 0 .avg_jct_s) np=$(r "$out/$1-s$2-nopool.json" 0 .avg_jct_s)
	local mark="✗"
	awk -v a="$aw" -v h="$hi" 'BEGIN { exit !(a <= 0.8 * h) }' && mark="✓"
	printf '| %s | %s | %.0f | %.0f | **%.0f** | %s %s | %.0f (%s) | %.2f / %.2f / %.2f | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f |\n' \
		"$1" "$3" "$sl" "$hi" "$aw" "$(ratio "$aw" "$hi")" "$mark" "$np" "$(ratio "$np" "$hi")" \
		"$(r "$b.json" 0 .burst_buffer.pool_util)" "$(r "$b-hidden.json" 0 .burst_buffer.pool_util)" "$(r "$b.json" 1 .burst_buffer.pool_util)" \
		"$(r "$b.json" 0 .burst_buffer.avg_stage_wait_s)" "$(r "$b-hidden.json" 0 .burst_buffer.avg_stage_wait_s)" "$(r "$b.json" 1 .burst_buffer.avg_stage_wait_s)" \
		"$(r "$b.json" 0 .burst_buffer.max_queue_s)" "$(r "$b-hidden.json" 0 .burst_buffer.max_queue_s)" "$(r "$b.json" 1 .burst_buffer.max_queue_s)"
}
doc=docs/evaluation.d/20-burst-buffers.md
marker='<!-- evaluate-bb: generated below, do not edit -->'
grep -qxF "$marker" "$doc" || { echo "evaluate-bb: $doc lacks the line $marker" >&2; exit 1; }
{
	awk -v m="$marker" '$0 == m { exit } { print }' "$doc"
	echo "$marker"
	echo
	echo "**The main table** (seed 1; the first pool of each workload). Average JCT in seconds; ✓/✗:"
	echo "pool-aware smd at most 0.8 × smd with the pool hidden (the issue's target). \"no pool\": smd on"
	echo "the same trace and cluster without a pool, and its ratio to the hidden-pool run (how much the"
	echo "pool itself costs). Pool utilization, mean submit → data in, and the longest wait from"
	echo "submission to first start are given for Slurm alone / smd pool hidden / smd pool-aware."
	echo
	echo "| workload | pool | Slurm alone | smd, pool hidden | **smd, pool-aware** | aware / hidden | smd, no pool (/ hidden) | pool util | submit → data in, s | longest wait, s |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for w in 1 2 3 4 5 6; do row pollux$w 1 256G; done
	row shockwave 1 256G
	row itp01 1 2T
	row itp05 1 2T
	row itp10 1 1T
	echo
	echo "**Every pool and seed**: pool-aware / hidden-pool average JCT, one figure per seed (the"
	echo "rule's draws change every job's sizes), and the means over the seeds of the average JCTs."
	echo
	echo "| workload | pool | aware / hidden, per seed | mean average JCT, s: Slurm alone / hidden / aware | aware / hidden (means) | no pool / hidden (means) |"
	echo "| --- | --- | --- | ---: | ---: | ---: |"
	awk '!seen[$1" "$3]++ { print $1, $3 }' "$tmp/runs" | while read -r name pool; do
		ratios="" sls=0 his=0 aws=0 nps=0 n=0
		for seed in $(awk -v w="$name" -v p="$pool" '$1 == w && $3 == p { print $2 }' "$tmp/runs"); do
			b=$out/$name-s$seed-$pool
			sl=$(r "$b.json" 0 .avg_jct_s) aw=$(r "$b.json" 1 .avg_jct_s) hi=$(r "$b-hidden.json" 0 .avg_jct_s) np=$(r "$out/$name-s$seed-nopool.json" 0 .avg_jct_s)
			ratios="$ratios $(ratio "$aw" "$hi")"
			read -r sls his aws nps n < <(awk -v a="$sls" -v b="$his" -v c="$aws" -v d="$nps" -v n="$n" -v e="$sl" -v f="$hi" -v g="$aw" -v h="$np" \
				'BEGIN { print a + e, b + f, c + g, d + h, n + 1 }')
		done
		printf '| %s | %s |%s | %.0f / %.0f / %.0f | %s | %s |\n' "$name" "$pool" "$ratios" \
			"$(awk -v x="$sls" -v n="$n" 'BEGIN { print x / n }')" "$(awk -v x="$his" -v n="$n" 'BEGIN { print x / n }')" \
			"$(awk -v x="$aws" -v n="$n" 'BEGIN { print x / n }')" "$(ratio "$aws" "$his")" "$(ratio "$nps" "$his")"
	done
	echo
	echo "**Shared bandwidth** (seed 1): the same runs with the pool's total bandwidth 2 GiB/s shared"
	echo "by every transfer under way (\`bbpoolbw=2G/s\`; each at most 1 GiB/s as before)."
	echo
	echo "| workload | pool | average JCT, s: Slurm alone / hidden / aware | aware / hidden | mean stage-in, s: aware (without sharing) |"
	echo "| --- | --- | ---: | ---: | ---: |"
	for spec in "pollux1 256G" "itp05 2T"; do
		set -- $spec
		b=$out/$1-s1-$2
		sl=$(r "$b-shared.json" 0 .avg_jct_s) aw=$(r "$b-shared.json" 1 .avg_jct_s) hi=$(r "$b-shared-hidden.json" 0 .avg_jct_s)
		printf '| %s | %s | %.0f / %.0f / %.0f | %s | %.0f (%.0f) |\n' "$1" "$2" "$sl" "$hi" "$aw" "$(ratio "$aw" "$hi")" \
			"$(r "$b-shared.json" 1 .burst_buffer.avg_stage_in_s)" "$(r "$b.json" 1 .burst_buffer.avg_stage_in_s)"
	done
} >"$tmp/doc.md"
mv "$tmp/doc.md" "$doc"
echo "evaluate-bb: wrote $doc and $out/" >&2
