package driver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// The loop is driven against an in-memory tmux, a fake process table and a fake clock, so
// every transition runs in milliseconds and timeouts of minutes are exact.

const loopName = "agent"

var loopRule = strings.Repeat("─", 80)

// claudeIdle is Claude Code waiting for input, below whatever the transcript shows.
func claudeIdle(transcript ...string) string {
	lines := append([]string{}, transcript...)
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	lines = append(lines, loopRule, "❯\u00a0", loopRule, "  ? for shortcuts")
	return strings.Join(lines, "\n")
}

// claudeTyped is the input box holding pasted text that was not submitted yet.
func claudeTyped(text string) string {
	lines := []string{loopRule}
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if i == 0 {
			lines = append(lines, "❯\u00a0"+l)
		} else {
			lines = append(lines, "  "+l)
		}
	}
	lines = append(lines, loopRule, "  ? for shortcuts")
	return strings.Join(lines, "\n")
}

// echo is how Claude shows a submitted message in its transcript.
func echo(prompt string) []string {
	var out []string
	for i, l := range strings.Split(strings.TrimRight(prompt, "\n"), "\n") {
		if i == 0 {
			out = append(out, "❯ "+l)
		} else {
			out = append(out, "  "+l)
		}
	}
	return out
}

// claudeBusy is Claude working on a prompt: its echo, any output so far, the spinner.
func claudeBusy(prompt string, elapsed time.Duration, output ...string) string {
	lines := append(echo(prompt), "")
	lines = append(lines, output...)
	lines = append(lines, "",
		fmt.Sprintf("✻ Working… (%ds · esc to interrupt)", int(elapsed.Seconds())),
		"", loopRule, "❯\u00a0", loopRule, "  esc to interrupt")
	return strings.Join(lines, "\n")
}

func readBypassDialog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "screen", "testdata", "screens", "claude-2.1.197", "08_bypass_permissions_dialog.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The fake agent is only useful if the classifier reads its screens as the real ones.
func TestFakeAgentScreens(t *testing.T) {
	prompt := "Study PLAN.md.\nDo the next task."
	cases := []struct {
		name   string
		screen string
		want   screen.State
	}{
		{"idle", claudeIdle(), screen.State{Kind: screen.Ready, Agent: "claude"}},
		{"idle after a turn", claudeIdle(append(echo(prompt), "", "● Done.")...), screen.State{Kind: screen.Ready, Agent: "claude"}},
		{"typed", claudeTyped(prompt), screen.State{Kind: screen.Ready, Agent: "claude"}},
		{"busy", claudeBusy(prompt, 5*time.Second), screen.State{Kind: screen.Busy, Agent: "claude"}},
		{"dialog", readBypassDialog(t), screen.State{Kind: screen.Dialog, Dialog: "bypass-permissions", Agent: "claude"}},
	}
	for _, c := range cases {
		if got := screen.Classify(c.screen, nil); got != c.want {
			t.Errorf("%s: Classify = %+v, want %+v\n%s", c.name, got, c.want, c.screen)
		}
	}
	if screen.ActivityHash(claudeIdle()) == screen.ActivityHash(claudeTyped(prompt)) {
		t.Error("pasting must change the screen's activity hash")
	}
}

// fakeClock advances only when the loop sleeps, and runs timers (the fake agent's scripted
// actions) when their time comes.
type fakeClock struct {
	mu      sync.Mutex
	start   time.Time
	now     time.Time
	sleeps  []sleepRec
	timers  []clockTimer
	seq     int
	halted  bool
	limit   time.Duration
	runaway chan struct{}

	// tag names what the loop is doing when it sleeps (its stored phase); set before Run.
	tag func() string
	// onSleep runs after every sleep and its timers, with the tag of that sleep.
	onSleep func(tag string)
}

type sleepRec struct {
	d   time.Duration
	tag string
}

type clockTimer struct {
	at  time.Time
	seq int
	fn  func()
}

func newFakeClock() *fakeClock {
	t0 := time.Date(2024, 1, 15, 10, 30, 0, 0, time.Local)
	return &fakeClock{start: t0, now: t0, limit: 24 * time.Hour, runaway: make(chan struct{})}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(d time.Duration) {
	tag := ""
	if c.tag != nil {
		tag = c.tag()
	}
	c.mu.Lock()
	if c.halted {
		c.mu.Unlock()
		// The test has given up on this loop: end its goroutine instead of letting it spin.
		runtime.Goexit()
	}
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, sleepRec{d, tag})
	if c.now.Sub(c.start) > c.limit {
		c.halted = true
		close(c.runaway)
		c.mu.Unlock()
		runtime.Goexit()
	}
	c.mu.Unlock()
	c.fire()
	if c.onSleep != nil {
		c.onSleep(tag)
	}
}

