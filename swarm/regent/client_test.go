package regent

import (
	"bufio"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state"
)

// fakeRegent answers requests on the socket of a state directory in t.TempDir() as answer
// says, and passes each request line it read on lines.
type fakeRegent struct {
	dir   *state.Dir
	lines chan string
}

func newFakeRegent(t *testing.T, answer func(req string) string) *fakeRegent {
	t.Helper()
	f := &fakeRegent{dir: &state.Dir{Root: t.TempDir()}, lines: make(chan string, 10)}
	ln, err := Listen(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err == nil {
				f.lines <- strings.TrimSuffix(line, "\n")
				if a := answer(line); a != "" {
					_, _ = conn.Write([]byte(a + "\n"))
				}
			}
			_ = conn.Close()
		}
	}()
	return f
}

// live takes the Regent lock, as a running Regent holds it.
func (f *fakeRegent) live(t *testing.T) {
	t.Helper()
	lock, ok, err := state.TryLock(FilesOf(f.dir).Lock)
	if err != nil || !ok {
		t.Fatalf("cannot take the Regent lock: %v", err)
	}
	t.Cleanup(lock.Unlock)
}

func TestClientSendsEachRequestsLine(t *testing.T) {
	f := newFakeRegent(t, func(string) string { return OK })
	c := NewClient(f.dir)
	for _, tc := range []struct {
		do   func() error
		want string
	}{
		{c.Wake, "wake"},
		{func() error { return c.Drop("build-api") }, "drop build-api"},
		{c.Quit, "quit"},
	} {
		if err := tc.do(); err != nil {
			t.Errorf("%s: %v", tc.want, err)
			continue
		}
		if got := <-f.lines; got != tc.want {
			t.Errorf("sent %q, want %q", got, tc.want)
		}
	}
}

func TestClientStatusDecodesTheReport(t *testing.T) {
	want := Report{PID: 4242, Started: "2025-01-02T03:04:05Z", UptimeSeconds: 12.5, Loops: []string{"a", "b"},
		Events: 7, EventsPerSecond: 0.56, CPUSeconds: 1.25, RSSBytes: 12 << 20, Watching: "2 panes", Panics: 1}
	f := newFakeRegent(t, func(req string) string {
		if word, _ := ParseRequest(req); word != StatusRequest {
			return Refusal("unknown request " + req)
		}
		data, _ := json.Marshal(want)
		return string(data)
	})
	got, err := NewClient(f.dir).Status()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("report %+v, want %+v", *got, want)
	}
}

// A refusal is an error saying why; an answer that is not a report, or none at all, is an
// error too.
func TestClientErrors(t *testing.T) {
	answers := map[string]string{"wake": Refusal("not allowed"), "status": "ok"}
	f := newFakeRegent(t, func(req string) string { word, _ := ParseRequest(req); return answers[word] })
	c := NewClient(f.dir)
	if err := c.Wake(); err == nil || err.Error() != "not allowed" {
		t.Errorf("refused wake: %v", err)
	}
	if _, err := c.Status(); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("status answered ok: %v", err)
	}
	if err := c.Drop("x"); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("drop not answered: %v", err)
	}
}

// With no Regent listening, a request fails at once and says so.
func TestClientWithNoSocket(t *testing.T) {
	c := NewClient(&state.Dir{Root: t.TempDir()})
	if err := c.Wake(); err == nil || !strings.Contains(err.Error(), "the Regent is not answering") {
		t.Errorf("no socket: %v", err)
	}
	if err := NewClient(longDir(t)).Wake(); err == nil || !strings.Contains(err.Error(), "recorded no address") {
		t.Errorf("long path, no address recorded: %v", err)
	}
	if c.Answers() {
		t.Error("answers with no socket")
	}
}

// Alive and PID trust the Regent lock, never the pid recorded in regent.json alone.
func TestClientAliveAndPID(t *testing.T) {
	f := newFakeRegent(t, func(string) string { return OK })
	c := NewClient(f.dir)
	if err := WriteInfo(f.dir, Info{PID: 4242, Address: Address(f.dir)}); err != nil {
		t.Fatal(err)
	}
	if c.Alive() || c.PID() != 0 || c.Answers() {
		t.Errorf("no lock held: alive %v, pid %d, answers %v", c.Alive(), c.PID(), c.Answers())
	}
	f.live(t)
	if !c.Alive() || c.PID() != 4242 || !c.Answers() {
		t.Errorf("lock held: alive %v, pid %d, answers %v", c.Alive(), c.PID(), c.Answers())
	}
}

func TestParseRequest(t *testing.T) {
	for line, want := range map[string][2]string{
		"wake\n":           {"wake", ""},
		"drop build-api\n": {"drop", "build-api"},
		"  status  ":       {"status", ""},
		"":                 {"", ""},
	} {
		if w, a := ParseRequest(line); w != want[0] || a != want[1] {
			t.Errorf("%q: %q %q, want %q %q", line, w, a, want[0], want[1])
		}
	}
}
