# need-traces.sh -- sourced by the evaluation scripts. need_traces WHO DIR
# FILE... exits 1 naming every FILE missing from the traces folder DIR and
# how to get it (scripts/fetch-traces.sh; traces/README.md).
need_traces() {
	local who=$1 dir=$2 missing=0 f
	shift 2
	for f in "$@"; do
		[[ -f "$dir/$f" ]] && continue
		echo "$who: trace $dir/$f is missing: run scripts/fetch-traces.sh (make traces), or set STRATA_TRACES to a folder that holds $f (traces/README.md says where each trace comes from)" >&2
		missing=1
	done
	[[ $missing == 0 ]] || exit 1
}
