#!/usr/bin/env bash
# fetch-traces.sh -- the public traces that the evaluation scripts read
# (docs/evaluation.md; STRATA_TRACES, default traces/ in this repository).
#
# Most are in the repository, with their licenses (traces/README.md). The
# Alibaba GPU 2023 slice is not: its source folder states no license, so
# this script downloads its source file from GitHub at a pinned commit,
# checks the download's SHA-256, converts it (scripts/traces-alibaba.py,
# python3) and checks the result against traces/SHA256SUMS. A checksum that
# differs is an error naming the file; nothing that failed is kept.
#
#   scripts/fetch-traces.sh                 fetch what is missing into traces/, then verify it
#   scripts/fetch-traces.sh --verify [DIR]  check every trace listed in traces/SHA256SUMS in DIR
#                                           (default traces/): exit 1 naming each missing or
#                                           differing file (make traces-verify)
#
# Needs curl (or wget), sha256sum and python3. TRACES_DOWNLOAD_DIR (default
# traces/.download, ignored by git) keeps the downloaded source file.
set -euo pipefail
cd "$(dirname "$0")/.."
sums=$PWD/traces/SHA256SUMS
die() { echo "fetch-traces.sh: $*" >&2; exit 1; }

# The Alibaba slice's source: alibaba/clusterdata at commit 7a6c496, and the
# SHA-256 of that file.
ali_commit=7a6c496e4f4b6ce6150be8f881cb051bf2abff42
ali_path=cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv
ali_url=https://raw.githubusercontent.com/alibaba/clusterdata/$ali_commit/$ali_path
ali_sha=1ee7ed79c27a3b0861cda8ddba86a004c6aba904caafa329a76ae93ca63834a8

want_sum() { awk -v f="$1" '$2 == f { print $1 }' "$sums"; }

# verify DIR: every trace of SHA256SUMS present in DIR with its checksum.
verify() {
	local dir=$1 bad=0 sum name got
	[ -d "$dir" ] || die "no folder $dir"
	while read -r sum name; do
		if [ ! -f "$dir/$name" ]; then
			echo "fetch-traces.sh: missing $dir/$name (run scripts/fetch-traces.sh; traces/README.md says where it comes from)" >&2
			bad=1
			continue
		fi
		got=$(sha256sum "$dir/$name" | cut -d' ' -f1)
		if [ "$got" != "$sum" ]; then
			echo "fetch-traces.sh: $dir/$name: SHA-256 $got, want $sum (traces/SHA256SUMS): not the published trace" >&2
			bad=1
		fi
	done <"$sums"
	[ "$bad" = 0 ] || return 1
	echo "fetch-traces.sh: all $(wc -l <"$sums") traces in $dir match traces/SHA256SUMS"
}

download() { # URL FILE
	if command -v curl >/dev/null; then
		curl -fsSL --retry 3 -o "$2" "$1"
	elif command -v wget >/dev/null; then
		wget -q -O "$2" "$1"
	else
		die "neither curl nor wget is installed"
	fi
}

# fetch_alibaba: traces/alibaba_openb2023_shared.csv from its source.
fetch_alibaba() {
	local out=traces/alibaba_openb2023_shared.csv
	local cache=${TRACES_DOWNLOAD_DIR:-traces/.download}
	local raw=$cache/openb_pod_list_default.csv tmp
	[ -f "$out" ] && return 0
	mkdir -p "$cache"
	if [ ! -f "$raw" ] || [ "$(sha256sum "$raw" | cut -d' ' -f1)" != "$ali_sha" ]; then
		echo "fetch-traces.sh: downloading $ali_url" >&2
		download "$ali_url" "$raw.part" || { rm -f "$raw.part"; die "cannot download $ali_url"; }
		local got
		got=$(sha256sum "$raw.part" | cut -d' ' -f1)
		if [ "$got" != "$ali_sha" ]; then
			rm -f "$raw.part"
			die "$ali_url: SHA-256 $got, want $ali_sha: not the file of commit ${ali_commit:0:7}"
		fi
		mv "$raw.part" "$raw"
	fi
	tmp=$(mktemp traces/.alibaba.XXXXXX)
	python3 scripts/traces-alibaba.py "$raw" "$tmp" || { rm -f "$tmp"; die "converting $raw failed"; }
	local got want
	got=$(sha256sum "$tmp" | cut -d' ' -f1) want=$(want_sum alibaba_openb2023_shared.csv)
	if [ "$got" != "$want" ]; then
		rm -f "$tmp"
		die "$out: SHA-256 $got after conversion, want $want (traces/SHA256SUMS)"
	fi
	mv "$tmp" "$out"
	echo "fetch-traces.sh: wrote $out" >&2
}

case ${1:-} in
--verify) verify "${2:-traces}" ;;
"") fetch_alibaba && verify traces ;;
*) die "usage: scripts/fetch-traces.sh [--verify [DIR]]" ;;
esac
