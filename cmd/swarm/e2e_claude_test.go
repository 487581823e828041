package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// The real Claude Code TUI in ralph loops and plain workers, against the fake Messages API.

const doneMarker = "<promise>COMPLETE</promise>"

// makeFileTool is the tool call that does the loop's task: it creates DONE in the work dir.
var makeFileTool = &fakeapi.ToolUse{Name: "Bash", Input: map[string]any{
	"command": "touch DONE && echo created", "description": "Create DONE file"}}

// finishOnToolResult answers the tool's result with the done marker.
var finishOnToolResult = fakeapi.Rule{When: fakeapi.Match{ToolResult: true},
	Reply: fakeapi.Reply{Text: "Done. " + doneMarker}}

// idleThenMakeFile is a model that answers the first "make the file" without doing it (the
// turn ends without the done marker) and does it the next time, with the prompt that asks for
// it: iteration 1 idles, iteration 2 finishes.
func idleThenMakeFile(t *testing.T) (*fakeapi.Server, string) {
	api := fakeapi.Start(t,
		finishOnToolResult,
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1,
			Reply: fakeapi.Reply{Text: "I looked around; I will make it next time."}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"},
			Reply: fakeapi.Reply{Text: "Creating it now.", ToolUse: makeFileTool}},
	)
	return api, "please make the file in this directory.\nWhen it exists, reply with " + doneMarker + " and nothing else.\n"
}

// claudeLoop starts a ralph loop of the real Claude Code against api, with a HOME set up as
// setup says, PROMPT.md holding prompt, and the given loop flags.
func claudeLoop(t *testing.T, e *e2eEnv, api *fakeapi.Server, setup claudeSetup, name, prompt string, flags ...string) string {
	t.Helper()
	bins := requireAgents(t)
	seedClaudeHome(t, e.home, setup)
	e.writeWork("PROMPT.md", prompt)
	args := append([]string{"spawn", "--name", name, "--ralph", "--prompt-file", "PROMPT.md"}, flags...)
	args = append(args, envFlags(claudeEnv(api.URL(), e.home))...)
	args = append(args, "--", bins.claude, "--dangerously-skip-permissions")
	return e.must(args...)
}

// mainCallsWith counts the agent's real turns whose newest user text contains s.
func mainCallsWith(api *fakeapi.Server, s string) int {
	n := 0
	for _, r := range api.Requests() {
		if r.MainCall > 0 && strings.Contains(r.LastBlock, s) {
			n++
		}
	}
	return n
}

// Iteration 1: the model answers without doing the task, the agent idles and the loop
// restarts it on inactivity (read from the screen alone: its own Stop signal would end the
// iteration at once, see TestE2EClaudeSignalTurnEnd). Iteration 2: it runs a tool and prints the done marker. The
// prompt contains the marker too, which must not stop the loop early.
func TestE2EClaudeLoop(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	api, prompt := idleThenMakeFile(t)
	out := claudeLoop(t, e, api, fullySetUp(e.work), "lab", prompt,
		"--max-iterations", "4", "--inactivity-timeout", "6", "--done-pattern", doneMarker, "--no-agent-signals")
	if !strings.Contains(out, "[ralph mode: iteration 1/4]") {
		t.Fatalf("spawn output: %s", out)
	}
	e.waitDone("lab", 150*time.Second, 2)
	if _, err := os.Stat(filepath.Join(e.work, "DONE")); err != nil {
		t.Fatalf("the agent did not make the file: %v\n%s", err, e.dump("lab"))
	}
	if n := mainCallsWith(api, "please make the file in this directory.\nWhen it exists"); n != 2 {
		t.Errorf("the model got the prompt in %d turns, want 2 (one per iteration)", n)
	}
	expectLog(t, "monitor log", e.loopFile("lab", "monitor.log"), "starting iteration 1/4",
		"inactivity timeout (6s), restarting", "starting iteration 2/4", "done pattern matched, stopping loop")
	// Each prompt was submitted by its first Enter, or by another on the prompt left in the input.
	expectNoExtraEnter(t, e.loopFile("lab", "iterations.log"))
	// The finished agent is ended, not left idling. (The loop records that it is done first,
	// then ends the agent, which takes Claude Code a moment.)
	e.waitWorkerStopped("lab", 15*time.Second)
}

