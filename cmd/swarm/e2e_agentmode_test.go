package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// lastBlockHas matches the agent's turns whose newest input holds every one of parts.
func lastBlockHas(parts ...string) fakeapi.Match {
	return fakeapi.Match{Func: func(r fakeapi.Request) bool {
		for _, p := range parts {
			if !strings.Contains(r.LastBlock, p) {
				return false
			}
		}
		return true
	}}
}

// bash is a tool call that runs command.
func bash(command string) *fakeapi.ToolUse {
	return &fakeapi.ToolUse{Name: "Bash", Input: map[string]any{"command": command, "description": "Run a command"}}
}

// The real Claude Code in agent mode with two specs queued: for each, a PLAN turn writes one
// task to ralph/plan.jsonl with swarm's own planning prompt, a CONSTRUCT turn with its
// building prompt makes the spec's file, and swarm commits it. The inbox ends with both done,
// the session file is gone and each commit holds its spec's file and says what it cost.
func TestE2EClaudeAgentModeTwoSpecs(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	use := &fakeapi.Usage{Input: 20000, Output: 2000}
	task := `printf '%s\n' '{"t":"task","id":"t-1","desc":"make the file","status":"pending"}' >> ralph/plan.jsonl`
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + doneMarker, Usage: use}},
		fakeapi.Rule{When: lastBlockHas("You are planning one spec"), Reply: fakeapi.Reply{Text: "Planning.", ToolUse: bash(task), Usage: use}},
		fakeapi.Rule{When: lastBlockHas("You are implementing one spec", "ralph/specs/first.md"),
			Reply: fakeapi.Reply{Text: "Building.", ToolUse: bash("echo one > first.txt"), Usage: use}},
		fakeapi.Rule{When: lastBlockHas("You are implementing one spec", "ralph/specs/second.md"),
			Reply: fakeapi.Reply{Text: "Building.", ToolUse: bash("echo two > second.txt"), Usage: use}},
	)
	seedClaudeHome(t, e.home, fullySetUp(e.work))
	gitIn(t, e.work, "init", "-q", "-b", "main")
	for name, text := range map[string]string{"first.md": "Create first.txt.\n", "second.md": "Create second.txt.\n"} {
		writeFileAll(t, filepath.Join(e.work, "ralph", "specs", name), text)
	}
	gitIn(t, e.work, "add", "-A")
	gitIn(t, e.work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "specs")
	e.must("inbox", "add", "first.md")
	e.must("inbox", "add", "second.md")
	args := append([]string{"agent", "--name", "ag", "--max-iterations", "3", "--inactivity-timeout", "60"}, envFlags(claudeEnv(api.URL(), e.home))...)
	out := e.must(append(args, "--", bins.claude, "--dangerously-skip-permissions")...)
	if !strings.Contains(out, "FETCH: q-") || !strings.Contains(out, "first.md") {
		t.Fatalf("swarm agent said:\n%s", out)
	}
	st := e.waitLoop("ag", 240*time.Second, func(st map[string]any) bool { return st["exit_reason"] == "inbox_empty" })
	if st["status"] != "stopped" {
		t.Fatalf("agent ended as %v/%v\n%s", st["status"], st["exit_reason"], e.dump("ag"))
	}
	log := gitIn(t, e.work, "log", "--format=%s")
	if log != "ralph: complete second\nralph: complete first\nspecs" {
		t.Errorf("commits:\n%s\n%s", log, e.dump("ag"))
	}
	for rev, file := range map[string]string{"HEAD": "second.txt", "HEAD~1": "first.txt"} {
		files := gitIn(t, e.work, "show", "--name-only", "--format=", rev)
		if files != file {
			t.Errorf("%s holds %q, want %s", rev, files, file)
		}
		body := gitIn(t, e.work, "log", "-1", "--format=%B", rev)
		if !strings.Contains(body, "Tasks completed: 1\n") || !strings.Contains(body, "Cost: $0.") {
			t.Errorf("%s message:\n%s", rev, body)
		}
	}
	inbox := e.must("query", "inbox")
	if strings.Count(inbox, `"status": "done"`) != 2 {
		t.Errorf("inbox:\n%s", inbox)
	}
	if _, err := os.Stat(filepath.Join(e.work, "ralph", ".agent-session")); err == nil {
		t.Error("the session file outlived a normal end")
	}
	expectLog(t, "iterations log", e.loopFile("ag", "iterations.log"), "PLAN: 1 task generated", "CONSTRUCT: complete",
		`"ralph: complete first"`, `"ralph: complete second"`, "Inbox empty. Agent stopping.", "Session summary: 2 specs, $")
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFileAll(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