// fire runs the due timers in time order, without the clock locked (they act on the fake
// tmux, whose hooks schedule more timers).
func (c *fakeClock) fire() {
	for {
		c.mu.Lock()
		idx := -1
		for i, t := range c.timers {
			if t.at.After(c.now) {
				continue
			}
			if idx < 0 || t.at.Before(c.timers[idx].at) || t.at.Equal(c.timers[idx].at) && t.seq < c.timers[idx].seq {
				idx = i
			}
		}
		if idx < 0 {
			c.mu.Unlock()
			return
		}
		t := c.timers[idx]
		c.timers = append(c.timers[:idx], c.timers[idx+1:]...)
		c.mu.Unlock()
		t.fn()
	}
}

// After runs fn once the clock has reached now+d.
func (c *fakeClock) After(d time.Duration, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.timers = append(c.timers, clockTimer{at: c.now.Add(d), seq: c.seq, fn: fn})
}

func (c *fakeClock) halt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.halted = true
}

// long returns the sleeps over half a second, in order.
func (c *fakeClock) long() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	for _, s := range c.sleeps {
		if s.d > 500*time.Millisecond {
			out = append(out, s.d)
		}
	}
	return out
}

// total is the time slept so far.
func (c *fakeClock) total() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum time.Duration
	for _, s := range c.sleeps {
		sum += s.d
	}
	return sum
}

// waits sums each run of consecutive sleeps made with the given tag: one entry per wait,
// however the loop chunked it.
func (c *fakeClock) waits(tag ralph.Phase) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	in := false
	for _, s := range c.sleeps {
		if s.tag != tag.String() {
			in = false
			continue
		}
		if !in {
			out = append(out, 0)
			in = true
		}
		out[len(out)-1] += s.d
	}
	return out
}

// fakeProcs is the process table behind the fake panes: a pane's program is its PID.
type fakeProcs struct {
	mu    sync.Mutex
	tmux  *tmuxtest.Fake
	clock *fakeClock
	kills []killRec
}

type killRec struct {
	pid   int
	grace time.Duration
	alive bool // whether the group still ran when it was killed
	at    time.Time
}

func (p *fakeProcs) Alive(pid int) bool { return p.tmux.Alive(pid) }

// KillTagged finds nothing: the fake agents never leave their pane.
func (p *fakeProcs) KillTagged(string, int, time.Duration) int { return 0 }

// Mark stands for every process.
func (p *fakeProcs) Mark() int { return 0 }

// KillGroup ends the pane program like SIGTERM does (128+15).
func (p *fakeProcs) KillGroup(pgid int, grace time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	alive := p.tmux.KillPID(pgid, 143)
	p.kills = append(p.kills, killRec{pid: pgid, grace: grace, alive: alive, at: p.clock.Now()})
}

// killsOf counts the kills of pid's group, live or not.
func (p *fakeProcs) killsOf(pid int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, k := range p.kills {
		if k.pid == pid {
			n++
		}
	}
	return n
}

// liveKills are the kills that ended a running agent.
func (p *fakeProcs) liveKills() []killRec {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []killRec
	for _, k := range p.kills {
		if k.alive {
			out = append(out, k)
		}
	}
	return out
}

// outBuffer is the loop's Out; it is read for diagnostics while a stuck loop may still write.
type outBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *outBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *outBuffer) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

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

