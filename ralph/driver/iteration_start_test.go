package driver

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
)

// recordingPane records what the Starter asked of it, in order.
type recordingPane struct {
	cmd     []string
	gone    error
	refuse  bool // the loop no longer runs
	fail    error
	dir     string
	steps   []string
	launch  ralph.Launch
	written ralph.State
}

func (p *recordingPane) Command() ([]string, error) {
	p.steps = append(p.steps, "command")
	return p.cmd, p.gone
}

func (p *recordingPane) Start(launch ralph.Launch, hooks func(string), begin func(*ralph.State, string, time.Time)) (bool, error) {
	p.launch = launch
	p.steps = append(p.steps, "hooks")
	hooks(p.dir)
	if p.fail != nil || p.refuse {
		return false, p.fail
	}
	p.steps = append(p.steps, "agent")
	p.written = ralph.State{Status: ralph.StatusRunning, LastExitCode: code(1), ContextUsed: 40}
	begin(&p.written, p.dir, paneTime)
	return true, nil
}

// paneTime is when the pane says its agent started.
var paneTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

type starterTest struct {
	s      Starter
	pane   *recordingPane
	out    *bytes.Buffer
	errs   []error
	st     *ralph.State
	prompt string
}

func newStarterTest(t *testing.T) *starterTest {
	sd, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	prompt := filepath.Join(work, "PROMPT.md")
	if err := os.WriteFile(prompt, []byte("do the next task\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := ralph.DirFor(sd, "w1")
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	ts := &starterTest{pane: &recordingPane{cmd: []string{"/bin/agent", "-x"}, dir: work}, out: &bytes.Buffer{}, prompt: prompt}
	say := func(format string, args ...any) { fmt.Fprintf(ts.out, "[ralph] w1: "+format+"\n", args...) }
	ts.s = Starter{Dir: d, Workers: sd, Name: "w1", Now: func() time.Time { return time.Date(2026, 3, 4, 5, 6, 8, 0, time.Local) },
		Detail: ts.out, Say: say, Recorded: func(err error) { ts.errs = append(ts.errs, err) }, Monitor: 4242, Pane: ts.pane}
	ts.st = &ralph.State{PromptFile: prompt, MaxIterations: 5, Status: ralph.StatusRunning, HookTimeout: 10,
		Hooks: []config.Hook{{Type: config.HookPreIteration, Command: "echo pre $RALPH_ITERATION $RALPH_AGENT exit=$RALPH_EXIT_CODE $(pwd) >> hooks.txt"}, {Type: config.HookPreIteration, Command: "exit 4"}}}
	return ts
}

func (ts *starterTest) file(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

func TestAnIterationStartsInOneOrder(t *testing.T) {
	ts := newStarterTest(t)
	ts.s.Announce = true
	ts.st.LastExitCode = code(2) // the last iteration's, which its hooks are told
	started, err := ts.s.Start(ts.st, 3)
	if err != nil || !started {
		t.Fatalf("started %v, %v", started, err)
	}
	if want := []string{"command", "hooks", "agent"}; !slices.Equal(ts.pane.steps, want) {
		t.Errorf("steps %v, want %v", ts.pane.steps, want)
	}
	if got := ts.file(t, ts.s.Dir.PromptCopy()); got != "do the next task\n" {
		t.Errorf("prompt copy %q", got)
	}
	if got, want := ts.file(t, filepath.Join(ts.pane.dir, "hooks.txt")), "pre 3 agent exit=2 "+ts.pane.dir+"\n"; got != want {
		t.Errorf("hooks wrote %q, want %q", got, want)
	}
	w := ts.pane.written
	if w.CurrentIteration != 3 || w.LastIterationStarted != paneTime.Format(ralph.TimeFormat) || w.Phase != ralph.PhaseStarting ||
		w.LastExitCode != nil || w.ContextUsed != 0 || w.AgentSession == "" {
		t.Errorf("state written %+v", w)
	}
	if !slices.Contains(ts.pane.launch.Extra, "SWARM_ITERATION=3") || ts.pane.launch.Argv[0] != "/bin/agent" {
		t.Errorf("launch %+v", ts.pane.launch)
	}
	wantOut := "[ralph] w1: hook pre-iteration exit 4 exit=4\n[ralph] w1: starting iteration 3/5\n"
	if got := ts.out.String(); got != wantOut {
		t.Errorf("output %q, want %q", got, wantOut)
	}
	wantLog := "2026-03-04T05:06:08 [HOOK] pre-iteration exit 4 exit=4\n2026-03-04T05:06:08 [START] iteration 3/5\n"
	if got := ts.file(t, ts.s.Dir.IterationsLog()); got != wantLog {
		t.Errorf("iterations.log %q, want %q", got, wantLog)
	}
	if rs := ts.s.Dir.LoadSupervision(); rs.Iteration != 3 || rs.PID != 4242 {
		t.Errorf("supervision %+v", rs)
	}
	for _, err := range ts.errs {
		if err != nil {
			t.Errorf("record failed: %v", err)
		}
	}
}

func TestAnIterationThatDoesNotStartRecordsNothing(t *testing.T) {
	for _, c := range []struct {
		name   string
		set    func(*starterTest)
		reason string
		steps  []string
	}{
		{"prompt", func(ts *starterTest) { ts.st.PromptFile = ts.prompt + ".gone" }, ReasonPromptUnreadable, nil},
		{"worker", func(ts *starterTest) { ts.pane.gone = errors.New("worker 'w1' is gone") }, ReasonWorkerGone, []string{"command"}},
		{"copy", func(ts *starterTest) { _ = os.MkdirAll(ts.s.Dir.PromptCopy(), 0o700) }, ReasonIOError, []string{"command"}},
		{"pane", func(ts *starterTest) { ts.pane.fail = errors.New("no tmux") }, "", []string{"command", "hooks"}},
		{"paused", func(ts *starterTest) { ts.pane.refuse = true }, "", []string{"command", "hooks"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newStarterTest(t)
			ts.s.Announce = true
			c.set(ts)
			started, err := ts.s.Start(ts.st, 1)
			var se *StartError
			switch {
			case started:
				t.Fatal("started")
			case c.reason != "" && (!errors.As(err, &se) || se.Reason != c.reason):
				t.Errorf("error %v, want reason %s", err, c.reason)
			case c.reason == "" && errors.As(err, &se):
				t.Errorf("error %v from the pane came back as %s", err, se.Reason)
			case !slices.Equal(ts.pane.steps, c.steps):
				t.Errorf("steps %v, want %v", ts.pane.steps, c.steps)
			}
			if log := ts.file(t, ts.s.Dir.IterationsLog()); strings.Contains(log, "[START]") {
				t.Errorf("iterations.log %q", log)
			}
			if strings.Contains(ts.out.String(), "starting iteration") {
				t.Errorf("output %q", ts.out.String())
			}
			if rs := ts.s.Dir.LoadSupervision(); rs.Iteration != 0 {
				t.Errorf("supervision %+v", rs)
			}
		})
	}
}

func TestSpawnSaysNothingOfIterationOneItself(t *testing.T) {
	ts := newStarterTest(t)
	ts.s.Monitor = 0
	ts.st.Hooks = nil
	if started, err := ts.s.Start(ts.st, 1); err != nil || !started {
		t.Fatalf("started %v, %v", started, err)
	}
	if ts.out.Len() != 0 {
		t.Errorf("output %q", ts.out.String())
	}
	if got := ts.file(t, ts.s.Dir.IterationsLog()); got != "2026-03-04T05:06:08 [START] iteration 1/5\n" {
		t.Errorf("iterations.log %q", got)
	}
	if rs := ts.s.Dir.LoadSupervision(); rs.Iteration != 1 || rs.PID != 0 {
		t.Errorf("supervision %+v", rs)
	}
}

func TestTheNextPromptNoteGoesToOneIterationOnly(t *testing.T) {
	ts := newStarterTest(t)
	if err := os.WriteFile(ts.s.Dir.NextPromptNote(), []byte("fix your branch\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if started, err := ts.s.Start(ts.st, 1); err != nil || !started {
		t.Fatalf("started %v, %v", started, err)
	}
	if got, want := ts.file(t, ts.s.Dir.PromptCopy()), "do the next task\n\nfix your branch\n"; got != want {
		t.Errorf("prompt copy %q, want %q", got, want)
	}
	if _, err := os.Stat(ts.s.Dir.NextPromptNote()); !os.IsNotExist(err) {
		t.Errorf("the note is still there after its iteration started: %v", err)
	}
}

// An iteration whose agent did not start leaves the note for the one that does.
func TestTheNextPromptNoteOutlivesAStartThatFailed(t *testing.T) {
	ts := newStarterTest(t)
	if err := os.WriteFile(ts.s.Dir.NextPromptNote(), []byte("fix your branch\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts.pane.refuse = true
	if started, _ := ts.s.Start(ts.st, 1); started {
		t.Fatal("started with a pane that refuses")
	}
	if got := ts.file(t, ts.s.Dir.NextPromptNote()); got != "fix your branch\n" {
		t.Errorf("note after a failed start: %q", got)
	}
	ts.pane.refuse = false
	if started, err := ts.s.Start(ts.st, 1); err != nil || !started {
		t.Fatalf("started %v, %v", started, err)
	}
	if got, want := ts.file(t, ts.s.Dir.PromptCopy()), "do the next task\n\nfix your branch\n"; got != want {
		t.Errorf("prompt copy %q, want %q", got, want)
	}
}
