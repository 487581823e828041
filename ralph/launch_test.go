package ralph

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// launchIn prepares a Launch in a temp dir whose worker environment is env.
func launchIn(t *testing.T, env []string, argv ...string) Launch {
	t.Helper()
	dir := t.TempDir()
	l := Launch{Argv: argv, EnvFile: filepath.Join(dir, "env.json"), ExitFile: filepath.Join(dir, "exit"),
		Script: filepath.Join(dir, "run.sh"), Wrapper: []string{"/bin/swarm", "__run"}}
	if env != nil {
		if err := state.WriteJSON(l.EnvFile, env); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// runLaunch runs what the pane would run and returns its stdout and exit file.
func runLaunch(t *testing.T, l Launch) (string, string) {
	t.Helper()
	argv, err := l.Command()
	if err != nil {
		t.Fatal(err)
	}
	if argv[0] != "env" {
		t.Fatalf("not the script: %q", argv)
	}
	out, _ := exec.Command(argv[0], argv[1:]...).Output()
	exit, _ := os.ReadFile(l.ExitFile)
	return string(out), string(exit)
}

func TestLaunchGivesExactlyTheSavedEnvironment(t *testing.T) {
	odd := "it's \"quoted\" $HOME `x` \\ and\nsecond line"
	l := launchIn(t, []string{"PATH=" + os.Getenv("PATH"), "ODD=" + odd, "EMPTY="}, "sh", "-c", `printf '%s|%s|%s|%s' "$ODD" "${EMPTY-unset}" "${LEAK-none}" "$EXTRA"`)
	l.Extra = []string{"EXTRA=iteration 2"}
	t.Setenv("LEAK", "from the caller")
	out, exit := runLaunch(t, l)
	if want := odd + "||none|iteration 2"; out != want {
		t.Errorf("agent saw %q, want %q", out, want)
	}
	if exit != "0\n" {
		t.Errorf("exit file %q", exit)
	}
	info, err := os.Stat(l.Script)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("script mode: %v %v", info, err)
	}
	if data, _ := os.ReadFile(l.Script); strings.Contains(string(data), "from the caller") {
		t.Error("the caller's environment went into the script")
	}
}

func TestLaunchRecordsExitCodes(t *testing.T) {
	path := []string{"PATH=" + os.Getenv("PATH")}
	plain := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(plain, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"sh", "-c", "exit 3"}, "3\n"},
		{[]string{"sh", "-c", "kill -TERM $$"}, "143\n"},
		{[]string{"no-such-agent-anywhere"}, "127\nexecutable not found: no-such-agent-anywhere\n"},
		{[]string{"/no/such/agent"}, "127\nexecutable not found: /no/such/agent\n"},
		{[]string{plain}, "126\npermission denied: " + plain + "\n"},
	}
	for _, c := range cases {
		_, exit := runLaunch(t, launchIn(t, path, c.argv...))
		if exit != c.want {
			t.Errorf("%q: exit file %q, want %q", c.argv, exit, c.want)
		}
	}
}

func TestLaunchFeedsTheStdinFile(t *testing.T) {
	l := launchIn(t, []string{"PATH=" + os.Getenv("PATH")}, "cat")
	l.Stdin = filepath.Join(filepath.Dir(l.Script), "prompt")
	if err := os.WriteFile(l.Stdin, []byte("the prompt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, exit := runLaunch(t, l); out != "the prompt\n" || exit != "0\n" {
		t.Errorf("stdout %q, exit %q", out, exit)
	}
	l.Stdin += ".missing"
	if _, exit := runLaunch(t, l); !strings.HasPrefix(exit, "127\ncannot read ") {
		t.Errorf("missing stdin file: exit %q", exit)
	}
}

// A signal for the agent's group ends the agent; the shell stays to record how.
func TestLaunchOutlivesTheGroupsSignal(t *testing.T) {
	l := launchIn(t, []string{"PATH=" + os.Getenv("PATH")}, "sleep", "30")
	argv, err := l.Command()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	// Signalled once the agent runs: a child that has not yet become it (between fork and exec)
	// still has the shell's handler, and would take the signal for the shell.
	for time.Now().Before(deadline) && !hasChild(cmd.Process.Pid, "sleep") {
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	_ = cmd.Wait()
	if exit, _ := os.ReadFile(l.ExitFile); string(exit) != "143\n" {
		t.Errorf("exit file %q, want 143", exit)
	}
}

// hasChild reports whether pid has a child running the program named comm.
func hasChild(pid int, comm string) bool {
	p := strconv.Itoa(pid)
	data, _ := os.ReadFile(filepath.Join("/proc", p, "task", p, "children"))
	for _, child := range strings.Fields(string(data)) {
		if name, _ := os.ReadFile(filepath.Join("/proc", child, "comm")); strings.TrimSpace(string(name)) == comm {
			return true
		}
	}
	return false
}

func TestLaunchFallsBackToTheWrapper(t *testing.T) {
	// A name sh cannot export, and no saved environment at all.
	for _, env := range [][]string{{"PATH=/bin", "BAD-NAME=x"}, nil} {
		l := launchIn(t, env, "agent", "--flag")
		l.Extra = []string{"SWARM_ITERATION=2"}
		argv, err := l.Command()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"/bin/swarm", "__run", "--env-file", l.EnvFile, "--env", "SWARM_ITERATION=2", "--exit-file", l.ExitFile, "--", "agent", "--flag"}
		if !reflect.DeepEqual(argv, want) {
			t.Errorf("env %q: %q, want %q", env, argv, want)
		}
		if _, err := os.Stat(l.Script); !os.IsNotExist(err) {
			t.Errorf("env %q: a script was written", env)
		}
	}
}
