#!/usr/bin/env bash
# evaluate-policy.sh -- the site-policy section of the evaluation (issue 31):
# smd against Slurm alone when the site's multifactor priority (age, job
# size, classic fairshare, QOS) stays in force and Strata's order enters as
# a nice within a band, for bands 0, 500, 2000 (the default), 4000, 20000 and the
# absolute mode; realistic knowledge, 10 users of whom 30 % never write a
# hint, 20 % of the users in QOS high; Pollux workloads 1-6, seeds 1-2. JSON
# in docs/img/eval/policy/, tables in
# docs/evaluation.d/accountability/30-site-policy.md (rendered by
# scripts/evaluate-policy.py; the reading is 31-site-policy-reading.md).
#
# Environment: STRATA_TRACES (folder with peers/pollux_workload*.csv),
# STRATA_BIN, STRATA_EVAL_RENDER_ONLY=1 (re-render from the JSON there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
traces=${STRATA_TRACES:-../shared/traces}
peers=$traces/peers
render_only=${STRATA_EVAL_RENDER_ONLY:-0}
[[ $render_only == 1 || -f "$peers/pollux_scaling.csv" ]] || { echo "evaluate-policy: set STRATA_TRACES to the folder holding peers/pollux_scaling.csv" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${STRATA_BIN:-}
if [[ -z "$bin" ]]; then
	go build -o "$tmp/strata" ./cmd/strata # from the current sources: never a stale binary
	bin=$tmp/strata
fi
img=docs/img/eval/policy
out=docs/evaluation.d/accountability/30-site-policy.md
[[ $render_only == 1 ]] || { rm -rf "$img" && mkdir -p "$img"; }
bands=(0 500 2000 4000 20000 absolute)
for b in "${bands[@]}"; do
	if [[ $b == absolute ]]; then
		printf '[planner]\npriority-mode = "absolute"\n' >"$tmp/$b.toml"
	else
		printf '[planner]\npriority-mode = "nice"\nnice-band = %s\n' "$b" >"$tmp/$b.toml"
	fi
done
site=(--priority-weight-fairshare 10000 --priority-weight-qos 10000 --qos-high 0.2 --fairshare-half-life 6h)
for w in 1 2 3 4 5 6; do
	for seed in 1 2; do
		name=pollux_workload$w
		[[ $render_only == 1 ]] && continue
		echo "evaluate-policy: $name seed $seed" >&2
		common=(simulate --trace "$peers/$name.csv" --scaling "$peers/pollux_scaling.csv" --cluster 16x4:t4 --interval 60s
			--scheduler slurm --knowledge realistic --users 10 --never-hint 0.3 --knowledge-seed "$seed" "${site[@]}"
			--json --jobs --parallel 1)
		"$bin" --config "$tmp/2000.toml" "${common[@]}" --policy slurm >"$img/$name-s$seed-slurm.json"
		python3 scripts/evaluate-policy.py compact "$img/$name-s$seed-slurm.json"
		for b in "${bands[@]}"; do
			"$bin" --config "$tmp/$b.toml" "${common[@]}" --policy smd >"$img/$name-s$seed-$b.json"
			python3 scripts/evaluate-policy.py compact "$img/$name-s$seed-$b.json"
		done
	done
done
python3 scripts/evaluate-policy.py "$img" "$out" "${bands[@]}"
echo "evaluate-policy: wrote $out" >&2
