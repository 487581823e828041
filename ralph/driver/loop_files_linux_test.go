package driver

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
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
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skip("no inotify:", err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, dir, fileEvents); err != nil {
		t.Fatal(err)
	}
	// The kernel queues an event as the call that caused it returns: what is read after the
	// writes is every event they made.
	events := func() []byte {
		buf := make([]byte, 64<<10)
		n, err := syscall.Read(fd, buf)
		if err != nil {
			return nil
		}
		return buf[:n]
	}
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
	if ev := events(); len(ev) == 0 || tellsOfChange(ev) {
		t.Errorf("the loop's own writes (%d bytes of events) wake it", len(ev))
	}
	if err := os.WriteFile(tmp, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "state.json")); err != nil {
		t.Fatal(err)
	}
	if !tellsOfChange(events()) {
		t.Error("a new state file does not wake the loop")
	}
	if err := os.WriteFile(filepath.Join(dir, "killed"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !tellsOfChange(events()) {
		t.Error("a kill's mark does not wake the loop")
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
