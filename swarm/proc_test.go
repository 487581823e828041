package swarm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/swarm-dev/swarm/state"
)

func TestStartFailureNamesTheProblem(t *testing.T) {
	cases := []struct {
		err  error
		code int
		msg  string
	}{
		{exec.ErrNotFound, 127, "executable not found: prog"},
		{os.ErrNotExist, 127, "executable not found: prog"},
		{os.ErrPermission, 126, "permission denied: prog"},
		{errors.New("exec format error"), 126, "cannot start prog: exec format error"},
	}
	for _, c := range cases {
		code, msg := startFailure("prog", c.err)
		if code != c.code || msg != c.msg {
			t.Errorf("startFailure(%v) = %d %q, want %d %q", c.err, code, msg, c.code, c.msg)
		}
	}
}

func TestWrapperRecordsHowTheProgramEnded(t *testing.T) {
	dir := t.TempDir()
	exit := filepath.Join(dir, "exit")
	envFile := filepath.Join(dir, "env.json")
	if err := state.WriteJSON(envFile, []string{"PATH=" + os.Getenv("PATH"), "ONLY=this"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	o := wrapperOptions{Argv: []string{"sh", "-c", `echo "$ONLY $EXTRA $HOME" > ` + out + `; exit 3`}, ExitFile: exit,
		EnvFile: envFile, Env: []string{"EXTRA=x"}}
	if code := runWrapped(o); code != 3 {
		t.Errorf("code %d, want 3", code)
	}
	if got, _ := os.ReadFile(exit); string(got) != "3\n" {
		t.Errorf("exit file %q", got)
	}
	// Exactly the saved environment plus the extra values: nothing of the wrapper's own.
	if got, _ := os.ReadFile(out); string(got) != "this x \n" {
		t.Errorf("the program saw %q", got)
	}
	o = wrapperOptions{Argv: []string{"./no-such-agent"}, ExitFile: exit}
	if code := runWrapped(o); code != 127 {
		t.Errorf("code %d, want 127", code)
	}
	if got, _ := os.ReadFile(exit); string(got) != "127\nexecutable not found: ./no-such-agent\n" {
		t.Errorf("exit file %q", got)
	}
	o = wrapperOptions{Argv: []string{"true"}, ExitFile: exit, EnvFile: filepath.Join(dir, "missing.json")}
	if code := runWrapped(o); code != 126 {
		t.Errorf("code %d with an unreadable environment, want 126", code)
	}
}
