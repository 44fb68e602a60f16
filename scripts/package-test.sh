#!/usr/bin/env bash
# package-test.sh DEB -- install the strata .deb in a throwaway copy of the
# cached Debian trixie chroot and check what can be checked without a running
# systemd (`make package-test`; cmd/strata/.. TestPackageInstallsInDebian runs
# it under `make test`). Needs root (chroot).
#
# The copy is made from $STRATA_PACKAGE_TEST_BASE (default
# /var/cache/strata-test/base/root, the base chroot of the Slurm test bed,
# built by scripts/slurm-test-cluster.sh) with cp -a --one-file-system into a
# temporary directory, under a shared lock on the base (never while it is
# being built). The base itself is only read. The copy gets a private /proc
# (unmounted before it is deleted with rm -rf --one-file-system).
#
# Checks, in the copy:
#   dpkg -i installs the package (postinst: strata system user, /etc/strata
#   root:strata 0750); `strata version` prints the package's version; the
#   five services and two timers are in /usr/lib/systemd/system and pass
#   `systemd-analyze verify`, and each service's `systemd-analyze security`
#   exposure is at most 2.0 (trixie's systemd 257); the manual page renders;
#   the bash completion completes; the zsh completion is in place; the
#   example configuration is the one of docs/operations.md; the strata user
#   can read the configuration and its secrets and `strata config check`
#   passes with them; dpkg -r and --purge leave no unit, user-visible file or
#   spool behind.
# Not checked here (no systemd can run in a chroot): that systemd starts the
# units with their sandboxing, the timers fire, and the services reach
# slurmrestd and Postgres.
set -euo pipefail

DEB=${1:?usage: package-test.sh path/to/strata_VERSION_ARCH.deb}
BASE=${STRATA_PACKAGE_TEST_BASE:-/var/cache/strata-test/base/root}
MAX_EXPOSURE=${STRATA_MAX_EXPOSURE:-2.0}
cd "$(dirname "$0")/.."

say() { printf 'package-test: %s\n' "$*" >&2; }
die() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (chroot, mount): run as root or with sudo"
[ -f "$DEB" ] || die "no package $DEB (make package)"
DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")
if [ ! -e "$BASE/.packages-done" ]; then
	die "no cached Debian chroot at $BASE: build it once with scripts/slurm-test-cluster.sh up (make testbed-up), or set STRATA_PACKAGE_TEST_BASE"
fi
BASE=$(cd "$BASE" && pwd)
if grep -q " $BASE/" /proc/mounts; then
	die "something is mounted under $BASE: refusing to copy it"
fi

WORK=$(mktemp -d /var/tmp/strata-package-test.XXXXXX)
ROOT=$WORK/root
cleanup() {
	local m
	# Unmount everything under the copy (deepest first) before deleting it.
	for m in $(awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/mounts | sort -r); do
		umount "$m" || umount -l "$m" || true
	done
	if grep -q " $ROOT[/ ]" /proc/mounts; then
		say "still mounted under $ROOT: not deleting $WORK"
		return
	fi
	rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT

t0=$(date +%s%N)
elapsed() { echo "$((($(date +%s%N) - t0) / 1000000)) ms"; }
mkdir "$ROOT"
# A shared lock: slurm-test-cluster.sh holds it exclusively while it builds the base.
if [ -e "$(dirname "$BASE")/.lock" ]; then
	exec 9<"$(dirname "$BASE")/.lock"
	flock -s 9
fi
cp -a --one-file-system "$BASE/." "$ROOT/"
exec 9<&- || true
mount -t proc proc "$ROOT/proc"
inroot() { chroot "$ROOT" "$@"; }
say "copied $BASE ($(du -sh --one-file-system "$ROOT" | cut -f1)) in $(elapsed)"

version=$(dpkg-deb -f "$DEB" Version)
cp "$DEB" "$ROOT/tmp/strata.deb"
inroot env DEBIAN_FRONTEND=noninteractive dpkg -i /tmp/strata.deb >"$WORK/dpkg.log" 2>&1 ||
	{ cat "$WORK/dpkg.log" >&2; die "dpkg -i failed"; }
say "dpkg -i: installed strata $version"
inroot dpkg -s strata | grep -qx 'Status: install ok installed' || die "dpkg -s: strata is not installed"

# The binary and its version.
got=$(inroot strata version | head -1) || die "strata version failed"
case $got in
"strata $version (commit "*) say "strata version: $got" ;;
*) die "strata version printed '$got', want 'strata $version (commit …)'" ;;
esac

