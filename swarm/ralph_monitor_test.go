package swarm

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

// The driving of a loop is tested in swarm/loop; these are a foreground run's face: its
// summary, its exit codes, and its errors as a command says them.

func monitor(te *testEnv, name string, out *bytes.Buffer, foreground bool) error {
	return runMonitor(te.env, monitorOptions{name: name, out: out, foreground: foreground})
}

func TestMonitorFinishesALoopAtItsLimit(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("m", ralph.State{Status: ralph.StatusRunning, MaxIterations: 2, CurrentIteration: 2, Phase: ralph.PhaseEnded})
	var out bytes.Buffer
	if err := monitor(te, "m", &out, true); err != nil {
		t.Fatal(err)
	}
	// What the loop said, then its summary.
	said, summary, _ := strings.Cut(out.String(), "\n\n")
	if said != "[ralph] m: max iterations (2) reached" || !strings.HasPrefix(summary, "# Loop summary: m\n") ||
		!strings.Contains(summary, "- **Status:** stopped (max_iterations)\n") {
		t.Errorf("said %q", out.String())
	}
	if _, err := os.Stat(ld.SummaryPath()); err != nil {
		t.Error("no summary.md written:", err)
	}
	st := testmachine.LoopState(te.T, ld)
	if st.Status != ralph.StatusStopped || st.ExitReason != "max_iterations" || st.MonitorPID != 0 {
		t.Errorf("state %+v", st)
	}
	if ld.MonitorAlive() {
		t.Error("the monitor lock is still held")
	}
}

func TestMonitorOfAFailedLoopExitsOneInTheForeground(t *testing.T) {
	te := newLoopEnv(t)
	te.loop("f", ralph.State{Status: ralph.StatusFailed})
	err := monitor(te, "f", &bytes.Buffer{}, true)
	if code, _, silent := codeOf(err); code != 1 || !silent {
		t.Errorf("err %v", err)
	}
}

func TestMonitorLeavesALoopToTheOneDrivingIt(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("d", ralph.State{Status: ralph.StatusRunning})
	testmachine.HoldMonitor(t, ld)
	if err := monitor(te, "d", &bytes.Buffer{}, false); err != nil {
		t.Errorf("a second background monitor: %v", err)
	}
	wantErr(t, monitor(te, "d", &bytes.Buffer{}, true), 1, "a monitor is already running the loop for 'd'")
}

func TestMonitorErrors(t *testing.T) {
	te := newLoopEnv(t)
	wantErr(t, monitor(te, "bad name", &bytes.Buffer{}, true), 1, "invalid worker name")
	wantErr(t, monitor(te, "none", &bytes.Buffer{}, true), 1, "monitor.lock")
	if err := os.MkdirAll(ralph.DirFor(te.Dir(), "none").Path, 0o700); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	wantErr(t, monitor(te, "none", &out, true), 1, "no ralph loop state")
	if !strings.HasPrefix(out.String(), "swarm: error: no ralph loop state") {
		t.Errorf("said %q", out.String())
	}
}
