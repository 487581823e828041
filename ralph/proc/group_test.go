package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A group watched while it ends: its leader gone, a member seen running answers for it, and
// a member that started another before ending does not make the group look gone.
func TestGroupWatchFollowsMembersBeyondTheLeader(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `sh -c 'sleep 0.2; sleep 60 & echo $! > "$1/b.tmp"; mv "$1/b.tmp" "$1/b"' sh "$1" & exit`, "sh", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	_ = cmd.Wait() // the leader exits at once
	g := &groupWatch{pgid: pgid}
	if !g.alive() || len(g.members) == 0 {
		t.Fatalf("the group's other members were not found: %v", g.members)
	}
	first := slices.Clone(g.members)
	var b int
	deadline := time.Now().Add(5 * time.Second)
	for b == 0 || slices.ContainsFunc(first, func(pid int) bool { return Alive(pid, 0) }) {
		if time.Now().After(deadline) {
			t.Fatal("the member never started its successor and ended")
		}
		if data, err := os.ReadFile(filepath.Join(dir, "b")); err == nil {
			b, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !g.alive() || !slices.Contains(g.members, b) {
		t.Fatalf("with every member seen before gone, the one started since (%d) was missed: %v", b, g.members)
	}
	_ = syscall.Kill(b, syscall.SIGKILL)
	waitGone(t, b)
	if g.alive() {
		t.Error("the group still counts as running")
	}
}

// A group whose leader has ended is gone once the leader is collected: a watch asked again
// waits for that rather than looking through /proc, and looks only when it does not come.
func TestPatientWatchWaitsForTheLeaderToBeCollected(t *testing.T) {
	looks := 0
	t.Cleanup(func() { listPIDs = pids })
	listPIDs = func() []int { looks++; return pids() }
	endedLeader := func() *exec.Cmd {
		cmd := exec.Command("true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Wait() })
		deadline := time.Now().Add(5 * time.Second)
		for letter, _, _, _ := Stat(cmd.Process.Pid); letter != 'Z'; letter, _, _, _ = Stat(cmd.Process.Pid) {
			if time.Now().After(deadline) {
				t.Fatal("the leader did not end")
			}
			time.Sleep(5 * time.Millisecond)
		}
		return cmd
	}

	cmd := endedLeader()
	g := &groupWatch{pgid: cmd.Process.Pid, patient: true}
	if !g.alive() || looks != 0 {
		t.Fatalf("an ended leader not yet collected: alive %v after %d looks, want true after none", g.alive(), looks)
	}
	_ = cmd.Wait()
	if g.alive() || looks != 0 {
		t.Errorf("once collected: alive %v after %d looks, want false after none", g.alive(), looks)
	}

	// Never collected: after reapWait the group is looked for, and found to run nothing.
	cmd = endedLeader()
	g = &groupWatch{pgid: cmd.Process.Pid, patient: true}
	began := time.Now()
	for g.alive() {
		if time.Since(began) > 5*time.Second {
			t.Fatal("a group of one zombie still runs")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if looks != 1 || time.Since(began) < reapWait {
		t.Errorf("gone after %v and %d looks; want one look, after %v", time.Since(began), looks, reapWait)
	}
	// A one-off question does not wait: a zombie runs nothing.
	if GroupAlive(cmd.Process.Pid) {
		t.Error("GroupAlive counts a zombie leader as running")
	}
}