func TestLoopRunsMaxIterations(t *testing.T) {
	prompt := "Study PLAN.md and do the next task.\n"
	h := newHarness(t, setup{max: 3, prompt: prompt}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				// Longer than the inactivity timeout: steady output must keep it alive.
				tn.work(3*time.Minute+42*time.Second, 0)
				return
			}
			tn.p.Exit(0)
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 completed (exit: 0, duration: 3m 42s)",
		"starting iteration 2/3",
		"iteration 2 completed (exit: 0, duration: 0s)",
		"starting iteration 3/3",
		"iteration 3 completed (exit: 0, duration: 0s)",
		"max iterations (3) reached",
	)
	st := h.state()
	h.wantState(st, ralph.StatusStopped, "max_iterations", 3)
	if st.ConsecutiveFailures != 0 || st.TotalFailures != 0 {
		t.Errorf("failures %d/%d, want 0/0", st.ConsecutiveFailures, st.TotalFailures)
	}

	// The prompt is typed once per iteration as a bracketed paste, and Enter follows each.
	var inputs []string
	for _, in := range h.fake.Inputs() {
		if in.PaneID != h.paneID {
			t.Errorf("input sent to pane %s, want %s", in.PaneID, h.paneID)
		}
		if in.Paste {
			// The trailing newline is not pasted: Enter submits.
			if in.Text != strings.TrimRight(prompt, "\n") || !in.Bracketed {
				t.Errorf("pasted %q (bracketed %v), want the prompt %q bracketed", in.Text, in.Bracketed, prompt)
			}
			inputs = append(inputs, "paste")
		} else {
			inputs = append(inputs, in.Text)
		}
	}
	if want := []string{"paste", "Enter", "paste", "Enter", "paste", "Enter"}; !reflect.DeepEqual(inputs, want) {
		t.Errorf("inputs %v, want %v", inputs, want)
	}

	// Each iteration is a fresh agent in the same pane, told which iteration it is.
	starts := h.startRecs()
	if len(starts) != 3 {
		t.Fatalf("%d agents started, want 3", len(starts))
	}
	// Claude Code is given a session id of swarm's, a new one each time, to find its
	// transcript by.
	sessions := map[string]bool{}
	for _, s := range starts[1:] {
		argv := s.spec.Argv
		if len(argv) != 3 || argv[0] != "claude" || argv[1] != "--session-id" || uuid.Validate(argv[2]) != nil || sessions[argv[2]] {
			t.Errorf("iteration %d argv %q, want [claude --session-id <a new uuid>]", s.iteration, argv)
		} else {
			sessions[argv[2]] = true
		}
		if len(s.spec.Env) != 0 {
			t.Errorf("iteration %d passes an environment to tmux: %q", s.iteration, s.spec.Env)
		}
	}
	if ids := h.fake.PaneIDs(); len(ids) != 1 {
		t.Errorf("panes %v, want the worker's one pane", ids)
	}
	// Agents that exit by themselves are never signalled while they run.
	if k := h.procs.liveKills(); len(k) != 0 {
		t.Errorf("running agents killed: %+v", k)
	}

	ws, err := h.sd.LoadWorkers(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := ws.Get(loopName)
	if w.Metadata["ralph_iteration"] != float64(3) || w.PID != starts[2].pid || w.Tmux.PaneID != h.paneID {
		t.Errorf("worker record: iteration %v, pid %d, pane %s; want 3, %d, %s",
			w.Metadata["ralph_iteration"], w.PID, w.Tmux.PaneID, starts[2].pid, h.paneID)
	}
	log, err := os.ReadFile(h.dir.IterationsLog())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[END] iteration 1 exit=0 duration=3m42s", "[START] iteration 2/3", "[START] iteration 3/3"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("iterations.log lacks %q:\n%s", want, log)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fiveFailureLines is what a 10-iteration loop says when every agent exits 1, under the
// default backoff and failure limit.
var fiveFailureLines = []string{
	"iteration 1 failed (exit: 1), retrying in 1s (attempt 1/5)",
	"starting iteration 2/10",
	"iteration 2 failed (exit: 1), retrying in 2s (attempt 2/5)",
	"starting iteration 3/10",
	"iteration 3 failed (exit: 1), retrying in 4s (attempt 3/5)",
	"starting iteration 4/10",
	"iteration 4 failed (exit: 1), retrying in 8s (attempt 4/5)",
	"starting iteration 5/10",
	"5 consecutive failures, stopping loop",
}

func TestLoopBacksOffThenFailsAfterFiveFailures(t *testing.T) {
	for _, poll := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprintf("StatusPoll=%v", poll), func(t *testing.T) {
			h := newHarness(t, setup{max: 10}, agentScript{submit: exitOnSubmit(1)})
			cfg := h.config()
			cfg.StatusPoll = poll
			if code := h.run(cfg); code != 1 {
				t.Errorf("Run = %d, want 1", code)
			}
			h.wantLines(fiveFailureLines...)
			st := h.state()
			h.wantState(st, ralph.StatusFailed, "consecutive_failures", 5)
			if st.ConsecutiveFailures != 5 || st.TotalFailures != 5 {
				t.Errorf("failures %d/%d, want 5/5", st.ConsecutiveFailures, st.TotalFailures)
			}
			if got, want := h.clock.waits(ralph.PhaseBackoff), durations(1, 2, 4, 8); !reflect.DeepEqual(got, want) {
				t.Errorf("backoff waits %v, want %v", got, want)
			}
			if poll == time.Hour {
				// Nothing else in the loop sleeps that long: each wait is one sleep.
				if got, want := h.clock.long(), durations(1, 2, 4, 8); !reflect.DeepEqual(got, want) {
					t.Errorf("long sleeps %v, want %v", got, want)
				}
			}
			if n := len(h.startRecs()); n != 5 {
				t.Errorf("%d agents started, want 5", n)
			}
		})
	}
}

