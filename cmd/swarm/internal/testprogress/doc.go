// Command testprogress reads go test -json on stdin and says one line per finished test as
// it ends, so a suite that runs for minutes (the CLI scenarios) shows how far it got:
//
//	37/166    3m12s  PASS  TestScripts/ralph_basic (12.3s)
//
// The first figures are the tests ended out of those begun, then the time since the run
// began. A failed test's whole output follows its line; a skipped one's last line of output
// says why. What the package itself prints (its verdict, a panic, a timeout's stacks, a
// build's errors) is passed on as it is. It exits 1 unless the run ended with every package
// passing, so `go test -json ... | testprogress` keeps the tests' verdict without pipefail.
//
//	go test -json -count=1 -timeout 30m ./cmd/swarm/ | go run ./cmd/swarm/internal/testprogress
package main
