package tmux

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// realServer starts a tmux server of its own with one session running sh -c script, and
// removes it when the test ends.
func realServer(t *testing.T, script string) *Exec { return configuredServer(t, "", script) }

// configuredServer is realServer started from the configuration text config ("": tmux's
// own).
func configuredServer(t *testing.T, config, script string) *Exec {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	// The server's socket goes in the test's own temporary directory, and away with it.
	dir := t.TempDir()
	t.Setenv("TMUX_TMPDIR", dir)
	e := &Exec{SocketName: fmt.Sprintf("swarm-ctl-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	if config != "" {
		e.ConfigPath = filepath.Join(dir, "tmux.conf")
		if err := os.WriteFile(e.ConfigPath, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = e.KillServer() })
	if _, err := e.run(nil, "new-session", "-d", "-s", "w", "-x", "80", "-y", "10", "sh", "-c", script); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestControlCaptures(t *testing.T) {
	e := realServer(t, `printf '%%end 1 2 1\nmarker-line\n'; sleep 30`)
	// A line of the pane that looks like the end of a reply does not end it.
	c, out := captureUntil(t, e, 100, "marker-line")
	defer c.Close()
	if !strings.Contains(out, "%end 1 2 1\nmarker-line\n") {
		t.Errorf("capture through control mode: %q", out)
	}
	if viaExec, _ := e.Capture("%0", 100); viaExec != out {
		t.Errorf("control capture %q differs from exec capture %q", out, viaExec)
	}
	if _, err := c.Capture("%999", 0); !errors.Is(err, ErrNoPane) {
		t.Errorf("missing pane: %v", err)
	}
	if _, err := c.Capture("bad; kill-server", 0); err == nil {
		t.Error("an id that is not a pane was sent")
	}
}

func TestControlAnswersForAPaneAsExecDoes(t *testing.T) {
	e := realServer(t, `sleep 30`)
	if _, err := e.run(nil, "set-option", "-p", "-t", "%0", "@swarm_id", "w-1"); err != nil {
		t.Fatal(err)
	}
	c, err := e.Control("w")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.PaneNow("%0")
	if err != nil {
		t.Fatal(err)
	}
	want, err := e.Pane("%0")
	if err != nil {
		t.Fatal(err)
	}
	if got != want || got.SwarmID != "w-1" || got.PID == 0 {
		t.Errorf("control pane %+v, exec pane %+v", got, want)
	}
	if _, err := c.PaneNow("%999"); !errors.Is(err, ErrNoPane) {
		t.Errorf("missing pane: %v", err)
	}
	if _, err := c.PaneNow("%0; kill-server"); err == nil {
		t.Error("an id that is not a pane was sent")
	}
}

func TestControlEndsWithTheServer(t *testing.T) {
	e := realServer(t, `sleep 30`)
	c, err := e.Control("w")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture("%0", 0); err != nil {
		t.Fatal(err)
	}
	_ = e.KillServer()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("no exit when the server went")
	}
	if _, err := c.Capture("%0", 0); err == nil {
		t.Error("a capture on an ended client succeeded")
	}
	c.Close()
}

// A client that stops taking its input (tmux stuck, a server gone quiet) gives ErrNoAnswer in
// time instead of holding its callers forever, and Close ends it even then.
func TestControlThatDoesNotReadIsNotWaitedForForever(t *testing.T) {
	defer func(d time.Duration) { controlTimeout = d }(controlTimeout)
	controlTimeout = 2 * time.Second
	cmd := exec.Command("sleep", "60") // reads nothing, answers nothing
	c, err := startControl(cmd)
	if err != nil {
		t.Fatal(err)
	}
	// More than a pipe holds: the write itself cannot finish.
	big := "display-message " + strings.Repeat("x", 1<<20)
	start := time.Now()
	if _, err := c.runAll(big); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("runAll = %v, want ErrNoAnswer", err)
	}
	// Another caller is not stuck behind the first one's write either.
	if _, err := c.run("list-panes"); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("second command = %v, want ErrNoAnswer", err)
	}
	if d := time.Since(start); d > 2*controlTimeout+time.Second {
		t.Errorf("the commands took %v", d)
	}
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(closeWait + 5*time.Second):
		t.Fatal("Close still waiting for a client that does not leave")
	}
	if cmd.ProcessState == nil {
		t.Error("the client was not reaped")
	}
}
