package dashboard

import (
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// fakeData is the dashboard's outside world in a test: fixed rows, and the commands it was
// asked to run.
type fakeData struct {
	mu        sync.Mutex
	rows      []Row
	ran       [][]string
	failing   map[string]error // a command (its words joined) that fails, and what it says
	attachErr error            // why attaching fails
}

func (f *fakeData) Snapshot() Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Snapshot{Rows: append([]Row{}, f.rows...), Now: time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)}
}

func (f *fakeData) Screen(r Row, n int, logs bool) []string {
	if logs {
		return []string{"log of " + r.Name}
	}
	return []string{"screen of " + r.Name}
}

func (f *fakeData) Events(r Row, n int) []string {
	if !r.Loop {
		return nil
	}
	return []string{"events of " + r.Name}
}

func (f *fakeData) Run(args ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, args)
	return f.failing[strings.Join(args, " ")]
}

func (f *fakeData) Attach(name string) tea.ExecCommand {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, []string{"attach", name})
	return fakeExec{err: f.attachErr}
}

// fakeExec stands for a command run on the terminal.
type fakeExec struct{ err error }

func (x fakeExec) Run() error          { return x.err }
func (x fakeExec) SetStdin(io.Reader)  {}
func (x fakeExec) SetStdout(io.Writer) {}
func (x fakeExec) SetStderr(io.Writer) {}

func (f *fakeData) commands() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]string{}, f.ran...)
}

// harness drives a model as Bubble Tea would: messages in, commands run, their messages
// fed back, until nothing but the refresh timer is left.
type harness struct {
	t    *testing.T
	data *fakeData
	m    *model
}

func newHarness(t *testing.T, rows ...Row) *harness {
	data := &fakeData{rows: rows}
	h := &harness{t: t, data: data, m: newModel(data, newStyles(false), time.Hour)}
	h.m.exec = func(c tea.ExecCommand, done tea.ExecCallback) tea.Cmd {
		return func() tea.Msg { return done(c.Run()) }
	}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.run(h.m.Init())
	return h
}

func (h *harness) send(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// run carries a command out; the refresh timer (an hour here) is left alone.
func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(100 * time.Millisecond):
		return // the timer
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case nil:
	default:
		h.send(msg)
	}
}

func (h *harness) keys(keys ...string) {
	for _, k := range keys {
		switch k {
		case "enter":
			h.send(tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			h.send(tea.KeyPressMsg{Code: tea.KeyEscape})
		case "up":
			h.send(tea.KeyPressMsg{Code: tea.KeyUp})
		case "down":
			h.send(tea.KeyPressMsg{Code: tea.KeyDown})
		case " ":
			h.send(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
		default:
			for _, r := range k {
				h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
	}
}

func (h *harness) frame() string { return h.m.View().Content }

func (h *harness) wantFrame(parts ...string) {
	h.t.Helper()
	f := h.frame()
	for _, p := range parts {
		if !strings.Contains(f, p) {
			h.t.Errorf("frame lacks %q:\n%s", p, f)
		}
	}
}

func testRows() []Row {
	return []Row{
		{Name: "builder", Kind: "loop", State: "working", Iteration: "3/20", Failures: 0, Tmux: true, Loop: true},
		{Name: "sh1", Kind: "plain", State: "idle", Iteration: "-", Failures: -1, Tmux: true},
		{Name: "planner", Kind: "chain", State: "done", Iteration: "5/5", Failures: 1, Tmux: true, Loop: true},
	}
}

func TestDashboardFrameFillsTheTerminal(t *testing.T) {
	h := newHarness(t, testRows()...)
	if n := strings.Count(h.frame(), "\n") + 1; n != 30 {
		t.Errorf("frame of %d lines on a terminal of 30:\n%s", n, h.frame())
	}
	h.wantFrame("▸ builder", "── builder · screen", "screen of builder", "── builder · events", "events of builder")
}

func TestDashboardPreviewFollowsTheSelection(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("down")
	h.wantFrame("▸ sh1", "── sh1 · screen", "screen of sh1")
	if strings.Contains(h.frame(), "events of") {
		t.Errorf("a plain worker has no events to show:\n%s", h.frame())
	}
	h.keys("up")
	h.wantFrame("▸ builder", "screen of builder")
}

func TestDashboardPauseAndResumeALoop(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("p", "r")
	want := [][]string{{"ralph", "pause", "builder"}, {"ralph", "resume", "builder"}}
	if got := h.data.commands(); !reflect.DeepEqual(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
	h.wantFrame("resumed builder")
}

func TestDashboardPauseIsForLoopsOnly(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("down", "p")
	if got := h.data.commands(); len(got) != 0 {
		t.Errorf("ran %q for a plain worker", got)
	}
	h.wantFrame("sh1 is not a loop")
}

func TestDashboardKillAsksFirst(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("x")
	h.wantFrame("kill builder? (y/n)")
	h.keys("n")
	if got := h.data.commands(); len(got) != 0 {
		t.Errorf("ran %q after a no", got)
	}
	h.keys("x", "y")
	if got, want := h.data.commands(), [][]string{{"kill", "builder"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
}

func TestDashboardSendsALine(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("down", "s", "echo", " ", "hi", "enter")
	if got, want := h.data.commands(), [][]string{{"send", "sh1", "--", "echo hi"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
}

func TestDashboardFilter(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("/", "chain")
	h.wantFrame("filter: chain", "▸ planner")
	if strings.Contains(h.frame(), "builder") {
		t.Errorf("the filter let builder through:\n%s", h.frame())
	}
	h.keys("enter")
	h.wantFrame("filter: chain (esc clears) ·")
	h.keys("/", "esc")
	h.wantFrame("builder", "planner", "sh1")
}

// Keys read together come as one message of several runes: each still counts, so "/" starts
// the filter and Enter then ends it instead of attaching.
func TestDashboardKeysReadTogether(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.send(tea.KeyPressMsg{Code: '/', Text: "/chain"})
	h.wantFrame("filter: chain", "▸ planner")
	h.keys("enter")
	h.wantFrame("filter: chain (esc clears) ·")
	if got := h.data.commands(); len(got) != 0 {
		t.Errorf("ran %q, want nothing", got)
	}
}

// Text pasted while a line is typed goes into it, line breaks as spaces; pasted while no
// line is typed, it is no command.
func TestDashboardPaste(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.send(tea.PasteMsg{Content: "kq"})
	if got := h.data.commands(); len(got) != 0 || h.m.mode != modeKeys {
		t.Errorf("a paste was taken as keys: ran %q, mode %v", got, h.m.mode)
	}
	h.keys("s")
	h.send(tea.PasteMsg{Content: "run  the\ntests"})
	h.keys("enter")
	if got := h.data.commands(); len(got) != 1 || got[0][len(got[0])-1] != "run  the tests" {
		t.Errorf("ran %q, want the pasted line sent", got)
	}
}

func TestDashboardHelpAndLogs(t *testing.T) {
	h := newHarness(t, testRows()...)
	h.keys("?")
	h.wantFrame("── keys", "pause / resume its loop")
	h.keys("?", "l")
	h.wantFrame("── builder · log", "log of builder")
}

func TestDashboardQuits(t *testing.T) {
	h := newHarness(t, testRows()...)
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if cmd == nil {
		t.Fatal("q gave no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q does not quit")
	}
}
