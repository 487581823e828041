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
