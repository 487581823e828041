package swarm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/swarm/worker/workertest"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// Commands run here against the in-memory tmux server and a state directory in a temp dir;
// "processes" are the fake panes' programs, so nothing real is started or killed.

type testEnv struct {
	*env
	t     *testing.T
	fake  *tmuxtest.Fake
	procs *workertest.Processes
	out   *bytes.Buffer
	errb  *bytes.Buffer
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fake := tmuxtest.New()
	te := &testEnv{t: t, fake: fake, procs: workertest.New(fake), out: &bytes.Buffer{}, errb: &bytes.Buffer{}}
	te.env = &env{Machine: worker.NewMachine(dir, fake, te.procs, te.errb), stdout: te.out, stderr: te.errb}
	return te
}

// spawn starts a tmux worker running sh (the fake runs nothing) showing screen.
func (te *testEnv) spawn(name string, screen string, tags ...string) *state.Worker {
	te.t.Helper()
	w, err := te.env.Spawn(worker.SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: te.t.TempDir(), Tags: tags})
	if err != nil {
		te.t.Fatalf("spawn %s: %v", name, err)
	}
	if screen != "" {
		if err := te.fake.SetScreen(w.Tmux.PaneID, screen); err != nil {
			te.t.Fatal(err)
		}
	}
	return w
}

// exit ends the worker's program with code, as the wrapper would record it.
func (te *testEnv) exit(w *state.Worker, code int) {
	te.t.Helper()
	if err := te.fake.Exit(w.Tmux.PaneID, code); err != nil {
		te.t.Fatal(err)
	}
}

// output returns and clears what the command printed.
func (te *testEnv) output() string {
	s := te.out.String()
	te.out.Reset()
	return s
}

// wantErr checks a command's error: its message and its exit code.
func wantErr(t *testing.T, err error, code int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", msg)
	}
	n, got, _ := codeOf(err)
	if n != code || !strings.Contains(got, msg) {
		t.Fatalf("error %q (exit %d), want %q (exit %d)", got, n, msg, code)
	}
}

func (te *testEnv) record(name string) *state.Worker {
	te.t.Helper()
	ws, err := te.Dir().LoadWorkers(nil)
	if err != nil {
		te.t.Fatal(err)
	}
	return ws.Get(name)
}

// onTmux has the commands talk to tm instead of the fake tmux server.
func (te *testEnv) onTmux(tm tmux.Client) {
	te.env.Machine = worker.NewMachine(te.Dir(), tm, te.procs, te.errb)
}
