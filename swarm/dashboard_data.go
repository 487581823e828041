package swarm

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/dashboard"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// What the dashboard (package dashboard) reads and does, on a real state directory: the
// workers' records and loop states made into rows in words, their screens from tmux or their
// logs, and swarm's own commands run for its keys.

// swarmData is dashboard.Data on a real state directory.
type swarmData struct {
	e *env
	// fleet holds the other hosts' rows; nil when no host is added.
	fleet *fleetWatch
}

var _ dashboard.Data = swarmData{}

func (d swarmData) Snapshot() dashboard.Snapshot { return d.withFleet(d.localSnapshot()) }

// localSnapshot is this machine's workers' rows.
func (d swarmData) localSnapshot() dashboard.Snapshot {
	now := time.Now()
	list, lv, err := d.e.Quiet().LoadAll()
	if err != nil {
		return dashboard.Snapshot{Now: now, Err: err.Error()}
	}
	rows := make([]dashboard.Row, 0, len(list))
	for _, w := range list {
		var activity time.Time
		if w.Tmux != nil && w.Status == state.StatusRunning {
			if p, ok := lv.Pane(w); ok {
				activity = p.Activity
			}
		}
		st, lf := d.loop(w)
		r := rowFor(w, st, lf, activity, now)
		withLanding(&r, workerLanding(d.e, w))
		withSandbox(&r, w.Sandbox)
		r.Ref = w
		rows = append(rows, r)
	}
	return dashboard.Snapshot{Rows: rows, Regent: regent.NewClient(d.e.Dir()).PID(), Now: now, Warn: lv.Trouble()}
}

// loop is a loop worker's state and what kind of loop it is; nil for a worker that is no loop.
func (d swarmData) loop(w *state.Worker) (*ralph.State, loopFacts) {
	if w.Metadata["ralph"] != true {
		return nil, loopFacts{}
	}
	ld := ralph.DirFor(d.e.Dir(), w.Name)
	st, err := ld.Load()
	if err != nil {
		return nil, loopFacts{}
	}
	return st, loopFacts{chain: exists(ld.ChainPath()), agent: exists(ld.AgentModePath())}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// screenHistory is how far back the log view of a tmux worker reaches.
const screenHistory = 500

func (d swarmData) Screen(r dashboard.Row, n int, logs bool) []string {
	if onHost(r) {
		if logs && r.Loop {
			return d.remoteLines(n, "ralph", "logs", r.Name, "--monitor", "-n", strconv.Itoa(n))
		}
		if logs {
			return d.remoteLines(n, "logs", r.Name, "-n", strconv.Itoa(n))
		}
		return d.remoteLines(n, "peek", r.Name, "-n", strconv.Itoa(n))
	}
	w, _ := r.Ref.(*state.Worker)
	if w == nil {
		return nil
	}
	history := 0
	if logs {
		if r.Loop {
			return d.tail(ralph.DirFor(d.e.Dir(), w.Name).MonitorLog(), n)
		}
		history = screenHistory
	}
	if w.Tmux != nil && w.Status == state.StatusRunning {
		if out, err := d.e.TmuxFor(w).Capture(w.Tmux.PaneID, history); err == nil {
			return screen.LastN(worker.PaneOutput(out), n)
		}
	}
	lines, err := screenLines(d.e, w, history, "stdout")
	if err != nil {
		return []string{errText(err)}
	}
	return screen.LastN(lines, n)
}

func (d swarmData) Events(r dashboard.Row, n int) []string {
	if !r.Loop {
		return nil
	}
	if onHost(r) {
		return d.remoteLines(n, "ralph", "logs", r.Name, "-n", strconv.Itoa(n))
	}
	return d.tail(ralph.DirFor(d.e.Dir(), r.Name).IterationsLog(), n)
}

// tailBytes bounds how much of a log is read for its last lines.
const tailBytes = 64 << 10

// tail is the last n lines of a log, Regent lines shown as such.
func (d swarmData) tail(path string, n int) []string {
	data, err := state.TailLog(path, tailBytes)
	if err != nil {
		return nil
	}
	return lastLogLines(string(data), n)
}

// lastLogLines are the last n lines of text, Regent lines shown as such.
func lastLogLines(text string, n int) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	out := make([]string, 0, n)
	for _, l := range screen.LastN(lines, n) {
		out = append(out, displayLogLine(l, false))
	}
	return out
}

func (d swarmData) Run(args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	// A kill under way when the dashboard quits (and its terminal goes) is seen through.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// What it says (a remote worker's host's word among it) is held bounded.
	out := remote.NewBounded(maxPreview, nil)
	cmd.Stdout, cmd.Stderr = out, out
	return saidWhy(cmd.Run(), out.Bytes())
}

func (d swarmData) Attach(name string) tea.ExecCommand {
	exe, _ := os.Executable()
	return &attachExec{cmd: exec.Command(exe, "attach", name)}
}

// attachExec runs swarm attach on the dashboard's terminal, all but its standard error: what
// it writes there would be drawn over at once and seen only after the dashboard quits, so it
// is kept for the error instead.
type attachExec struct{ cmd *exec.Cmd }

func (a *attachExec) SetStdin(r io.Reader)  { a.cmd.Stdin = r }
func (a *attachExec) SetStdout(w io.Writer) { a.cmd.Stdout = w }
func (a *attachExec) SetStderr(io.Writer)   {}

func (a *attachExec) Run() error {
	errOut := remote.NewBounded(maxPreview, nil)
	a.cmd.Stderr = errOut
	// A process left holding standard error (none should) does not hold the dashboard up.
	a.cmd.WaitDelay = time.Second
	return saidWhy(a.cmd.Run(), errOut.Bytes())
}

// saidWhy is a command's error as the last line it printed, when it printed one.
func saidWhy(err error, said []byte) error {
	if err == nil {
		return nil
	}
	if text := strings.TrimSpace(string(said)); text != "" {
		return errors.New(lastLine(text))
	}
	return err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "swarm: error: ")
}

// errText is an error in one line, without swarm's prefix.
func errText(err error) string { return lastLine(err.Error()) }
