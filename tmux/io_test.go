package tmux_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

func TestCapture(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("capture-pane", "-p", "-J", "-t", "%3")...).Prints("screen\n")
	stub.Expect(tm("capture-pane", "-p", "-J", "-t", "%3", "-S", "-2000")...).Prints("history\nscreen\n")
	stub.Expect(tm("capture-pane", "-p", "-J", "-t", "%3", "-S", "-")...).Prints("all\n")
	for _, c := range []struct {
		history int
		want    string
	}{{0, "screen\n"}, {2000, "history\nscreen\n"}, {-1, "all\n"}} {
		if got, err := e.Capture("%3", c.history); err != nil || got != c.want {
			t.Errorf("Capture(%d) = %q, %v; want %q", c.history, got, err, c.want)
		}
	}
}

func TestCaptureEscaped(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("capture-pane", "-p", "-e", "-J", "-t", "%3")...).Prints("\x1b[31mred\x1b[0m\n")
	stub.Expect(tm("capture-pane", "-p", "-e", "-J", "-t", "%3", "-S", "-50")...).Prints("older\n")
	if got, err := e.CaptureEscaped("%3", 0); err != nil || got != "\x1b[31mred\x1b[0m\n" {
		t.Errorf("CaptureEscaped(0) = %q, %v", got, err)
	}
	if got, err := e.CaptureEscaped("%3", 50); err != nil || got != "older\n" {
		t.Errorf("CaptureEscaped(50) = %q, %v", got, err)
	}
}

