#!/usr/bin/env bash
# evaluate-ps.sh -- the parameter-server section of docs/evaluation.md
# (issue 24.1): half of each Pollux workload's jobs become PS jobs of the
# catalog's models (strata simulate --ps-share 0.5), Slurm mode, on two
# clusters (CPUs to spare, and CPUs scarce); smd choosing P (ps=auto)
# against the fixed choices P = W and P = 1 (--ps-choice) and Slurm alone.
# JSON in docs/img/eval/ps/; writes docs/evaluation.d/45-parameter-servers.md,
# which scripts/evaluate.sh appends to docs/evaluation.md (run it, or paste
# the file at the end of docs/evaluation.md as it does).
#
# Environment: STRATA_TRACES (folder with peers/pollux_workload*.csv and
# peers/pollux_scaling.csv; default traces/), STRATA_BIN (a built
# strata; default: go build), STRATA_EVAL_RENDER_ONLY=1 (re-render from the
# JSON already there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
traces=${STRATA_TRACES:-traces}
peers=$traces/peers
. scripts/need-traces.sh
need_traces evaluate-ps "$traces" peers/pollux_scaling.csv peers/pollux_workload{1..6}.csv
bin=${STRATA_BIN:-}
if [[ -z "$bin" ]]; then
	bin=$(mktemp -d)/strata
	go build -o "$bin" ./cmd/strata
fi
render_only=${STRATA_EVAL_RENDER_ONLY:-0}
img=docs/img/eval/ps
out=docs/evaluation.d/45-parameter-servers.md
share=0.5
declare -A clusters=([spare]=16x4:t4 [scarce]=16x4:t4,cpus=24)

if [[ $render_only != 1 ]]; then
	for c in spare scarce; do
		mkdir -p "$img/$c"
		for w in 1 2 3 4 5 6; do
			echo "evaluate-ps: workload $w, $c CPUs" >&2
			common=(--trace "$peers/pollux_workload$w.csv" --scaling "$peers/pollux_scaling.csv" --cluster "${clusters[$c]}"
				--interval 60s --scheduler slurm --ps-share "$share" --json)
			"$bin" simulate "${common[@]}" --policy slurm,smd >"$img/$c/w$w-auto.json"
			"$bin" simulate "${common[@]}" --policy smd --ps-choice w >"$img/$c/w$w-w.json"
			"$bin" simulate "${common[@]}" --policy smd --ps-choice 1 >"$img/$c/w$w-1.json"
		done
	done
fi