func TestLoopSuccessResetsConsecutiveFailures(t *testing.T) {
	codes := map[int]int{1: 1, 2: 1, 3: 0, 4: 1, 5: 0}
	h := newHarness(t, setup{max: 5}, agentScript{
		submit: func(tn turn) { tn.p.Exit(codes[tn.it]) },
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 failed (exit: 1), retrying in 1s (attempt 1/5)",
		"starting iteration 2/5",
		"iteration 2 failed (exit: 1), retrying in 2s (attempt 2/5)",
		"starting iteration 3/5",
		"iteration 3 completed (exit: 0, duration: 0s)",
		"starting iteration 4/5",
		// The success reset the count: back to the first attempt and the shortest wait.
		"iteration 4 failed (exit: 1), retrying in 1s (attempt 1/5)",
		"starting iteration 5/5",
		"iteration 5 completed (exit: 0, duration: 0s)",
		"max iterations (5) reached",
	)
	st := h.state()
	h.wantState(st, ralph.StatusStopped, "max_iterations", 5)
	if st.ConsecutiveFailures != 0 || st.TotalFailures != 3 {
		t.Errorf("failures %d/%d, want 0/3", st.ConsecutiveFailures, st.TotalFailures)
	}
	if got, want := h.clock.waits(ralph.PhaseBackoff), durations(1, 2, 1); !reflect.DeepEqual(got, want) {
		t.Errorf("backoff waits %v, want %v", got, want)
	}
}

func TestLoopInactivityRestarts(t *testing.T) {
	cases := []struct {
		name   string
		stored int // inactivity_timeout in the state; 0 means the default
		want   time.Duration
	}{
		{"configured", 90, 90 * time.Second},
		{"default", -1, 60 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, setup{max: 2, inactivity: c.stored}, agentScript{
				submit: func(tn turn) {
					if tn.it == 1 {
						// Answers, then sits at its prompt for good.
						tn.p.SetScreen(claudeIdle(append(echo(tn.prompt), "", "● I had a look around.")...))
						return
					}
					tn.p.Exit(0)
				},
			})
			if code := h.run(h.config()); code != 0 {
				t.Errorf("Run = %d, want 0", code)
			}
			h.wantLines(
				fmt.Sprintf("inactivity timeout (%ds), restarting", int(c.want.Seconds())),
				"starting iteration 2/2",
				"iteration 2 completed (exit: 0, duration: 0s)",
				"max iterations (2) reached",
			)
			starts, submits := h.startRecs(), h.submitRecs()
			if len(starts) != 2 || len(submits) != 2 {
				t.Fatalf("%d starts, %d submits; want 2 each", len(starts), len(submits))
			}
			kills := h.procs.liveKills()
			if len(kills) != 1 || kills[0].pid != starts[0].pid {
				t.Fatalf("live kills %+v, want iteration 1's agent (pid %d)", kills, starts[0].pid)
			}
			// Killed a screen poll after the timeout, not earlier and not much later.
			if quiet := kills[0].at.Sub(submits[0].at); quiet < c.want || quiet > c.want+3*time.Second {
				t.Errorf("agent killed after %v of quiet, want %v", quiet, c.want)
			}
			if kills[0].grace <= 0 {
				t.Errorf("killed with grace %v, want a graceful kill", kills[0].grace)
			}
			if kills[0].at.After(starts[1].at) {
				t.Error("next iteration started before the quiet agent was killed")
			}
			// Its group is waited for once: the next start does not wait for it again.
			if n := h.procs.killsOf(starts[0].pid); n != 1 {
				t.Errorf("iteration 1's agent was ended %d times, want once", n)
			}
			st := h.state()
			h.wantState(st, ralph.StatusStopped, "max_iterations", 2)
			if st.TotalFailures != 0 {
				t.Errorf("total failures %d: an inactive agent is restarted, not counted as failed", st.TotalFailures)
			}
		})
	}
}

func TestLoopDonePattern(t *testing.T) {
	prompt := "Work through PLAN.md and print ALL DONE when finished.\n"
	doneScreen := func(tn turn) string {
		return claudeIdle(append(echo(tn.prompt), "", "● Every task is finished.", "", "● ALL DONE")...)
	}
	cases := []struct {
		name string
		// finish is what the agent does in iteration 2 once it is done.
		finish   func(tn turn)
		killLive bool
	}{
		{"agent keeps running", func(tn turn) {
			screen := doneScreen(tn)
			tn.later(30*time.Second, func(q *tmuxtest.FakePane) { q.SetScreen(screen) })
		}, true},
		{"agent exits right after", func(tn turn) { tn.exitAfter(30*time.Second, 0, doneScreen(tn)) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, setup{max: 5, prompt: prompt, donePattern: "ALL DONE"}, agentScript{
				submit: func(tn turn) {
					if tn.it == 1 {
						// The echo of the prompt names the marker; that must not count.
						tn.exitAfter(20*time.Second, 0, claudeIdle(append(echo(tn.prompt), "", "● Finished one task.")...))
						return
					}
					c.finish(tn)
				},
			})
			if code := h.run(h.config()); code != 0 {
				t.Errorf("Run = %d, want 0", code)
			}
			h.wantLines(
				"iteration 1 completed (exit: 0, duration: 20s)",
				"starting iteration 2/5",
				"done pattern matched, stopping loop",
			)
			h.wantState(h.state(), ralph.StatusStopped, "done_pattern", 2)
			starts := h.startRecs()
			kills := h.procs.liveKills()
			if c.killLive {
				// A finished interactive agent would otherwise idle in its pane forever.
				if len(kills) != 1 || kills[0].pid != starts[1].pid {
					t.Errorf("live kills %+v, want iteration 2's agent (pid %d)", kills, starts[1].pid)
				}
			} else if len(kills) != 0 {
				t.Errorf("live kills %+v, want none", kills)
			}
			if h.fake.Alive(starts[len(starts)-1].pid) {
				t.Error("agent still running after the loop stopped")
			}
			screen, err := os.ReadFile(h.dir.ScreenPath(2))
			if err != nil || !strings.Contains(string(screen), "● ALL DONE") {
				t.Errorf("iteration 2 screen not kept (%v):\n%s", err, screen)
			}
		})
	}
}

