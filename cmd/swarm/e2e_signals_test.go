package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// The agents' own signals, from the real Claude Code (its hooks) and Codex (its notify
// program), against the fake APIs: what they report drives the loop, the screen is the
// fallback.

// claudeSignalLoop starts a loop of the real Claude Code like claudeLoop, with the user's own
// settings.json holding a Stop hook of theirs (it appends to ~/.claude/user-hooks.log: with
// bypass the agent runs sandboxed, where its own directory is what it may write of the home)
// and the given extra environment; bypass runs it with --dangerously-skip-permissions. It returns the
// user's settings as written.
func claudeSignalLoop(t *testing.T, e *e2eEnv, api *fakeapi.Server, name, prompt string, env []string, bypass bool, flags ...string) []byte {
	t.Helper()
	bins := requireAgents(t)
	seedClaudeHome(t, e.home, fullySetUp(e.work))
	userHook := map[string]any{"type": "command", "command": `sleep 2; echo "$(date +%s) Stop" >> "$HOME/.claude/user-hooks.log"`}
	user := map[string]any{
		"skipDangerousModePermissionPrompt": true,
		"hooks":                             map[string]any{"Stop": []any{map[string]any{"hooks": []any{userHook}}}},
	}
	if !bypass {
		// Asked for wherever it runs (in a container it may run shell commands unasked).
		user["permissions"] = map[string]any{"ask": []string{"Bash"}}
	}
	writeJSON(t, filepath.Join(e.home, ".claude", "settings.json"), user)
	settings, err := os.ReadFile(filepath.Join(e.home, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	e.writeWork("PROMPT.md", prompt)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("iterations log:\n%s\nthe agent's events:\n%s", e.loopFile(name, "iterations.log"), e.loopFile(name, "box/agent-events.jsonl"))
		}
	})
	args := append([]string{"spawn", "--name", name, "--ralph", "--prompt-file", "PROMPT.md"}, flags...)
	var base []string
	for _, kv := range claudeEnv(api.URL(), e.home) {
		// IS_SANDBOX lets --dangerously-skip-permissions run as root; without it, the agent
		// asks for permissions as anywhere.
		if bypass || kv != "IS_SANDBOX=1" {
			base = append(base, kv)
		}
	}
	if !bypass {
		base = append(base, "IS_SANDBOX=") // not even from the environment the tests run in
	}
	args = append(args, envFlags(append(base, env...))...)
	args = append(args, "--", bins.claude)
	if bypass {
		args = append(args, "--dangerously-skip-permissions")
	}
	e.must(args...)
	return settings
}

// Iteration 1's model answers without doing the task: Claude Code's Stop hook ends the
// iteration at once (the inactivity timeout is two minutes). Iteration 2 finishes. The user's
// own Stop hook ran at each turn's end, and their settings file is as it was.
func TestE2EClaudeSignalTurnEnd(t *testing.T) {
	requireAgentsAlone(t)
	e := newE2EEnv(t)
	api, prompt := idleThenMakeFile(t)
	settings := claudeSignalLoop(t, e, api, "sig", prompt, nil, true, "--max-iterations", "4", "--inactivity-timeout", "120")
	e.waitDone("sig", 90*time.Second, 2)
	iterations := e.loopFile("sig", "iterations.log")
	expectLog(t, "iterations log", iterations, "[TURN] iteration 1 turn ended without the done marker (the agent's Stop signal)",
		"[START] iteration 2/4", "[DONE] iteration 2")
	expectLog(t, "monitor log", e.loopFile("sig", "monitor.log"), "the agent's turn ended without the done marker, restarting")
	if strings.Contains(iterations, "[RETRY]") || strings.Contains(iterations, "inactivity") {
		t.Errorf("the loop did not go by the agent's signals:\n%s", iterations)
	}
	events := e.loopFile("sig", "box/agent-events.jsonl")
	for _, ev := range []string{`"event":"SessionStart"`, `"event":"UserPromptSubmit"`} {
		if !strings.Contains(events, ev) {
			t.Errorf("iteration 2's agent did not report %s:\n%s", ev, events)
		}
	}
	hooks, _ := os.ReadFile(filepath.Join(e.home, ".claude", "user-hooks.log"))
	if n := strings.Count(string(hooks), " Stop\n"); n < 2 {
		t.Errorf("the user's own Stop hook ran %d times, want one per turn (2 at least):\n%s", n, hooks)
	}
	now, _ := os.ReadFile(filepath.Join(e.home, ".claude", "settings.json"))
	if string(now) != string(settings) {
		t.Errorf("the user's settings changed:\n%s\nwas:\n%s", now, settings)
	}
}

