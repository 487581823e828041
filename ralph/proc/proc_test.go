package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startTagged starts a sleeping process with tag in its environment, in a process group of
// its own, and makes sure it is gone at the end of the test.
func startTagged(t *testing.T, tag string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), tag)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	return cmd
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for Alive(pid, 0) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTaggedFindsAndKillTaggedEnds(t *testing.T) {
	tag := "SWARM_TEST_TAG=" + time.Now().Format("150405.000000000")
	a := startTagged(t, tag)
	b := startTagged(t, tag)
	other := startTagged(t, tag+"x")
	deadline := time.Now().Add(5 * time.Second)
	for len(Tagged(tag)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := Tagged(tag); len(got) != 2 {
		t.Fatalf("Tagged = %v, want the two processes %d and %d", got, a.Process.Pid, b.Process.Pid)
	}
	if n := KillTagged(tag, 0, time.Second); n != 2 {
		t.Errorf("KillTagged ended %d, want 2", n)
	}
	waitGone(t, a.Process.Pid)
	waitGone(t, b.Process.Pid)
	if !Alive(other.Process.Pid, 0) {
		t.Error("a process with a different value was ended")
	}
}

func TestKillGroupSaysWhetherSIGKILLWasNeeded(t *testing.T) {
	polite := startTagged(t, "X=1")
	if KillGroup(polite.Process.Pid, 2*time.Second) {
		t.Error("sleep goes on SIGTERM; no SIGKILL should have been needed")
	}
	waitGone(t, polite.Process.Pid)
	ready := filepath.Join(t.TempDir(), "ready")
	stubborn := exec.Command("sh", "-c", `trap "" TERM; touch "$1"; while :; do sleep 0.05; done`, "sh", ready)
	stubborn.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := stubborn.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = stubborn.Wait() }()
	deadline := time.Now().Add(5 * time.Second)
	for _, err := os.Stat(ready); err != nil; _, err = os.Stat(ready) {
		if time.Now().After(deadline) {
			t.Fatal("the shell never installed its trap")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !KillGroup(stubborn.Process.Pid, 200*time.Millisecond) {
		t.Error("a group that ignores SIGTERM needs SIGKILL")
	}
	if GroupAlive(stubborn.Process.Pid) {
		t.Error("the group survived")
	}
}

func TestAliveKnowsItsStartTime(t *testing.T) {
	me := os.Getpid()
	start := Start(me)
	if start == 0 || !Alive(me, start) || !Alive(me, 0) || Alive(me, start+1) || Alive(-1, 0) || Alive(1<<22+12345, 0) {
		t.Errorf("Alive/Start disagree about this process (start %d)", start)
	}
}

func TestUsageReadsThisProcess(t *testing.T) {
	// Some CPU is spent, so the figure cannot be an empty read.
	for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline); {
	}
	cpu, rss := Usage(os.Getpid())
	if cpu <= 0 || rss <= 0 {
		t.Errorf("Usage = %v, %d bytes; want both above zero", cpu, rss)
	}
	if cpu, rss := Usage(-1); cpu != 0 || rss != 0 {
		t.Errorf("Usage of no process = %v, %d", cpu, rss)
	}
}
