package main

import (
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// Gemini CLI's and opencode's own signals: swarm gives Gemini CLI its hooks (a system
// defaults file of the loop's own) and opencode a plugin (named in its inline
// configuration), so a turn's end is the agent's word, read at once, where the screen alone
// waits out the inactivity timeout.

// signalAgent is how a test starts one agent against the fake API.
type signalAgent struct {
	name string // as the log says it
	seed func(t *testing.T, e *e2eEnv, apiURL string)
	env  func(e *e2eEnv, bins agentBins, apiURL string) []string
	argv func(bins agentBins) []string
	tool *fakeapi.ToolUse
	// done is the marker its model ends the task with ("": doneMarker); one the agent's screen
	// shows as written, where its screen drops the tags of doneMarker.
	done string
}

var (
	geminiAgent = signalAgent{name: "Gemini CLI",
		seed: func(t *testing.T, e *e2eEnv, _ string) { seedGeminiHome(t, e.home) },
		env:  func(e *e2eEnv, _ agentBins, apiURL string) []string { return geminiEnv(apiURL, e.home) },
		argv: func(b agentBins) []string { return []string{b.gemini, "--yolo"} }, tool: geminiMakeFile}
	opencodeAgent = signalAgent{name: "opencode",
		seed: func(t *testing.T, e *e2eEnv, apiURL string) { seedOpencodeHome(t, e.home, apiURL) },
		env:  func(e *e2eEnv, _ agentBins, _ string) []string { return opencodeEnv(e.home) },
		argv: func(b agentBins) []string { return []string{b.opencode} }, tool: opencodeMakeFile}
	qwenAgent = signalAgent{name: "Qwen Code",
		seed: func(t *testing.T, e *e2eEnv, _ string) { seedQwenHome(t, e.home) },
		env:  func(e *e2eEnv, _ agentBins, apiURL string) []string { return qwenEnv(apiURL, e.home) },
		argv: func(b agentBins) []string { return []string{b.qwen, "--yolo"} }, tool: qwenMakeFile}
	copilotAgent = signalAgent{name: "Copilot CLI",
		seed: func(t *testing.T, e *e2eEnv, _ string) { seedCopilotHome(t, e.home, e.work) },
		env:  func(e *e2eEnv, b agentBins, apiURL string) []string { return copilotEnv(b, apiURL, e.home) },
		argv: func(b agentBins) []string { return []string{b.copilot, "--yolo"} }, tool: copilotMakeFile,
		done: "RALPH_STATUS: COMPLETE"}
)

// doneWord is the marker the agent's model ends the task with.
func (a signalAgent) doneWord() string {
	if a.done == "" {
		return doneMarker
	}
	return a.done
}

// spawnLoop starts a loop of the agent named name on prompt, with flags.
func (a signalAgent) spawnLoop(t *testing.T, e *e2eEnv, api *fakeapi.Server, bins agentBins, name, prompt string, flags ...string) {
	t.Helper()
	a.seed(t, e, api.URL())
	e.writeWork("PROMPT.md", prompt)
	args := append([]string{"spawn", "--name", name, "--ralph", "--prompt-file", "PROMPT.md"}, flags...)
	e.must(append(append(append(args, envFlags(a.env(e, bins, api.URL()))...), "--"), a.argv(bins)...)...)
}

// apiErrorFails checks that an API that refuses the request (400) fails the iteration as an
// API error, the next one starting after the backoff: the agent gives up on a refused
// request at once, where a 500 is retried for minutes.
func apiErrorFails(t *testing.T, a signalAgent, signal string) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, fakeapi.Rule{When: fakeapi.Match{Side: true}, Reply: fakeapi.Reply{Text: "Make the file"}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{Status: 400}})
	a.spawnLoop(t, e, api, bins, "apierr", "please make the file in this directory.\n", "--max-iterations", "3",
		"--max-failures", "2", "--inactivity-timeout", "300")
	st := e.waitLoop("apierr", 240*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	if st["status"] != "failed" || st["exit_reason"] != "consecutive_failures" || st["current_iteration"] != float64(2) {
		t.Fatalf("loop ended as %v/%v at iteration %v, want failed/consecutive_failures at 2\n%s",
			st["status"], st["exit_reason"], st["current_iteration"], e.dump("apierr"))
	}
	expectLog(t, "iterations log", e.loopFile("apierr", "iterations.log"), "[SIGNAL] iteration 1 "+signal,
		"[API_ERROR] iteration 1 ", "[FAIL] iteration 1 exit=api_error", "[FAIL] 2 consecutive failures")
	expectLog(t, "monitor log", e.loopFile("apierr", "monitor.log"),
		"iteration 1 failed (exit: api_error), retrying in 1s (attempt 1/2)")
}

