package swarm

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// Commands run here against the in-memory tmux server and a state directory in a temp dir;
// "processes" are the fake panes' programs, so nothing real is started or killed.

type testEnv struct {
	*env
	t     *testing.T
	fake  *tmuxtest.Fake
	procs *fakeProcesses
	out   *bytes.Buffer
	errb  *bytes.Buffer
}

// fakeProcesses is the process table of the fake panes: a pane's program is its PID.
type fakeProcesses struct {
	mu     sync.Mutex
	fake   *tmuxtest.Fake
	kills  []int
	tagged map[string][]int // processes outside any pane, by environment entry
	onKill func()           // runs after every KillGroup
}

func (p *fakeProcesses) Tagged(tag string) []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.tagged[tag]...)
}

// Mark stands for every process: the fake's processes carry no start order.
func (p *fakeProcesses) Mark() int { return 0 }

func (p *fakeProcesses) KillTagged(tag string, _ int, _ time.Duration) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.tagged[tag])
	delete(p.tagged, tag)
	return n
}

func (p *fakeProcesses) Alive(pid int, _ uint64) bool { return p.fake.Alive(pid) }

func (p *fakeProcesses) KillGroup(pgid int, _ time.Duration) bool {
	p.mu.Lock()
	p.kills = append(p.kills, pgid)
	hook := p.onKill
	p.mu.Unlock()
	p.fake.KillPID(pgid, 143)
	if hook != nil {
		hook()
	}
	return false
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fake := tmuxtest.New()
	te := &testEnv{t: t, fake: fake, procs: &fakeProcesses{fake: fake}, out: &bytes.Buffer{}, errb: &bytes.Buffer{}}
	te.env = &env{dir: dir, tm: fake, procs: te.procs, stdout: te.out, stderr: te.errb}
	return te
}

// spawn starts a tmux worker running sh (the fake runs nothing) showing screen.
func (te *testEnv) spawn(name string, screen string, tags ...string) *state.Worker {
	te.t.Helper()
	w, err := spawnWorker(te.env, spawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: te.t.TempDir(), Tags: tags})
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
	ws, err := te.dir.LoadWorkers(nil)
	if err != nil {
		te.t.Fatal(err)
	}
	return ws.Get(name)
}
