package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// turn is one iteration of the fake agent, as its scripts see it.
type turn struct {
	h      *harness
	p      *tmuxtest.FakePane
	it     int
	prompt string // what was submitted ("" before that)
}

// later runs fn on this agent after d, unless it has ended by then.
func (tn turn) later(d time.Duration, fn func(q *tmuxtest.FakePane)) {
	id, pid := tn.p.ID, tn.p.PID
	tn.h.clock.After(d, func() {
		_ = tn.h.fake.Do(id, func(q *tmuxtest.FakePane) {
			if q.PID == pid && !q.Dead {
				fn(q)
			}
		})
	})
}

func (tn turn) exitAfter(d time.Duration, code int, screen string) {
	tn.later(d, func(q *tmuxtest.FakePane) {
		if screen != "" {
			q.SetScreen(screen)
		}
		q.Exit(code)
	})
}

// work shows steady progress (a new output line every 5s) for d, then exits with code.
func (tn turn) work(d time.Duration, code int) {
	var out []string
	for at := 5 * time.Second; at < d; at += 5 * time.Second {
		out = append(out, fmt.Sprintf("● Step %d done.", len(out)+1))
		screen := claudeBusy(tn.prompt, at, out...)
		tn.later(at, func(q *tmuxtest.FakePane) { q.SetScreen(screen) })
	}
	tn.exitAfter(d, code, claudeIdle(append(echo(tn.prompt), "", "● All steps done.")...))
}

// agentScript is what the fake agent does. By default it starts at Claude's idle input box,
// shows pasted text in it, and on Enter echoes the prompt above a spinner.
type agentScript struct {
	// start draws the first screen of iteration it.
	start func(tn turn)
	// submit runs when Enter sends the typed prompt.
	submit func(tn turn)
	// ignoreEnter makes the agent miss the n-th Enter (from 1) of an iteration.
	ignoreEnter func(it, n int) bool
}

func exitOnSubmit(code int) func(tn turn) {
	return func(tn turn) { tn.p.Exit(code) }
}

type agentStart struct {
	iteration int
	pid       int
	at        time.Time
	spec      tmux.Spec
}

type submitRec struct {
	iteration int
	pid       int
	at        time.Time
}

type harness struct {
	t          *testing.T
	sd         *state.Dir
	dir        ralph.Dir
	fake       *tmuxtest.Fake
	clock      *fakeClock
	procs      *fakeProcs
	out        *outBuffer
	promptPath string
	paneID     string

	mu      sync.Mutex
	starts  []agentStart
	submits []submitRec

	// Touched only by the fake tmux hooks, which run with the fake locked.
	typed  string
	enters int
}

type setup struct {
	max          int
	iteration    int         // current iteration stored (default 1)
	phase        ralph.Phase // default PhaseStarting
	prompt       string
	donePattern  string
	inactivity   int // default 60; negative stores 0
	readyTimeout int // default 30
	consecutive  int
	mode         string        // default config.PromptType
	startedAgo   time.Duration // how long the current iteration has run
}