// turnEndLatency measures how soon the next iteration starts once the agent's turn ended
// without the done marker: by its Stop signal, and by the screen alone (3 s of inactivity).
// Iteration 1's model answers without doing the task, iteration 2's does it.
func turnEndLatency(t *testing.T, a signalAgent) {
	bins := requireAgentsAlone(t)
	run := func(name string, flags ...string) (sinceReply, sinceStop time.Duration) {
		e := newE2EEnv(t)
		api := fakeapi.Start(t, append([]fakeapi.Rule{{When: fakeapi.Match{MainCall: 1},
			Reply: fakeapi.Reply{Text: "I looked, and will do it next time."}}}, fileRules(a.tool, false, a.doneWord())...)...)
		a.spawnLoop(t, e, api, bins, name, "please make the file in this directory, then reply with "+a.doneWord()+".\n",
			append([]string{"--max-iterations", "3", "--done-pattern", a.doneWord()}, flags...)...)
		stop := watchEvent(e, name, "Stop", 90*time.Second)
		e.waitDone(name, 150*time.Second, 2)
		second := iterationStart(t, e, name, 2)
		var reply time.Time
		for _, r := range api.Requests() {
			if r.MainCall == 1 {
				reply = r.Time
			}
		}
		if !stop.IsZero() {
			sinceStop = second.Sub(stop)
		}
		return second.Sub(reply), sinceStop
	}
	bySignal, sinceStop := run("sig", "--inactivity-timeout", "120")
	byScreen, _ := run("scr", "--inactivity-timeout", "3", "--no-agent-signals")
	t.Logf("%s: turn end to the next iteration's start: by the Stop signal %s (%s after the signal), by the screen (3 s inactivity) %s",
		a.name, bySignal.Round(time.Millisecond), sinceStop.Round(time.Millisecond), byScreen.Round(time.Millisecond))
	if sinceStop <= 0 || sinceStop > time.Second {
		t.Errorf("the next iteration started %s after the agent's Stop signal, want within 1 s", sinceStop)
	}
	if bySignal >= byScreen {
		t.Errorf("by the signal (%s) no sooner than by the screen (%s)", bySignal, byScreen)
	}
}

// Gemini CLI has no hook for an API error: it ends its turn on one (AfterAgent), and its
// screen tells the error apart.
func TestE2EGeminiAPIError(t *testing.T) { apiErrorFails(t, geminiAgent, "Stop") }

// opencode's plugin is told of the session's error.
func TestE2EOpencodeAPIError(t *testing.T) { apiErrorFails(t, opencodeAgent, "StopFailure APIError") }

func TestE2EGeminiTurnEndLatency(t *testing.T) { turnEndLatency(t, geminiAgent) }

func TestE2EQwenTurnEndLatency(t *testing.T) { turnEndLatency(t, qwenAgent) }

// Copilot's screen drops the tags of doneMarker: the marker its model says is one it shows as
// written.
func TestE2ECopilotTurnEndLatency(t *testing.T) { turnEndLatency(t, copilotAgent) }

func TestE2EOpencodeTurnEndLatency(t *testing.T) { turnEndLatency(t, opencodeAgent) }
