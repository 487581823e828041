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

// Several tags in one go: each is counted on its own, and all are ended.
func TestKillTaggedEach(t *testing.T) {
	tag := "SWARM_TEST_TAG=" + time.Now().Format("150405.000000000")
	a := startTagged(t, tag+"a")
	b1, b2 := startTagged(t, tag+"b"), startTagged(t, tag+"b")
	deadline := time.Now().Add(5 * time.Second)
	for len(Tagged(tag+"b")) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := KillTaggedEach([]string{tag + "a", tag + "b", tag + "c"}, 0, time.Second); n[0] != 1 || n[1] != 2 || n[2] != 0 {
		t.Errorf("KillTaggedEach ended %v, want [1 2 0]", n)
	}
	for _, c := range []*exec.Cmd{a, b1, b2} {
		waitGone(t, c.Process.Pid)
	}
}

func TestKillGroupSaysWhetherSIGKILLWasNeeded(t *testing.T) {
	polite := startTagged(t, "X=1")
	if KillGroup(polite.Process.Pid, 2*time.Second) {
		t.Error("sleep goes on SIGTERM; no SIGKILL should have been needed")
	}
	waitGone(t, polite.Process.Pid)
	stubborn := startStubborn(t)
	if !KillGroup(stubborn, 200*time.Millisecond) {
		t.Error("a group that ignores SIGTERM needs SIGKILL")
	}
	if GroupAlive(stubborn) {
		t.Error("the group survived")
	}
}

// Many groups are ended together: every one is signalled first, and all are waited for within
// the one grace, so ten groups that ignore SIGTERM take about one grace, not ten.
func TestKillGroupsEndsThemTogether(t *testing.T) {
	const grace = 400 * time.Millisecond
	var pgids []int
	for range 10 {
		pgids = append(pgids, startStubborn(t))
	}
	polite := startTagged(t, "X=1").Process.Pid
	pgids = append(pgids, polite, polite, 0, 1)
	began := time.Now()
	forced := KillGroups(pgids, grace)
	took := time.Since(began)
	for i, pgid := range pgids[:10] {
		if !forced[i] || GroupAlive(pgid) {
			t.Errorf("group %d: forced %v, alive %v; want SIGKILLed and gone", pgid, forced[i], GroupAlive(pgid))
		}
	}
	if forced[10] || forced[11] || forced[12] || forced[13] {
		t.Errorf("a group that goes on SIGTERM, twice, and no group: %v", forced[10:])
	}
	waitGone(t, polite)
	if took < grace || took > 5*grace {
		t.Errorf("ten stubborn groups took %v to end; want about one grace (%v), not one each", took, grace)
	}
}

// startStubborn starts a shell that ignores SIGTERM in a process group of its own, once it does,
// and returns the group.
func startStubborn(t *testing.T) int {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	stubborn := exec.Command("sh", "-c", `trap "" TERM; touch "$1"; while :; do sleep 0.05; done`, "sh", ready)
	stubborn.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := stubborn.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := stubborn.Process.Pid
	done := make(chan struct{})
	go func() { _ = stubborn.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	})
	deadline := time.Now().Add(5 * time.Second)
	for _, err := os.Stat(ready); err != nil; _, err = os.Stat(ready) {
		if time.Now().After(deadline) {
			t.Fatal("the shell never installed its trap")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return pgid
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
