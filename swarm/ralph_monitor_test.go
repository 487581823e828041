package swarm

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
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
	te := newLoopEnv(t)
	te.loop("k", ralph.State{Status: ralph.StatusRunning})
	if err := startMonitor(te.env, "k"); err != nil {
		t.Fatal(err)
	}
	wantRegent(t, te)
	for _, id := range te.fake.PaneIDs() {
		if p, _ := te.fake.Get(id); p.Session == regentSession && (!p.Revive || p.Spec.Cwd != "/" || len(p.Spec.Env) != 0) {
			t.Errorf("keeper pane: revive %v, cwd %q, env %q", p.Revive, p.Spec.Cwd, p.Spec.Env)
		}
	}
}

// syncBuffer is written by the signal handler's goroutine and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSignalsPauseTheLoopThenAbort(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("s", ralph.State{Status: ralph.StatusRunning})
	sigs := make(chan os.Signal, 4)
	ctx, abort := context.WithCancel(context.Background())
	defer abort()
	var out syncBuffer
	done := make(chan struct{})
	go func() { handleSignals(sigs, "s", ld, &out, abort); close(done) }()
	sigs <- syscall.SIGHUP
	sigs <- syscall.SIGTERM
	eventually(t, "the pause", func() bool { st, _ := ld.Load(); return st != nil && st.Status == ralph.StatusPaused })
	if st := te.loopState(ld); st.ExitReason != "signal" {
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
	if got := events(t, ld); !reflect.DeepEqual(got, []string{"[PAUSE] signal SIGTERM"}) {
		t.Errorf("log %q", got)
	}
}

func TestSIGQUITAbortsAtOnce(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("q", ralph.State{Status: ralph.StatusRunning})
	sigs := make(chan os.Signal, 1)
	ctx, abort := context.WithCancel(context.Background())
	defer abort()
	sigs <- syscall.SIGQUIT
	handleSignals(sigs, "q", ld, &bytes.Buffer{}, abort)
	if ctx.Err() == nil {
		t.Error("SIGQUIT did not abort")
	}
	if te.loopState(ld).Status != ralph.StatusRunning {
		t.Error("SIGQUIT changed the status; the loop pauses itself when it aborts")
	}
	if worker.SignalName(syscall.SIGQUIT) != "SIGQUIT" || worker.SignalName(syscall.SIGHUP) != syscall.SIGHUP.String() {
		t.Error("signal names")
	}
	// Catching and letting go leaves nothing behind.
	pauseOnSignals("q", ld, &bytes.Buffer{}, func() {})()
}

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
	st := te.loopState(ld)
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

// A monitor that finds another one's pid on a running loop knows that one died, and says so.
func TestMonitorTakesOverFromADeadOne(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("r", ralph.State{Status: ralph.StatusRunning, MaxIterations: 1, CurrentIteration: 1, Phase: ralph.PhaseEnded,
		MonitorPID: 1 << 30})
	if err := monitor(te, "r", &bytes.Buffer{}, false); err != nil {
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
	te := newLoopEnv(t)
	ld := te.loop("d", ralph.State{Status: ralph.StatusRunning})
	holdMonitor(t, ld)
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

func TestLoopProcsUseTheCommandsProcessTable(t *testing.T) {
	te := newLoopEnv(t)
	w := te.spawn("w", "")
	te.procs.SetOutside("T=1", []int{7, 8})
	lp := loopProcs{te.procs}
	if !lp.Alive(w.PID) || lp.KillTagged("T=1", 0, time.Second) != 2 {
		t.Error("alive or tagged")
	}
	lp.KillGroup(w.PID, time.Second)
	if lp.Alive(w.PID) {
		t.Error("still alive after KillGroup")
	}
}
