package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// The landing guide's night with the real Claude Code: three worktree loops, then the
// morning's `land --all --send-back`. One branch lands, one conflicts with it and one breaks
// the tests; the two sent back are told what failed, fix their branches in their next
// iteration, and land on the second run.

// nightTasks are the three loops' prompts, each naming its task so the model can tell them
// apart; each asks for the built-in marker once its work is committed.
var nightTasks = map[string]string{
	"alpha": "Task alpha: add alpha.txt and a line to shared.txt, and commit.",
	"beta":  "Task beta: rewrite shared.txt, and commit.",
	"gamma": "Task gamma: add gamma.txt, and commit.",
}

// nightModel plays the model of that night. First a loop sent back is answered: the
// conflicting one merges main (origin's, from the sandbox's clone) and keeps both sides, the breaking one fixes its file; then
// each task's first turn does its work; every tool result is answered with the marker.
func nightModel(t *testing.T) *fakeapi.Server {
	commit := func(cmd, msg string) *fakeapi.ToolUse {
		return bash(cmd + " && git add -A && git commit -qm '" + msg + "' && echo committed")
	}
	return fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done. " + doneMarker}},
		fakeapi.Rule{When: lastBlockHas("Task beta", "did not land", "Conflicting files: shared.txt"),
			Reply: fakeapi.Reply{Text: "Merging main.", ToolUse: commit(
				"({ git fetch -q origin && git merge origin/main; } >/dev/null 2>&1 || git merge main >/dev/null 2>&1 || true) && printf 'base\\nalpha\\nbeta\\n' > shared.txt", "merge main")}},
		fakeapi.Rule{When: lastBlockHas("Task gamma", "did not land", "make test"),
			Reply: fakeapi.Reply{Text: "Fixing it.", ToolUse: commit("echo fixed > gamma.txt", "fix gamma")}},
		fakeapi.Rule{When: lastBlockHas("Task alpha"),
			Reply: fakeapi.Reply{Text: "Working.", ToolUse: commit("echo alpha > alpha.txt && echo alpha >> shared.txt", "alpha")}},
		fakeapi.Rule{When: lastBlockHas("Task beta"),
			Reply: fakeapi.Reply{Text: "Working.", ToolUse: commit("echo beta > shared.txt", "beta")}},
		fakeapi.Rule{When: lastBlockHas("Task gamma"),
			Reply: fakeapi.Reply{Text: "Working.", ToolUse: commit("echo BROKEN > gamma.txt", "gamma")}},
	)
}

// nightRepo is the project on main: shared.txt, and a test target that fails while any
// text file says BROKEN.
func nightRepo(t *testing.T, work string) {
	t.Helper()
	gitIn(t, work, "init", "-q", "-b", "main")
	writeFileAll(t, filepath.Join(work, "shared.txt"), "base\n")
	writeFileAll(t, filepath.Join(work, "Makefile"), "test:\n\t! grep -l BROKEN *.txt\n")
	for name, task := range nightTasks {
		writeFileAll(t, filepath.Join(work, "tasks", name+".md"),
			task+"\nWhen it is committed, reply with "+doneMarker+" and nothing else.\n")
	}
	gitIn(t, work, "add", "-A")
	gitIn(t, work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base")
}

// landResults reads land's NDJSON events and keeps each worker's result.
func landResults(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	results := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("land printed a line that is no JSON: %q\n%s", line, out)
		}
		if ev["event"] == "result" {
			results[ev["worker"].(string)] = ev
		}
	}
	return results
}

func TestE2EClaudeNightLanded(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := nightModel(t)
	nightRepo(t, e.work)
	spawnNight(t, e, bins.claude, api.URL())
	for _, name := range []string{"alpha", "beta", "gamma"} {
		e.waitLoop(name, 240*time.Second, loopEnded)
	}
	ls := e.must("ralph", "ls")
	for _, name := range []string{"alpha", "beta", "gamma"} {
		if st := e.loopState(name); st["exit_reason"] != "done_pattern" {
			t.Fatalf("%s ended as %v/%v, want done by its marker\n%s\n%s", name, st["status"], st["exit_reason"], ls, e.dump(name))
		}
	}
	firstMorning(t, e)

	// The loops sent back fix their branches and say they are done again.
	for _, name := range []string{"beta", "gamma"} {
		e.waitLoop(name, 240*time.Second, func(st map[string]any) bool {
			return loopEnded(st) && st["current_iteration"].(float64) >= 2
		})
		if st := e.loopState(name); st["exit_reason"] != "done_pattern" {
			t.Fatalf("%s ended as %v/%v after it was sent back\n%s", name, st["status"], st["exit_reason"], e.dump(name))
		}
	}
	if n := mainCallsWith(api, "did not land"); n != 2 {
		t.Errorf("the model was told of a failed landing %d times, want 2", n)
	}
	secondMorning(t, e)
}

