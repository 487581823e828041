package ralph

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestRunChecks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "DONE.md"), []byte("x"), 0o644)
	output := filepath.Join(dir, "screen.txt")
	// The prompt's echo names the marker; only the agent's own line counts.
	os.WriteFile(output, []byte("> Print SHIPPED when done\nworking...\nSHIPPED\n"), 0o644)
	script := filepath.Join(dir, "verify.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"checked $SWARM_ITERATION exit=$SWARM_EXIT_CODE in $SWARM_WORK_DIR $(wc -l < $SWARM_AGENT_OUTPUT) lines\"\necho more\nexit 1\n"), 0o755)
	checks := []Check{
		{Spec: "command:test -f DONE.md", Kind: CheckCommand, Arg: "test -f DONE.md"},
		{Spec: "command:echo nope; exit 4", Kind: CheckCommand, Arg: "echo nope; exit 4"},
		{Spec: "file:DONE.md", Kind: CheckFile, Arg: "DONE.md"},
		{Spec: "file:TODO.md", Kind: CheckFile, Arg: "TODO.md"},
		{Spec: "marker:SHIPPED", Kind: CheckMarker, Arg: "SHIPPED"},
		{Spec: "marker:Print", Kind: CheckMarker, Arg: "Print"},
		{Spec: "exit-code", Kind: CheckExitCode},
		{Spec: script, Kind: CheckScript, Arg: script},
	}
	got := RunChecks(checks, CheckContext{WorkDir: dir, Iteration: 3, ExitCode: code(0), OutputFile: output,
		Prompt: "Print SHIPPED when done", Timeout: time.Minute})
	want := []CheckResult{
		{"command:test -f DONE.md", true, "exit 0"},
		{"command:echo nope; exit 4", false, "exit 4: nope"},
		{"file:DONE.md", true, "DONE.md exists"},
		{"file:TODO.md", false, "TODO.md does not exist"},
		{"marker:SHIPPED", true, "found in the iteration's output"},
		{"marker:Print", false, "not found in the iteration's output"},
		{"exit-code", true, "exit code 0"},
		{script, false, "checked 3 exit=0 in " + dir + " 3 lines"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
	if r := RunChecks([]Check{{Spec: "exit-code", Kind: CheckExitCode}}, CheckContext{}); r[0].Passed || r[0].Message != "the agent did not exit by itself" {
		t.Errorf("an agent ended by swarm: %+v", r[0])
	}
	r := RunChecks([]Check{{Spec: "command:sleep 20", Kind: CheckCommand, Arg: "sleep 20"}}, CheckContext{WorkDir: dir, Timeout: 200 * time.Millisecond})
	if r[0].Passed || r[0].Message != "timed out after 200ms" {
		t.Errorf("a hung checker: %+v", r[0])
	}
}
