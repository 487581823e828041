package swarm

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// What swarm attach writes on standard error while the dashboard has handed it the terminal
// becomes its error, instead of reaching the terminal where the dashboard would draw over it.
func TestDashboardAttachKeepsItsErrorOutput(t *testing.T) {
	x := &attachExec{cmd: exec.Command("sh", "-c", "echo on the screen; echo 'swarm: error: no window' >&2; exit 1")}
	var screen, terminalErr bytes.Buffer
	x.SetStdin(strings.NewReader(""))
	x.SetStdout(&screen)
	x.SetStderr(&terminalErr)
	err := x.Run()
	if err == nil || err.Error() != "no window" {
		t.Errorf("error %v, want %q", err, "no window")
	}
	if screen.String() != "on the screen\n" || terminalErr.Len() != 0 {
		t.Errorf("terminal got %q and on its error output %q", screen.String(), terminalErr.String())
	}
	if err := (&attachExec{cmd: exec.Command("true")}).Run(); err != nil {
		t.Errorf("a command that succeeds: %v", err)
	}
}
