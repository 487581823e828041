package tmux_test

import (
	"errors"
	"os/exec"
	"reflect"
	"testing"

	"github.com/swarm-dev/swarm/tmux"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// Every tmux call is checked argv for argv against a stub, so a change to what swarm asks of
// tmux shows up here, not only in the CLI scenarios against a real server.

// format is the pane listing format; parsePane reads exactly these fields in this order.
const format = "#{pane_id}|#{pane_pid}|#{pane_dead}|#{pane_dead_status}|#{session_name}|#{window_index}|#{window_name}|#{pane_dead_signal}|#{@swarm_id}|#{window_activity}"

// newExec returns an Exec on socket "sw" whose calls go to a fresh stub.
func newExec(t *testing.T) (*tmux.Exec, *tmuxtest.Stub) {
	stub := tmuxtest.NewStub(t)
	return &tmux.Exec{SocketName: "sw", Runner: stub}, stub
}

// tm is the argv of a tmux call on socket "sw".
func tm(args ...string) []string {
	return append([]string{"tmux", "-L", "sw"}, args...)
}

func TestExecArgvPrefix(t *testing.T) {
	stub := tmuxtest.NewStub(t)
	e := &tmux.Exec{SocketName: "s1", ConfigPath: "/state/tmux.conf", Binary: "/opt/bin/tmux", Runner: stub}
	stub.Expect("/opt/bin/tmux", "-L", "s1", "-f", "/state/tmux.conf", "kill-pane", "-t", "%1")
	if err := e.KillPane("%1"); err != nil {
		t.Fatal(err)
	}
	if e.Bin() != "/opt/bin/tmux" || e.Socket() != "s1" {
		t.Errorf("Bin %q, Socket %q", e.Bin(), e.Socket())
	}
	if (&tmux.Exec{}).Bin() != "tmux" {
		t.Error("the default binary is not tmux")
	}
}

// What tmux prints on failure decides which error the caller gets.
func TestExecErrors(t *testing.T) {
	cases := []struct {
		name   string
		stderr string
		err    error // FailsWith instead of stderr
		want   error
		msg    string
	}{
		{name: "no server", stderr: "no server running on /tmp/tmux-1000/sw", want: tmux.ErrNoServer},
		{name: "cannot connect", stderr: "error connecting to /tmp/tmux-1000/sw (No such file or directory)", want: tmux.ErrNoServer},
		{name: "server exited", stderr: "server exited unexpectedly", want: tmux.ErrNoServer},
		{name: "last session closing", stderr: "no current target", want: tmux.ErrNoServer},
		{name: "no pane", stderr: "can't find pane: %9", want: tmux.ErrNoPane},
		{name: "no binary", err: exec.ErrNotFound, want: tmux.ErrNotInstalled},
		{name: "other", stderr: "unknown option -- z", msg: "tmux send-keys: unknown option -- z"},
		{name: "silent failure", err: errors.New("signal: killed"), msg: "tmux send-keys: signal: killed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, stub := newExec(t)
			x := stub.Expect(tm("send-keys", "-t", "%1", "Enter")...)
			if c.err != nil {
				x.FailsWith(c.err)
			} else {
				x.Fails(c.stderr)
			}
			err := e.SendKeys("%1", "Enter")
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
			if c.msg != "" && (err == nil || err.Error() != c.msg) {
				t.Errorf("error %v, want %q", err, c.msg)
			}
		})
	}
}