# row C W: one table row, avg JCT in seconds (and kills at the time limit).
row() {
	local c=$1 w=$2
	cell() { jq -r --arg p "$2" '.results[] | select(.policy == $p) |
		"\(.avg_jct_s | floor)" + (if .time_limit_kills > 0 then " (\(.time_limit_kills) killed)" else "" end) +
		(if .unfinished > 0 then " (\(.unfinished) unfinished)" else "" end)' "$1"; }
	local slurm auto pw p1
	slurm=$(cell "$img/$c/w$w-auto.json" slurm)
	auto=$(cell "$img/$c/w$w-auto.json" smd)
	pw=$(cell "$img/$c/w$w-w.json" smd)
	p1=$(cell "$img/$c/w$w-1.json" smd)
	echo "| $w | $slurm | **$auto** | $pw | $p1 |"
}

{
	sed -n '/^## head$/,/^## end-head$/p' "$0" | sed '1d;$d'
	for c in spare scarce; do
		echo
		sed -n "/^## $c\$/,/^## end-$c\$/p" "$0" | sed '1d;$d'
		echo
		echo "| workload | Slurm alone | smd, P chosen | smd, P = W | smd, P = 1 |"
		echo "|---|---:|---:|---:|---:|"
		for w in 1 2 3 4 5 6; do row "$c" "$w"; done
	done
	echo
	sed -n '/^## reading$/,/^## end-reading$/p' "$0" | sed '1d;$d'
} >"$out"
echo "evaluate-ps: wrote $out and $img/" >&2
exit 0

: <<'PROSE'
## head
## Parameter servers that Slurm allocates (`--ps-share`, Slurm mode)

A PS job is written as W + P tasks of one job (docs/planner.md, "Parameter servers"): its
servers get CPUs and memory that Slurm allocates, on the nodes the plan chose. This what-if
(`scripts/evaluate-ps.sh`) measures what that buys and how P should be chosen, in the SMD
paper's setting: half of each Pollux workload's jobs (`strata simulate --ps-share 0.5`, drawn
with `--ps-seed 1`) become PS jobs of six catalog models (vgg16, alexnet, resnet50, resnet101,
inception_v3, densenet121; batch 64 per worker), users allow `gpus=1-REQUEST ps=auto`, and each
PS job asks 4 CPUs and 16 GiB per GPU worker (the traces give none; a job without them would
ask its GPUs' share of the node, leaving its servers nothing beside its workers). A PS job's
trace duration is its run at its request with **one** server (what it gets today: nothing
allocates more); at W workers and P servers it runs that duration × T(W, P) / T(request, 1),
T the planner's PS time model (layer overlap, 10 Gb/s NICs), so the policies predict the truth
up to the trace's scale. The server count a job runs with is what Strata wrote into its admin
comment (1 when Strata wrote nothing: jobs Slurm starts at submission, before Strata's next
cycle, run with one server). Columns: average JCT in seconds of all 160 jobs (the other half
keep their Pollux scaling curves), Slurm mode (`--scheduler slurm`), 60 s interval; "Slurm
alone" never writes, so its PS jobs run at their request with one server; "P = W" and "P = 1"
replace smd's choice for `ps=auto` by the fixed rule (`--ps-choice w`, `--ps-choice 1`;
`planner.Options.PSChoice`), with everything else the same.
## end-head
## spare
**CPUs to spare** (`--cluster 16x4:t4`: 48 CPUs per node, 12 per GPU; the jobs that are not
PS jobs ask that share):
## end-spare
## scarce
**CPUs scarce** (`--cluster 16x4:t4,cpus=24`: 24 CPUs per node; a node's four GPU workers of a
PS job take 16, leaving room for two servers):
## end-scarce
## reading
Reading the tables (measured 2026-11-27 on the code of issue 24.1):

* **Allocating the servers is most of the gain over Slurm alone.** With CPUs to spare, smd
  choosing P gives 0.74 / 0.84 / 0.88 / 0.59 / 0.70 / 0.67 × the average JCT of smd with one
  server per job (the "P = 1" column: what smd gives PS jobs when nothing beyond one server is
  allocated, close to before this change), and 0.10–0.58 × Slurm alone's (which also lacks
  smd's sizing and ordering: compare the product's figure above). A PS job with one server on
  many workers is communication-bound: in the model vgg16 on 12 workers runs 9.7 × longer with
  one server than with 12.
* **With CPUs to spare, smd's choice gives the same figures as P = W**: in the PS model more
  servers are never slower, and the knapsack has CPUs left for them.
* **With CPUs scarce, P = W is the worst choice**: every server takes a worker's CPUs
  (`cpus_per_task` is one value per job), so P = W fits beside the workers only on narrow shapes;
  jobs are shrunk, and when no shape with P = W ends inside the job's time limit the planner
  keeps its fastest, which Slurm then kills at the limit (2–8 jobs per workload, resubmitted).
  smd choosing among 1, W/4, W/2 and W what fits gives 0.49–0.84 × P = W and 0.65–0.90 × P = 1.
* Limits of the what-if: a server takes one worker's CPUs (homogeneous tasks), jobs that Slurm
  starts at submission keep one server, the truth is the planner's own PS model (no contention
  between jobs' traffic, no server placement effects), the ideal mode is not modelled (the
  server count a job runs with is read from what Strata wrote), and one seed (`--ps-seed 1`).
## end-reading
PROSE
