package driver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
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

func TestStatusPollFallsBackWithoutAFileWatch(t *testing.T) {
	l := New(Config{StatusPoll: 30 * time.Second})
	if got := l.statusPoll(); got != fallbackStatusPoll {
		t.Errorf("unwatched files read every %v, want %v", got, fallbackStatusPoll)
	}
	l.files = &fileWatch{}
	if got := l.statusPoll(); got != 30*time.Second {
		t.Errorf("watched files read every %v, want the configured 30s", got)
	}
	var none *fileWatch
	if none.changed() != nil {
		t.Error("no watch yields changes")
	}
}