// A HOME that has not been through Claude Code's first run stops it at a dialog. The loop
// names the dialog in its status and log, never types the prompt into it, and gives up on the
// iteration after the ready timeout.
func TestE2EClaudeFirstRunDialogs(t *testing.T) {
	requireAgents(t)
	cases := []struct {
		dialog string
		setup  func(work string) claudeSetup
	}{
		{"theme", func(string) claudeSetup { return claudeSetup{keyApproved: true} }},
		{"trust-folder", func(string) claudeSetup {
			return claudeSetup{onboarded: true, keyApproved: true, bypassAccepted: true}
		}},
		{"bypass-permissions", func(work string) claudeSetup {
			return claudeSetup{onboarded: true, keyApproved: true, trusted: []string{work}}
		}},
		{"api-key", func(work string) claudeSetup {
			return claudeSetup{onboarded: true, bypassAccepted: true, trusted: []string{work}}
		}},
	}
	for _, c := range cases {
		t.Run(c.dialog, func(t *testing.T) {
			e := newE2EEnv(t)
			api := fakeapi.Start(t)
			claudeLoop(t, e, api, c.setup(e.work), "dlg", "zebra-crossing task: say hello\n",
				"--max-iterations", "1", "--ready-timeout", "12")
			e.waitLoop("dlg", 60*time.Second, func(st map[string]any) bool { return st["blocked_by"] == c.dialog })
			status := e.must("ralph", "status", "dlg")
			if !strings.Contains(status, "Blocked by: the "+c.dialog+" dialog") {
				t.Errorf("ralph status does not name the %s dialog:\n%s", c.dialog, status)
			}
			// Its only iteration failed: the loop failed.
			st := e.waitLoop("dlg", 60*time.Second, loopEnded)
			if st["status"] != "failed" || st["exit_reason"] != "all_iterations_failed" {
				t.Errorf("loop ended as %v/%v, want failed/all_iterations_failed", st["status"], st["exit_reason"])
			}
			expectLog(t, "monitor log", e.loopFile("dlg", "monitor.log"), "agent is waiting at the "+c.dialog+" dialog")
			expectLog(t, "iterations log", e.loopFile("dlg", "iterations.log"), "[BLOCKED] iteration 1 dialog="+c.dialog)
			if n := mainCallsWith(api, "zebra-crossing"); n != 0 {
				t.Errorf("the prompt reached the model %d times through a dialog", n)
			}
			if screen := e.loopFile("dlg", "screens/iteration-1.txt"); strings.Contains(screen, "zebra-crossing") {
				t.Errorf("the prompt was typed into the %s dialog:\n%s", c.dialog, screen)
			}
		})
	}
}

// The first request hangs: Claude Code shows its spinner and a ticking clock forever. The
// Regent must see through the animation, end the agent after the hang timeout and restart;
// the second iteration gets an answer and finishes.
func TestE2EClaudeHang(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		finishOnToolResult,
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1,
			Reply: fakeapi.Reply{Hang: true}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"},
			Reply: fakeapi.Reply{Text: "Creating it now.", ToolUse: makeFileTool}},
	)
	prompt := "please make the file in this directory, then reply with " + doneMarker + ".\n"
	claudeLoop(t, e, api, fullySetUp(e.work), "hang", prompt, "--max-iterations", "3",
		"--inactivity-timeout", "120", "--hang-timeout", "15", "--done-pattern", doneMarker)
	e.waitDone("hang", 150*time.Second, 2)
	expectLog(t, "monitor log", e.loopFile("hang", "monitor.log"),
		"Regent: agent hung (no progress on screen for 15s)", "iteration 1 failed (exit: hung)",
		"starting iteration 2/3", "done pattern matched")
	// What the hung agent showed: a spinner that kept animating.
	if screen := e.loopFile("hang", "screens/iteration-1.txt"); !strings.Contains(screen, "…") {
		t.Errorf("iteration 1 screen shows no spinner:\n%s", screen)
	}
}

