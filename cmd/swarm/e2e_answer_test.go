package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// The real Claude Code in its default permission mode asks to run two shell commands; a person
// answers each with swarm answer, through its PermissionRequest hook that swarm holds: yes lets
// the first run (the model gets its result), no refuses the second with a message the model
// is told, and the command never runs.
func TestE2EClaudeAnswerPermission(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	allowed := &fakeapi.ToolUse{Name: "Bash", Input: map[string]any{
		"command": "touch allowed.txt && echo allowed-ran", "description": "Make allowed.txt"}}
	refused := &fakeapi.ToolUse{Name: "Bash", Input: map[string]any{
		"command": "touch refused.txt && echo refused-ran", "description": "Make refused.txt"}}
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true, LastBlockContains: "allowed-ran"},
			Reply: fakeapi.Reply{Text: "Now the second one.", ToolUse: refused}},
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true, LastBlockContains: "not that one"},
			Reply: fakeapi.Reply{Text: "Understood. " + doneMarker}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "run the two commands"}, Times: 1,
			Reply: fakeapi.Reply{Text: "Running the first.", ToolUse: allowed}},
	)
	seedClaudeHome(t, e.home, claudeSetup{onboarded: true, keyApproved: true, trusted: []string{e.work}})
	// In a container without the internet, as this suite runs, Claude Code lets shell commands
	// run unasked; an ask rule of the project's has it ask, as it does on a person's machine.
	writeJSON(t, filepath.Join(e.work, ".claude", "settings.json"), map[string]any{"permissions": map[string]any{"ask": []string{"Bash"}}})
	e.writeWork("PROMPT.md", "please run the two commands you are given.\nThen reply with "+doneMarker+".\n")
	args := []string{"spawn", "--name", "w", "--ralph", "--prompt-file", "PROMPT.md", "--max-iterations", "1",
		"--inactivity-timeout", "8"}
	// Without IS_SANDBOX=1 (which --dangerously-skip-permissions needs as root), as Claude Code
	// in a sandbox it allows shell commands without asking.
	var env []string
	for _, kv := range claudeEnv(api.URL(), e.home) {
		if !strings.HasPrefix(kv, "IS_SANDBOX=") {
			env = append(env, kv)
		}
	}
	args = append(args, envFlags(env)...)
	e.must(append(args, "--", bins.claude)...)

	needs := func(what string) {
		t.Helper()
		e.waitLoop("w", 90*time.Second, func(st map[string]any) bool {
			s, _ := st["needs_permission"].(string)
			return strings.Contains(s, what)
		})
	}
	needs("allowed-ran")
	// Held past the inactivity timeout: the agent waits in the hook, the loop lets it.
	time.Sleep(12 * time.Second)
	if st := e.loopState("w"); st["current_iteration"] != float64(1) || loopEnded(st) {
		t.Fatalf("the loop did not wait for the answer:\n%s", e.dump("w"))
	}
	if out := e.must("answer", "w", "yes"); !strings.Contains(out, "through its permission hook") {
		t.Errorf("swarm answer: %s", out)
	}
	if _, ok := api.WaitFor(60*time.Second, func(r fakeapi.Request) bool {
		return r.LastIsToolResult && strings.Contains(r.LastBlock, "allowed-ran")
	}); !ok {
		t.Fatalf("the allowed command's result never reached the model:\n%s", e.dump("w"))
	}

	needs("refused-ran")
	if out := e.must("answer", "w", "no", "--message", "not that one, thanks"); !strings.Contains(out, "through its permission hook") {
		t.Errorf("swarm answer: %s", out)
	}
	if _, ok := api.WaitFor(60*time.Second, func(r fakeapi.Request) bool {
		return r.LastIsToolResult && strings.Contains(r.LastBlock, "not that one")
	}); !ok {
		t.Fatalf("the refusal's message never reached the model:\n%s", e.dump("w"))
	}
	st := e.waitLoop("w", 90*time.Second, loopEnded)
	if st["exit_reason"] != "done_pattern" {
		t.Errorf("loop ended as %v, want done_pattern:\n%s", st["exit_reason"], e.dump("w"))
	}
	if _, err := os.Stat(filepath.Join(e.work, "allowed.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.work, "refused.txt")); err == nil {
		t.Error("the refused command ran")
	}
	events := e.must("events", "--kind", "person.answered", "--worker", "w")
	for _, want := range []string{"yes: Bash(touch allowed.txt && echo allowed-ran), by cli",
		`no, "not that one, thanks": Bash(touch refused.txt && echo refused-ran), by cli`} {
		if !strings.Contains(events, want) {
			t.Errorf("events lack %q:\n%s", want, events)
		}
	}
	if n := strings.Count(events, "person.answered"); n != 2 {
		t.Errorf("%d answers, want 2:\n%s", n, events)
	}
}
