package swarm

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

func TestReadyProgress(t *testing.T) {
	if got := readyProgress("w1", 3500*time.Millisecond, screen.State{}); got != "waiting for w1's input prompt (3s)" {
		t.Errorf("waiting line %q", got)
	}
	got := readyProgress("w1", 12*time.Second, screen.State{Kind: screen.Dialog, Dialog: "trust-folder"})
	if !strings.HasPrefix(got, "w1 is waiting at the trust-folder dialog") || !strings.HasSuffix(got, "answer it with 'swarm attach w1' (12s)") {
		t.Errorf("dialog line %q", got)
	}
}

// Off a terminal (a pipe, a file, a script's buffer) there is no progress at all.
func TestNoProgressOffATerminal(t *testing.T) {
	var buf bytes.Buffer
	show := progressOn(&buf)
	show("waiting for w1's input prompt (1s)")
	show("")
	if buf.Len() != 0 {
		t.Errorf("progress written off a terminal: %q", buf.String())
	}
}

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
	te := newTestEnv(t)
	w := te.spawn("w", "starting...")
	c := &paneLookFailsOnSignal{Fake: te.fake, sigs: make(chan os.Signal, 1)}
	te.env.tm = c
	err := waitReady(te.env, w, 5*time.Second, nil, c.sigs)
	wantErr(t, err, 130, "interrupted (SIGINT) before 'w' was ready")
}

func TestReadyWaitSaysAGonePaneExited(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w", "starting...")
	if err := te.fake.KillPane(w.Tmux.PaneID); err != nil {
		t.Fatal(err)
	}
	err := waitReady(te.env, w, 5*time.Second, nil, make(chan os.Signal, 1))
	wantErr(t, err, 1, "worker 'w' exited before it was ready")
}
