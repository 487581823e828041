package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// The real Gemini CLI (against the fake's Gemini API) and the real opencode (against its
// Anthropic API) in ralph loops. Both run in a private HOME with every update check,
// telemetry and package download turned off, so they reach nothing but the fake.

const fakeGeminiKey = "fake-gemini-key-0123456789abcdef"

// seedGeminiHome writes Gemini CLI's user settings: API-key auth, a fixed model (no model
// router), no folder trust question, no update checks, no usage statistics or telemetry.
func seedGeminiHome(t *testing.T, home string) {
	t.Helper()
	writeJSON(t, filepath.Join(home, ".gemini", "settings.json"), map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false}},
		"general": map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true,
			"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"model":     map[string]any{"name": "gemini-2.5-flash"},
	})
}

func geminiEnv(apiURL, home string) []string {
	return []string{"HOME=" + home, "GEMINI_API_KEY=" + fakeGeminiKey, "GOOGLE_GEMINI_BASE_URL=" + apiURL,
		// One node process rather than a relaunched child with a larger heap.
		"GEMINI_CLI_NO_RELAUNCH=1",
		// Gemini CLI runs headless (no input prompt, exit 42) wherever CI=true or
		// GITHUB_ACTIONS=true is set, as it is when CI runs this suite.
		"CI=", "GITHUB_ACTIONS="}
}

// seedOpencodeHome writes opencode's global config: the Anthropic provider at the fake API.
func seedOpencodeHome(t *testing.T, home, apiURL string) {
	t.Helper()
	writeJSON(t, filepath.Join(home, ".config", "opencode", "opencode.json"), map[string]any{
		"model":      "anthropic/claude-sonnet-4-5",
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"anthropic": map[string]any{"options": map[string]any{
			"baseURL": apiURL + "/v1", "apiKey": fakeAPIKey}}},
	})
}

// opencodeEnv keeps opencode off the network: no models.dev catalogue, no update check, no
// LSP downloads, and npm offline, because at start-up it installs its plugin package into
// its config folder from the npm registry.
func opencodeEnv(home string) []string {
	return []string{"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_SHARE=1",
		"npm_config_offline=true", "npm_config_registry=http://127.0.0.1:9/"}
}

// makeFileRules answer the agent whose shell tool is makeFile: asked to make the file, it
// runs the tool; once the tool ran, it answers with the done marker. With hangFirst the
// first request for the file hangs.
func makeFileRules(makeFile *fakeapi.ToolUse, hangFirst bool) []fakeapi.Rule {
	return fileRules(makeFile, hangFirst, doneMarker)
}

// fileRules is makeFileRules with the model ending the task by done.
func fileRules(makeFile *fakeapi.ToolUse, hangFirst bool, done string) []fakeapi.Rule {
	rules := []fakeapi.Rule{
		{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + done}},
		// opencode titles the session with the plain text of a tool-less request.
		{When: fakeapi.Match{Side: true}, Reply: fakeapi.Reply{Text: "Make the file"}},
	}
	if hangFirst {
		rules = append(rules, fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1,
			Reply: fakeapi.Reply{Hang: true}})
	}
	return append(rules, fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"},
		Reply: fakeapi.Reply{ToolUse: makeFile}})
}

var (
	geminiMakeFile   = &fakeapi.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": "touch DONE && echo created"}}
	opencodeMakeFile = &fakeapi.ToolUse{Name: "bash", Input: map[string]any{"command": "touch DONE && echo created",
		"description": "Create the DONE file"}}
)

// moreAgentsLoop starts a loop asking the agent to make DONE, waits for its done marker to
// end it and returns the iteration that did. With exact set that must be iteration 1.
func moreAgentsLoop(t *testing.T, e *e2eEnv, name string, exact bool, flags, env []string, argv ...string) int {
	t.Helper()
	prompt := "please make the file in this directory, then reply with " + doneMarker + ".\n"
	e.writeWork("PROMPT.md", prompt)
	args := []string{"spawn", "--name", name, "--ralph", "--prompt-file", "PROMPT.md", "--max-iterations", "3",
		"--done-pattern", doneMarker}
	args = append(append(args, flags...), envFlags(env)...)
	e.must(append(append(args, "--"), argv...)...)
	st := e.waitLoop(name, 150*time.Second, loopEnded)
	n, _ := st["current_iteration"].(float64)
	if st["status"] != "stopped" || st["exit_reason"] != "done_pattern" || exact && n != 1 {
		t.Fatalf("loop ended as %v/%v at iteration %v\n%s", st["status"], st["exit_reason"], n, e.dump(name))
	}
	e.waitMonitorGone(name)
	if _, err := os.Stat(filepath.Join(e.work, "DONE")); err != nil {
		t.Fatalf("the agent did not make the file: %v\n%s", err, e.dump(name))
	}
	expectLog(t, "monitor log", e.loopFile(name, "monitor.log"), "starting iteration 1/3", "done pattern matched, stopping loop")
	expectNoExtraEnter(t, e.loopFile(name, "iterations.log"))
	return int(n)
}

