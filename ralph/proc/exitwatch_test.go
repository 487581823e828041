package proc

import (
	"os/exec"
	"testing"
	"time"
)

func TestExitedTellsWhenAProcessEnds(t *testing.T) {
	cmd := exec.Command("sleep", "0.3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	ch, stop := Exited(cmd.Process.Pid)
	defer stop()
	if ch == nil {
		t.Skip("pidfd not supported here")
	}
	select {
	case <-ch:
		t.Fatal("closed before the process ended")
	case <-time.After(100 * time.Millisecond):
	}
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("not closed after the process ended")
	}
}

func TestExitedReleasedWithoutAnEnd(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ch, stop := Exited(cmd.Process.Pid)
	if ch == nil {
		t.Skip("pidfd not supported here")
	}
	stop()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not end when released")
	}
}
