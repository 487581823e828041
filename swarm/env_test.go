package swarm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
)

// Commands run here on a machine of the in-memory tmux server (testmachine): nothing real is
// started or killed.

type testEnv struct {
	*env
	*testmachine.Bench
	out  *bytes.Buffer
	errb *bytes.Buffer
}

// newTestEnv is the commands' environment on a test machine; the machine's warnings go to the
// commands' standard error, as they do in a command.
func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	b := testmachine.New(t)
	te := &testEnv{Bench: b, out: &bytes.Buffer{}, errb: &bytes.Buffer{}}
	te.env = &env{Machine: worker.NewMachine(b.State, b.Fake, b.Processes, te.errb), stdout: te.out, stderr: te.errb}
	return te
}

// spawn starts a tmux worker running sh (the fake runs nothing) showing screen.
func (te *testEnv) spawn(name string, screen string, tags ...string) *state.Worker {
	te.T.Helper()
	w, err := te.env.Spawn(worker.SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: te.T.TempDir(), Tags: tags})
	if err != nil {
		te.T.Fatalf("spawn %s: %v", name, err)
	}
	te.Show(w.Tmux.PaneID, screen)
	return w
}

// exit ends the worker's program with code, as the wrapper would record it.
func (te *testEnv) exit(w *state.Worker, code int) {
	te.T.Helper()
	if err := te.Fake.Exit(w.Tmux.PaneID, code); err != nil {
		te.T.Fatal(err)
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
	te.T.Helper()
	ws, err := te.Dir().LoadWorkers(nil)
	if err != nil {
		te.T.Fatal(err)
	}
	return ws.Get(name)
}

// onTmux has the commands talk to tm instead of the fake tmux server.
func (te *testEnv) onTmux(tm tmux.Client) {
	te.env.Machine = worker.NewMachine(te.Dir(), tm, te.Processes, te.errb)
}