func TestLoopPauseWhileWorking(t *testing.T) {
	h := newHarness(t, setup{max: 3}, agentScript{
		submit: func(tn turn) {
			tn.h.clock.After(10*time.Second, func() {
				if _, err := tn.h.dir.Update(func(s *ralph.State) error { s.Status = ralph.StatusPaused; return nil }); err != nil {
					tn.h.t.Error(err)
				}
			})
			tn.work(30*time.Second, 0)
		},
	})
	lock, ok, err := state.TryLock(h.dir.MonitorLockPath())
	if err != nil || !ok {
		t.Fatalf("TryLock: ok %v, err %v", ok, err)
	}
	defer lock.Unlock()
	if !state.IsLocked(h.dir.MonitorLockPath()) {
		t.Fatal("monitor lock not seen as held; the release check below would prove nothing")
	}
	cfg := h.config()
	cfg.MonitorLock = lock
	if code := h.run(cfg); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	// The paused loop lets the running agent finish, then starts nothing new.
	h.wantLines("iteration 1 completed (exit: 0, duration: 30s)")
	st := h.state()
	h.wantState(st, ralph.StatusPaused, "", 1)
	if st.Phase != ralph.PhaseEnded {
		t.Errorf("phase %q, want %q", st.Phase, ralph.PhaseEnded)
	}
	if n := len(h.startRecs()); n != 1 {
		t.Errorf("%d agents started, want 1", n)
	}
	if k := h.procs.liveKills(); len(k) != 0 {
		t.Errorf("paused loop killed its running agent: %+v", k)
	}
	l, ok, err := state.TryLock(h.dir.MonitorLockPath())
	if err != nil || !ok {
		t.Fatalf("monitor lock still held after a paused loop ended (ok %v, err %v)", ok, err)
	}
	l.Unlock()
}

func TestLoopStoppedWhileWorking(t *testing.T) {
	for _, killAgent := range []bool{false, true} {
		t.Run(fmt.Sprintf("agent killed=%v", killAgent), func(t *testing.T) {
			var stoppedAt time.Time
			h := newHarness(t, setup{max: 3}, agentScript{
				submit: func(tn turn) {
					pid := tn.p.PID
					tn.h.clock.After(10*time.Second, func() {
						// What `swarm kill` does: mark the loop stopped, end the agent.
						stoppedAt = tn.h.clock.Now()
						_, err := tn.h.dir.Update(func(s *ralph.State) error {
							s.Status, s.ExitReason = ralph.StatusStopped, "killed"
							return nil
						})
						if err != nil {
							tn.h.t.Error(err)
						}
						if killAgent {
							tn.h.fake.KillPID(pid, 143)
						}
					})
				},
			})
			if code := h.run(h.config()); code != 0 {
				t.Errorf("Run = %d, want 0", code)
			}
			h.wantLines()
			if late := h.clock.Now().Sub(stoppedAt); stoppedAt.IsZero() || late > time.Second {
				t.Errorf("loop ended %v after the stop, want within a status poll", late)
			}
			st := h.state()
			h.wantState(st, ralph.StatusStopped, "killed", 1)
			if st.TotalFailures != 0 {
				t.Errorf("total failures %d, want 0: a killed agent is not a failed iteration", st.TotalFailures)
			}
			if n := len(h.startRecs()); n != 1 {
				t.Errorf("%d agents started, want 1", n)
			}
		})
	}
}

