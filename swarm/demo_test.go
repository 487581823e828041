package swarm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

func TestDemoWorkspaceAndLoop(t *testing.T) {
	te := newTestEnv(t)
	dir := t.TempDir()
	work, root := filepath.Join(dir, "work"), filepath.Join(dir, "state")
	// Run as `swarm demo` is: on a private server of its own.
	de, err := demoEnv(&env{stdout: te.out, stderr: te.errb}, work, root)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(work, "PROMPT.md")); string(data) != demoPrompt {
		t.Errorf("PROMPT.md %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(work, "tasks.txt")); string(data) != "task 1\ntask 2\ntask 3\n" {
		t.Errorf("tasks.txt %q", data)
	}
	if _, real := de.Procs().(worker.OSProcesses); de.Dir().Root != root || de.Tmux().Socket() != worker.SocketFor(root) || !real || de.stdout != te.out {
		t.Errorf("demo env %+v", de)
	}
	st := demoState(work)
	if st.MaxIterations != demoIterations || st.PromptFile != filepath.Join(work, "PROMPT.md") || *st.DonePattern != "ALL TASKS COMPLETE" ||
		st.PromptMode != config.PromptType {
		t.Errorf("demo loop %+v", st)
	}
	// The demo's own prompt carries the done marker: the loop must not take its echo for it.
	if !strings.Contains(demoPrompt, *st.DonePattern) {
		t.Error("the demo prompt lost its done marker")
	}

	writeLog(t, filepath.Join(work, "done.txt"), "3\n")
	if err := ralph.DirFor(de.Dir(), "demo").Create(&ralph.State{Status: ralph.StatusStopped, CurrentIteration: 3, ExitReason: "done_pattern"}); err != nil {
		t.Fatal(err)
	}
	reportDemo(de, work)
	if got := te.output(); got != "tasks finished by the agent: 3\nloop done after 3 iterations\n" {
		t.Errorf("report %q", got)
	}
	if _, err := demoEnv(te.env, filepath.Join(work, "PROMPT.md", "x"), root); err == nil {
		t.Error("a workspace under a file")
	}
}

// The whole demo against the fake server, where every agent exits at once: the loop runs
// its iterations, and the scratch directory goes away unless kept.
func TestDemoRunsTheLoopAndCleansUp(t *testing.T) {
	for _, keep := range []bool{false, true} {
		te := newTestEnv(t)
		te.Fake.OnStart = func(p *tmuxtest.FakePane, s tmux.Spec) { p.Exit(0) }
		if err := runDemo(te.env, demoOptions{keep: keep}); err != nil {
			t.Fatal(err)
		}
		out := te.output()
		for _, want := range []string{"demo workspace: ", "spawned demo (tmux: swarm:demo) [ralph mode: iteration 1/5]\n",
			"[ralph] demo: starting iteration 1/5\n", "loop stopped after 5 iterations (max_iterations)\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		work := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(out, "demo workspace: "), "\n", 2)[0])
		scratch := filepath.Dir(work)
		_, err := os.Stat(scratch)
		if keep {
			if err != nil || !strings.Contains(out, "kept "+scratch) {
				t.Errorf("--keep: %v\n%s", err, out)
			}
			os.RemoveAll(scratch)
		} else if !os.IsNotExist(err) {
			t.Errorf("scratch directory %s left behind (%v)", scratch, err)
		}
	}
}
