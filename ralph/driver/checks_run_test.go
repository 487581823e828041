package driver

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
)

func TestRunChecks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "DONE.md"), []byte("x"), 0o644)
	output := filepath.Join(dir, "screen.txt")
	// The prompt's echo names the marker; only the agent's own line counts.
	os.WriteFile(output, []byte("> Print SHIPPED when done\nworking...\nSHIPPED\n"), 0o644)
	script := filepath.Join(dir, "verify.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"checked $SWARM_ITERATION exit=$SWARM_EXIT_CODE in $SWARM_WORK_DIR $(wc -l < $SWARM_AGENT_OUTPUT) lines\"\necho more\nexit 1\n"), 0o755)
	checks := []config.Check{
		{Spec: "command:test -f DONE.md", Kind: config.CheckCommand, Arg: "test -f DONE.md"},
		{Spec: "command:echo nope; exit 4", Kind: config.CheckCommand, Arg: "echo nope; exit 4"},
		{Spec: "file:DONE.md", Kind: config.CheckFile, Arg: "DONE.md"},
		{Spec: "file:TODO.md", Kind: config.CheckFile, Arg: "TODO.md"},
		{Spec: "marker:SHIPPED", Kind: config.CheckMarker, Arg: "SHIPPED"},
		{Spec: "marker:Print", Kind: config.CheckMarker, Arg: "Print"},
		{Spec: "exit-code", Kind: config.CheckExitCode},
		{Spec: script, Kind: config.CheckScript, Arg: script},
	}
	got, _ := RunChecks(context.Background(), checks, CheckContext{WorkDir: dir, Iteration: 3, ExitCode: code(0), OutputFile: output,
		Prompt: "Print SHIPPED when done", Timeout: time.Minute})
	want := []ralph.CheckResult{
		{Name: "command:test -f DONE.md", Passed: true, Message: "exit 0"},
		{Name: "command:echo nope; exit 4", Passed: false, Message: "exit 4: nope"},
		{Name: "file:DONE.md", Passed: true, Message: "DONE.md exists"},
		{Name: "file:TODO.md", Passed: false, Message: "TODO.md does not exist"},
		{Name: "marker:SHIPPED", Passed: true, Message: "found in the iteration's output"},
		{Name: "marker:Print", Passed: false, Message: "not found in the iteration's output"},
		{Name: "exit-code", Passed: true, Message: "exit code 0"},
		{Name: script, Passed: false, Message: "checked 3 exit=0 in " + dir + " 3 lines"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
	if r, _ := RunChecks(context.Background(), []config.Check{{Spec: "exit-code", Kind: config.CheckExitCode}}, CheckContext{}); r[0].Passed || r[0].Message != "the agent did not exit by itself" {
		t.Errorf("an agent ended by swarm: %+v", r[0])
	}
	r, _ := RunChecks(context.Background(), []config.Check{{Spec: "command:sleep 20", Kind: config.CheckCommand, Arg: "sleep 20"}}, CheckContext{WorkDir: dir, Timeout: 200 * time.Millisecond})
	if r[0].Passed || r[0].Message != "timed out after 200ms" {
		t.Errorf("a hung checker: %+v", r[0])
	}
}
