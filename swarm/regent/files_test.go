package regent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state"
)

// The Regent's address: its socket in the state directory when the path fits a socket
// address, else what the running Regent recorded.
func TestAddress(t *testing.T) {
	short := &state.Dir{Root: "/home/u/.swarm"}
	if got := Address(short); got != "/home/u/.swarm/regent.sock" {
		t.Errorf("short path: %q", got)
	}
	long := longDir(t)
	if got := Address(long); got != "" {
		t.Errorf("long path, nothing recorded: %q", got)
	}
	if err := WriteInfo(long, Info{PID: 1, Address: "@swarm-regent-0123"}); err != nil {
		t.Fatal(err)
	}
	if got := Address(long); got != "@swarm-regent-0123" {
		t.Errorf("long path, recorded: %q", got)
	}
	// Exactly at the limit the path is still used.
	edge := &state.Dir{Root: "/" + strings.Repeat("x", MaxSocketPath-len("/regent.sock")-1)}
	if got := Address(edge); len(got) != MaxSocketPath || !strings.HasSuffix(got, "/regent.sock") {
		t.Errorf("at the limit: %q (%d bytes)", got, len(got))
	}
}

// longDir is a state directory whose socket path is too long for a socket address.
func longDir(t *testing.T) *state.Dir {
	t.Helper()
	root := filepath.Join(t.TempDir(), strings.Repeat("d", MaxSocketPath))
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	return &state.Dir{Root: root}
}

// Listen binds where Address looks, a stale socket file notwithstanding; a path too long for
// a socket gets a name in the abstract namespace, drawn anew each time.
func TestListen(t *testing.T) {
	d := &state.Dir{Root: t.TempDir()}
	if err := os.WriteFile(FilesOf(d).Socket, nil, 0o600); err != nil { // left by a killed Regent
		t.Fatal(err)
	}
	ln, err := Listen(d)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if got, want := ln.Addr().String(), Address(d); got != want {
		t.Errorf("listens on %q, Address says %q", got, want)
	}
	long := longDir(t)
	var seen []string
	for range 2 {
		ln, err := Listen(long)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		seen = append(seen, ln.Addr().String())
	}
	if !strings.HasPrefix(seen[0], abstractPrefix) || seen[0] == seen[1] {
		t.Errorf("long path: listened on %q", seen)
	}
}

// Why the last Regent could not listen, as it wrote it; "" when it wrote nothing.
func TestCannotListen(t *testing.T) {
	d := &state.Dir{Root: t.TempDir()}
	if got := CannotListen(d); got != "" {
		t.Errorf("nothing written: %q", got)
	}
	if err := os.WriteFile(FilesOf(d).Error, []byte("cannot listen for commands: boom\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := CannotListen(d); got != "cannot listen for commands: boom" {
		t.Errorf("written: %q", got)
	}
}
