package tmux

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseControlLine(t *testing.T) {
	cases := []struct {
		line string
		want ControlEvent
		ok   bool
	}{
		{`%output %3 hello\015\012`, ControlEvent{Kind: ControlOutput, Pane: "%3"}, true},
		{`%extended-output %12 40 : data`, ControlEvent{Kind: ControlOutput, Pane: "%12"}, true},
		{`%window-close @4`, ControlEvent{Kind: ControlWindows}, true},
		{`%unlinked-window-close @9`, ControlEvent{Kind: ControlWindows}, true},
		{`%window-add @5`, ControlEvent{Kind: ControlWindows}, true},
		{`%unlinked-window-add @6`, ControlEvent{Kind: ControlWindows}, true},
		{`%exit`, ControlEvent{Kind: ControlExit}, true},
		{`%exit server exited`, ControlEvent{Kind: ControlExit}, true},
		{`%output`, ControlEvent{}, false},
		{`%output x data`, ControlEvent{}, false},
		{`%window-renamed @1 sh`, ControlEvent{}, false},
		{`%session-changed $1 b`, ControlEvent{}, false},
		{`hello`, ControlEvent{}, false},
	}
	for _, c := range cases {
		got, ok := ParseControlLine([]byte(c.line))
		if ok != c.ok || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// realServer starts a tmux server of its own with one session running sh -c script, and
// removes it when the test ends.
func realServer(t *testing.T, script string) *Exec {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	e := &Exec{SocketName: fmt.Sprintf("swarm-ctl-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { _ = e.KillServer() })
	if _, err := e.run(nil, "new-session", "-d", "-s", "w", "-x", "80", "-y", "10", "sh", "-c", script); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestControlReportsOutputAndCaptures(t *testing.T) {
	e := realServer(t, `sleep 0.3; printf '%%end 1 2 1\nmarker-line\n'; sleep 30`)
	var mu sync.Mutex
	var panes []string
	c, err := e.Control("w", func(ev ControlEvent) {
		if ev.Kind == ControlOutput {
			mu.Lock()
			panes = append(panes, ev.Pane)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(panes)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no output notification")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A line of the pane that looks like the end of a reply does not end it.
	var out string
	for time.Now().Before(deadline) && !strings.Contains(out, "marker-line") {
		out, err = c.Capture(panes[0], 100)
		if err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(out, "%end 1 2 1\nmarker-line\n") {
		t.Errorf("capture through control mode: %q", out)
	}
	if err := c.NoOutput(); err != nil {
		t.Fatal(err)
	}
	viaExec, _ := e.Capture(panes[0], 100)
	if viaExec != out {
		t.Errorf("control capture %q differs from exec capture %q", out, viaExec)
	}
	if _, err := c.Capture("%999", 0); !errors.Is(err, ErrNoPane) {
		t.Errorf("missing pane: %v", err)
	}
	if _, err := c.Capture("bad; kill-server", 0); err == nil {
		t.Error("an id that is not a pane was sent")
	}
}

func TestControlEndsWithTheServer(t *testing.T) {
	e := realServer(t, `sleep 30`)
	exited := make(chan struct{})
	c, err := e.Control("w", func(ev ControlEvent) {
		if ev.Kind == ControlExit {
			close(exited)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture("%0", 0); err != nil {
		t.Fatal(err)
	}
	_ = e.KillServer()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("no exit when the server went")
	}
	if _, err := c.Capture("%0", 0); err == nil {
		t.Error("a capture on an ended client succeeded")
	}
	c.Close()
}
