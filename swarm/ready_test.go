package swarm

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
)

func TestReadyProgress(t *testing.T) {
	if got := readyProgress("w1", 3500*time.Millisecond, screen.State{}); got != "waiting for w1's input prompt (3s)" {
		t.Errorf("waiting line %q", got)
	}
	got := readyProgress("w1", 12*time.Second, screen.State{Kind: screen.Dialog, Dialog: "trust-folder"})
	if !strings.HasPrefix(got, "w1 is waiting at the trust-folder dialog") || !strings.HasSuffix(got, "answer it with 'swarm attach w1' (12s)") {
		t.Errorf("dialog line %q", got)
	}
}

// Off a terminal (a pipe, a file, a script's buffer) there is no progress at all.
func TestNoProgressOffATerminal(t *testing.T) {
	var buf bytes.Buffer
	show := progressOn(&buf)
	show("waiting for w1's input prompt (1s)")
	show("")
	if buf.Len() != 0 {
		t.Errorf("progress written off a terminal: %q", buf.String())
	}
}