func TestLoopPauseDuringBackoffEndsWait(t *testing.T) {
	// Three failures already: the next one waits 8s.
	h := newHarness(t, setup{max: 10, consecutive: 3}, agentScript{submit: exitOnSubmit(1)})
	paused := false
	h.clock.onSleep = func(tag string) {
		if tag != ralph.PhaseBackoff.String() || paused {
			return
		}
		paused = true
		if _, err := h.dir.Update(func(s *ralph.State) error { s.Status = ralph.StatusPaused; return nil }); err != nil {
			t.Error(err)
		}
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines("iteration 1 failed (exit: 1), retrying in 8s (attempt 4/5)")
	waits := h.clock.waits(ralph.PhaseBackoff)
	if len(waits) != 1 || waits[0] > time.Second {
		t.Errorf("backoff waits %v, want one cut short by the pause", waits)
	}
	if total := h.clock.total(); total > 2*time.Second {
		t.Errorf("slept %v in all, want far less than the 8s backoff", total)
	}
	st := h.state()
	h.wantState(st, ralph.StatusPaused, "", 1)
	if st.Phase != ralph.PhaseEnded || st.BackoffUntil != "" {
		t.Errorf("phase %q, backoff_until %q; want %q and none", st.Phase, st.BackoffUntil, ralph.PhaseEnded)
	}
	if st.ConsecutiveFailures != 4 {
		t.Errorf("consecutive failures %d, want 4", st.ConsecutiveFailures)
	}
	if n := len(h.startRecs()); n != 1 {
		t.Errorf("%d agents started, want 1", n)
	}
}

func TestLoopDialogBlocksPrompt(t *testing.T) {
	dialogScreen := readBypassDialog(t)
	h := newHarness(t, setup{max: 2, readyTimeout: 30}, agentScript{
		start: func(tn turn) { tn.p.SetScreen(dialogScreen) },
	})
	// Every iteration failed: that is a failed loop, not a completed one.
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	desc := screen.DialogDescription("bypass-permissions")
	waiting := "agent is waiting at " + desc + "; answer it with 'swarm attach agent' (the prompt is not typed into a dialog)"
	notReady := "agent not ready after 30s (blocked by " + desc + ")"
	h.wantLines(
		waiting,
		notReady,
		"iteration 1 failed (exit: ready timeout), retrying in 1s (attempt 1/5)",
		"starting iteration 2/2",
		waiting,
		notReady,
		"iteration 2 failed (exit: ready timeout)",
		"max iterations reached (2) and every iteration failed",
	)
	if in := h.fake.Inputs(); len(in) != 0 {
		t.Errorf("typed into a dialog: %+v", in)
	}
	st := h.state()
	if st.BlockedBy != "bypass-permissions" {
		t.Errorf("blocked_by %q, want bypass-permissions", st.BlockedBy)
	}
	if st.ConsecutiveFailures != 2 || st.TotalFailures != 2 {
		t.Errorf("failures %d/%d, want 2/2", st.ConsecutiveFailures, st.TotalFailures)
	}
	starts, kills := h.startRecs(), h.procs.liveKills()
	if len(kills) != 2 {
		t.Fatalf("live kills %+v, want both blocked agents", kills)
	}
	for i, k := range kills {
		if k.pid != starts[i].pid {
			t.Errorf("kill %d hit pid %d, want %d", i, k.pid, starts[i].pid)
		}
		if waited := k.at.Sub(starts[i].at); waited < 30*time.Second || waited > 31*time.Second {
			t.Errorf("iteration %d agent killed after %v, want the 30s ready timeout", i+1, waited)
		}
	}
}

func TestLoopAdoptsWorkingIteration(t *testing.T) {
	// A monitor restarted while iteration 2 runs: the agent is busy and nobody types again.
	prompt := "Study PLAN.md and do the next task.\n"
	h := newHarness(t, setup{max: 3, iteration: 2, phase: ralph.PhaseWorking, prompt: prompt, startedAgo: 30 * time.Second}, agentScript{
		start: func(tn turn) {
			if tn.it == 2 {
				// Between two steps the agent sits at a prompt that would take input.
				tn.p.SetScreen(claudeIdle(append(echo(prompt), "", "● Step 1 done.")...))
				tn.exitAfter(20*time.Second, 0, claudeIdle(append(echo(prompt), "", "● Done.")...))
				return
			}
			tn.p.SetScreen(claudeIdle())
		},
		submit: exitOnSubmit(0),
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 2 completed (exit: 0, duration: 50s)",
		"starting iteration 3/3",
		"iteration 3 completed (exit: 0, duration: 0s)",
		"max iterations (3) reached",
	)
	h.wantState(h.state(), ralph.StatusStopped, "max_iterations", 3)
	if subs := h.submitRecs(); len(subs) != 1 || subs[0].iteration != 3 {
		t.Errorf("prompts submitted %+v, want only iteration 3's", subs)
	}
	if p := h.fake.Pastes(h.paneID); len(p) != 1 {
		t.Errorf("%d pastes, want 1 (iteration 3)", len(p))
	}
}

func TestLoopPromptFileDeleted(t *testing.T) {
	h := newHarness(t, setup{max: 3}, agentScript{
		submit: func(tn turn) {
			if err := os.Remove(tn.h.promptPath); err != nil {
				tn.h.t.Error(err)
			}
			tn.p.Exit(0)
		},
	})
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	h.wantLines(
		"iteration 1 completed (exit: 0, duration: 0s)",
		"swarm: error: prompt file not found: "+h.promptPath,
	)
	h.wantState(h.state(), ralph.StatusFailed, "prompt_unreadable", 1)
	if n := len(h.startRecs()); n != 1 {
		t.Errorf("%d agents started, want 1", n)
	}
}

func TestLoopRereadsPromptEachIteration(t *testing.T) {
	h := newHarness(t, setup{max: 2, prompt: "Do task A\n"}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				if err := os.WriteFile(tn.h.promptPath, []byte("Do task B\n"), 0o600); err != nil {
					tn.h.t.Error(err)
				}
			}
			tn.p.Exit(0)
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	if got, want := h.fake.Pastes(h.paneID), []string{"Do task A", "Do task B"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pasted %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(h.dir.PromptCopy()); string(b) != "Do task B\n" {
		t.Errorf("prompt copy %q, want the edited prompt", b)
	}
}

func TestLoopExitCodeFromWrapperFile(t *testing.T) {
	// tmux does not always collect the status of a pane that ends quickly; the wrapper's
	// exit file is then the only record, and a stale one must not leak into the next run.
	var exitPath string
	h := newHarness(t, setup{max: 2}, agentScript{
		submit: func(tn turn) {
			if tn.it == 1 {
				if err := os.WriteFile(exitPath, []byte("0\n"), 0o600); err != nil {
					tn.h.t.Error(err)
				}
			}
			tn.p.Dead, tn.p.HasStatus = true, false
		},
	})
	exitPath = h.sd.ExitPath(loopName)
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 completed (exit: 0, duration: 0s)",
		"starting iteration 2/2",
		"iteration 2 failed (exit: unknown)",
		"max iterations (2) reached",
	)
	if st := h.state(); st.TotalFailures != 1 {
		t.Errorf("total failures %d, want 1", st.TotalFailures)
	}
}

func TestLoopPressesEnterAgainWhenPromptNotTaken(t *testing.T) {
	h := newHarness(t, setup{max: 1}, agentScript{
		ignoreEnter: func(it, n int) bool { return n == 1 },
		submit:      exitOnSubmit(0),
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"agent did not react to the prompt; pressing Enter again",
		"iteration 1 completed (exit: 0, duration: 3s)",
		"max iterations (1) reached",
	)
	if got := h.fake.Keys(h.paneID); !reflect.DeepEqual(got, []string{"Enter", "Enter"}) {
		t.Errorf("keys %v, want two Enters", got)
	}
	if p := h.fake.Pastes(h.paneID); len(p) != 1 {
		t.Errorf("%d pastes, want 1: the prompt is never typed twice", len(p))
	}
}

func TestLoopAbortEndsAgentAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHarness(t, setup{max: 3}, agentScript{
		submit: func(tn turn) { tn.h.clock.After(10*time.Second, cancel) },
	})
	cfg := h.config()
	cfg.Context = ctx
	if code := h.run(cfg); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines("stopping now, agent ended")
	st := h.state()
	h.wantState(st, ralph.StatusPaused, "signal", 1)
	kills := h.procs.liveKills()
	if len(kills) != 1 || kills[0].pid != h.startRecs()[0].pid || kills[0].grace != 0 {
		t.Errorf("live kills %+v, want the agent killed without grace", kills)
	}
}

func TestLoopStdinMode(t *testing.T) {
	// Headless agents get the prompt on standard input through the wrapper: nothing is typed.
	h := newHarness(t, setup{max: 2, mode: config.PromptStdin}, agentScript{
		start: func(tn turn) {
			// Even a screen that looks like an input prompt gets nothing typed.
			tn.p.SetScreen("$")
			tn.exitAfter(5*time.Second, 0, "finished\n$")
		},
	})
	cfg := h.config()
	cfg.RunWrapper = []string{"/usr/bin/swarm", "__run"}
	if code := h.run(cfg); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantLines(
		"iteration 1 completed (exit: 0, duration: 5s)",
		"starting iteration 2/2",
		"iteration 2 completed (exit: 0, duration: 5s)",
		"max iterations (2) reached",
	)
	if in := h.fake.Inputs(); len(in) != 0 {
		t.Errorf("typed into a stdin-mode agent: %+v", in)
	}
	if w := h.clock.waits(ralph.PhaseStarting); len(w) != 0 {
		t.Errorf("waited %v for an input prompt in stdin mode", w)
	}
	starts := h.startRecs()
	// The worker's environment comes from its private file; the iteration's values (no
	// secrets) are flags of the wrapper.
	want := []string{"/usr/bin/swarm", "__run", "--env-file", h.sd.EnvPath(loopName), "--env", "SWARM_ITERATION=2",
		"--env", "SWARM_WORKER=" + loopName, "--env", "SWARM_DONE_FILE=" + h.dir.DoneFile(),
		"--exit-file", h.sd.ExitPath(loopName), "--stdin", h.dir.PromptCopy(), "--", "claude", "--session-id", h.state().AgentSession,
		"--settings", h.dir.ClaudeSettings()}
	if len(starts) != 2 || !reflect.DeepEqual(starts[1].spec.Argv, want) {
		t.Errorf("iteration 2 argv %q, want %q", starts[len(starts)-1].spec.Argv, want)
	}
}

func TestAgentArgv(t *testing.T) {
	cmd := []string{"claude", "--model", "opus"}
	wrapper := []string{"/bin/swarm", "__run"}
	cases := []struct {
		name    string
		mode    string
		wrapper []string
		want    []string
	}{
		{"no wrapper", config.PromptStdin, nil, cmd},
		{"type", config.PromptType, wrapper, []string{"/bin/swarm", "__run", "--exit-file", "/x/exit", "--", "claude", "--model", "opus"}},
		{"stdin", config.PromptStdin, wrapper, []string{"/bin/swarm", "__run", "--exit-file", "/x/exit", "--stdin", "/x/prompt", "--", "claude", "--model", "opus"}},
	}
	for _, c := range cases {
		got := ralph.AgentArgv(cmd, c.mode, c.wrapper, "/x/exit", "/x/prompt")
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if !reflect.DeepEqual(wrapper, []string{"/bin/swarm", "__run"}) {
		t.Errorf("AgentArgv changed the wrapper slice: %q", wrapper)
	}
}

func TestBackoff(t *testing.T) {
	// min(2^(n-1), 300) seconds.
	want := []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300}
	for i, w := range want {
		n := i + 1
		if got := ralph.Backoff(n); got != time.Duration(w)*time.Second {
			t.Errorf("Backoff(%d) = %v, want %ds", n, got, w)
		}
	}
	for _, n := range []int{63, 64, 1000} {
		if got := ralph.Backoff(n); got != 300*time.Second {
			t.Errorf("Backoff(%d) = %v, want 5m0s", n, got)
		}
	}
}

// An agent that prints its marker before the end of its turn gets to finish the turn: the
// iteration's kept screen has what it printed after the marker, until its screen held still.
func TestLoopDoneMarkerLetsTheTurnFinish(t *testing.T) {
	prompt := "Work through PLAN.md and print ALL DONE when finished.\n"
	h := newHarness(t, setup{max: 2, prompt: prompt, donePattern: "ALL DONE"}, agentScript{
		submit: func(tn turn) {
			lines := append(echo(tn.prompt), "", "● ALL DONE")
			tn.later(30*time.Second, func(q *tmuxtest.FakePane) { q.SetScreen(claudeIdle(lines...)) })
			// The rest of the turn comes over the next second and a half, a line at a time.
			for k := 1; k <= 10; k++ {
				tn.later(30*time.Second+time.Duration(k)*150*time.Millisecond, func(q *tmuxtest.FakePane) {
					lines = append(lines, fmt.Sprintf("● Closing note %d.", k))
					q.SetScreen(claudeIdle(lines...))
				})
			}
		},
	})
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	h.wantState(h.state(), ralph.StatusStopped, "done_pattern", 1)
	kept, err := os.ReadFile(h.dir.ScreenPath(1))
	if err != nil || !strings.Contains(string(kept), "● Closing note 10.") {
		t.Errorf("the agent was ended before its turn was over (%v):\n%s", err, kept)
	}
}

// The loop types the prompt holding the worker's input lock, as swarm send and heartbeats do,
// so neither lands between its paste and its Enter; the lock is let go once Enter is pressed.
func TestLoopTypesThePromptUnderTheInputLock(t *testing.T) {
	var pasted, entered []bool
	h := newHarness(t, setup{max: 1, prompt: "do it\n"}, agentScript{
		submit: func(tn turn) { tn.p.Exit(0) },
	})
	paste, keys := h.fake.OnPaste, h.fake.OnKeys
	h.fake.OnPaste = func(p *tmuxtest.FakePane, text string) {
		pasted = append(pasted, state.IsLocked(h.sd.InputLockPath(loopName)))
		paste(p, text)
	}
	h.fake.OnKeys = func(p *tmuxtest.FakePane, key string) {
		if key == "Enter" {
			entered = append(entered, state.IsLocked(h.sd.InputLockPath(loopName)))
		}
		keys(p, key)
	}
	if code := h.run(h.config()); code != 0 {
		t.Errorf("Run = %d, want 0", code)
	}
	if len(pasted) == 0 || !pasted[0] || len(entered) == 0 || !entered[0] {
		t.Errorf("input lock held at the paste %v and at Enter %v, want both", pasted, entered)
	}
	if state.IsLocked(h.sd.InputLockPath(loopName)) {
		t.Error("input lock still held after the loop")
	}
}