// spawnNight starts the three loops as the guide does, each in a worktree of its own beside
// the project: Claude Code trusts those folders as it would after a person answered its
// dialog once in each.
func spawnNight(t *testing.T, e *e2eEnv, claude, apiURL string) {
	t.Helper()
	trusted := []string{e.work}
	for name := range nightTasks {
		trusted = append(trusted, filepath.Join(e.work+"-worktrees", name))
	}
	seedClaudeHome(t, e.home, claudeSetup{onboarded: true, keyApproved: true, bypassAccepted: true, trusted: trusted})
	gitEnv := []string{"GIT_AUTHOR_NAME=night", "GIT_AUTHOR_EMAIL=night@example.com",
		"GIT_COMMITTER_NAME=night", "GIT_COMMITTER_EMAIL=night@example.com"}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		args := append([]string{"ralph", "spawn", "--name", name, "--worktree", "--prompt-file", "tasks/" + name + ".md",
			"--max-iterations", "6", "--inactivity-timeout", "60"}, envFlags(append(claudeEnv(apiURL, e.home), gitEnv...))...)
		e.must(append(args, "--", claude, "--dangerously-skip-permissions")...)
	}
}

// firstMorning: alpha lands; beta conflicts with it; gamma breaks the tests. Both go back.
func firstMorning(t *testing.T, e *e2eEnv) {
	t.Helper()
	out, err := e.run("land", "--all", "--test-command", "make test", "--send-back", "--format", "json")
	if err == nil {
		t.Fatalf("land exited 0 although two branches did not land:\n%s", out)
	}
	t.Logf("the first land:\n%s", out)
	first := landResults(t, out)
	want := map[string]string{"alpha": "landed", "beta": "needs_rebase", "gamma": "breaks_tests"}
	for name, state := range want {
		if r := first[name]; r == nil || r["state"] != state {
			t.Fatalf("%s: %v, want %s\n%s", name, r, state, out)
		}
	}
	if !strings.Contains(first["beta"]["reason"].(string), "shared.txt") {
		t.Errorf("beta's reason names no conflicting file: %v", first["beta"])
	}
	for _, name := range []string{"beta", "gamma"} {
		if sb, _ := first[name]["send_back"].(string); !strings.HasPrefix(sb, "sent back") {
			t.Errorf("%s was not sent back to its loop: %v", name, first[name])
		}
	}
}

// secondMorning lands the two fixed branches: main holds all three, both sides of the
// conflict kept.
func secondMorning(t *testing.T, e *e2eEnv) {
	t.Helper()
	out, err := e.run("land", "--all", "--test-command", "make test", "--format", "json")
	if err != nil {
		t.Fatalf("second land: %v\n%s", err, out)
	}
	t.Logf("the second land:\n%s", out)
	second := landResults(t, out)
	for _, name := range []string{"beta", "gamma"} {
		if r := second[name]; r == nil || r["state"] != "landed" {
			t.Errorf("%s on the second run: %v\n%s", name, r, out)
		}
	}
	if log := gitIn(t, e.work, "log", "--format=%s", "main"); !strings.Contains(log, "Land alpha: alpha") ||
		!strings.Contains(log, "Land beta: beta") || !strings.Contains(log, "Land gamma: gamma") {
		t.Errorf("main's history:\n%s", log)
	}
	if data, _ := os.ReadFile(filepath.Join(e.work, "shared.txt")); string(data) != "base\nalpha\nbeta\n" {
		t.Errorf("shared.txt on main: %q", data)
	}
	gitIn(t, e.work, "diff", "--quiet")
}
