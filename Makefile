# swarm: build, install, test, bench, lint.
GO      ?= go
BIN     ?= bin/swarm
AGENTS  ?= pinned
PREFIX  ?= $(HOME)/.local
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/swarm-dev/swarm/swarm.Version=$(VERSION)
# A static binary without the CLI library's man-page and Markdown writers starts in about 80%
# of the time: swarm is started for every command, and a loop's demo agent once per iteration.
BUILD   := CGO_ENABLED=0 $(GO) build -tags urfave_cli_no_docs -ldflags "$(LDFLAGS)"

.PHONY: all build dist install cross test scenarios test-race test-short bench lint e2e e2e-latest demo clean

all: build

build:
	$(BUILD) -o $(BIN) ./cmd/swarm

# A binary per platform beside bin/swarm (bin/swarm-linux-arm64, ...): `swarm host add --install`
# copies the one a host of another system needs.
dist:
	@set -e; for p in $(PLATFORMS); do \
		echo "bin/swarm-$${p%/*}-$${p#*/}"; GOOS=$${p%/*} GOARCH=$${p#*/} $(BUILD) -o bin/swarm-$${p%/*}-$${p#*/} ./cmd/swarm; \
	done

install:
	$(BUILD) -o $(PREFIX)/bin/swarm ./cmd/swarm

# go vet for every platform swarm is built for (vet compiles the tests too, and links
# nothing), so a call one system has and another lacks is caught on whichever the suite runs.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
cross:
	@set -e; for p in $(PLATFORMS); do \
		echo "go vet ./... ($$p)"; GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./...; \
	done

# Every go test has a time limit of its own, well over what it takes on two busy cores: go
# test's default of 10 minutes is about what the scenarios take there, and a run cut short by
# it says only "panic: test timed out".
UNIT_TIMEOUT     ?= 15m
SCENARIO_TIMEOUT ?= 30m
RACE_TIMEOUT     ?= 90m

# The full suite: vet on every platform, the unit tests under the race detector, and the CLI
# scenarios against real tmux. The scenarios start the swarm binary thousands of times;
# race-instrumented, that takes four times as long, so they run under the detector only in
# test-race.
test: cross bin/testprogress
	$(GO) test -race -count=1 -timeout $(UNIT_TIMEOUT) $$($(GO) list ./... | grep -v '/cmd/swarm$$')
	$(GO) test -json -count=1 -timeout $(SCENARIO_TIMEOUT) ./cmd/swarm/ | bin/testprogress

# The package of the CLI scenarios (testdata/script/AREA/NAME.txtar), about ten minutes: a line
# per test as it ends (ended/begun, the time so far, its verdict), a failure with its whole
# log; the exit code is the tests' (cmd/swarm/internal/testprogress).
scenarios: bin/testprogress
	$(GO) test -json -count=1 -timeout $(SCENARIO_TIMEOUT) ./cmd/swarm/ | bin/testprogress

bin/testprogress: cmd/swarm/internal/testprogress/*.go
	$(GO) build -o $@ ./cmd/swarm/internal/testprogress

test-race: bin/testprogress
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout $(UNIT_TIMEOUT) $$($(GO) list ./... | grep -v '/cmd/swarm$$')
	$(GO) test -race -json -count=1 -timeout $(RACE_TIMEOUT) ./cmd/swarm/ | bin/testprogress

test-short:
	$(GO) test -count=1 -timeout $(SCENARIO_TIMEOUT) ./...

bench:
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkServe$$' -benchtime 20x -timeout 60m ./...
	# swarm serve under a fleet's load, then a minute idle: measured once.
	$(GO) test -run '^$$' -bench '^BenchmarkServe$$' -benchtime 1x -timeout 15m ./cmd/swarm/
	# The fleet over SSH against the same work here (testdata/bench/hosts.txtar; needs sshd).
	SWARM_BENCH_HOSTS=1 $(GO) test -count=1 -run '^TestHostFigures$$' -v -timeout 15m ./cmd/swarm/

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	# Doc comments that begin with, or name, something the code no longer has.
	$(GO) test -count=1 -run '^(TestDocCommentsNameTheirDeclaration|TestCommentsNameWhatExists)$$' ./cmd/swarm/

# End-to-end runs of the real Claude Code and Codex TUIs against a fake model API on loopback.
# The agents are installed from npm at pinned versions into a cache (SWARM_E2E_CACHE, default
# ~/.cache/swarm-e2e) and reused; AGENTS=latest installs today's releases instead. Without npm
# the suite is skipped, except in CI where it fails.
e2e:
	@if ! command -v npm >/dev/null 2>&1; then \
		if [ -n "$$CI" ]; then echo "e2e: npm not found; CI must run the real agents" >&2; exit 1; fi; \
		echo "e2e: skipped: npm not found (install Node.js and npm to run the real agents)"; exit 0; \
	fi
	SWARM_E2E=1 SWARM_E2E_AGENTS=$(AGENTS) $(GO) test -count=1 -parallel 2 -timeout 20m -run 'TestE2E' -v ./cmd/swarm/

# The same suite on whatever npm installs today (its first line names the versions), to see a
# new release's drift before users do; the pinned versions stay what `make e2e` runs.
e2e-latest:
	$(MAKE) e2e AGENTS=latest

demo: build
	$(BIN) demo

clean:
	rm -rf bin
