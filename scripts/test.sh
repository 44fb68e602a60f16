#!/usr/bin/env bash
# test.sh -- what `make test` runs: install deps, start the test bed, vet,
# run every test (unit + integration against the real Postgres and Slurm),
# tear the bed down. `test.sh bench` runs the benchmarks instead.
# `test.sh slurm-next` (make test-slurm-next) runs the tests that talk to
# Slurm against the next Slurm instead: Debian sid's (26.05, through
# slurmrestd v0.0.44), on a bed of its own.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.."
export PATH=/usr/local/go/bin:$PATH

[ "${1:-}" != slurm-next ] || export SLURM_TEST_SUITE=sid
"$HERE/deps.sh"
# A test bed of this run's own (directories, ports), destroyed at the end: a
# demo, a developer's bed or another `make test` on this machine is untouched.
export STRATA_TESTBED=${STRATA_TESTBED:-run-$$}
# and a second, one-node cluster with accounting (slurmdbd) for the tests
# that need it (SLURM_ACCT_* in the env file; scripts/testbed.sh)
export STRATA_TESTBED_ACCT=${STRATA_TESTBED_ACCT:-1}
cleanup() { "$HERE/testbed.sh" destroy >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$HERE/testbed.sh" up
set -a; . "$("$HERE/testbed.sh" env)"; set +a
export STRATA_REPO_ROOT=$PWD

if [ "${1:-}" = bench ]; then
  go test -run '^$' -bench . -benchmem -timeout 40m ./...
  exit 0
fi
if [ "${1:-}" = slurm-next ]; then
  # the packages whose tests use the Slurm test cluster
  pkgs="./slurm/... ./scripts/ ./cmd/strata/ ./cmd/strata/internal/daemon/ ./cmd/strata/internal/collect/"
  echo "== go test against $(scripts/slurm-test-cluster.sh exec scontrol --version)" >&2
  go test -p 2 -count=1 -timeout 25m $pkgs
  echo "== go test (tests that need the whole Slurm test cluster, alone)" >&2
  STRATA_TEST_EXCLUSIVE=1 go test -p 1 -count=1 -timeout 15m -run '^TestExclusive' $pkgs
  exit 0
fi

echo "== gofmt, go vet" >&2
unformatted=$(gofmt -l .)
[ -z "$unformatted" ] || { echo "gofmt: these files are not formatted (run gofmt -w):" >&2; echo "$unformatted" >&2; exit 1; }
go vet ./...
# the packaged binary's build: the dcgm and nvml sources compiled in (cgo)
CGO_ENABLED=1 go vet -tags dcgm,nvml ./...
echo "== go test (unit + integration)" >&2
# -p 2: integration tests of different packages share one Slurm cluster and one
# Postgres server; they are written to tolerate each other.
go test -p 2 -count=1 -timeout 25m ./...
echo "== go test -race (islands planned concurrently, as the daemon does)" >&2
CGO_ENABLED=1 go test -race -count=1 -run 'Islands|TopTier|Concurrent' ./planner/ ./planner/history/
echo "== go test -tags dcgm,nvml (the packaged build: GPU sources refuse clearly where their library is missing)" >&2
CGO_ENABLED=1 go test -tags dcgm,nvml -count=1 -run 'GPUSource|Replay|Exporter' ./dcgm/ ./cmd/strata/internal/collect/
echo "== go test (tests that need the whole Slurm test cluster, alone)" >&2
# -p 1: each of these needs the whole cluster; two packages' tests must never overlap
STRATA_TEST_EXCLUSIVE=1 go test -p 1 -count=1 -timeout 15m -run '^TestExclusive' ./...