func TestParsePane(t *testing.T) {
	cases := []struct {
		line string
		want tmux.Pane
		ok   bool
	}{
		{"%3|4242|0||main|0|w1|\n", tmux.Pane{ID: "%3", PID: 4242, Session: "main", WindowIdx: "0", WindowName: "w1"}, true},
		{"%4|77|1|3|main|2|w2|", tmux.Pane{ID: "%4", PID: 77, Dead: true, ExitStatus: 3, HasStatus: true, Session: "main", WindowIdx: "2", WindowName: "w2"}, true},
		// Killed by signal 15: reported as a shell would, 128+15.
		{"%5|78|1||main|3|w3|15", tmux.Pane{ID: "%5", PID: 78, Dead: true, ExitStatus: 143, HasStatus: true, Session: "main", WindowIdx: "3", WindowName: "w3"}, true},
		// Ended, status not collected yet.
		{"%6|79|1||main|4|w4|", tmux.Pane{ID: "%6", PID: 79, Dead: true, Session: "main", WindowIdx: "4", WindowName: "w4"}, true},
		// Older tmux without #{pane_dead_signal}.
		{"%7|80|1|0|s|0|w\r\n", tmux.Pane{ID: "%7", PID: 80, Dead: true, HasStatus: true, Session: "s", WindowIdx: "0", WindowName: "w"}, true},
		{"%8|x|0||s|0|w|", tmux.Pane{ID: "%8", Session: "s", WindowIdx: "0", WindowName: "w"}, true},
		{"", tmux.Pane{}, false},
		{"3|4242|0||main|0|w1|", tmux.Pane{}, false},
		{"%3|4242|0||main|0", tmux.Pane{}, false},
		{"some warning from tmux", tmux.Pane{}, false},
	}
	for _, c := range cases {
		got, ok := tmux.ParsePane(c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("parsePane(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestHasSession(t *testing.T) {
	cases := []struct {
		name    string
		answer  func(*tmuxtest.Expectation)
		want    bool
		wantErr error
		anyErr  bool
	}{
		{"exists", func(x *tmuxtest.Expectation) {}, true, nil, false},
		{"no such session", func(x *tmuxtest.Expectation) { x.Fails("can't find session: main") }, false, nil, false},
		{"no server", func(x *tmuxtest.Expectation) { x.Fails("no server running on /tmp/tmux-0/sw") }, false, nil, false},
		{"no tmux", func(x *tmuxtest.Expectation) { x.FailsWith(exec.ErrNotFound) }, false, tmux.ErrNotInstalled, true},
		{"other failure", func(x *tmuxtest.Expectation) { x.Fails("access not allowed") }, false, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, stub := newExec(t)
			c.answer(stub.Expect(tm("has-session", "-t", "=main")...))
			got, err := e.HasSession("main")
			if got != c.want || (err != nil) != c.anyErr || c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Errorf("hasSession = %v, %v; want %v (error: %v %v)", got, err, c.want, c.anyErr, c.wantErr)
			}
		})
	}
}

func TestNewWindowStartsTheSession(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("has-session", "-t", "=main")...).Fails("can't find session: main")
	stub.Expect(tm("new-session", "-d", "-s", "main", "-n", "w1", "-x", "200", "-y", "50", "-P", "-F", format,
		"-c", "/work", "-e", "A=1", "-e", "B=two words", "--", "claude", "--model", "x y")...).
		Prints("%3|4242|0||main|0|w1|\n")
	p, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w1", Cwd: "/work", Env: []string{"A=1", "B=two words"},
		Argv: []string{"claude", "--model", "x y"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (tmux.Pane{ID: "%3", PID: 4242, Session: "main", WindowIdx: "0", WindowName: "w1"}); p != want {
		t.Errorf("pane %+v, want %+v", p, want)
	}
}

func TestNewWindowInAnExistingSession(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("has-session", "-t", "=main")...)
	// The size only applies to a new session; a window takes the session's.
	stub.Expect(tm("new-window", "-d", "-t", "=main:", "-n", "w2", "-P", "-F", format, "--", "sh")...).
		Prints("%4|4243|0||main|1|w2|\n")
	p, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w2", Argv: []string{"sh"}, Width: 80, Height: 24})
	if err != nil || p.ID != "%4" || p.WindowIdx != "1" {
		t.Fatalf("NewWindow = %+v, %v", p, err)
	}
}

func TestNewWindowSize(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("has-session", "-t", "=s")...).Fails("no server running on /tmp/tmux-0/sw")
	stub.Expect(tm("new-session", "-d", "-s", "s", "-n", "w", "-x", "80", "-y", "24", "-P", "-F", format, "--", "sh")...).
		Prints("%0|1|0||s|0|w|\n")
	if _, err := e.NewWindow(tmux.Spec{Session: "s", Window: "w", Argv: []string{"sh"}, Width: 80, Height: 24}); err != nil {
		t.Fatal(err)
	}
}

