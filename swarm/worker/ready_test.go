package worker

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// paneLookFailsOnSignal is a tmux server whose first answer about a pane is lost: its client
// was ended by the same Ctrl-C that reaches spawn a moment later.
type paneLookFailsOnSignal struct {
	*tmuxtest.Fake
	sigs   chan os.Signal
	failed bool
}

func (c *paneLookFailsOnSignal) Pane(id string) (tmux.Pane, error) {
	if !c.failed {
		c.failed = true
		go func() { time.Sleep(20 * time.Millisecond); c.sigs <- syscall.SIGINT }()
		return tmux.Pane{}, errors.New("signal: interrupt")
	}
	return c.Fake.Pane(id)
}

func TestReadyWaitInterruptedNotExitedWhenTmuxClientDiesOfTheSignal(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.spawn("w", "starting...")
	c := &paneLookFailsOnSignal{Fake: mt.Fake, sigs: make(chan os.Signal, 1)}
	m := NewMachine(mt.dir, c, mt.Processes, mt.Warnings)
	err := m.WaitReady(w, ReadyWait{Timeout: 5 * time.Second, Signals: c.sigs})
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Signal != syscall.SIGINT || err.Error() != "interrupted (SIGINT) before 'w' was ready" {
		t.Fatalf("error %v, want an interruption by SIGINT before 'w' was ready", err)
	}
}

func TestReadyWaitSaysAGonePaneExited(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.spawn("w", "starting...")
	if err := mt.Fake.KillPane(w.Tmux.PaneID); err != nil {
		t.Fatal(err)
	}
	err := mt.WaitReady(w, ReadyWait{Timeout: 5 * time.Second, Signals: make(chan os.Signal, 1)})
	if err == nil || !strings.Contains(err.Error(), "worker 'w' exited before it was ready") {
		t.Fatalf("error %v, want that the worker exited before it was ready", err)
	}
}
