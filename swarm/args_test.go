package swarm

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestReorderArgs(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	cases := []struct{ in, want []string }{
		{[]string{"swarm", "peek", "w1", "-n", "5"}, []string{"swarm", "peek", "-n", "5", "--", "w1"}},
		{[]string{"swarm", "--swarm-dir", "/d", "ls", "--format", "json"}, []string{"swarm", "--swarm-dir", "/d", "ls", "--format", "json"}},
		{[]string{"swarm", "spawn", "--name", "w", "--", "sh", "-c", "x"}, []string{"swarm", "spawn", "--name", "w", "--", "sh", "-c", "x"}},
		{[]string{"swarm", "spawn", "--name", "w", "sleep", "-x"}, []string{"swarm", "spawn", "--name", "w", "--", "sleep", "-x"}},
		{[]string{"swarm", "ralph", "status", "w", "--format", "json"}, []string{"swarm", "ralph", "status", "--format", "json", "--", "w"}},
		{[]string{"swarm", "send", "w", "-"}, []string{"swarm", "send", "--", "w", "-"}},
		{[]string{"swarm", "send", "w", "--", "--not-a-flag"}, []string{"swarm", "send", "--", "w", "--not-a-flag"}},
		{[]string{"swarm", "send", "--", "w", "-n"}, []string{"swarm", "send", "--", "w", "-n"}},
		{[]string{"swarm", "spawn", "--name", "w", "sh", "--", "x"}, []string{"swarm", "spawn", "--name", "w", "--", "sh", "--", "x"}},
		{[]string{"swarm"}, []string{"swarm"}},
		{[]string{"swarm", "nosuch", "-x"}, []string{"swarm", "nosuch", "-x"}},
		// swarm's own flags after the command, a command's flags before it.
		{[]string{"swarm", "spawn", "--tmux-socket", "X", "--name", "w", "--", "sh"}, []string{"swarm", "--tmux-socket", "X", "spawn", "--name", "w", "--", "sh"}},
		{[]string{"swarm", "ls", "--tmux-socket=X", "--swarm-dir", "/d"}, []string{"swarm", "--tmux-socket=X", "--swarm-dir", "/d", "ls"}},
		{[]string{"swarm", "ralph", "spawn", "--name", "w", "--tmux-socket", "X"}, []string{"swarm", "--tmux-socket", "X", "ralph", "spawn", "--name", "w"}},
		{[]string{"swarm", "--session", "s", "spawn", "--name", "w", "--", "sh"}, []string{"swarm", "spawn", "--session", "s", "--name", "w", "--", "sh"}},
		{[]string{"swarm", "--all", "kill"}, []string{"swarm", "kill", "--all"}},
		{[]string{"swarm", "kill", "w", "--tmux-socket", "X"}, []string{"swarm", "--tmux-socket", "X", "kill", "--", "w"}},
		{[]string{"swarm", "--help"}, []string{"swarm", "--help"}},
	}
	for _, c := range cases {
		if got := reorderArgs(app, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("reorderArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestErrorsMapToExitCodes(t *testing.T) {
	cases := []struct {
		err    error
		code   int
		msg    string
		silent bool
	}{
		{fail("bad %s", "x"), ExitError, "bad x", false},
		{notFound("w"), ExitNotFound, "no worker named 'w'", false},
		{exitCode(3), 3, "", true},
		{errors.New("plain"), ExitError, "plain", false},
	}
	for _, c := range cases {
		code, msg, silent := codeOf(c.err)
		if code != c.code || msg != c.msg || silent != c.silent {
			t.Errorf("codeOf(%v) = %d %q %v", c.err, code, msg, silent)
		}
	}
	if exitCode(0) != nil {
		t.Error("exit code 0 is no error")
	}
}

func TestRunPrintsErrorsOnOneLine(t *testing.T) {
	var out, errb strings.Builder
	code := Run([]string{"swarm", "--swarm-dir", t.TempDir(), "ls", "--format", "xml"}, &out, &errb)
	if code != ExitError || errb.String() != "swarm: error: invalid --format 'xml' (expected table, json or names)\n" {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// The demo agent answers the same whether it is started first thing (as a loop starts it) or
// after swarm's own flags.
func TestRunStartsTheDemoAgent(t *testing.T) {
	var out, errb strings.Builder
	if code := Run([]string{"swarm", "demo-agent", "--banner", "", "--exit", "3"}, &out, &errb); code != 3 {
		t.Errorf("demo-agent --exit 3: exit %d, stderr %q", code, errb.String())
	}
	if code := Run([]string{"swarm", "--swarm-dir", t.TempDir(), "demo-agent", "--banner", "", "--exit", "4"}, &out, &errb); code != 4 {
		t.Errorf("after --swarm-dir: exit %d, stderr %q", code, errb.String())
	}
	if code := Run([]string{"swarm", "demo-agent", "--no-such-flag"}, &out, &errb); code != 2 {
		t.Errorf("a wrong flag: exit %d", code)
	}
}
