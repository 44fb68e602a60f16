#!/usr/bin/env bash
# deps.sh -- install what `make test` and `make demo` need on a Debian 12 host,
# or stop with one sentence saying what is missing. Idempotent and quiet when
# everything is there.
set -euo pipefail
die() { echo "deps.sh: $*" >&2; exit 1; }

export PATH=/usr/local/go/bin:$PATH
command -v go >/dev/null || die "Go is missing: install Go 1.26 or newer (e.g. under /usr/local/go) and re-run"
gov=$(go env GOVERSION | sed 's/^go//')
case "$gov" in 1.2[6-9]*|1.[3-9]*|[2-9]*) ;; *) die "Go $gov is too old: go.mod needs Go 1.26 or newer (x/sync and x/sys require it)";; esac
[ "$(id -u)" = 0 ] || die "the test bed needs root (debootstrap, chroot, mount); re-run as root or with sudo"
[ -r /etc/debian_version ] || die "this is not a Debian-like system: the test bed is built with apt-get and debootstrap"

need=""
command -v debootstrap >/dev/null || need="$need debootstrap"
command -v curl >/dev/null || need="$need curl"
command -v jq >/dev/null || need="$need jq"   # make demo reads JSON with it
command -v gcc >/dev/null || need="$need gcc"
[ -e /usr/include/stdlib.h ] || need="$need libc6-dev"   # cgo (vet of the dcgm/nvml build tags)
command -v runuser >/dev/null || need="$need util-linux"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need="$need postgresql"
command -v psql >/dev/null || need="$need postgresql-client"
[ -e /usr/share/keyrings/debian-archive-keyring.gpg ] || need="$need debian-archive-keyring"
# headless browser for the web report test (Debian's own build; nothing downloaded at test time)
[ "${STRATA_NO_BROWSER:-0}" = 1 ] || command -v chromium >/dev/null || need="$need chromium"
if [ -n "$need" ]; then
  echo "deps.sh: installing$need" >&2
  # policy-rc.d keeps the postgresql package from starting its own cluster service.
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need; } \
    >/tmp/strata-deps-apt.log 2>&1 ||
    die "cannot install$need with apt-get: is the Debian mirror reachable? (log: /tmp/strata-deps-apt.log)"
fi
exit 0
