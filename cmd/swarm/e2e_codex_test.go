package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// The real Codex TUI in ralph loops, against the fake Responses API.

// codexMakeFile is Codex's shell tool creating DONE in the work dir.
var codexMakeFile = &fakeapi.ToolUse{Name: "exec_command", Input: map[string]any{"cmd": "touch DONE && echo created"}}

func codexLoop(t *testing.T, e *e2eEnv, api *fakeapi.Server, name, prompt string, flags ...string) string {
	t.Helper()
	bins := requireAgents(t)
	codexHome := filepath.Join(e.home, ".codex")
	seedCodexHome(t, codexHome, api.URL(), e.work)
	e.writeWork("PROMPT.md", prompt)
	args := append([]string{"spawn", "--name", name, "--ralph", "--prompt-file", "PROMPT.md"}, flags...)
	args = append(args, envFlags(codexEnv(e.home, codexHome))...)
	return e.must(append(args, "--", bins.codex)...)
}

func TestE2ECodexLoop(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + doneMarker}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{ToolUse: codexMakeFile}},
	)
	prompt := "please make the file in this directory, then reply with " + doneMarker + ".\n"
	codexLoop(t, e, api, "cx", prompt, "--max-iterations", "3", "--done-pattern", doneMarker)
	e.waitDone("cx", 90*time.Second, 1)
	if _, err := os.Stat(filepath.Join(e.work, "DONE")); err != nil {
		t.Fatalf("the agent did not make the file: %v\n%s", err, e.dump("cx"))
	}
	if n := mainCallsWith(api, "please make the file in this directory"); n != 1 {
		t.Errorf("the model got the prompt in %d turns, want 1", n)
	}
	expectLog(t, "monitor log", e.loopFile("cx", "monitor.log"), "starting iteration 1/3", "done pattern matched, stopping loop")
	expectNoExtraEnter(t, e.loopFile("cx", "iterations.log"))
	// Its cost, read from Codex's rollout: every response is the fake's default 1000 input
	// (500 of them cached) and 50 output tokens, at gpt-5.1-codex's $1.25/$10 per million
	// ($0.125 cached).
	st := e.waitLoop("cx", 30*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	calls := 0
	for _, r := range api.Requests() {
		if r.MainCall > 0 {
			calls++
		}
	}
	want := float64(calls) * (500*1.25 + 500*0.125 + 50*10) / 1e6
	if got, _ := st["cost_usd"].(float64); calls < 2 || math.Abs(got-want) > 0.0001 {
		t.Errorf("the loop cost $%.6f by swarm's count, $%.6f by the API's (%d calls)\n%s", got, want, calls, e.dump("cx"))
	}
}

// Codex's working line ticks its seconds while the API hangs; the Regent ends it after the
// hang timeout and the next iteration finishes.
func TestE2ECodexHang(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + doneMarker}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1, Reply: fakeapi.Reply{Hang: true}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{ToolUse: codexMakeFile}},
	)
	prompt := "please make the file in this directory, then reply with " + doneMarker + ".\n"
	codexLoop(t, e, api, "cxhang", prompt, "--max-iterations", "3", "--inactivity-timeout", "120",
		"--hang-timeout", "15", "--done-pattern", doneMarker)
	e.waitDone("cxhang", 120*time.Second, 2)
	expectLog(t, "monitor log", e.loopFile("cxhang", "monitor.log"),
		"Regent: agent hung (no progress on screen for 15s)", "iteration 1 failed (exit: hung)", "starting iteration 2/3")
	if screen := e.loopFile("cxhang", "screens/iteration-1.txt"); !strings.Contains(screen, "Working") {
		t.Errorf("iteration 1 screen does not show Codex working:\n%s", screen)
	}
}
