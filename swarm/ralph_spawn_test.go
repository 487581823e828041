package swarm

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

func promptFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "PROMPT.md")
	writeLog(t, p, text)
	return p
}

// goodLoop is a valid set of loop flags for a prompt file.
func goodLoop(prompt string) loopOptions {
	return loopOptions{promptArg: prompt, max: 3, maxSet: true, inactivity: 60, promptMode: config.PromptType, readyTimeout: 120, limitWait: 1800, limitMargin: 60}
}

func TestRalphSpawnChecksTheLoopFlags(t *testing.T) {
	te := newLoopEnv(t)
	prompt := promptFile(t, "@exit 0\n")
	cases := []struct {
		change func(*loopOptions)
		want   string
	}{
		{func(o *loopOptions) { o.promptArg = "" }, "--ralph requires --prompt-file"},
		{func(o *loopOptions) { o.maxSet = false }, "--ralph requires --max-iterations"},
		{func(o *loopOptions) { o.promptArg = "./missing.md" }, "prompt file not found: ./missing.md"},
		{func(o *loopOptions) { o.promptArg = filepath.Dir(prompt) }, "cannot read prompt file: " + filepath.Dir(prompt)},
		{func(o *loopOptions) { o.max = 0 }, "--max-iterations must be at least 1"},
		{func(o *loopOptions) { o.inactivity = 0 }, "--inactivity-timeout must be at least 1 second"},
		{func(o *loopOptions) { o.donePatterns = []string{"DONE", "("} }, "invalid --done-pattern: "},
		{func(o *loopOptions) { o.donePatterns = []string{""} }, "--done-pattern is empty"},
		{func(o *loopOptions) { o.stagnation = -1 }, "--stagnation-limit must be 0 (off) or more"},
		{func(o *loopOptions) { o.promptMode = "telepathy" }, "invalid --prompt-mode 'telepathy' (expected type or stdin)"},
	}
	for _, c := range cases {
		o := goodLoop(prompt)
		c.change(&o)
		wantErr(t, o.check(te.env), 1, c.want)
	}
	o := goodLoop(prompt)
	o.promptMode, o.max, o.donePatterns = "tui", 51, []string{"DONE", "a{1,3}"}
	if err := o.check(te.env); err != nil {
		t.Fatal(err)
	}
	if o.promptMode != config.PromptType || o.promptFile != prompt {
		t.Errorf("mode %q, prompt %q", o.promptMode, o.promptFile)
	}
	if got := te.errText(); got != "swarm: warning: high iteration count (>50) may consume significant resources\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestRalphSpawnChecksThePromptCanBeRead(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	p := promptFile(t, "x")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	_, err := checkPromptFile(p)
	wantErr(t, err, 1, "cannot read prompt file: "+p)
}

func spawnOpts(t *testing.T, name, prompt string) ralphSpawnOptions {
	lo := goodLoop(prompt)
	lo.promptFile = prompt
	rc := ralph.DefaultSupervision()
	return ralphSpawnOptions{worker: spawnOptions{SpawnOptions: worker.SpawnOptions{Name: name, Argv: []string{"sh"}, Cwd: t.TempDir()}}, loop: lo, regent: &rc}
}

func TestRalphSpawnStartsIterationOneLikeEveryOther(t *testing.T) {
	te := newLoopEnv(t)
	prompt := promptFile(t, "do the work\n")
	before := time.Now().Add(-time.Second)
	o := spawnOpts(t, "agent", prompt)
	o.loop.donePatterns, o.settings.BuiltinMarkers, o.regent.TestCommand = []string{"ALL DONE"}, true, "true"
	if err := spawnRalph(te.env, o); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "spawned agent (tmux: swarm:agent) [ralph mode: iteration 1/3]\n" {
		t.Errorf("printed %q", got)
	}
	ld := ralph.DirFor(te.Dir(), "agent")
	w := te.record("agent")
	p, _ := te.Fake.Get(w.Tmux.PaneID)
	// The iteration's values reach the agent as the loop passes them to every later iteration:
	// through its start script, which records the exit code.
	if want := []string{"env", "-i", "/bin/sh", te.Dir().ScriptPath("agent")}; !reflect.DeepEqual(p.Spec.Argv, want) {
		t.Errorf("argv %q, want %q", p.Spec.Argv, want)
	}
	script, _ := os.ReadFile(te.Dir().ScriptPath("agent"))
	for _, kv := range ld.AgentEnv("agent", 1) {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.Contains(string(script), "export "+k+"='"+v+"'\n") {
			t.Errorf("start script lacks %s: %s", kv, script)
		}
	}
	if !strings.Contains(string(script), te.Dir().ExitPath("agent")) {
		t.Errorf("start script does not record the exit code: %s", script)
	}
	if w.Metadata["ralph"] != true || w.Metadata["ralph_iteration"] != float64(1) {
		t.Errorf("metadata %v", w.Metadata)
	}
	st := testmachine.LoopState(te.T, ld)
	started, err := time.Parse(time.RFC3339Nano, st.Started)
	if err != nil || started.Before(before) || st.Started != started.Format(ralph.TimeFormat) {
		t.Errorf("started %q (%v), want now in %s", st.Started, err, ralph.TimeFormat)
	}
	if st.WorkerName != "agent" || st.Status != ralph.StatusRunning || st.CurrentIteration != 1 || st.Phase != ralph.PhaseStarting ||
		st.LastIterationStarted != st.Started || st.LastScreenChange != st.Started || st.PromptFile != prompt || st.Supervision == nil ||
		st.DonePattern == nil || *st.DonePattern != "ALL DONE" || st.IterationStartCommit != "" {
		t.Errorf("state %+v", st)
	}
	if data, _ := os.ReadFile(ld.PromptCopy()); string(data) != "do the work\n" {
		t.Errorf("prompt copy %q", data)
	}
	if got := testmachine.Events(t, ld); !reflect.DeepEqual(got, []string{"[START] iteration 1/3"}) {
		t.Errorf("log %q", got)
	}
	if data, _ := os.ReadFile(ld.MonitorLog()); !strings.HasSuffix(string(data), " [ralph] agent: starting iteration 1/3\n") {
		t.Errorf("monitor log %q", data)
	}
	if rs := ld.LoadSupervision(); rs.Iteration != 1 {
		t.Errorf("regent state iteration %d", rs.Iteration)
	}
	wantRegent(t, te)
}

