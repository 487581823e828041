package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// The real Qwen Code against the fake's Chat Completions API, in a private HOME with its
// update checks, usage statistics and telemetry off: it reaches nothing but the fake. swarm
// gives it its hooks (a system defaults file of the loop's own), so its turn end is its Stop
// hook and an API error its StopFailure.

const (
	qwenModel   = "qwen3-coder-plus"
	fakeQwenKey = "sk-fake-qwen-0123456789abcdef"
)

// seedQwenHome writes Qwen Code's user settings: the OpenAI-compatible auth (no sign-in
// dialog), a fixed model, no folder trust question, no update checks, no statistics, and one
// retry of a failed request, so that an API error ends a turn in about a minute.
func seedQwenHome(t *testing.T, home string) {
	t.Helper()
	writeJSON(t, filepath.Join(home, ".qwen", "settings.json"), map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "openai"},
			"folderTrust": map[string]any{"enabled": false}},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true, "enableAutoUpdate": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"model":     map[string]any{"name": qwenModel, "generationConfig": map[string]any{"maxRetries": 1}},
	})
}

func qwenEnv(apiURL, home string) []string {
	return []string{"HOME=" + home, "OPENAI_API_KEY=" + fakeQwenKey, "OPENAI_BASE_URL=" + apiURL + "/v1",
		"OPENAI_MODEL=" + qwenModel, "QWEN_CODE_NO_RELAUNCH=1",
		// Like Gemini CLI, it would run headless where CI says so.
		"CI=", "GITHUB_ACTIONS="}
}

var qwenMakeFile = &fakeapi.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": "touch DONE && echo created"}}

// onlyChat fails the test unless every turn went to the Chat Completions API with the model
// the settings name, from Qwen Code itself.
func onlyChat(t *testing.T, api *fakeapi.Server) {
	t.Helper()
	for _, r := range api.Requests() {
		if r.Call > 0 && (r.API != fakeapi.OpenAIChat || r.Model != qwenModel ||
			!strings.HasPrefix(r.Header.Get("User-Agent"), "QwenCode/")) {
			t.Errorf("a request went to %s %s %q from %q\n%s", r.API, r.Path, r.Model, r.Header.Get("User-Agent"), api.Summary())
			return
		}
	}
}

// A Qwen Code loop runs the shell through its tool and ends on the done marker, told by its
// own Stop hook.
func TestE2EQwenLoop(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, makeFileRules(qwenMakeFile, false)...)
	seedQwenHome(t, e.home)
	moreAgentsLoop(t, e, "qw", true, []string{"--inactivity-timeout", "120"}, qwenEnv(api.URL(), e.home), bins.qwen, "--yolo")
	promptedOnce(t, api)
	onlyChat(t, api)
	if events := e.loopFile("qw", "box/agent-events.jsonl"); !strings.Contains(events, `"agent":"qwen","event":"Stop"`) {
		t.Errorf("no Stop from Qwen Code's hooks:\n%s", events)
	}
}

// An API that refuses the request (400): Qwen Code says so and runs its StopFailure hook; the
// iteration fails as an API error and the next one starts after the backoff. (A 500 ends the
// same way, after Qwen Code's own seven retries: three minutes of the suite's time.)
func TestE2EQwenAPIError(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{Status: 400}})
	seedQwenHome(t, e.home)
	e.writeWork("PROMPT.md", "please make the file in this directory.\n")
	args := []string{"spawn", "--name", "qwerr", "--ralph", "--prompt-file", "PROMPT.md", "--max-iterations", "3",
		"--max-failures", "2", "--inactivity-timeout", "300"}
	e.must(append(append(append(args, envFlags(qwenEnv(api.URL(), e.home))...), "--"), bins.qwen, "--yolo")...)
	st := e.waitLoop("qwerr", 300*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	if st["status"] != "failed" || st["exit_reason"] != "consecutive_failures" || st["current_iteration"] != float64(2) {
		t.Fatalf("loop ended as %v/%v at iteration %v, want failed/consecutive_failures at 2\n%s",
			st["status"], st["exit_reason"], st["current_iteration"], e.dump("qwerr"))
	}
	expectLog(t, "iterations log", e.loopFile("qwerr", "iterations.log"), "[SIGNAL] iteration 1 StopFailure ",
		"[API_ERROR] iteration 1 API Error: 400", "[FAIL] iteration 1 exit=api_error", "[FAIL] 2 consecutive failures")
	expectLog(t, "monitor log", e.loopFile("qwerr", "monitor.log"),
		"iteration 1 failed (exit: api_error), retrying in 1s (attempt 1/2)")
	onlyChat(t, api)
}