// Two spawns race to create the session: the loser finds it exists and adds a window.
func TestNewWindowLosesTheRaceForTheSession(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("has-session", "-t", "=main")...).Fails("can't find session: main")
	stub.Expect(tm("new-session", "-d", "-s", "main", "-n", "w1", "-x", "200", "-y", "50", "-P", "-F", format, "--", "sh")...).
		Fails("duplicate session: main")
	stub.Expect(tm("has-session", "-t", "=main")...)
	stub.Expect(tm("new-window", "-d", "-t", "=main:", "-n", "w1", "-P", "-F", format, "--", "sh")...).
		Prints("%9|10|0||main|3|w1|\n")
	p, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w1", Argv: []string{"sh"}})
	if err != nil || p.ID != "%9" {
		t.Fatalf("NewWindow = %+v, %v", p, err)
	}
}

// The session vanishes between the check and the new window, four times: the last error
// is returned.
func TestNewWindowGivesUp(t *testing.T) {
	e, stub := newExec(t)
	for i := 0; i < 4; i++ {
		stub.Expect(tm("has-session", "-t", "=main")...)
		stub.Expect(tm("new-window", "-d", "-t", "=main:", "-n", "w", "-P", "-F", format, "--", "sh")...).
			Fails("can't find session: main")
	}
	_, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w", Argv: []string{"sh"}})
	if err == nil || err.Error() != "tmux new-window: can't find session: main" {
		t.Errorf("error %v", err)
	}
}

func TestNewWindowErrors(t *testing.T) {
	e, stub := newExec(t)
	if _, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w"}); err == nil {
		t.Error("NewWindow without a command succeeded")
	}
	stub.Expect(tm("has-session", "-t", "=main")...)
	stub.Expect(tm("new-window", "-d", "-t", "=main:", "-n", "w", "-P", "-F", format, "--", "sh")...).
		Fails("create window failed: index 3 in use")
	if _, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w", Argv: []string{"sh"}}); err == nil ||
		err.Error() != "tmux new-window: create window failed: index 3 in use" {
		t.Errorf("error %v, want tmux's message and no retry", err)
	}
	stub.Expect(tm("has-session", "-t", "=main")...)
	stub.Expect(tm("new-window", "-d", "-t", "=main:", "-n", "w", "-P", "-F", format, "--", "sh")...).Prints("garbage\n")
	if _, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w", Argv: []string{"sh"}}); err == nil ||
		err.Error() != `tmux: unexpected answer "garbage\n"` {
		t.Errorf("error %v for an answer that is not a pane", err)
	}
	stub.Expect(tm("has-session", "-t", "=main")...).FailsWith(exec.ErrNotFound)
	if _, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w", Argv: []string{"sh"}}); !errors.Is(err, tmux.ErrNotInstalled) {
		t.Errorf("error %v without tmux, want ErrNotInstalled", err)
	}
}

// A respawn is one tmux client: clear the scrollback (when asked), respawn, list the pane.
func TestRespawn(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("clear-history", "-t", "%3", ";", "respawn-pane", "-k", "-t", "%3", "-c", "/w", "-e", "SWARM_ITERATION=2",
		"--", "claude", "-p", ";", "list-panes", "-t", "%3", "-F", format)...).Prints("%2|4000|0||main|0|w1|\n%3|5000|0||main|0|w1|\n")
	p, err := e.Respawn("%3", tmux.Spec{Cwd: "/w", Env: []string{"SWARM_ITERATION=2"}, Argv: []string{"claude", "-p"}, ClearHistory: true})
	if err != nil || p.ID != "%3" || p.PID != 5000 {
		t.Fatalf("Respawn = %+v, %v", p, err)
	}
	stub.Expect(tm("respawn-pane", "-k", "-t", "%3", "--", "sh", ";", "list-panes", "-t", "%3", "-F", format)...).Fails("can't find pane: %3")
	if _, err := e.Respawn("%3", tmux.Spec{Argv: []string{"sh"}}); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("error %v, want ErrNoPane", err)
	}
	stub.Expect(tm("respawn-pane", "-k", "-t", "%3", "--", "sh", ";", "list-panes", "-t", "%3", "-F", format)...).Fails("unknown option -- z")
	if _, err := e.Respawn("%3", tmux.Spec{Argv: []string{"sh"}}); err == nil || err.Error() != "tmux list-panes: unknown option -- z" {
		t.Errorf("error %v, want tmux's own", err)
	}
}

