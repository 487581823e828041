package driver

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A group recorded by a driver that died is ended by its successor; a record whose pid now
// belongs to another process (a different start time) is dropped without a signal.
func TestEndLeftChildren(t *testing.T) {
	dir := t.TempDir()
	if err := KeepChildrenIn(dir); err != nil {
		t.Fatal(err)
	}
	defer childrenDir.Store("")
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
