package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
	"github.com/swarm-dev/swarm/ralph/sandbox"
)

// The real agents confined: bubblewrap, and a network that reaches the fake API alone,
// through the egress proxy. The loop completes by the agent's own signals, and its cost is
// read from the agent's records, as unconfined.

// allowAPI is --sandbox-net allowing the fake API only.
func allowAPI(t *testing.T, api *fakeapi.Server) string {
	u, err := url.Parse(api.URL())
	if err != nil {
		t.Fatal(err)
	}
	return "--sandbox-net=allow=" + u.Host
}

// sandboxedDone checks what a confined loop that finished left: the agent's file, its
// signals, its cost, and the sandbox in its worker's record.
func sandboxedDone(t *testing.T, e *e2eEnv, name, signal string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(e.work, "DONE")); err != nil {
		t.Fatalf("the agent did not make the file: %v\n%s", err, e.dump(name))
	}
	if events := e.loopFile(name, "box/agent-events.jsonl"); !strings.Contains(events, signal) {
		t.Errorf("the agent's signals did not arrive from the sandbox (want %s):\n%s", signal, events)
	}
	st := e.waitLoop(name, 30*time.Second, func(st map[string]any) bool { return st["finalized"] == true })
	if cost, _ := st["cost_usd"].(float64); cost <= 0 {
		t.Errorf("no cost read for the confined agent: %v\n%s", st["cost_usd"], e.dump(name))
	}
	ls := e.must("ls", "--format", "json")
	if !strings.Contains(ls, `"kind": "bwrap"`) && !strings.Contains(ls, `"kind":"bwrap"`) {
		t.Errorf("the worker is not recorded as sandboxed:\n%s", ls)
	}
}

func TestE2ESandboxClaude(t *testing.T) {
	requireAgents(t)
	requireSandbox(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + doneMarker}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{ToolUse: makeFileTool}},
	)
	prompt := "please make the file in this directory.\nWhen it exists, reply with " + doneMarker + "\n"
	claudeLoop(t, e, api, fullySetUp(e.work), "sbc", prompt, "--max-iterations", "3", "--sandbox=required", allowAPI(t, api))
	e.waitDone("sbc", 120*time.Second, 1)
	sandboxedDone(t, e, "sbc", `"event":"Stop"`)
}

func TestE2ESandboxCodex(t *testing.T) {
	requireAgents(t)
	requireSandbox(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + doneMarker}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Reply: fakeapi.Reply{ToolUse: codexMakeFile}},
	)
	prompt := "please make the file in this directory, then reply with " + doneMarker + ".\n"
	codexLoop(t, e, api, "sbx", prompt, "--max-iterations", "3", "--done-pattern", doneMarker, "--sandbox=required", allowAPI(t, api))
	e.waitDone("sbx", 120*time.Second, 1)
	sandboxedDone(t, e, "sbx", `"agent":"codex","event":"Stop"`)
}

// requireSandbox skips where bubblewrap cannot confine, but for CI, which installs it.
func requireSandbox(t *testing.T) {
	t.Helper()
	if why := sandbox.Probe(); why != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the agents sandboxed: %s", why)
		}
		t.Skipf("no sandbox here: %s", why)
	}
}