# The user and the configuration directory.
# The packaged binary has the GPU sources; in this chroot (no GPU, no
# libdcgm) they refuse with exit 2, naming the library and the alternative.
srcs=$(inroot strata version | sed -n 's/^GPU sample sources built in: //p')
case "$srcs" in *dcgm*nvml*) say "GPU sources built in: $srcs" ;; *) die "strata version lists GPU sources '$srcs', want dcgm and nvml" ;; esac
rc=0; out=$(inroot strata --config /dev/null collect --source dcgm 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -q 'libdcgm' <<<"$out" && grep -q -- '--source exporter' <<<"$out" ||
	die "collect --source dcgm without libdcgm: exit $rc, '$out'; want exit 2 naming libdcgm and --source exporter"
say "collect --source dcgm without libdcgm: exit 2, names the library and --source exporter"
IFS=: read -r _ _ uid _ _ home shell <<<"$(inroot getent passwd strata)" || die "no strata user"
[ "$uid" -lt 1000 ] || die "strata is not a system user (uid $uid)"
[ "$shell" = /usr/sbin/nologin ] || die "strata's shell is $shell"
[ "$home" = /var/lib/strata ] || die "strata's home is $home"
perm=$(inroot stat -c '%U:%G %a' /etc/strata)
[ "$perm" = "root:strata 750" ] || die "/etc/strata is $perm, want root:strata 750"
say "user strata (uid $uid, $shell), /etc/strata $perm"

# The example configuration is docs/operations.md's.
awk '/^```toml$/ {f = 1; next} f && /^```$/ {exit} f' docs/operations.md | cmp -s - "$ROOT/etc/strata/strata.toml.example" ||
	die "/etc/strata/strata.toml.example differs from the example in docs/operations.md"

# Units: in place, verified, and within the exposure budget (systemd of trixie).
units="strata.service strata-collect.service strata-serve.service strata-retention.service strata-retention.timer strata-report-refresh.service strata-report-refresh.timer"
for u in $units; do
	[ -f "$ROOT/usr/lib/systemd/system/$u" ] || die "missing /usr/lib/systemd/system/$u"
	out=$(inroot systemd-analyze verify --man=no "/usr/lib/systemd/system/$u" 2>&1) || true
	[ -z "$out" ] || die "systemd-analyze verify $u: $out"
done
say "systemd-analyze verify: 7 units clean ($(inroot systemd-analyze --version | head -1))"
for u in $units; do
	case $u in *.timer) continue ;; esac
	score=$(inroot systemd-analyze security --offline=yes --no-pager "/usr/lib/systemd/system/$u" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ -n "$score" ] || die "no exposure score for $u"
	awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN {exit !(s <= m)}' || die "$u: exposure $score > $MAX_EXPOSURE"
	say "exposure $u: $score"
done

# Manual page (rendered with the host's man: the chroot has none) and completions.
man_gz=$ROOT/usr/share/man/man1/strata.1.gz
[ -f "$man_gz" ] || die "no manual page"
if command -v man >/dev/null; then
	rendered=$(MANWIDTH=80 man -l "$man_gz" 2>/dev/null)
	grep -q '^strata(1)' <<<"$rendered" && grep -q '^collect' <<<"$rendered" && grep -q '^FILES' <<<"$rendered" ||
		die "the manual page does not render as strata(1) with its commands and FILES"
else
	zcat "$man_gz" | grep -q '^\.TH strata 1' || die "the manual page has no .TH strata 1"
fi
comp=$(inroot bash --norc -c '. /usr/share/bash-completion/completions/strata
	COMP_WORDS=(strata db ""); COMP_CWORD=2; _strata; echo "${COMPREPLY[*]}"')
[ "$comp" = "migrate status retention rollup" ] || die "bash completion of 'strata db ' gave '$comp'"
head -1 "$ROOT/usr/share/zsh/vendor-completions/_strata" | grep -qx '#compdef strata' || die "no zsh completion"
say "manual page renders; bash completes 'strata db ' to: $comp; zsh completion in place"

for f in /usr/share/strata/grafana/strata-dashboard.json /usr/share/strata/prometheus/strata-alerts.yml \
	/usr/share/doc/strata/operations.md /usr/share/doc/strata/telemetry.md /usr/share/doc/strata/reports.md; do
	[ -s "$ROOT$f" ] || die "missing $f"
done

# The strata user reads the configuration and its secrets, as the units will.
cp "$ROOT/etc/strata/strata.toml.example" "$ROOT/etc/strata/strata.toml"
chmod 0640 "$ROOT/etc/strata/strata.toml"
inroot chgrp strata /etc/strata/strata.toml
for s in slurm.jwt db.password; do
	(umask 077 && echo test-secret >"$ROOT/etc/strata/$s")
	inroot chown strata:strata "/etc/strata/$s"
done
out=$(inroot setpriv --reuid=strata --regid=strata --init-groups strata --config /etc/strata/strata.toml config check 2>&1) ||
	die "strata config check as the strata user: $out"
say "as user strata: config check: $(head -1 <<<"$out")"
rm -f "$ROOT/etc/strata/strata.toml" "$ROOT/etc/strata/slurm.jwt" "$ROOT/etc/strata/db.password"

# Remove and purge: nothing of the package is left.
inroot dpkg -r strata >>"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log" >&2; die "dpkg -r failed"; }
[ ! -e "$ROOT/usr/bin/strata" ] && [ ! -e "$ROOT/usr/lib/systemd/system/strata.service" ] || die "dpkg -r left files"
mkdir -p "$ROOT/var/lib/strata" && touch "$ROOT/var/lib/strata/collect-spool.jsonl"
inroot dpkg --purge strata >>"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log" >&2; die "dpkg --purge failed"; }
[ ! -e "$ROOT/etc/strata" ] && [ ! -e "$ROOT/var/lib/strata" ] || die "dpkg --purge left /etc/strata or /var/lib/strata"
say "dpkg -r and --purge: no binary, unit, configuration directory or spool left"

say "OK: strata $version installs in Debian $(cat "$ROOT/etc/debian_version") and passes every check above ($(elapsed))"
