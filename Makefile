# swarm: build, install, test, bench, lint.
GO      ?= go
BIN     ?= bin/swarm
PREFIX  ?= $(HOME)/.local
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/swarm-dev/swarm/swarm.Version=$(VERSION)

.PHONY: all build install test test-short bench lint e2e demo clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/swarm

install:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(PREFIX)/bin/swarm ./cmd/swarm

# The full suite: vet, unit tests, and the CLI scenarios against real tmux, under the race detector.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

test-short:
	$(GO) test -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# End-to-end runs with the real Claude Code TUI against a local fake API (needs the lab
# checkout beside this repository and its npm packages installed).
e2e:
	SWARM_E2E=1 $(GO) test -count=1 -run 'TestE2E' -v ./cmd/swarm/

demo: build
	$(BIN) demo

clean:
	rm -rf bin
