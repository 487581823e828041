package driver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

func TestFileWatchTellsOfChanges(t *testing.T) {
	changes := []struct {
		what string
		do   func(dir, limits string) error
	}{
		{"a DONE file made", func(dir, _ string) error { return os.WriteFile(filepath.Join(dir, "DONE"), nil, 0o600) }},
		{"the state file replaced", func(dir, _ string) error {
			tmp := filepath.Join(dir, ".state.json.tmp")
			if err := os.WriteFile(tmp, []byte("{}"), 0o600); err != nil {
				return err
			}
			return os.Rename(tmp, filepath.Join(dir, "state.json"))
		}},
		{"the state file overwritten in place", func(dir, _ string) error {
			f, err := os.OpenFile(filepath.Join(dir, "state.json"), os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteString("garbage")
			return errors.Join(err, f.Close())
		}},
		{"another loop's usage limit", func(_, limits string) error {
			return os.WriteFile(filepath.Join(limits, "x.json"), []byte("{}"), 0o600)
		}},
	}
	for _, c := range changes {
		// Each change on its own watch: nothing an earlier one did can answer for it.
		dir, limits := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		fw := watchFiles(dir, limits)
		if fw == nil {
			t.Fatal("no file watch on Linux")
		}
		if err := c.do(dir, limits); err != nil {
			t.Fatal(err)
		}
		select {
		case <-fw.changed():
		case <-time.After(5 * time.Second):
			t.Errorf("%s: not told", c.what)
		}
		fw.close()
	}
}

// The loop's own writes (its logs growing, the temporary files of its atomic writes, even
// those a full disk refuses) do not wake it: on a full disk they would end every pause
// between its retries at once. A real change does.
func TestOwnWritesDoNotWakeTheLoop(t *testing.T) {
	dir := t.TempDir()
	fw := watchFiles(dir)
	if fw == nil {
		t.Fatal("no file watch on Linux")
	}
	defer fw.close()
	for _, name := range []string{"monitor.log", "iterations.log", "iterations.jsonl", "monitor.log.1"} {
		if err := state.AppendLine(filepath.Join(dir, name), "a line"); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(dir, ".state.json.tmp-123")
	if err := os.WriteFile(tmp, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(tmp); err != nil {
		t.Fatal(err)
	}
	// The kernel queues an event as the call that caused it returns: a wake-up for these
	// writes would come well within the wait.
	select {
	case <-fw.changed():
		t.Error("the loop's own writes wake it")
	case <-time.After(300 * time.Millisecond):
	}
	if err := os.WriteFile(tmp, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "state.json")); err != nil {
		t.Fatal(err)
	}
	wantChange(t, fw, "a new state file")
	if err := os.WriteFile(filepath.Join(dir, "killed"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wantChange(t, fw, "a kill's mark")
}

// wantChange waits for the watch to tell of what happened.
func wantChange(t *testing.T, fw *fileWatch, what string) {
	t.Helper()
	select {
	case <-fw.changed():
	case <-time.After(5 * time.Second):
		t.Errorf("%s does not wake the loop", what)
	}
}

// The agent's signals and its DONE file come into the loop's box: they wake the loop as a
// change of its own directory does (a Stop signal starts the next iteration at once).
func TestOwnFileWatchHearsTheBox(t *testing.T) {
	root := t.TempDir()
	workers := &state.Dir{Root: root}
	d := ralph.DirFor(workers, "w")
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{d.AgentEvents(), d.BoxDoneFile()} {
		l := New(Config{Dir: d, Workers: workers})
		fw := l.watchOwnFiles()
		if fw == nil {
			t.Fatal("no file watch on Linux")
		}
		if err := state.AppendLine(path, `{"event":"Stop"}`); err != nil {
			t.Fatal(err)
		}
		select {
		case <-fw.changed():
		case <-time.After(5 * time.Second):
			t.Errorf("%s written: the loop was not told", filepath.Base(path))
		}
		fw.close()
	}
}