// Iteration 1: the model claims to be done without doing the task. The command checker finds
// no file, so the claim is not believed and the loop goes on; iteration 2 makes the file and
// the checker agrees: the loop ends complete. Every answer reports a large usage, so the
// loop's cost, read from Claude Code's own transcripts, can be checked against the API's.
func TestE2EClaudeLoopEndedByAChecker(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	use := &fakeapi.Usage{Input: 100000, Output: 20000, CacheRead: 50000, CacheWrite: 10000}
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + doneMarker, Usage: use}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1,
			Reply: fakeapi.Reply{Text: "All finished. " + doneMarker, Usage: use}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"},
			Reply: fakeapi.Reply{Text: "Creating it now.", ToolUse: makeFileTool, Usage: use}},
	)
	prompt := "please make the file in this directory, then reply with " + doneMarker + ".\n"
	claudeLoop(t, e, api, fullySetUp(e.work), "chk", prompt, "--max-iterations", "4",
		"--inactivity-timeout", "60", "--check", "command:test -f DONE")
	st := e.waitLoop("chk", 150*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	if st["status"] != "stopped" || st["exit_reason"] != "complete" || st["current_iteration"] != float64(2) {
		t.Fatalf("loop ended as %v/%v at iteration %v, want stopped/complete at 2\n%s",
			st["status"], st["exit_reason"], st["current_iteration"], e.dump("chk"))
	}
	expectLog(t, "iterations log", e.loopFile("chk", "iterations.log"),
		"[CHECK] iteration 1 command:test -f DONE failed: exit 1", "[COMPLETE] iteration 2 1 check passed (signals: marker)")
	records := strings.Split(strings.TrimSpace(e.loopFile("chk", "iterations.jsonl")), "\n")
	if len(records) != 2 || !strings.Contains(records[1], `"checks":[{"name":"command:test -f DONE","passed":true`) {
		t.Errorf("iterations.jsonl:\n%s", strings.Join(records, "\n"))
	}
	if summary := e.must("ralph", "summary", "chk"); !strings.Contains(summary, "- **Status:** done (complete)") {
		t.Errorf("summary:\n%s", summary)
	}
	// The agent's turns at the Opus price (the default model, or its family's for one newer
	// than swarm's table): $5/$25 per million in/out, $0.50 cache read,
	// $6.25 cache write.
	calls := 0
	for _, r := range api.Requests() {
		if r.MainCall > 0 {
			calls++
		}
	}
	want := float64(calls) * (100000*5 + 20000*25 + 50000*0.5 + 10000*6.25) / 1e6
	if got, _ := st["cost_usd"].(float64); calls < 3 || math.Abs(got-want) > 0.01 {
		t.Errorf("the loop cost $%.4f by swarm's count, $%.4f by the API's (%d calls)\n%s", got, want, calls, e.dump("chk"))
	}
}

// The API is overloaded for good: Claude Code gives up (after one retry, to keep the test
// short) and waits at "API Error: 529". Each iteration ends as a failure with the usual
// backoff, and the failure limit fails the loop: it is never reported complete.
func TestE2EClaudeAPIErrorStorm(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{Status: 529}})
	claudeLoop(t, e, api, fullySetUp(e.work), "storm", "please make the file in this directory.\n",
		"--max-iterations", "4", "--max-failures", "2", "--env", "CLAUDE_CODE_MAX_RETRIES=1")
	st := e.waitLoop("storm", 120*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	if st["status"] != "failed" || st["exit_reason"] != "consecutive_failures" || st["current_iteration"] != float64(2) {
		t.Fatalf("loop ended as %v/%v at iteration %v, want failed/consecutive_failures at 2\n%s",
			st["status"], st["exit_reason"], st["current_iteration"], e.dump("storm"))
	}
	expectLog(t, "iterations log", e.loopFile("storm", "iterations.log"), "[API_ERROR] iteration 1 API Error: 529",
		"[FAIL] iteration 1 exit=api_error", "[API_ERROR] iteration 2 API Error: 529", "[FAIL] 2 consecutive failures")
	monitor := e.loopFile("storm", "monitor.log")
	expectLog(t, "monitor log", monitor, "iteration 1 failed (exit: api_error), retrying in 1s (attempt 1/2)")
	for _, done := range []string{"completion verified", "done pattern matched", "max iterations (4) reached"} {
		if strings.Contains(monitor, done) {
			t.Errorf("a loop of failures reported %q:\n%s", done, monitor)
		}
	}
}

