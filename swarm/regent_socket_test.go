package swarm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state"
)

// The Regent's address: its socket in the state directory when the path fits a socket
// address, else what the running Regent recorded.
func TestRegentAddress(t *testing.T) {
	short := &state.Dir{Root: "/home/u/.swarm"}
	if got := regentAddress(short); got != "/home/u/.swarm/regent.sock" {
		t.Errorf("short path: %q", got)
	}
	root := filepath.Join(t.TempDir(), strings.Repeat("d", maxSocketPath))
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	long := &state.Dir{Root: root}
	if got := regentAddress(long); got != "" {
		t.Errorf("long path, nothing recorded: %q", got)
	}
	if err := state.WriteJSON(regentInfoPath(long), regentInfo{PID: 1, Address: "@swarm-regent-0123"}); err != nil {
		t.Fatal(err)
	}
	if got := regentAddress(long); got != "@swarm-regent-0123" {
		t.Errorf("long path, recorded: %q", got)
	}
	// Exactly at the limit the path is still used.
	edge := &state.Dir{Root: "/" + strings.Repeat("x", maxSocketPath-len("/regent.sock")-1)}
	if got := regentAddress(edge); len(got) != maxSocketPath || !strings.HasSuffix(got, "/regent.sock") {
		t.Errorf("at the limit: %q (%d bytes)", got, len(got))
	}
}