func TestRalphSpawnRefuses(t *testing.T) {
	te := newLoopEnv(t)
	prompt := promptFile(t, "x")
	te.spawn("dup", "")
	wantErr(t, spawnRalph(te.env, spawnOpts(t, "dup", prompt)), 1, "worker 'dup' already exists")

	// A loop of the same name whose monitor still runs (its worker was cleaned meanwhile).
	ld := ralph.DirFor(te.Dir(), "left")
	if err := ld.Create(&ralph.State{Status: ralph.StatusRunning}); err != nil {
		t.Fatal(err)
	}
	testmachine.HoldMonitor(t, ld)
	wantErr(t, spawnRalph(te.env, spawnOpts(t, "left", prompt)), 1, "a ralph loop for 'left' is still running")

	// Nothing is left behind when the worker cannot start or the prompt is gone.
	o := spawnOpts(t, "nocmd", prompt)
	o.worker.Argv = []string{"no-such-program-here"}
	wantErr(t, spawnRalph(te.env, o), 1, "command not found: no-such-program-here")
	o = spawnOpts(t, "noprompt", filepath.Join(t.TempDir(), "gone.md"))
	wantErr(t, spawnRalph(te.env, o), 1, "prompt file not found")
	for _, name := range []string{"nocmd", "noprompt"} {
		if _, err := os.Stat(ralph.DirFor(te.Dir(), name).Path); !os.IsNotExist(err) {
			t.Errorf("%s: loop directory left behind (%v)", name, err)
		}
		if te.record(name) != nil {
			t.Errorf("%s: worker record left behind", name)
		}
	}
}

// In the foreground the loop runs in the spawning process; here the agent exits at once.
func TestRalphSpawnInTheForeground(t *testing.T) {
	te := newTestEnv(t)
	te.Fake.OnStart = func(p *tmuxtest.FakePane, s tmux.Spec) { p.Exit(0) }
	o := spawnOpts(t, "fg", promptFile(t, "x"))
	o.loop.foreground, o.loop.max = true, 1
	if err := spawnRalph(te.env, o); err != nil {
		t.Fatal(err)
	}
	out := te.output()
	for _, want := range []string{"[ralph mode: iteration 1/1]\n[ralph] fg: starting iteration 1/1\n",
		"[ralph] fg: iteration 1 completed (exit: 0", "[ralph] fg: max iterations (1) reached\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	st := testmachine.LoopState(te.T, ralph.DirFor(te.Dir(), "fg"))
	if st.Status != ralph.StatusStopped || st.MonitorPID != 0 {
		t.Errorf("state %s, monitor pid %d", st.Status, st.MonitorPID)
	}
	if len(te.keepers()) != 0 {
		t.Error("a background monitor was started too")
	}
}

// The loop flags are checked before the ones every spawn shares, as the loop spec orders
// the errors; none of these reaches tmux.
func TestRalphSpawnFromTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	prompt := promptFile(t, "x")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"ralph", "spawn", "--prompt-file", "./missing.md", "--max-iterations", "10", "--", "claude"}, "prompt file not found: ./missing.md"},
		{[]string{"spawn", "--ralph", "--prompt-file", prompt, "--max-iterations", "1", "--", "sh"}, `Required flag "name" not set`},
		{[]string{"spawn", "--ralph", "--name", "a", "--prompt-file", prompt, "--max-iterations", "1", "--max-failures", "0", "--", "sh"},
			"--max-failures must be at least 1"},
		{[]string{"spawn", "--ralph", "--name", "a", "--prompt-file", prompt, "--max-iterations", "1", "--push", "--", "sh"},
			"--push needs --rollback-on-test-failure"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		args := append([]string{"swarm", "--swarm-dir", dir, "--tmux-socket", "swarm-unit-test-none"}, c.args...)
		if code := Run(args, &out, &errb); code != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, code, errb.String(), c.want)
		}
	}
}