// Claude Code signed in with a subscription (an OAuth token) gets a 429 that says the
// five-hour limit is spent and resets within the minute or the next: it shows "You've hit your session limit ·
// resets ..." and its limit menu. The loop parks as waiting, counts no failure, and after
// the reset (and a one-second margin) runs the next iteration, which finishes.
func TestE2EClaudeUsageLimitParksAndResumes(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	// Claude Code shows the reset to the minute and swarm takes the end of that minute: a
	// reset at second 59 keeps the wait close to the reset itself (10 to 70 s ahead).
	reset := time.Now().Truncate(time.Minute).Add(59 * time.Second)
	if time.Until(reset) < 10*time.Second {
		reset = reset.Add(time.Minute)
	}
	api := fakeapi.Start(t,
		finishOnToolResult,
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1,
			Reply: fakeapi.Reply{Status: 429, Headers: map[string]string{
				"anthropic-ratelimit-unified-status":               "rejected",
				"anthropic-ratelimit-unified-reset":                fmt.Sprint(reset.Unix()),
				"anthropic-ratelimit-unified-representative-claim": "five_hour"}}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"},
			Reply: fakeapi.Reply{Text: "Creating it now.", ToolUse: makeFileTool}},
	)
	bins := requireAgents(t)
	seedClaudeHome(t, e.home, fullySetUp(e.work))
	e.writeWork("PROMPT.md", "please make the file in this directory, then reply with "+doneMarker+".\n")
	var env []string
	for _, kv := range claudeEnv(api.URL(), e.home) {
		if !strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") {
			env = append(env, kv)
		}
	}
	env = append(env, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-fake-subscription-token", "CLAUDE_CODE_MAX_RETRIES=0", "TZ=Europe/Berlin")
	args := append([]string{"spawn", "--name", "lim", "--ralph", "--prompt-file", "PROMPT.md", "--max-iterations", "3",
		"--limit-margin", "1"}, envFlags(env)...)
	e.must(append(args, "--", bins.claude, "--dangerously-skip-permissions")...)
	e.waitLoop("lim", 60*time.Second, func(st map[string]any) bool { return st["status"] == "waiting" })
	status := e.must("ralph", "status", "lim")
	// 2.1.197: "You've hit your session limit · resets 9:41pm (Europe/Berlin)" under the
	// prompt; 2.1.332: "Usage limit reached · limit resets 9:41pm" in the footer, and its
	// StopFailure's own words, "You've hit your 5-hour limit · resets 9:41pm (Europe/Berlin)".
	limitRe := regexp.MustCompile(`Limit: (?:You've hit your (?:session|[0-9]+-hour|weekly) limit|Usage limit reached) · (?:limit )?resets`)
	if !strings.Contains(status, "Waiting: usage limit, resets ") || !limitRe.MatchString(status) {
		t.Errorf("ralph status while waiting:\n%s", status)
	}
	st := e.waitLoop("lim", 150*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	if st["status"] != "stopped" || st["exit_reason"] != "done_pattern" || st["current_iteration"] != float64(2) {
		t.Fatalf("loop ended as %v/%v at iteration %v, want stopped/done_pattern at 2\n%s",
			st["status"], st["exit_reason"], st["current_iteration"], e.dump("lim"))
	}
	if st["total_failures"] != float64(0) {
		t.Errorf("failures counted: %v", st["total_failures"])
	}
	if time.Now().Before(reset) {
		t.Errorf("resumed before the reset at %v", reset)
	}
	expectLog(t, "iterations log", e.loopFile("lim", "iterations.log"), "[LIMIT] iteration 1 ",
		"[RESUME] usage limit reset", "[START] iteration 2/3")
}
