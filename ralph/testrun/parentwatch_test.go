package testrun

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// The parent-death pipe is the shell's work, the same on every system: run here for real, its
// group is killed once the write end goes (as when this process dies), and only then.
func TestParentWatchKillsTheGroupWhenTheParentGoes(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30; echo never")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started, release, err := parentWatch(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started()
	pgid := cmd.Process.Pid
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the command ended while its parent lived: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	release() // as the kernel closes it when this process dies
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the command outlived its parent's end")
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the group's other members outlived its parent's end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestParentWatchLeavesTheCommandAsItWas(t *testing.T) {
	cmd := exec.Command("sh", "-c", `ls /proc/self/fd/3 2>/dev/null && exit 9; echo "$0 ran"; exit 3`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started, release, err := parentWatch(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	out, err := func() ([]byte, error) {
		defer started()
		return cmd.Output()
	}()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || string(out) != "sh ran\n" {
		t.Fatalf("got %q, %v; want its own output and exit code 3 (and no descriptor 3)", out, err)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
