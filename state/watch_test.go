package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func wantWake(t *testing.T, w <-chan struct{}, within time.Duration, what string) {
	t.Helper()
	select {
	case <-w:
	case <-time.After(within):
		t.Fatalf("%s: no wake-up within %s", what, within)
	}
}

func wantQuiet(t *testing.T, w <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-w:
		t.Fatalf("%s: woken", what)
	case <-time.After(d):
	}
}

func isEvents(name string) bool { return strings.HasPrefix(name, "events.jsonl") }

// A write, a rename and a removal of a wanted file each wake the watcher; another file's
// changes do not.
func TestWatchFilesTellsOfWantedFiles(t *testing.T) {
	dir := t.TempDir()
	w := WatchFiles([]string{dir}, isEvents)
	defer w.Close()
	if !w.Kernel() {
		t.Skip("the kernel does not tell of changes here (no inotify)")
	}
	path := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantWake(t, w.Changed(), time.Second, "a write")
	// Its making and its writing may be told in two reads: both come before another file.
	drain(w.Changed(), 100*time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantQuiet(t, w.Changed(), 200*time.Millisecond, "another file")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	wantWake(t, w.Changed(), time.Second, "a rename")
	if err := os.Remove(path + ".1"); err != nil {
		t.Fatal(err)
	}
	wantWake(t, w.Changed(), time.Second, "a removal")
}

// Where the kernel does not tell, a look at the files finds what changed.
func TestPollFilesFindsChanges(t *testing.T) {
	dir := t.TempDir()
	woke := make(chan struct{}, 1)
	stop := pollFiles([]string{dir}, isEvents, 20*time.Millisecond, func() {
		select {
		case woke <- struct{}{}:
		default:
		}
	})
	defer stop()
	wantQuiet(t, woke, 100*time.Millisecond, "nothing changed")
	path := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantWake(t, woke, time.Second, "a new file")
	// A look may have caught the file made but not yet written, and the next one it written:
	// what the write still wakes comes before another file is made.
	drain(woke, 100*time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, "other"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantQuiet(t, woke, 100*time.Millisecond, "another file")
	if err := os.WriteFile(path, []byte("x\ny\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantWake(t, woke, time.Second, "a longer file")
}

// drain takes the wake-ups that come until none has for quiet.
func drain(woke <-chan struct{}, quiet time.Duration) {
	for {
		select {
		case <-woke:
		case <-time.After(quiet):
			return
		}
	}
}
