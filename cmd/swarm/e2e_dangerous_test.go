package main

import (
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// dangerousRm is a command Claude Code 2.1.332 asks for though permissions are skipped: rm's
// target is a command's output, which it cannot check (the file does not exist: it would
// remove nothing).
var dangerousRm = &fakeapi.ToolUse{Name: "Bash", Input: map[string]any{
	"command": "rm -rf $(cat swarm-missing-list.txt)", "description": "Remove the listed files"}}

// dangerousLoop starts a loop whose Claude Code, its permissions skipped, is asked by the
// model to run dangerousRm, and then ends on the done marker whatever the answer.
func dangerousLoop(t *testing.T, e *e2eEnv, flags ...string) *fakeapi.Server {
	bins := requireAgents(t)
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Understood. " + doneMarker}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "clean up"}, Times: 1,
			Reply: fakeapi.Reply{Text: "Cleaning up.", ToolUse: dangerousRm}},
	)
	seedClaudeHome(t, e.home, fullySetUp(e.work))
	e.writeWork("PROMPT.md", "please clean up.\n")
	args := append([]string{"spawn", "--name", "d", "--ralph", "--prompt-file", "PROMPT.md", "--max-iterations", "1",
		"--inactivity-timeout", "300"}, flags...)
	args = append(args, envFlags(claudeEnv(api.URL(), e.home))...)
	e.must(append(args, "--", bins.claude, "--dangerously-skip-permissions")...)
	return api
}

// With --on-dangerous no the loop refuses the command itself, through its permission hook:
// the model is told why, the command never runs, and the answer is the loop's own.
func TestE2EClaudeDangerousRefused(t *testing.T) {
	e := newE2EEnv(t)
	api := dangerousLoop(t, e, "--on-dangerous", "no")
	if _, ok := api.WaitFor(90*time.Second, func(r fakeapi.Request) bool {
		return r.LastIsToolResult && strings.Contains(r.LastBlock, "This loop refuses commands")
	}); !ok {
		t.Fatalf("the refusal never reached the model:\n%s", e.dump("d"))
	}
	st := e.waitDone("d", 90*time.Second, 1)
	if st["needs_permission"] != nil {
		t.Errorf("still needs permission: %v", st["needs_permission"])
	}
	events := e.must("events", "--kind", "person", "--worker", "d")
	if !strings.Contains(events, "dangerous command") || !strings.Contains(events, "by swarm") {
		t.Errorf("events:\n%s", events)
	}
	expectLog(t, "monitor log", e.loopFile("d", "monitor.log"), "refused (--on-dangerous no), through its permission hook: Bash(rm -rf $(cat swarm-missing-list.txt))")
}

// By default (--on-dangerous ask) the loop names what is asked and waits for a person, who
// answers it with swarm answer.
func TestE2EClaudeDangerousAsks(t *testing.T) {
	e := newE2EEnv(t)
	api := dangerousLoop(t, e)
	e.waitLoop("d", 90*time.Second, func(st map[string]any) bool {
		s, _ := st["needs_permission"].(string)
		return strings.Contains(s, "rm -rf $(cat swarm-missing-list.txt)) (asked though permissions are skipped)")
	})
	if status := e.must("ralph", "status", "d"); !strings.Contains(status, "Needs a person: dangerous command: Bash(rm -rf $(cat swarm-missing-list.txt)), since") {
		t.Errorf("ralph status:\n%s", status)
	}
	e.must("answer", "d", "no", "--message", "leave them")
	if _, ok := api.WaitFor(60*time.Second, func(r fakeapi.Request) bool {
		return r.LastIsToolResult && strings.Contains(r.LastBlock, "leave them")
	}); !ok {
		t.Fatalf("the person's refusal never reached the model:\n%s", e.dump("d"))
	}
	e.waitDone("d", 90*time.Second, 1)
}