// tmux ends a command at an argument ending in ";" (and makes "\;" a literal one): an agent's
// argument, environment or directory that ends so is passed escaped, and arrives whole.
func TestArgumentsEndingInASemicolonStayWhole(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("has-session", "-t", "=main")...)
	stub.Expect(tm("new-window", "-d", "-t", "=main:", "-n", "w", "-P", "-F", format, "-c", `/odd\;`, "-e", `A=x\;`,
		"--", "find", ".", "-exec", "rm", "{}", `\;`, "sh", "-c", `make\\;`)...).Prints("%4|4243|0||main|1|w|\n")
	_, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w", Cwd: "/odd;", Env: []string{"A=x;"},
		Argv: []string{"find", ".", "-exec", "rm", "{}", ";", "sh", "-c", `make\;`}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPanes(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("list-panes", "-a", "-F", format)...).
		Prints("%1|100|0||main|0|a|\nnot a pane\n%2|101|1|0|main|1|b|\n%3|102|0||swarm-regent|0|c|\n")
	panes, err := e.Panes()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]tmux.Pane{
		"%1": {ID: "%1", PID: 100, Session: "main", WindowIdx: "0", WindowName: "a"},
		"%2": {ID: "%2", PID: 101, Dead: true, HasStatus: true, Session: "main", WindowIdx: "1", WindowName: "b"},
		"%3": {ID: "%3", PID: 102, Session: "swarm-regent", WindowIdx: "0", WindowName: "c"},
	}
	if !reflect.DeepEqual(panes, want) {
		t.Errorf("Panes = %+v\nwant %+v", panes, want)
	}
}

// A pane whose program just ended is listed again until tmux has its exit status.
func TestPanesWaitsForAnExitStatus(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("list-panes", "-a", "-F", format)...).Prints("%1|100|1||main|0|a|\n")
	stub.Expect(tm("list-panes", "-a", "-F", format)...).Prints("%1|100|1|7|main|0|a|\n")
	panes, err := e.Panes()
	if err != nil || !panes["%1"].HasStatus || panes["%1"].ExitStatus != 7 {
		t.Fatalf("Panes = %+v, %v", panes, err)
	}
}

// Without a server, or without tmux, there are no panes (process workers need neither).
func TestPanesWithoutAServer(t *testing.T) {
	for _, answer := range []func(*tmuxtest.Expectation){
		func(x *tmuxtest.Expectation) { x.Fails("no server running on /tmp/tmux-0/sw") },
		func(x *tmuxtest.Expectation) { x.FailsWith(exec.ErrNotFound) },
	} {
		e, stub := newExec(t)
		answer(stub.Expect(tm("list-panes", "-a", "-F", format)...))
		if panes, err := e.Panes(); err != nil || panes == nil || len(panes) != 0 {
			t.Errorf("Panes = %v, %v; want an empty map", panes, err)
		}
	}
	e, stub := newExec(t)
	stub.Expect(tm("list-panes", "-a", "-F", format)...).Fails("protocol version mismatch")
	if _, err := e.Panes(); err == nil {
		t.Error("Panes hid a real failure")
	}
}