// promptedOnce fails the test unless the prompt reached the model in exactly one turn.
func promptedOnce(t *testing.T, api *fakeapi.Server) {
	t.Helper()
	if n := mainCallsWith(api, "please make the file in this directory"); n != 1 {
		t.Errorf("the model got the prompt in %d turns, want 1\n%s", n, api.Summary())
	}
}

func TestE2EGeminiLoop(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, makeFileRules(geminiMakeFile, false)...)
	seedGeminiHome(t, e.home)
	moreAgentsLoop(t, e, "gm", true, nil, geminiEnv(api.URL(), e.home), bins.gemini, "--yolo")
	promptedOnce(t, api)
	for _, r := range api.Requests() {
		if r.MainCall > 0 && (r.API != fakeapi.Gemini || r.Model != "gemini-2.5-flash") {
			t.Errorf("a turn went to %s %s %q", r.API, r.Path, r.Model)
		}
	}
	endedBySignal(t, e, "gm", "gemini")
}

// endedBySignal fails the test unless the agent told its turn's end by its own Stop signal.
func endedBySignal(t *testing.T, e *e2eEnv, name, agent string) {
	t.Helper()
	if events := e.loopFile(name, "box/agent-events.jsonl"); !strings.Contains(events, `"agent":"`+agent+`","event":"Stop"`) {
		t.Errorf("no Stop from the agent's own signals:\n%s", events)
	}
}

func TestE2EOpencodeLoop(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, makeFileRules(opencodeMakeFile, false)...)
	seedOpencodeHome(t, e.home, api.URL())
	moreAgentsLoop(t, e, "oc", true, nil, opencodeEnv(e.home), bins.opencode)
	promptedOnce(t, api)
	if reqs := api.Requests(); len(reqs) == 0 || !strings.HasPrefix(reqs[0].Header.Get("User-Agent"), "opencode/") {
		t.Errorf("the requests did not come from opencode:\n%s", api.Summary())
	}
	endedBySignal(t, e, "oc", "opencode")
}

// hangFlags let the Regent end an agent whose screen shows no progress for 15 s.
var hangFlags = []string{"--inactivity-timeout", "120", "--hang-timeout", "15"}

// expectHung checks that the iteration before the one that finished (n) was ended as hung,
// on a screen that showed the agent working. Under a loaded machine an agent may be slow
// enough to start that an earlier iteration ends too, so n may be 2 or 3.
func expectHung(t *testing.T, e *e2eEnv, name string, n int, working string) {
	t.Helper()
	if n < 2 {
		t.Fatalf("the loop finished in iteration %d, before any hang\n%s", n, e.dump(name))
	}
	expectLog(t, "monitor log", e.loopFile(name, "monitor.log"), "Regent: agent hung (no progress on screen for 15s)",
		fmt.Sprintf("iteration %d failed (exit: hung)", n-1), fmt.Sprintf("starting iteration %d/3", n))
	if screen := e.loopFile(name, fmt.Sprintf("screens/iteration-%d.txt", n-1)); !strings.Contains(screen, working) {
		t.Errorf("iteration %d screen does not show the agent working (%q):\n%s", n-1, working, screen)
	}
}

// Gemini CLI's spinner line rotates its phrases and ticks its seconds while the API hangs;
// the Regent ends it after the hang timeout and the next iteration finishes.
func TestE2EGeminiHang(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, makeFileRules(geminiMakeFile, true)...)
	seedGeminiHome(t, e.home)
	n := moreAgentsLoop(t, e, "gmhang", false, hangFlags, geminiEnv(api.URL(), e.home), bins.gemini, "--yolo")
	expectHung(t, e, "gmhang", n, "esc to cancel")
}

// opencode's progress bar runs while the API hangs; the same.
func TestE2EOpencodeHang(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, makeFileRules(opencodeMakeFile, true)...)
	seedOpencodeHome(t, e.home, api.URL())
	n := moreAgentsLoop(t, e, "ochang", false, hangFlags, opencodeEnv(e.home), bins.opencode)
	expectHung(t, e, "ochang", n, "esc interrupt")
}
