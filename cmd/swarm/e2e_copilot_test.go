package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// The real GitHub Copilot CLI against the fake's Chat Completions API, through its own
// provider settings (BYOK), offline: it signs in to nothing, fetches no update, sends no
// telemetry and reaches nothing but the fake. swarm gives it its hooks (a plugin of the
// loop's own), so its turn end is its Stop hook and a failed model call its ErrorOccurred.

const (
	copilotModel   = "gpt-4.1"
	fakeCopilotKey = "sk-fake-copilot-0123456789abcdef"
)

// seedCopilotHome trusts the work folder (Copilot asks before it reads one it was not told
// to trust).
func seedCopilotHome(t *testing.T, home, work string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(home, ".copilot", "config.json"), map[string]any{"trustedFolders": []string{real}})
}

func copilotEnv(bins agentBins, apiURL, home string) []string {
	return []string{"HOME=" + home, "COPILOT_HOME=" + filepath.Join(home, ".copilot"),
		"COPILOT_PKG_CACHE_HOME=" + bins.copilotPkg,
		"COPILOT_PROVIDER_BASE_URL=" + apiURL + "/v1", "COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_API_KEY=" + fakeCopilotKey, "COPILOT_MODEL=" + copilotModel,
		"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		// It would take CI for a build machine, as users' terminals are not.
		"CI=", "GITHUB_ACTIONS="}
}

var copilotMakeFile = &fakeapi.ToolUse{Name: "bash", Input: map[string]any{"command": "touch DONE && echo created",
	"description": "Create the DONE file"}}

// onlyCopilotChat fails the test unless every turn went to the Chat Completions API with the
// model the environment names, from Copilot's OpenAI client.
func onlyCopilotChat(t *testing.T, api *fakeapi.Server) {
	t.Helper()
	for _, r := range api.Requests() {
		if r.Call > 0 && (r.API != fakeapi.OpenAIChat || r.Model != copilotModel ||
			!strings.HasPrefix(r.Header.Get("User-Agent"), "OpenAI/JS ")) {
			t.Errorf("a request went to %s %s %q from %q\n%s", r.API, r.Path, r.Model, r.Header.Get("User-Agent"), api.Summary())
			return
		}
	}
}

// A Copilot loop runs the shell through its tool and ends on the done marker, told by its
// own Stop hook: its screen drops the marker's tags (Markdown), its transcript keeps them.
func TestE2ECopilotLoop(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, makeFileRules(copilotMakeFile, false)...)
	seedCopilotHome(t, e.home, e.work)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent events:\n%s", e.loopFile("cp", "box/agent-events.jsonl"))
			t.Logf("iterations:\n%s", e.loopFile("cp", "iterations.log"))
		}
	})
	moreAgentsLoop(t, e, "cp", true, []string{"--inactivity-timeout", "120"}, copilotEnv(bins, api.URL(), e.home), bins.copilot, "--yolo")
	promptedOnce(t, api)
	onlyCopilotChat(t, api)
	events := e.loopFile("cp", "box/agent-events.jsonl")
	if !strings.Contains(events, `"agent":"copilot","event":"Stop"`) || !strings.Contains(events, `Done. \u003cpromise\u003eCOMPLETE`) {
		t.Errorf("no Stop with the last answer from Copilot's hooks:\n%s", events)
	}
}

// An API that fails for good: Copilot retries a 500 five times (15 s), running its
// ErrorOccurred hook at every failed attempt, and then says so. The iteration fails as an API
// error once it gave up, not at its first attempt, and the next one starts after the backoff.
func TestE2ECopilotAPIError(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{Status: 500}})
	seedCopilotHome(t, e.home, e.work)
	e.writeWork("PROMPT.md", "please make the file in this directory.\n")
	args := []string{"spawn", "--name", "cperr", "--ralph", "--prompt-file", "PROMPT.md", "--max-iterations", "3",
		"--max-failures", "2", "--inactivity-timeout", "300"}
	e.must(append(append(append(args, envFlags(copilotEnv(bins, api.URL(), e.home))...), "--"), bins.copilot, "--yolo")...)
	st := e.waitLoop("cperr", 150*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	if st["status"] != "failed" || st["exit_reason"] != "consecutive_failures" || st["current_iteration"] != float64(2) {
		t.Fatalf("loop ended as %v/%v at iteration %v, want failed/consecutive_failures at 2\n%s",
			st["status"], st["exit_reason"], st["current_iteration"], e.dump("cperr"))
	}
	// What the log says of the error is the screen's last word when Copilot has drawn it, else
	// the hook's: either is the API error; that the turn ended at the last attempt is the count.
	expectLog(t, "iterations log", e.loopFile("cperr", "iterations.log"), "[SIGNAL] iteration 1 StopFailure server_error",
		"[API_ERROR] iteration 1 ", "simulated server_error", "[FAIL] iteration 1 exit=api_error",
		"[FAIL] 2 consecutive failures")
	expectLog(t, "monitor log", e.loopFile("cperr", "monitor.log"),
		"iteration 1 failed (exit: api_error), retrying in 1s (attempt 1/2)")
	// Both agents had every attempt: the first failed attempt ended nothing.
	if n := mainCallsWith(api, "please make the file"); n != 12 {
		t.Errorf("the model was asked %d times, want 6 attempts by each of two agents\n%s", n, api.Summary())
	}
	onlyCopilotChat(t, api)
}
