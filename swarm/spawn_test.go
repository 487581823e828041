package swarm

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

func TestSpawnTmuxWorker(t *testing.T) {
	te := newTestEnv(t)
	err := runSpawn(te.env, plainSpawn{spawnOptions: spawnOptions{SpawnOptions: worker.SpawnOptions{Name: "w1", Tmux: true, Argv: []string{"sh", "-c", "x"},
		Cwd: t.TempDir(), Env: map[string]string{"K": "v"}, Tags: []string{"t"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "spawned w1 (tmux: swarm:w1)\n" {
		t.Errorf("printed %q", got)
	}
	rec := te.record("w1")
	p, _ := te.Fake.Get(rec.Tmux.PaneID)
	argv := p.Spec.Argv
	if want := []string{"env", "-i", "/bin/sh", te.Dir().ScriptPath("w1")}; !reflect.DeepEqual(argv, want) {
		t.Errorf("the pane runs %q, want the command under its start script %q", argv, want)
	}
	if len(p.Spec.Env) != 0 {
		t.Errorf("the environment went on tmux's command line: %v", p.Spec.Env)
	}
	script, err := os.ReadFile(te.Dir().ScriptPath("w1"))
	if err != nil || !strings.Contains(string(script), "export K='v'\n") || !strings.Contains(string(script), "'sh' '-c' 'x'") {
		t.Errorf("the start script does not set the environment and run the command: %q, %v", script, err)
	}
	var saved []string
	if err := state.ReadJSON(te.Dir().EnvPath("w1"), &saved); err != nil {
		t.Fatal(err)
	}
	if !hasEnv(saved, "K=v") || !hasEnv(saved, "SWARM_WORKER=w1") || !hasEnv(saved, "SWARM_WORKER_ID="+rec.ID) {
		t.Errorf("saved environment lacks K=v, SWARM_WORKER or SWARM_WORKER_ID: %v", saved)
	}
}

func hasEnv(env []string, kv string) bool {
	for _, x := range env {
		if x == kv {
			return true
		}
	}
	return false
}

func TestSpawnRefusesBadInput(t *testing.T) {
	te := newTestEnv(t)
	te.spawn("dup", "")
	cases := []struct {
		o    worker.SpawnOptions
		want string
	}{
		{worker.SpawnOptions{Name: "dup", Tmux: true, Argv: []string{"sh"}}, "worker 'dup' already exists"},
		{worker.SpawnOptions{Name: "a/b", Argv: []string{"sh"}}, "invalid worker name 'a/b'"},
		{worker.SpawnOptions{Name: "x"}, "no command provided (use -- command...)"},
		{worker.SpawnOptions{Name: "x", Argv: []string{"no-such-program-here"}}, "command not found: no-such-program-here"},
		{worker.SpawnOptions{Name: "x", Argv: []string{"./nope"}}, "command not found: ./nope"},
		{worker.SpawnOptions{Name: "x", Argv: []string{"sh"}, Cwd: "/no/such/dir"}, "directory not found: /no/such/dir"},
		{worker.SpawnOptions{Name: "x", Argv: []string{"sh"}, Session: "a b"}, "invalid session name"},
		{worker.SpawnOptions{Name: "x", Argv: []string{"sh"}, Worktree: true, Cwd: t.TempDir()}, "not in a git repository (required for --worktree)"},
	}
	for _, c := range cases {
		_, err := te.env.Spawn(c.o)
		wantErr(t, err, 1, c.want)
	}
	if n := len(te.Fake.PaneIDs()); n != 1 {
		t.Errorf("%d panes, want only the first worker's", n)
	}
}

func TestSpawnReadyWaitIsAllOrNothing(t *testing.T) {
	te := newTestEnv(t)
	// Nothing on screen ever looks like an input prompt.
	te.Fake.OnStart = func(p *tmuxtest.FakePane, _ tmux.Spec) { p.Screen = []string{"starting..."} }
	err := runSpawn(te.env, plainSpawn{spawnOptions: spawnOptions{SpawnOptions: worker.SpawnOptions{Name: "slow", Tmux: true, Argv: []string{"sh"}, Cwd: t.TempDir()}},
		ReadyWait: true, ReadyTimeout: 50 * time.Millisecond})
	wantErr(t, err, 1, "worker 'slow' not ready after 50ms (no input prompt seen")
	if !strings.HasSuffix(err.Error(), "; the worker was stopped and removed") {
		t.Errorf("the error does not say what was rolled back: %v", err)
	}
	if te.record("slow") != nil || len(te.Fake.PaneIDs()) != 0 || te.output() != "" {
		t.Error("a failed --ready-wait left a record, a window or a 'spawned' line")
	}
}

func TestSpawnReadyWaitReturnsAtThePrompt(t *testing.T) {
	te := newTestEnv(t)
	te.Fake.OnStart = func(p *tmuxtest.FakePane, _ tmux.Spec) { p.Screen = []string{"$ "} }
	err := runSpawn(te.env, plainSpawn{spawnOptions: spawnOptions{SpawnOptions: worker.SpawnOptions{Name: "sh1", Tmux: true, Argv: []string{"sh"}, Cwd: t.TempDir()}},
		ReadyWait: true, ReadyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "spawned sh1 (tmux: swarm:sh1)\n" {
		t.Errorf("printed %q", got)
	}
}

func TestParseEnvFlags(t *testing.T) {
	if _, err := parseEnvFlags([]string{"NOEQUALS"}); err == nil || !strings.Contains(err.Error(), "invalid env format 'NOEQUALS'") {
		t.Errorf("err %v", err)
	}
	if m, err := parseEnvFlags([]string{"K=a=b", "E="}); err != nil || m["K"] != "a=b" || m["E"] != "" {
		t.Errorf("parseEnvFlags = %v, %v", m, err)
	}
}
