# Strata — developer entry points. `make demo` and `make test` are the two
# commands of the README; both install what they need (root, Debian 12).
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
BIN     := bin/strata

.PHONY: all build test test-unit test-integration demo evaluate evaluate-slurm bench fuzz vet testbed-up testbed-down clean help

all: build

help:            ## list targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build:           ## build bin/strata
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/strata

vet:             ## go vet, also with the cgo GPU build tags
	$(GO) vet ./...
	$(GO) vet -tags dcgm,nvml ./dcgm/...

test-unit:       ## unit tests only: no Slurm, no Postgres, no root
	$(GO) vet ./...
	$(GO) test -short ./...

test:            ## everything: installs deps, starts Postgres + the Slurm test cluster, vet, all tests, teardown
	scripts/test.sh

demo: build      ## bring up the test bed, submit DL jobs, show the queue and what Strata plans
	scripts/demo.sh

evaluate: build  ## re-run the trace-driven comparison and regenerate docs/evaluation.md
	scripts/evaluate.sh

evaluate-slurm: build ## the Slurm model vs the real Slurm: replays on a test cluster (root, ~30 min; not in make test)
	scripts/evaluate-slurm.sh

FUZZTIME ?= 1m
fuzz:            ## run every fuzzer for FUZZTIME each (default 1m), e.g. make fuzz FUZZTIME=10m
	$(GO) test ./planner -run '^$$' -fuzz '^FuzzPlanHints$$' -fuzztime $(FUZZTIME)
	$(GO) test ./planner -run '^$$' -fuzz '^FuzzParseHints$$' -fuzztime $(FUZZTIME)
	$(GO) test ./burstbuffer -run '^$$' -fuzz '^FuzzParseDirective$$' -fuzztime $(FUZZTIME)
	$(GO) test ./slurm -run '^$$' -fuzz '^FuzzParseGRES$$' -fuzztime $(FUZZTIME)

bench:           ## benchmarks (planner, snapshot decode, ingestion); needs the test bed for ingestion
	scripts/test.sh bench

testbed-up:      ## start Postgres + the Slurm test cluster and print the env file to source
	scripts/testbed.sh up

testbed-down:    ## stop both (the Slurm chroot stays cached under /var/cache/strata-test)
	scripts/testbed.sh down

clean:
	rm -rf bin