// bufferName is the generated name of a paste buffer, as it appears in argv.
const bufferName = `swarm-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

// bufferOf is the buffer a call names with -b.
func bufferOf(c tmuxtest.Call) string {
	i := slices.Index(c.Argv, "-b")
	if i < 0 || i+1 == len(c.Argv) {
		return ""
	}
	return c.Argv[i+1]
}

func TestPaste(t *testing.T) {
	for _, bracketed := range []bool{false, true} {
		e, stub := newExec(t)
		text := "line 1\nline 2 $(not run) #{nor this}\n"
		stub.ExpectMatch(`^tmux -L sw load-buffer -b ` + bufferName + ` -$`).Reads(text)
		paste := `^tmux -L sw paste-buffer -r -d -b ` + bufferName + ` -t %3$`
		if bracketed {
			paste = `^tmux -L sw paste-buffer -r -d -b ` + bufferName + ` -t %3 -p$`
		}
		stub.ExpectMatch(paste)
		if err := e.Paste("%3", text, bracketed); err != nil {
			t.Fatal(err)
		}
		calls := stub.Calls()
		if len(calls) != 2 || bufferOf(calls[0]) != bufferOf(calls[1]) {
			t.Errorf("the paste does not use the buffer it loaded: %v", calls)
		}
	}
}

// A paste that fails deletes its buffer, so buffers do not pile up on the server.
func TestPasteFailure(t *testing.T) {
	e, stub := newExec(t)
	if err := e.Paste("%3", "", true); err != nil {
		t.Errorf("empty paste: %v", err)
	}
	stub.ExpectMatch(`^tmux -L sw load-buffer -b ` + bufferName + ` -$`).Reads("x")
	stub.ExpectMatch(`^tmux -L sw paste-buffer -r -d -b ` + bufferName + ` -t %3 -p$`).Fails("can't find pane: %3")
	stub.ExpectMatch(`^tmux -L sw delete-buffer -b ` + bufferName + `$`)
	if err := e.Paste("%3", "x", true); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("error %v, want ErrNoPane", err)
	}
	calls := stub.Calls()
	if bufferOf(calls[2]) != bufferOf(calls[0]) {
		t.Errorf("deleted %s, loaded %s", bufferOf(calls[2]), bufferOf(calls[0]))
	}
	stub.ExpectMatch(`^tmux -L sw load-buffer -b ` + bufferName + ` -$`).Reads("y").Fails("no server running on /tmp/tmux-0/sw")
	if err := e.Paste("%3", "y", false); !errors.Is(err, tmux.ErrNoServer) {
		t.Errorf("error %v, want ErrNoServer", err)
	}
	// Every paste gets a buffer of its own.
	if calls = stub.Calls(); bufferOf(calls[3]) == bufferOf(calls[0]) {
		t.Errorf("two pastes used the same buffer %s", bufferOf(calls[0]))
	}
}

func TestSendKeysOneCallPerKey(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("send-keys", "-t", "%3", "C-u")...)
	stub.Expect(tm("send-keys", "-t", "%3", "Enter")...)
	if err := e.SendKeys("%3", "C-u", "Enter"); err != nil {
		t.Fatal(err)
	}
	stub.Expect(tm("send-keys", "-t", "%3", "Escape")...).Fails("can't find pane: %3")
	if err := e.SendKeys("%3", "Escape", "C-u"); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("error %v; the keys after a failure must not be sent", err)
	}
}

func TestKillPane(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("kill-pane", "-t", "%3")...)
	stub.Expect(tm("kill-pane", "-t", "%3")...).Fails("can't find pane: %3")
	stub.Expect(tm("kill-pane", "-t", "%3")...).Fails("no server running on /tmp/tmux-0/sw")
	for i := 0; i < 3; i++ {
		if err := e.KillPane("%3"); err != nil {
			t.Errorf("KillPane #%d: %v; a pane already gone is not an error", i+1, err)
		}
	}
	stub.Expect(tm("kill-pane", "-t", "%3")...).Fails("permission denied")
	if err := e.KillPane("%3"); err == nil {
		t.Error("KillPane hid a real failure")
	}
}

func TestReviveOnDeath(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("set-hook", "-w", "-t", "%3", "pane-died", `run-shell -d 1 -C "respawn-pane -t #{hook_pane}"`)...)
	if err := e.ReviveOnDeath("%3"); err != nil {
		t.Fatal(err)
	}
}

func TestKillSessionIfEmpty(t *testing.T) {
	list := tm("list-panes", "-s", "-t", "=main", "-F", "#{pane_dead}")
	e, stub := newExec(t)
	stub.Expect(list...).Prints("1\n1\n")
	stub.Expect(tm("kill-session", "-t", "=main")...)
	if err := e.KillSessionIfEmpty("main"); err != nil {
		t.Fatal(err)
	}
	// A live pane keeps the session; so does a listing that fails (nothing to clean).
	stub.Expect(list...).Prints("1\n0\n")
	stub.Expect(list...).Fails("can't find session: main")
	for i := 0; i < 2; i++ {
		if err := e.KillSessionIfEmpty("main"); err != nil {
			t.Errorf("#%d: %v", i+1, err)
		}
	}
	// The server may exit as its last session goes.
	stub.Expect(list...).Prints("1\n")
	stub.Expect(tm("kill-session", "-t", "=main")...).Fails("server exited unexpectedly")
	if err := e.KillSessionIfEmpty("main"); err != nil {
		t.Error(err)
	}
	stub.Expect(list...).Prints("1\n")
	stub.Expect(tm("kill-session", "-t", "=main")...).Fails("permission denied")
	if err := e.KillSessionIfEmpty("main"); err == nil {
		t.Error("KillSessionIfEmpty hid a real failure")
	}
}

func TestAttachArgs(t *testing.T) {
	e := &tmux.Exec{SocketName: "sw", ConfigPath: "/state/tmux.conf", Runner: nil}
	want := []string{"-L", "sw", "-f", "/state/tmux.conf", "select-window", "-t", "%3", ";", "attach-session", "-t", "%3"}
	if got := e.AttachArgs("%3"); !slices.Equal(got, want) {
		t.Errorf("AttachArgs = %q, want %q", got, want)
	}
}

func TestSwitchClient(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("switch-client", "-t", "%3")...)
	if err := e.SwitchClient("%3"); err != nil {
		t.Fatal(err)
	}
	// The user sees tmux's own words.
	stub.Expect(tm("switch-client", "-t", "%3")...).Fails("no current client")
	if err := e.SwitchClient("%3"); err == nil || err.Error() != "no current client" {
		t.Errorf("error %v, want tmux's message", err)
	}
}

func TestKillServer(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("kill-server")...)
	stub.Expect(tm("kill-server")...).Fails("no server running on /tmp/tmux-0/sw")
	for i := 0; i < 2; i++ {
		if err := e.KillServer(); err != nil {
			t.Errorf("#%d: %v", i+1, err)
		}
	}
}

func TestInsideServer(t *testing.T) {
	cases := []struct {
		tmuxVar string
		want    bool
	}{
		{"", false},
		{"/tmp/tmux-1000/sw,4242,0", true},
		{"/tmp/tmux-1000/default,4242,0", false},
		{"/tmp/tmux-1000/xsw,4242,0", false},
	}
	for _, c := range cases {
		if got := tmux.InsideServer(c.tmuxVar, "sw"); got != c.want {
			t.Errorf("insideServer(%q) = %v, want %v", c.tmuxVar, got, c.want)
		}
	}
	t.Setenv("TMUX", "/tmp/tmux-1000/sw,1,0")
	t.Setenv("TMUX_PANE", "%7")
	if e := (&tmux.Exec{SocketName: "sw"}); !e.InsideServer() || tmux.CurrentPane() != "%7" {
		t.Errorf("InsideServer %v, CurrentPane %q from the environment", e.InsideServer(), tmux.CurrentPane())
	}
}

func TestEnvironments(t *testing.T) {
	env := []string{"PATH=/bin", "TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%1", "CLAUDECODE=1", "TMUXX=keep", "HOME=/h"}
	if got, want := tmux.FilterEnv(env), []string{"PATH=/bin", "TMUXX=keep", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("FilterEnv = %q, want %q", got, want)
	}
	if got, want := tmux.AttachEnv(env), []string{"PATH=/bin", "CLAUDECODE=1", "TMUXX=keep", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("AttachEnv = %q, want %q", got, want)
	}
	if len(env) != 6 || env[1] != "TMUX=/tmp/tmux-0/default,1,0" {
		t.Errorf("the caller's environment was changed: %q", env)
	}
}

func TestIsDeadNote(t *testing.T) {
	if !tmux.IsDeadNote("Pane is dead (status 1, Tue Jan 16 10:00:00 2024)") || tmux.IsDeadNote("● Pane is dead") {
		t.Error("IsDeadNote")
	}
}

func TestPipeOutput(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("pipe-pane", "-t", "%3", "-O", `exec 3<>'/tmp/it'\''s/output.fifo' >'/tmp/it'\''s/output.fifo' 3<&- && echo && exec cat`)...)
	if err := e.PipeOutput("%3", "/tmp/it's/output.fifo"); err != nil {
		t.Fatal(err)
	}
	stub.Expect(tm("pipe-pane", "-t", "%3", "-O", "exec 3<>'/f' >'/f' 3<&- && echo && exec cat")...).Fails("can't find pane: %3")
	if err := e.PipeOutput("%3", "/f"); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("PipeOutput of a missing pane: %v, want ErrNoPane", err)
	}
}
