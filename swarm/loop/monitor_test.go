package loop

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

func TestTimestampedPrefixesEveryLine(t *testing.T) {
	var b bytes.Buffer
	n, err := timestamped{&b}.Write([]byte("one\ntwo\n"))
	if err != nil || n != 8 {
		t.Fatalf("wrote %d, %v", n, err)
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d one\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d two\n$`).Match(b.Bytes()) {
		t.Errorf("got %q", b.String())
	}
}

func TestStartMonitorUnderAKeeper(t *testing.T) {
	mt := newTestMachine(t)
	mt.SpawnLoop("k", ralph.State{Status: ralph.StatusRunning})
	if err := On(mt.Machine).StartMonitor("k"); err != nil {
		t.Fatal(err)
	}
	ks := mt.PanesOf(regent.Session)
	if len(ks) != 1 {
		t.Fatalf("%d Regents started, want 1", len(ks))
	}
	want := []string{"--swarm-dir", mt.Dir().Root, "--tmux-socket", mt.Fake.Socket(), "regent", "__keep"}
	if !reflect.DeepEqual(ks[0][1:], want) {
		t.Errorf("keeper argv %q, want exe + %q", ks[0], want)
	}
	for _, id := range mt.Fake.PaneIDs() {
		if p, _ := mt.Fake.Get(id); p.Session == regent.Session && (!p.Revive || p.Spec.Cwd != "/" || len(p.Spec.Env) != 0) {
			t.Errorf("keeper pane: revive %v, cwd %q, env %q", p.Revive, p.Spec.Cwd, p.Spec.Env)
		}
	}
}

func TestSignalsPauseTheLoopThenAbort(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("s", ralph.State{Status: ralph.StatusRunning})
	sigs := make(chan os.Signal, 4)
	ctx, abort := context.WithCancel(context.Background())
	defer abort()
	var out testmachine.SyncBuffer
	done := make(chan struct{})
	go func() { handleSignals(sigs, "s", ld, &out, abort); close(done) }()
	sigs <- syscall.SIGHUP
	sigs <- syscall.SIGTERM
	testmachine.Eventually(t, "the pause", func() bool { st, _ := ld.Load(); return st != nil && st.Status == ralph.StatusPaused })
	if st := testmachine.LoopState(t, ld); st.ExitReason != "signal" {
		t.Errorf("exit reason %q", st.ExitReason)
	}
	sigs <- syscall.SIGINT
	sigs <- syscall.SIGINT
	<-done
	if ctx.Err() == nil {
		t.Error("a second SIGINT did not abort")
	}
	want := "[ralph] s: received SIGTERM, pausing after the current iteration (again or SIGQUIT: stop now)\n" +
		"[ralph] s: received SIGINT, pausing after the current iteration (again or SIGQUIT: stop now)\n"
	if out.String() != want {
		t.Errorf("said %q, want %q", out.String(), want)
	}
	// Paused once: the second request found it paused already.
	if got := testmachine.Events(t, ld); !reflect.DeepEqual(got, []string{"[PAUSE] signal SIGTERM"}) {
		t.Errorf("log %q", got)
	}
}

func TestSIGQUITAbortsAtOnce(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("q", ralph.State{Status: ralph.StatusRunning})
	sigs := make(chan os.Signal, 1)
	ctx, abort := context.WithCancel(context.Background())
	defer abort()
	sigs <- syscall.SIGQUIT
	handleSignals(sigs, "q", ld, &bytes.Buffer{}, abort)
	if ctx.Err() == nil {
		t.Error("SIGQUIT did not abort")
	}
	if testmachine.LoopState(t, ld).Status != ralph.StatusRunning {
		t.Error("SIGQUIT changed the status; the loop pauses itself when it aborts")
	}
	if worker.SignalName(syscall.SIGQUIT) != "SIGQUIT" || worker.SignalName(syscall.SIGHUP) != syscall.SIGHUP.String() {
		t.Error("signal names")
	}
	// Catching and letting go leaves nothing behind.
	pauseOnSignals("q", ld, &bytes.Buffer{}, func() {})()
}

// foreground runs a monitor in the foreground with every line on out.
func foreground(out io.Writer) func(ralph.Dir) (io.Writer, io.Writer) {
	return func(ralph.Dir) (io.Writer, io.Writer) { return out, out }
}

func TestMonitorFinishesALoopAtItsLimit(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("m", ralph.State{Status: ralph.StatusRunning, MaxIterations: 2, CurrentIteration: 2, Phase: ralph.PhaseEnded})
	var out bytes.Buffer
	status, err := On(mt.Machine).RunMonitor(Monitor{Name: "m", Out: &out, Foreground: foreground(&out)})
	if err != nil || status != ralph.StatusStopped {
		t.Fatalf("status %q, %v", status, err)
	}
	if out.String() != "[ralph] m: max iterations (2) reached\n" {
		t.Errorf("said %q", out.String())
	}
	if _, err := os.Stat(ld.SummaryPath()); err != nil {
		t.Error("no summary.md written:", err)
	}
	st := testmachine.LoopState(t, ld)
	if st.Status != ralph.StatusStopped || st.ExitReason != "max_iterations" || st.MonitorPID != 0 {
		t.Errorf("state %+v", st)
	}
	if ld.MonitorAlive() {
		t.Error("the monitor lock is still held")
	}
}

// A monitor that finds another one's pid on a running loop knows that one died, and says so.
func TestMonitorTakesOverFromADeadOne(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("r", ralph.State{Status: ralph.StatusRunning, MaxIterations: 1, CurrentIteration: 1, Phase: ralph.PhaseEnded,
		MonitorPID: 1 << 30})
	if _, err := On(mt.Machine).RunMonitor(Monitor{Name: "r", Out: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ld.MonitorLog())
	for _, want := range []string{"Regent: monitor (pid 1073741824) died", "[ralph] r: max iterations (1) reached"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("monitor log lacks %q:\n%s", want, data)
		}
	}
	if rs := ld.LoadSupervision(); rs.Resurrections != 1 {
		t.Errorf("resurrections %d", rs.Resurrections)
	}
}

func TestMonitorLeavesALoopToTheOneDrivingIt(t *testing.T) {
	mt := newTestMachine(t)
	ld := mt.SpawnLoop("d", ralph.State{Status: ralph.StatusRunning})
	testmachine.HoldMonitor(t, ld)
	if status, err := On(mt.Machine).RunMonitor(Monitor{Name: "d", Out: &bytes.Buffer{}}); err != nil || status != "" {
		t.Errorf("a second background monitor: %q, %v", status, err)
	}
	_, err := On(mt.Machine).RunMonitor(Monitor{Name: "d", Out: &bytes.Buffer{}, Foreground: foreground(&bytes.Buffer{})})
	if !errors.Is(err, ErrMonitorBusy) || err.Error() != "a monitor is already running the loop for 'd'" {
		t.Errorf("a second foreground monitor: %v", err)
	}
}

func TestMonitorErrors(t *testing.T) {
	mt := newTestMachine(t)
	run := func(name string, out io.Writer) error {
		_, err := On(mt.Machine).RunMonitor(Monitor{Name: name, Out: out, Foreground: foreground(out)})
		return err
	}
	if err := run("bad name", &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "invalid worker name") {
		t.Errorf("bad name: %v", err)
	}
	if err := run("none", &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "monitor.lock") {
		t.Errorf("no loop directory: %v", err)
	}
	if err := os.MkdirAll(ralph.DirFor(mt.Dir(), "none").Path, 0o700); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run("none", &out); err == nil || !strings.Contains(err.Error(), "no ralph loop state") {
		t.Errorf("no state: %v", err)
	}
	if !strings.HasPrefix(out.String(), "swarm: error: no ralph loop state") {
		t.Errorf("said %q", out.String())
	}
}

func TestLoopProcsUseTheMachinesProcessTable(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.SpawnShell("w")
	mt.Processes.SetOutside("T=1", []int{7, 8})
	lp := loopProcs{mt.Processes}
	if !lp.Alive(w.PID) || lp.KillTagged("T=1", 0, time.Second) != 2 {
		t.Error("alive or tagged")
	}
	lp.KillGroup(w.PID, time.Second)
	if lp.Alive(w.PID) {
		t.Error("still alive after KillGroup")
	}
}