func TestPane(t *testing.T) {
	e, stub := newExec(t)
	// list-panes -t lists the whole window of the pane; only the one asked for counts.
	stub.Expect(tm("list-panes", "-t", "%3", "-F", format)...).Prints("%2|99|0||main|0|w|\n%3|100|0||main|0|w|\n")
	if p, err := e.Pane("%3"); err != nil || p.ID != "%3" || p.PID != 100 {
		t.Errorf("Pane = %+v, %v", p, err)
	}
	stub.Expect(tm("list-panes", "-t", "%3", "-F", format)...).Prints("%3|100|1||main|0|w|\n")
	stub.Expect(tm("list-panes", "-t", "%3", "-F", format)...).Prints("%3|100|1||main|0|w|9\n")
	if p, err := e.Pane("%3"); err != nil || p.ExitStatus != 137 {
		t.Errorf("Pane after the program was killed = %+v, %v; want status 137", p, err)
	}
	for _, answer := range []func(*tmuxtest.Expectation){
		func(x *tmuxtest.Expectation) { x.Prints("%2|99|0||main|0|w|\n") },
		func(x *tmuxtest.Expectation) { x.Fails("can't find pane: %3") },
		func(x *tmuxtest.Expectation) { x.Fails("can't find window: %3") },
		func(x *tmuxtest.Expectation) { x.Fails("no server running on /tmp/tmux-0/sw") },
		func(x *tmuxtest.Expectation) { x.FailsWith(exec.ErrNotFound) },
	} {
		answer(stub.Expect(tm("list-panes", "-t", "%3", "-F", format)...))
		if _, err := e.Pane("%3"); !errors.Is(err, tmux.ErrNoPane) {
			t.Errorf("error %v, want ErrNoPane", err)
		}
	}
	stub.Expect(tm("list-panes", "-t", "%3", "-F", format)...).Fails("protocol version mismatch")
	if _, err := e.Pane("%3"); err == nil || errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("error %v, want tmux's own", err)
	}
}

// PaneNow asks once: a pane whose program just ended shows as dead without its status, where
// Pane would ask again (the stub fails a second, unexpected call).
func TestPaneNowDoesNotWaitForAnExitStatus(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("list-panes", "-t", "%3", "-F", format)...).Prints("%3|100|1||main|0|w|\n")
	p, err := e.PaneNow("%3")
	if err != nil || !p.Dead || p.HasStatus || p.PID != 100 {
		t.Errorf("PaneNow = %+v, %v; want the dead pane as it was, without a status", p, err)
	}
	stub.Expect(tm("list-panes", "-t", "%3", "-F", format)...).Fails("can't find pane: %3")
	if _, err := e.PaneNow("%3"); !errors.Is(err, tmux.ErrNoPane) {
		t.Errorf("error %v, want ErrNoPane", err)
	}
}

func TestNewWindowStoresTheWorkerIdentity(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("has-session", "-t", "=main")...)
	stub.Expect(tm("new-window", "-d", "-t", "=main:", "-n", "w2", "-P", "-F", format, "--", "sh")...).
		Prints("%4|4243|0||main|1|w2||\n")
	stub.Expect(tm("set-option", "-p", "-t", "%4", "@swarm_id", "id-42")...)
	p, err := e.NewWindow(tmux.Spec{Session: "main", Window: "w2", Argv: []string{"sh"}, ID: "id-42"})
	if err != nil || p.SwarmID != "id-42" {
		t.Fatalf("NewWindow = %+v, %v", p, err)
	}
}

func TestRespawnKeepsOrRestoresTheIdentity(t *testing.T) {
	e, stub := newExec(t)
	respawn := tm("respawn-pane", "-k", "-t", "%3", "--", "sh", ";", "list-panes", "-t", "%3", "-F", format)
	stub.Expect(respawn...).Prints("%3|5000|0||main|0|w1||id-42\n")
	if p, err := e.Respawn("%3", tmux.Spec{Argv: []string{"sh"}, ID: "id-42"}); err != nil || p.SwarmID != "id-42" {
		t.Fatalf("Respawn = %+v, %v", p, err)
	}
	stub.Expect(respawn...).Prints("%3|5001|0||main|0|w1||\n")
	stub.Expect(tm("set-option", "-p", "-t", "%3", "@swarm_id", "id-42")...)
	if p, err := e.Respawn("%3", tmux.Spec{Argv: []string{"sh"}, ID: "id-42"}); err != nil || p.SwarmID != "id-42" {
		t.Fatalf("Respawn = %+v, %v", p, err)
	}
}

func TestPaneReadsTheIdentity(t *testing.T) {
	e, stub := newExec(t)
	stub.Expect(tm("list-panes", "-t", "%0", "-F", format)...).Prints("%0|77|1|0|swarm|0|w||3f2a-uuid\n")
	p, err := e.Pane("%0")
	if err != nil || p.SwarmID != "3f2a-uuid" || !p.Dead || !p.HasStatus {
		t.Fatalf("Pane = %+v, %v", p, err)
	}
}
