package git

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keepPaths stand for agent mode's bookkeeping, which commits and stashes leave alone.
var keepPaths = []string{"ralph/inbox.jsonl", "build/ralph-logs"}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCommitAllLeavesTheKeptPathsOut(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "one")
	writeFiles(t, dir, map[string]string{"a.txt": "two", "new/b.txt": "b", "ralph/inbox.jsonl": "{}", "build/ralph-logs/x.log": "log"})
	short, err := CommitAll(dir, "ralph: complete x\n\nSpec: ralph/specs/x.md", keepPaths)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mustRun(t, dir, "rev-parse", "HEAD"), short) || len(short) < 7 {
		t.Errorf("short hash %q", short)
	}
	if msg := mustRun(t, dir, "log", "-1", "--format=%B"); msg != "ralph: complete x\n\nSpec: ralph/specs/x.md" {
		t.Errorf("message %q", msg)
	}
	files := mustRun(t, dir, "show", "--name-only", "--format=", "HEAD")
	if !strings.Contains(files, "new/b.txt") ||
		!strings.Contains(files, "a.txt") || strings.Contains(files, "inbox") || strings.Contains(files, "ralph-logs") {
		t.Errorf("commit:\n%s", files)
	}
	// Nothing changed: the spec still gets its commit.
	if _, err := CommitAll(dir, "ralph: complete y", keepPaths); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, dir, "log", "-1", "--format=%s"); got != "ralph: complete y" {
		t.Errorf("subject %q", got)
	}
}

func TestSetAsideStashesOrDropsAllButTheKeptPaths(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "one")
	for _, drop := range []bool{false, true} {
		// Different changes each time: identical ones in the same second make the same stash.
		writeFiles(t, dir, map[string]string{"a.txt": fmt.Sprint("changed ", drop), "untracked.txt": "u", "ralph/inbox.jsonl": "{}"})
		ok, err := SetAside(dir, "ralph: failed x", keepPaths, drop)
		if err != nil || !ok {
			t.Fatalf("drop=%v: %v %v", drop, ok, err)
		}
		if readFile(t, filepath.Join(dir, "a.txt")) != "one" || readFile(t, filepath.Join(dir, "ralph/inbox.jsonl")) != "{}" {
			t.Errorf("drop=%v: checkout not restored, or the kept file touched", drop)
		}
		if _, err := os.Stat(filepath.Join(dir, "untracked.txt")); err == nil {
			t.Errorf("drop=%v: untracked file left", drop)
		}
	}
	list := mustRun(t, dir, "stash", "list")
	if strings.Count(list, "\n") != 0 || !strings.Contains(list, "ralph: failed x") {
		t.Errorf("stash list (one stash, the dropped one gone):\n%s", list)
	}
	if ok, err := SetAside(dir, "ralph: failed y", keepPaths, false); ok || err != nil {
		t.Errorf("a clean checkout: %v %v", ok, err)
	}
}

func TestKeptPathsThatGitIgnoresDoNotStopACommitOrASetAside(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "one")
	writeFiles(t, dir, map[string]string{".git/info/exclude": "/ralph/inbox.jsonl\n/build/ralph-logs/\n"})
	writeFiles(t, dir, map[string]string{"a.txt": "two", "ralph/inbox.jsonl": "{}", "build/ralph-logs/x.log": "log"})
	if _, err := CommitAll(dir, "ralph: complete x", keepPaths); err != nil {
		t.Fatal(err)
	}
	if files := mustRun(t, dir, "show", "--name-only", "--format=", "HEAD"); files != "a.txt" {
		t.Errorf("commit:\n%s", files)
	}
	writeFiles(t, dir, map[string]string{"a.txt": "three"})
	if ok, err := SetAside(dir, "ralph: failed y", keepPaths, false); err != nil || !ok {
		t.Fatalf("set aside: %v %v", ok, err)
	}
	if readFile(t, filepath.Join(dir, "ralph/inbox.jsonl")) != "{}" || readFile(t, filepath.Join(dir, "a.txt")) != "two" {
		t.Error("the kept file was touched, or the change not set aside")
	}
}