func newHarness(t *testing.T, s setup, script agentScript) *harness {
	t.Helper()
	if s.iteration == 0 {
		s.iteration = 1
	}
	if s.phase == "" {
		s.phase = ralph.PhaseStarting
	}
	if s.prompt == "" {
		s.prompt = "Study PLAN.md and do the next task.\n"
	}
	switch {
	case s.inactivity == 0:
		s.inactivity = 60
	case s.inactivity < 0:
		s.inactivity = 0
	}
	if s.readyTimeout == 0 {
		s.readyTimeout = 30
	}
	if s.mode == "" {
		s.mode = config.PromptType
	}
	sd, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	h := &harness{
		t:          t,
		sd:         sd,
		dir:        ralph.DirFor(sd, loopName),
		fake:       tmuxtest.New(),
		clock:      newFakeClock(),
		out:        &outBuffer{},
		promptPath: filepath.Join(work, "PROMPT.md"),
	}
	h.procs = &fakeProcs{tmux: h.fake, clock: h.clock}
	if err := os.WriteFile(h.promptPath, []byte(s.prompt), 0o600); err != nil {
		t.Fatal(err)
	}

	h.fake.OnStart = func(p *tmuxtest.FakePane, spec tmux.Spec) {
		h.mu.Lock()
		it := s.iteration + len(h.starts)
		h.starts = append(h.starts, agentStart{iteration: it, pid: p.PID, at: h.clock.Now(), spec: spec})
		h.mu.Unlock()
		h.typed, h.enters = "", 0
		if script.start != nil {
			script.start(turn{h: h, p: p, it: it})
		} else {
			p.SetScreen(claudeIdle())
		}
	}
	h.fake.OnPaste = func(p *tmuxtest.FakePane, text string) {
		h.typed = text
		p.SetScreen(claudeTyped(text))
	}
	h.fake.OnKeys = func(p *tmuxtest.FakePane, key string) {
		if key != "Enter" || h.typed == "" {
			return
		}
		it := h.current().iteration
		h.enters++
		if script.ignoreEnter != nil && script.ignoreEnter(it, h.enters) {
			return
		}
		prompt := h.typed
		h.typed = ""
		h.mu.Lock()
		h.submits = append(h.submits, submitRec{iteration: it, pid: p.PID, at: h.clock.Now()})
		h.mu.Unlock()
		p.SetScreen(claudeBusy(prompt, 0))
		if script.submit != nil {
			script.submit(turn{h: h, p: p, it: it, prompt: prompt})
		}
	}

	pane, err := h.fake.NewWindow(tmux.Spec{Session: "swarm", Window: loopName, Cwd: work, Argv: []string{"claude"}})
	if err != nil {
		t.Fatal(err)
	}
	h.paneID = pane.ID
	err = sd.UpdateWorkers(nil, func(ws *state.Workers) error {
		ws.Put(&state.Worker{
			Name: loopName, Status: state.StatusRunning, Cmd: []string{"claude"}, Started: h.clock.Now(), Cwd: work,
			Tmux: &state.TmuxInfo{Session: "swarm", Window: loopName, Socket: h.fake.Socket(), PaneID: pane.ID},
			PID:  pane.PID, Metadata: map[string]any{"ralph": true, "ralph_iteration": s.iteration},
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var done *string
	if s.donePattern != "" {
		done = &s.donePattern
	}
	startedAt := h.clock.Now().Add(-s.startedAgo).Format(ralph.TimeFormat)
	err = h.dir.Create(&ralph.State{
		WorkerName: loopName, PromptFile: h.promptPath, MaxIterations: s.max, CurrentIteration: s.iteration,
		Status: ralph.StatusRunning, Started: startedAt, LastIterationStarted: startedAt,
		ConsecutiveFailures: s.consecutive, TotalFailures: s.consecutive, DonePattern: done,
		InactivityTimeout: s.inactivity, Phase: s.phase, PromptMode: s.mode, ReadyTimeout: s.readyTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.dir.PromptCopy(), []byte(s.prompt), 0o600); err != nil {
		t.Fatal(err)
	}
	h.clock.tag = func() string {
		st, err := h.dir.Load()
		if err != nil {
			return ""
		}
		return st.Phase.String()
	}
	return h
}

func (h *harness) config() Config {
	return Config{
		Name: loopName, Dir: h.dir, Workers: h.sd, Tmux: h.fake, Procs: h.procs, Clock: h.clock, Out: h.out,
	}
}

// run drives the loop to its end. A loop that does not end within 10 real seconds or a day
// of fake time fails the test instead of hanging it.
func (h *harness) run(cfg Config) int {
	h.t.Helper()
	l := New(cfg)
	done := make(chan int, 1)
	go func() {
		// As the monitor does: the loop's own error is reported, a failed loop exits 1.
		status, err := l.Run()
		if err != nil {
			fmt.Fprintf(cfg.Out, "swarm: error: %v\n", err)
		}
		// As the monitor does before it leaves: the last notifications go out.
		if !l.WaitNotifications(20 * time.Second) {
			h.t.Errorf("notifications still under way 20s after the loop ended")
		}
		if status == ralph.StatusFailed {
			done <- 1
			return
		}
		done <- 0
	}()
	select {
	case code := <-done:
		return code
	case <-h.clock.runaway:
		h.t.Fatalf("loop still running after %v of fake time; output:\n%s", h.clock.limit, h.out.String())
	case <-time.After(10 * time.Second):
		h.clock.halt()
		h.t.Fatalf("loop still running after 10s; output:\n%s", h.out.String())
	}
	return -1
}

func (h *harness) current() agentStart {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.starts[len(h.starts)-1]
}

func (h *harness) startRecs() []agentStart {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]agentStart(nil), h.starts...)
}

func (h *harness) submitRecs() []submitRec {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]submitRec(nil), h.submits...)
}

func (h *harness) state() *ralph.State {
	h.t.Helper()
	st, err := h.dir.Load()
	if err != nil {
		h.t.Fatal(err)
	}
	return st
}

// loopLines are the loop's own messages ("[ralph] agent: " stripped) and swarm errors, in
// order; other supervision notices are not part of what these tests pin down.
func (h *harness) loopLines() []string {
	var out []string
	for _, l := range strings.Split(h.out.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "[ralph] "+loopName+": "):
			out = append(out, strings.TrimPrefix(l, "[ralph] "+loopName+": "))
		case strings.HasPrefix(l, "swarm: "):
			out = append(out, l)
		}
	}
	return out
}

func (h *harness) wantLines(want ...string) {
	h.t.Helper()
	got := h.loopLines()
	if !reflect.DeepEqual(got, want) {
		h.t.Errorf("loop said:\n  %s\nwant:\n  %s\nfull output:\n%s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "), h.out.String())
	}
}

func (h *harness) wantState(st *ralph.State, status ralph.Status, reason string, iteration int) {
	h.t.Helper()
	if st.Status != status || st.ExitReason != reason || st.CurrentIteration != iteration {
		h.t.Errorf("state: status %q, exit_reason %q, iteration %d; want %q, %q, %d",
			st.Status, st.ExitReason, st.CurrentIteration, status, reason, iteration)
	}
}

func durations(secs ...int) []time.Duration {
	out := make([]time.Duration, len(secs))
	for i, s := range secs {
		out[i] = time.Duration(s) * time.Second
	}
	return out
}
