package swarm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// The ralph commands from the command line: arguments reach the run functions, and usage
// errors come before anything is opened. None of these asks tmux anything.
func TestRalphCommandsFromTheCommandLine(t *testing.T) {
	root := t.TempDir()
	sd, err := state.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	ld := ralph.DirFor(sd, "x")
	if err := ld.Create(&ralph.State{WorkerName: "x", Status: ralph.StatusStopped}); err != nil {
		t.Fatal(err)
	}
	if err := ld.LogEvent(testTime, "START", "iteration 1/1"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args        []string
		code        int
		out, errOut string
	}{
		{[]string{"ralph", "logs", "x", "-n", "1"}, 0, "[START] iteration 1/1\n", ""},
		{[]string{"ralph", "logs", "x", "--monitor"}, 0, "", ""},
		{[]string{"ralph", "logs", "x", "-n", "-1"}, 1, "", "--lines must not be negative"},
		{[]string{"ralph", "status"}, 1, "", "usage: swarm ralph status NAME"},
		{[]string{"ralph", "status", "x", "--format", "xml"}, 1, "", "invalid --format 'xml'"},
		{[]string{"ralph", "pause"}, 1, "", "usage: swarm ralph pause NAME"},
		{[]string{"ralph", "resume", "x", "--max-iterations", "0"}, 1, "", "--max-iterations must be at least 1"},
		{[]string{"ralph", "ls", "--format", "xml"}, 1, "", "invalid --format 'xml'"},
		{[]string{"ralph", "clean"}, 1, "", "no loop name given (or use --all)"},
		{[]string{"ralph", "clean", "x"}, 0, "cleaned ralph state for x\n", ""},
		{[]string{"ralph", "__monitor", "bad name"}, 1, "", "invalid worker name"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		args := append([]string{"swarm", "--swarm-dir", root, "--tmux-socket", "swarm-unit-test-none"}, c.args...)
		code := Run(args, &out, &errb)
		if code != c.code || !strings.HasSuffix(out.String(), c.out) || !strings.Contains(errb.String(), c.errOut) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, %q, %q", c.args, code, out.String(), errb.String(), c.code, c.out, c.errOut)
		}
	}
}
