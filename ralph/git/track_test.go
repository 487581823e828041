package git

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Under TrackRuns every git starts in a process group of its own, its hooks in it too, and is
// told as it starts and once it has ended.
func TestTrackRunsGivesEveryGitAGroupOfItsOwn(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "one")
	hookOut := filepath.Join(t.TempDir(), "hook.pgid")
	hook := "#!/bin/sh\ncut -d' ' -f5 /proc/$$/stat > " + hookOut + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "prepare-commit-msg"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var groups []int
	ended, own := 0, 0
	TrackRuns(func(pgid int) func() {
		mu.Lock()
		defer mu.Unlock()
		groups = append(groups, pgid)
		if g, err := syscall.Getpgid(pgid); err == nil && g == pgid {
			own++
		}
		return func() { mu.Lock(); ended++; mu.Unlock() }
	})
	defer TrackRuns(nil)
	writeFiles(t, dir, map[string]string{"a.txt": "two"})
	if _, err := CommitAll(dir, "ralph: complete a", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(groups) < 3 || own != len(groups) || ended != len(groups) {
		t.Fatalf("told of %v (%d in a group of their own), %d ended; want every one of at least 3 (add, commit, rev-parse)", groups, own, ended)
	}
	data, err := os.ReadFile(hookOut)
	if err != nil {
		t.Fatal(err)
	}
	hookGroup, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if !slices.Contains(groups, hookGroup) {
		t.Errorf("the commit's hook ran in group %d, none of the groups told %v", hookGroup, groups)
	}
}

// Without TrackRuns, or once it is stopped, git runs in this process's group, told to no one.
func TestTrackRunsStopped(t *testing.T) {
	dir := newRepo(t)
	told := 0
	TrackRuns(func(int) func() { told++; return func() {} })
	TrackRuns(nil)
	mustRun(t, dir, "status")
	if told != 0 {
		t.Errorf("told of %d runs after TrackRuns(nil)", told)
	}
}
