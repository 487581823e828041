package driver

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
)

// A loop keeps the last 50 iterations' screens: each save drops the one that fell out, and
// the first save of a monitor also drops older ones left in the directory.
func TestPruneScreensKeepsTheLastFifty(t *testing.T) {
	d := ralph.Dir{Path: t.TempDir()}
	screens := filepath.Dir(d.ScreenPath(1))
	if err := os.MkdirAll(screens, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(screens, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 60; i++ {
		write(filepath.Base(d.ScreenPath(i)))
	}
	write("notes.txt")
	left := func() (names []string) {
		entries, err := os.ReadDir(screens)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	pruneScreens(d, 60, true)
	got := left()
	if len(got) != 51 || !slices.Contains(got, "iteration-11.txt") || slices.Contains(got, "iteration-10.txt") || !slices.Contains(got, "notes.txt") {
		t.Fatalf("after the sweep: %v", got)
	}
	write("iteration-61.txt")
	pruneScreens(d, 61, false)
	got = left()
	if len(got) != 51 || slices.Contains(got, "iteration-11.txt") || !slices.Contains(got, "iteration-12.txt") {
		t.Fatalf("after the 61st: %v", got)
	}
}

// An agent just ended by the loop: the wrapper's exit file tells its code, and tmux, which may
// be slow to answer, is not asked; without the file, tmux's word is waited for.
func TestEndedNowReadsTheExitFileFirst(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{})
	l := New(h.config())
	if err := os.MkdirAll(filepath.Dir(h.sd.ExitPath(loopName)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.sd.ExitPath(loopName), []byte("143\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := l.view.endedNow(agent{paneID: "%404", pid: 4040})
	if !a.dead || a.code == nil || *a.code != 143 || a.paneID != "%404" || a.gone {
		t.Errorf("with the exit file: %+v", a)
	}
	if err := os.Remove(h.sd.ExitPath(loopName)); err != nil {
		t.Fatal(err)
	}
	// No file: tmux is asked, and tells of the worker's pane as it is (still running here).
	if a := l.view.endedNow(agent{paneID: "%404", pid: 4040}); a.paneID != h.paneID || a.dead || a.code != nil {
		t.Errorf("without the exit file: %+v, want tmux's word on %s", a, h.paneID)
	}
}

// The reason on the exit file's second line is taken once its line is whole: the start
// script writes the file in place, and a half-written reason is not shown.
func TestFatalReasonTakesAWholeLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exit")
	cases := []struct {
		file string
		code int
		want string
	}{
		{"127\nexecutable not found: foo\n", 127, "executable not found: foo"},
		{"126\npermission denied: /x\n", 126, "permission denied: /x"},
		{"127\nexecutable not fo", 127, "executable not found (exit 127)"},
		{"126\n", 126, "permission denied (exit 126)"},
	}
	for _, c := range cases {
		if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := fatalReason(path, c.code); got != c.want {
			t.Errorf("%q: %q, want %q", c.file, got, c.want)
		}
	}
}
