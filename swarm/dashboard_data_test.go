package swarm

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/dashboard"
)

// What swarm attach writes on standard error while the dashboard has handed it the terminal
// becomes its error, instead of reaching the terminal where the dashboard would draw over it.
func TestDashboardAttachKeepsItsErrorOutput(t *testing.T) {
	x := &attachExec{cmd: exec.Command("sh", "-c", "echo on the screen; echo 'swarm: error: no window' >&2; exit 1")}
	var screen, terminalErr bytes.Buffer
	x.SetStdin(strings.NewReader(""))
	x.SetStdout(&screen)
	x.SetStderr(&terminalErr)
	err := x.Run()
	if err == nil || err.Error() != "no window" {
		t.Errorf("error %v, want %q", err, "no window")
	}
	if screen.String() != "on the screen\n" || terminalErr.Len() != 0 {
		t.Errorf("terminal got %q and on its error output %q", screen.String(), terminalErr.String())
	}
	if err := (&attachExec{cmd: exec.Command("true")}).Run(); err != nil {
		t.Errorf("a command that succeeds: %v", err)
	}
}

// A frame printed once, on a state directory: every worker in words, the failed first, and
// the first one's screen below.
func TestDashboardOnceOnAStateDirectory(t *testing.T) {
	te := newLoopEnv(t)
	chainLoop(te, "lp", "● building\n\n", "")
	te.exit(te.spawn("zz", "the end\n"), 3)
	if err := runDashboard(te.env, dashboardOptions{Once: true, Interval: time.Second, Sort: "attention"}); err != nil {
		t.Fatal(err)
	}
	got := te.output()
	for _, want := range []string{"swarm · 2 workers", "▸ zz       plain stopped (exit 3)", "  lp       chain working    ",
		"── zz · screen", " the end"} {
		if !strings.Contains(got, want) {
			t.Errorf("frame lacks %q:\n%s", want, got)
		}
	}
}

// A loop's events are shown under its screen, the Regent's lines coloured as the Regent's:
// the mark swarm writes them with is the one the dashboard looks for.
func TestDashboardRegentEvents(t *testing.T) {
	te := newLoopEnv(t)
	when := time.Now()
	at := when.Format(ralph.TimeFormat)
	chainLoop(te, "lp", "● building\n", at+" [START] iteration 1/5\n"+at+" "+regentEvent+"Tests passed\n")
	frame := dashboard.RenderOnce(swarmData{e: te.env}, dashboard.Options{Width: 100, Color: true})
	regent := orange + " [" + when.Local().Format("15:04:05") + "]  " + regentMark + "Tests passed"
	for _, want := range []string{"── lp · screen", " ● building", "── lp · events", " " + at + " [START] iteration 1/5", regent} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
}

// chainLoop gives a new fake worker a running chain loop showing screen, with events in its
// iterations.log.
func chainLoop(te *testEnv, name, screen, events string) {
	te.T.Helper()
	ld := te.loop(name, ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, CurrentIteration: 1})
	if err := te.Dir().UpdateWorkers(te.warnErr, func(ws *state.Workers) error {
		ws.Get(name).Metadata = map[string]any{"ralph": true}
		return nil
	}); err != nil {
		te.T.Fatal(err)
	}
	w, _, err := te.Load(name)
	if err != nil {
		te.T.Fatal(err)
	}
	for path, text := range map[string]string{ld.ChainPath(): "{}", ld.IterationsLog(): events} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			te.T.Fatal(err)
		}
	}
	if err := te.Fake.SetScreen(w.Tmux.PaneID, screen); err != nil {
		te.T.Fatal(err)
	}
}