// A turn that an API error ends (StopFailure) fails the iteration, with Claude Code's own
// word on the error; a 429 rate limit (StopFailure rate_limit) parks the loop as a usage
// limit does, and the next iteration finishes.
func TestE2EClaudeSignalStopFailure(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		finishOnToolResult,
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "break the server"}, Reply: fakeapi.Reply{Status: 500}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1, Reply: fakeapi.Reply{Status: 429}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"},
			Reply: fakeapi.Reply{Text: "Creating it now.", ToolUse: makeFileTool}},
	)
	retries := []string{"CLAUDE_CODE_MAX_RETRIES=0"}
	claudeSignalLoop(t, e, api, "err", "please break the server.\n", retries, true, "--max-iterations", "1", "--inactivity-timeout", "120")
	st := e.waitLoop("err", 60*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	iterations := e.loopFile("err", "iterations.log")
	expectLog(t, "iterations log", iterations, "[SIGNAL] iteration 1 StopFailure ", "[API_ERROR] iteration 1 API Error",
		"[FAIL] iteration 1 exit=api_error")
	if st["total_failures"] != float64(1) {
		t.Errorf("failures: %v\n%s", st["total_failures"], e.dump("err"))
	}

	e2 := newE2EEnv(t)
	claudeSignalLoop(t, e2, api, "lim", "please make the file in this directory, then reply with "+doneMarker+".\n", retries, true,
		"--max-iterations", "3", "--inactivity-timeout", "120", "--limit-wait", "3", "--limit-margin", "1")
	e2.waitLoop("lim", 60*time.Second, func(st map[string]any) bool { return st["status"] == "waiting" })
	st = e2.waitDone("lim", 90*time.Second, 2)
	expectLog(t, "iterations log", e2.loopFile("lim", "iterations.log"), "[SIGNAL] iteration 1 StopFailure rate_limit",
		"[LIMIT] iteration 1 ", "[RESUME] usage limit reset", "[START] iteration 2/3")
	if st["total_failures"] != float64(0) {
		t.Errorf("failures counted: %v", st["total_failures"])
	}
}

// Without --dangerously-skip-permissions the model's shell command needs a permission: Claude
// Code's hooks name it in the loop's status and notify; answered with swarm answer (through
// the PermissionRequest hook that holds it), the turn goes on and finishes.
func TestE2EClaudeSignalPermission(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		finishOnToolResult,
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"},
			Reply: fakeapi.Reply{Text: "Creating it now.", ToolUse: &fakeapi.ToolUse{Name: "Bash", Input: map[string]any{
				"command": "rm -rf ./build && touch DONE && echo created", "description": "Clean and create DONE"}}}},
	)
	notified := filepath.Join(e.home, "notified.log")
	claudeSignalLoop(t, e, api, "perm", "please make the file in this directory (ask for permission), then reply with "+doneMarker+".\n", nil, false,
		"--max-iterations", "2", "--inactivity-timeout", "120",
		"--notify", `command=echo "$SWARM_EVENT: $SWARM_REASON" >> `+notified)
	st := e.waitLoop("perm", 60*time.Second, func(st map[string]any) bool { return st["needs_permission"] != nil })
	if !strings.Contains(st["needs_permission"].(string), "permission") {
		t.Errorf("needs permission: %v", st["needs_permission"])
	}
	if status := e.must("ralph", "status", "perm"); !strings.Contains(status, "Needs permission: ") {
		t.Errorf("ralph status:\n%s", status)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		data, _ := os.ReadFile(notified)
		if strings.Contains(string(data), "permission: agent needs permission") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no permission notification:\n%s", data)
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.must("answer", "perm", "yes")
	e.waitDone("perm", 60*time.Second, 1)
	if _, err := os.Stat(filepath.Join(e.work, "DONE")); err != nil {
		t.Errorf("the permitted command did not run: %v", err)
	}
}

// Codex's notify program tells the end of a turn without the marker: the iteration ends at
// once, and the next one finishes.
func TestE2ECodexSignalTurnEnd(t *testing.T) {
	requireAgentsAlone(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + doneMarker}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1,
			Reply: fakeapi.Reply{Text: "I looked around; I will make it next time."}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{ToolUse: codexMakeFile}},
	)
	codexLoop(t, e, api, "cxs", "please make the file in this directory, then reply with "+doneMarker+".\n",
		"--max-iterations", "3", "--inactivity-timeout", "120", "--done-pattern", doneMarker)
	e.waitDone("cxs", 90*time.Second, 2)
	expectLog(t, "iterations log", e.loopFile("cxs", "iterations.log"),
		"[TURN] iteration 1 turn ended without the done marker (the agent's Stop signal)", "[START] iteration 2/3")
	if events := e.loopFile("cxs", "box/agent-events.jsonl"); !strings.Contains(events, `"agent":"codex","event":"Stop"`) {
		t.Errorf("events: %s", events)
	}
}
