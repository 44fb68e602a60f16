#!/usr/bin/env bash
# deb-version.sh: the Debian version of the package built from this checkout.
#   tag v1.2.3 at HEAD       -> 1.2.3
#   5 commits after v1.2.3   -> 1.2.3+5.gabc1234
#   no v* tag                -> 0~git20261124160511.abc1234 (commit time, UTC)
#   uncommitted changes      -> the above with +dirty
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo 0~unknown
	exit 0
fi
dirty=""
if ! git diff --quiet HEAD -- 2>/dev/null; then
	dirty="+dirty"
fi
if d=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	v=$(sed -E 's/-([0-9]+)-g([0-9a-f]+)$/+\1.g\2/' <<<"${d#v}")
	v=${v//-/\~} # a pre-release sorts before its release: v1.0.0-rc1 -> 1.0.0~rc1
	if [[ -n $dirty && $v == *+* ]]; then
		dirty=.dirty
	fi
	echo "$v$dirty"
	exit 0
fi
when=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S)
echo "0~git$when.$(git rev-parse --short=7 HEAD)$dirty"
