package tmux

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A server that never answers leaves its client waiting: the call gives up at its deadline,
// names the server, and the next call to it fails at once.
func TestCallGivesUpOnASilentServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tmux")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexec sleep 30\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	x := &Exec{SocketName: "silent-test", Binary: bin, Timeout: 200 * time.Millisecond}
	start := time.Now()
	_, err := x.Panes()
	if !errors.Is(err, ErrNotAnswering) || err.Error() != "tmux server (socket silent-test) is not answering" {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %s", d)
	}
	start = time.Now()
	if _, err := x.Capture("%1", 0); !errors.Is(err, ErrNotAnswering) {
		t.Fatalf("second call: %v", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("second call took %s: it should fail at once", d)
	}
}

func TestCallTimeoutFromEnvironment(t *testing.T) {
	t.Setenv("SWARM_TMUX_TIMEOUT", "")
	if CallTimeout() != defaultCallTimeout {
		t.Fatalf("default: %s", CallTimeout())
	}
	t.Setenv("SWARM_TMUX_TIMEOUT", "1500ms")
	if CallTimeout() != 1500*time.Millisecond {
		t.Fatalf("1500ms: %s", CallTimeout())
	}
	t.Setenv("SWARM_TMUX_TIMEOUT", "soon")
	if CallTimeout() != defaultCallTimeout {
		t.Fatalf("invalid: %s", CallTimeout())
	}
}
