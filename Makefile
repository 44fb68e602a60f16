# Strata — developer entry points. `make demo` and `make test` are the two
# commands of the README; both install what they need (root, Debian 12).
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
BIN     := bin/strata

.PHONY: all build package package-test package-name test test-slurm-next test-unit test-integration demo evaluate evaluate-slurm traces traces-verify bench bench-queue bench-store fuzz vet testbed-up testbed-down clean help

all: build

help:            ## list targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build:           ## build bin/strata (stamped with VERSION and COMMIT: `strata version`)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/strata

# The .deb (docs/operations.md, "Packages"). nfpm is run at a pinned version
# with `go run pkg@version`, outside this module's go.mod
# (docs/decisions/0011-packaging-nfpm.md).
NFPM_VERSION   := v2.45.2
NFPM           := $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)
GOARCH         ?= $(shell $(GO) env GOARCH)
DEB_ARCH       ?= $(GOARCH)
DEB_VERSION    ?= $(shell scripts/deb-version.sh)
# Maintainer and Homepage fields: the site that builds the package sets
# them (docs/operations.md, "Packages"). The maintainer defaults to Debian's
# DEBFULLNAME/DEBEMAIL, else the builder's git identity.
DEB_MAINTAINER ?= $(if $(DEBEMAIL),$(or $(DEBFULLNAME),$(shell git config user.name)) <$(DEBEMAIL)>,$(shell git config user.name) <$(shell git config user.email)>)
DEB_HOMEPAGE   ?= https://github.com/strata-hpc/strata
DIST           := out/package
# STAGE is also named in packaging/nfpm.yaml.
STAGE          := $(DIST)/stage
DEB             = $(DIST)/strata_$(DEB_VERSION)_$(DEB_ARCH).deb
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

package:         ## build out/package/strata_VERSION_ARCH.deb with nfpm (binary, units, timers, man page, completions, dashboards, docs)
	$(if $(and $(findstring <,$(DEB_MAINTAINER)),$(findstring @,$(DEB_MAINTAINER)),$(findstring >,$(DEB_MAINTAINER))),,$(error DEB_MAINTAINER is "$(DEB_MAINTAINER)": set it to "Name <mail>", or set DEBFULLNAME and DEBEMAIL))
	$(if $(filter http://% https://%,$(DEB_HOMEPAGE)),,$(error DEB_HOMEPAGE is "$(DEB_HOMEPAGE)": set it to the http(s) URL of your site's Strata page))
	rm -rf $(STAGE) && mkdir -p $(STAGE)
	@echo "building strata with the dcgm and nvml sources (cgo; their libraries are loaded at run time)"
	CGO_ENABLED=1 GOOS=linux GOARCH=$(GOARCH) $(GO) build -trimpath -tags dcgm,nvml \
		-ldflags "-s -w -X main.version=$(DEB_VERSION) -X main.commit=$(COMMIT)" -o $(STAGE)/strata ./cmd/strata
	$(GO) run ./cmd/strata --config /dev/null gen-docs --dir $(STAGE)
	gzip -9n $(STAGE)/strata.1
	awk '/^```toml$$/ {f = 1; next} f && /^```$$/ {exit} f' docs/operations.md > $(STAGE)/strata.toml.example
	grep -q '^\[database\]' $(STAGE)/strata.toml.example
	rm -f $(DEB)
	DEB_VERSION=$(DEB_VERSION) DEB_ARCH=$(DEB_ARCH) DEB_MAINTAINER="$(DEB_MAINTAINER)" DEB_HOMEPAGE="$(DEB_HOMEPAGE)" \
		SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(NFPM) package --config packaging/nfpm.yaml --packager deb --target $(DEB)
	@echo "built $(DEB)"

package-test: package ## install the .deb in a copy of the cached Debian trixie chroot and check it (root)
	scripts/package-test.sh $(DEB)

package-name:    ## print the path `make package` writes
	@echo $(DEB)

vet:             ## go vet, also with the cgo GPU build tags
	$(GO) vet ./...
	CGO_ENABLED=1 $(GO) vet -tags dcgm,nvml ./...

test-unit:       ## unit tests only: no Slurm, no Postgres, no root
	$(GO) vet ./...
	$(GO) test -short ./...

test:            ## everything: installs deps, starts Postgres + the Slurm test cluster, vet, all tests, teardown
	scripts/test.sh

test-slurm-next: ## the tests that talk to Slurm, against Debian sid's Slurm 26.05 (slurmrestd v0.0.44) on a bed of its own
	scripts/test.sh slurm-next

demo:            ## bring up the test bed, submit DL jobs, show the queue and what Strata plans
	@echo "== 0. Building bin/strata: Go downloads the modules first (once per machine), then compiles (minutes on a fresh machine, seconds afterwards)"
	@$(GO) mod download && echo "   modules ready; compiling bin/strata"
	@$(MAKE) --no-print-directory build
	scripts/demo.sh

evaluate: build  ## re-run the trace-driven comparison and regenerate docs/evaluation.md
	scripts/evaluate.sh

traces:          ## the public traces of the evaluation in traces/: fetches the Alibaba slice (needs the internet), checks every SHA-256
	scripts/fetch-traces.sh

STRATA_TRACES ?= traces
traces-verify:   ## check the traces in STRATA_TRACES (default traces/) against traces/SHA256SUMS, naming each missing or differing file
	scripts/fetch-traces.sh --verify $(STRATA_TRACES)

evaluate-slurm: build ## the Slurm model vs the real Slurm: replays on a test cluster (root, ~30 min; not in make test)
	scripts/evaluate-slurm.sh

BENCH_JOBS ?= 10000
bench-queue: ## the whole plan cycle at site scale: BENCH_JOBS pending jobs on a bed of its own, 2 cycles of strata run (root; JSON last line; docs/evaluation.md § Scale)
	BENCH_JOBS=$(BENCH_JOBS) scripts/bench-queue.sh

BENCH_STORE_SIZES ?= 1e6,1e7
bench-store: ## the telemetry store at site scale: a year of rollups, 1,000 GPUs' samples up to each of BENCH_STORE_SIZES through Strata's ingestion, reports, job page, retention, spool drain (own Postgres; JSON line per size; docs/evaluation.md § Scale)
	BENCH_STORE_SIZES=$(BENCH_STORE_SIZES) scripts/bench-store.sh

FUZZTIME ?= 1m
fuzz:            ## run every fuzzer for FUZZTIME each (default 1m), e.g. make fuzz FUZZTIME=10m
	$(GO) test ./planner -run '^$$' -fuzz '^FuzzPlanHints$$' -fuzztime $(FUZZTIME)
	$(GO) test ./planner -run '^$$' -fuzz '^FuzzParseHints$$' -fuzztime $(FUZZTIME)
	$(GO) test ./burstbuffer -run '^$$' -fuzz '^FuzzParseDirective$$' -fuzztime $(FUZZTIME)
	$(GO) test ./slurm -run '^$$' -fuzz '^FuzzParseGRES$$' -fuzztime $(FUZZTIME)
	$(GO) test ./sim -run '^$$' -fuzz '^FuzzReadTrace$$' -fuzztime $(FUZZTIME)

bench:           ## benchmarks (planner, snapshot decode, ingestion); needs the test bed for ingestion
	scripts/test.sh bench

testbed-up:      ## start Postgres + the Slurm test cluster and print the env file to source
	scripts/testbed.sh up

testbed-down:    ## stop both (the Slurm chroot stays cached under /var/cache/strata-test)
	scripts/testbed.sh down

clean:
	rm -rf bin $(DIST)
