package tmux

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A control client must end with the process that started it. tmux does not always end it
// when its input closes: output written to it once its reader is gone is never delivered, and
// the server then keeps the client, and itself, for ever. Here another process holds the
// client's input open, so only its owner's death can end it.
func TestControlEndsWithItsOwner(t *testing.T) {
	e := realServer(t, "sleep 30")
	owner := exec.Command(os.Args[0], "-test.run=^TestControlOwnerProcess$")
	owner.Env = append(os.Environ(), "SWARM_CONTROL_OWNER="+e.SocketName)
	out, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	var client, holder int
	line, err := bufio.NewReader(out).ReadString('\n')
	if _, serr := fmt.Sscanf(line, "%d %d", &client, &holder); err != nil || serr != nil {
		_ = owner.Process.Kill()
		t.Fatalf("owner said %q (%v)", line, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(holder, syscall.SIGKILL)
		_ = syscall.Kill(client, syscall.SIGKILL) // a client left behind would keep the server
	})
	_ = owner.Process.Kill()
	_ = owner.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for running(client) {
		if time.Now().After(deadline) {
			t.Fatal("the control client outlived the process that started it")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestControlOwnerProcess is the owner TestControlEndsWithItsOwner starts and kills: it
// attaches a control client, gives a copy of the client's input to a process of its own, says
// both pids and waits to be killed.
func TestControlOwnerProcess(t *testing.T) {
	socket := os.Getenv("SWARM_CONTROL_OWNER")
	if socket == "" {
		t.Skip("started by TestControlEndsWithItsOwner")
	}
	c, err := (&Exec{SocketName: socket}).Control("w")
	if err != nil {
		t.Fatal(err)
	}
	input, err := syscall.Dup(int(c.stdin.Fd())) // without close-on-exec: the holder keeps it
	if err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sleep", "30")
	holder.ExtraFiles = []*os.File{os.NewFile(uintptr(input), "input")}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%d %d\n", c.cmd.Process.Pid, holder.Process.Pid)
	select {}
}

// running reports whether pid is a live process (not gone, not a zombie).
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z") && !strings.HasPrefix(after, "X")
}
