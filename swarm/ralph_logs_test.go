package swarm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

var testTime = time.Date(2026, 11, 21, 10, 30, 0, 0, time.Local)

func writeLog(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

const iterationsLog = "2026-11-21T10:30:00 [START] iteration 1/3\n" +
	"garbage-half-line\n" +
	"2026-11-21T10:35:42 [END] iteration 1 exit=0 duration=5m42s\n" +
	"2026-11-21T10:35:43 [START] iteration 2/3\n" +
	"2026-11-21T10:35:44 [PAU" // still being written

func logs(te *testEnv, name string, lines int, monitor bool) error {
	return runRalphLogs(te.env, ralphLogsOptions{Args: []string{name}, Lines: lines, Monitor: monitor})
}

func TestRalphLogsSkipsTornLines(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("x", ralph.State{Status: ralph.StatusStopped})
	writeLog(t, ld.IterationsLog(), iterationsLog)
	if err := logs(te, "x", 0, false); err != nil {
		t.Fatal(err)
	}
	want := "2026-11-21T10:30:00 [START] iteration 1/3\n2026-11-21T10:35:42 [END] iteration 1 exit=0 duration=5m42s\n" +
		"2026-11-21T10:35:43 [START] iteration 2/3\n"
	if got := te.output(); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if got := te.errText(); got != "swarm: warning: skipped a torn line in iterations.log\n" {
		t.Errorf("stderr %q", got)
	}

	// The last lines are the last whole ones; a torn line before them is not worth a word.
	if err := logs(te, "x", 2, false); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "2026-11-21T10:35:42 [END] iteration 1 exit=0 duration=5m42s\n2026-11-21T10:35:43 [START] iteration 2/3\n" {
		t.Errorf("printed %q", got)
	}
	if got := te.errText(); got != "" {
		t.Errorf("stderr %q", got)
	}
}

func TestRalphLogsOfTheMonitorPrintsEveryLine(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("x", ralph.State{Status: ralph.StatusStopped})
	writeLog(t, ld.MonitorLog(), "2026-11-21T10:30:00 [ralph] x: starting iteration 1/3\npanic: a Go trace\n")
	if err := logs(te, "x", 1, true); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "panic: a Go trace\n" {
		t.Errorf("printed %q", got)
	}
	if te.errText() != "" {
		t.Error("warned about the monitor log")
	}
}

func TestRalphLogsOfADamagedLoop(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("c", ralph.State{Status: ralph.StatusFailed})
	writeLog(t, ld.IterationsLog(), "2026-11-21T10:30:00 [START] iteration 1/3\n")
	statePath := filepath.Join(ld.Path, "state.json")
	writeLog(t, statePath, "{not json")
	if _, err := ld.Load(); err == nil {
		t.Fatal("a corrupt state loaded")
	}
	if err := logs(te, "c", 0, false); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "2026-11-21T10:30:00 [START] iteration 1/3\n" {
		t.Errorf("printed %q", got)
	}
	// Following a loop that cannot be read ends after one look.
	if err := runRalphLogs(te.env, ralphLogsOptions{Args: []string{"c"}, Follow: true}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "2026-11-21T10:30:00 [START] iteration 1/3\n" {
		t.Errorf("follow printed %q", got)
	}
}

func TestRalphLogsFollowPrintsWhatIsAppended(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("f", ralph.State{Status: ralph.StatusRunning})
	n := 0
	tl := tail{path: ld.IterationsLog(), follow: true, whole: isEventLine, more: func() bool {
		n++
		switch n {
		case 1:
			// The log did not exist yet; now it does, its last line still being written.
			writeLog(t, ld.IterationsLog(), "2026-11-21T10:30:00 [START] iteration 1/3\n2026-11-21T10:30:01 [EN")
		case 2:
			writeLog(t, ld.IterationsLog(), "2026-11-21T10:30:00 [START] iteration 1/3\n2026-11-21T10:30:01 [END] iteration 1\n")
		}
		return n < 3
	}}
	if err := tl.run(te.env); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "2026-11-21T10:30:00 [START] iteration 1/3\n2026-11-21T10:30:01 [END] iteration 1\n" {
		t.Errorf("printed %q", got)
	}
}

func TestRalphLogsErrors(t *testing.T) {
	te := newLoopEnv(t)
	te.spawn("plain", "")
	wantErr(t, logs(te, "plain", 0, false), 1, "worker 'plain' is not a ralph worker")
	wantErr(t, logs(te, "ghost", 0, false), 2, "no worker named 'ghost'")
	wantErr(t, logs(te, "bad name", 0, false), 1, "invalid worker name")
	wantErr(t, ralphLogsOptions{}.check(), 1, "usage: swarm ralph logs NAME")
	wantErr(t, ralphLogsOptions{Args: []string{"a"}, Lines: -1}.check(), 1, "--lines must not be negative")
	// A loop with no events yet prints nothing.
	te.loop("new", ralph.State{Status: ralph.StatusRunning})
	if err := logs(te, "new", 0, false); err != nil || te.output() != "" {
		t.Errorf("err %v, printed %q", err, te.output())
	}
}

// A rotated log (see state.Log) is read older part first, and followed across a rotation:
// the rest of the old file, then the new one, no line lost or shown twice.
func TestTailFollowsARotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "iterations.log")
	writeLog(t, state.Rotated(path), "one\ntwo\n")
	writeLog(t, path, "three\nfou")
	tl := tail{path: path}
	first, err := tl.open()
	if err != nil {
		t.Fatal(err)
	}
	defer tl.f.Close()
	if got := tl.split(first); strings.Join(got, "") != "one\ntwo\nthree\n" {
		t.Fatalf("first read: %q", got)
	}
	// The writer ends its line, then the log is rotated and begun afresh.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("r\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Rename(path, state.Rotated(path)); err != nil {
		t.Fatal(err)
	}
	writeLog(t, path, "five\n")
	if got := tl.read(); strings.Join(got, "") != "four\nfive\n" {
		t.Fatalf("after the rotation: %q", got)
	}
	if got := tl.read(); len(got) != 0 {
		t.Fatalf("read again: %q", got)
	}
}
