package driver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/git"
)

// A group recorded by a driver that died is ended by its successor; a record whose pid now
// belongs to another process (a different start time) is dropped without a signal.
func TestEndLeftChildren(t *testing.T) {
	dir := t.TempDir()
	if err := KeepChildrenIn(dir); err != nil {
		t.Fatal(err)
	}
	defer forgetChildren()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	trackChild(cmd.Process.Pid) // never untracked: its driver "died"
	if err := os.WriteFile(dir+"/1", []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := EndLeftChildren(dir, time.Second); n != 1 {
		t.Errorf("ended %d groups, want 1", n)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the recorded group still runs")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("records left: %v", left)
	}
}

// forgetChildren undoes KeepChildrenIn for the tests that follow.
func forgetChildren() {
	childrenDir.Store("")
	git.TrackRuns(nil)
}

// A git commit still in a slow hook when its driver died is ended by the successor, hook and
// all, and makes no commit: the successor's own is the only one.
func TestEndLeftChildrenEndsALeftCommit(t *testing.T) {
	repo := t.TempDir()
	pre := supervisionRepo(t, repo, "ok\n")
	started := filepath.Join(t.TempDir(), "hook-started")
	hook := "#!/bin/sh\necho $$ > " + started + ".tmp && mv " + started + ".tmp " + started + "\nexec sleep 60\n"
	if err := os.WriteFile(filepath.Join(repo, ".git", "hooks", "prepare-commit-msg"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := KeepChildrenIn(dir); err != nil {
		t.Fatal(err)
	}
	defer forgetChildren()
	if err := os.WriteFile(filepath.Join(repo, "work.txt"), []byte("work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	committed := make(chan error, 1)
	go func() { _, err := git.CommitAll(repo, "ralph: complete x", nil); committed <- err }()
	deadline := time.Now().Add(30 * time.Second)
	var hookPID int
	for hookPID == 0 && time.Now().Before(deadline) {
		data, _ := os.ReadFile(started)
		hookPID, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		time.Sleep(10 * time.Millisecond)
	}
	if hookPID == 0 {
		t.Fatal("the commit's hook never started")
	}
	defer syscall.Kill(hookPID, syscall.SIGKILL) // were it left running
	if n := EndLeftChildren(dir, 5*time.Second); n != 1 {
		t.Errorf("ended %d groups, want 1 (the commit)", n)
	}
	select {
	case err := <-committed:
		if err == nil {
			t.Error("the ended commit reports no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the commit still runs")
	}
	if syscall.Kill(hookPID, 0) == nil {
		t.Errorf("the commit's hook (pid %d) still runs", hookPID)
	}
	if head, _ := supervisionGit(repo, "rev-parse", "HEAD"); head != pre {
		t.Errorf("HEAD moved to %s; the ended commit must make none", head)
	}
}
