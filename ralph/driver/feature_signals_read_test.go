package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// The events file is read in bounded pieces: a line longer than any event is passed over,
// whatever it holds, and the events after it are read.
func TestEventReaderBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent-events.jsonl")
	add := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	var r eventReader
	names := func() string {
		var got []string
		for range 20 {
			for _, e := range r.read(path) {
				got = append(got, e.Event)
			}
		}
		return strings.Join(got, " ")
	}
	add(`{"event":"SessionStart"}` + "\n")
	if got := names(); got != "SessionStart" {
		t.Fatalf("got %q", got)
	}
	// A line of a megabyte, ending like an event: none of it is one.
	add(strings.Repeat("x", 1<<20) + `{"event":"StopFailure"}` + "\n" + `{"event":"Stop"}` + "\n")
	if got := names(); got != "Stop" {
		t.Errorf("got %q", got)
	}
	// A line still being written waits for its end.
	add(`{"event":"Notifi`)
	if got := names(); got != "" {
		t.Errorf("got %q", got)
	}
	add(`cation"}` + "\n")
	if got := names(); got != "Notification" {
		t.Errorf("got %q", got)
	}
	// A new file (a new agent's) is read from its start.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	add(`{"event":"UserPromptSubmit"}` + "\n")
	if got := names(); got != "UserPromptSubmit" {
		t.Errorf("got %q", got)
	}
}

// signalDriver is the driver as the signal watch meets it at an iteration's end: the loop's
// directory and a worker running Claude Code.
type signalDriver struct {
	fakeDriver
	d ralph.Dir
}

func (f *signalDriver) dir() ralph.Dir { return f.d }
func (f *signalDriver) worker() (*state.Worker, error) {
	return &state.Worker{Name: "w", Cmd: []string{"claude"}}, nil
}

// A compaction the agent reported just before the iteration ended otherwise (the done
// marker seen on screen first) is still noted; the rest is ignored, as it would have been;
// nothing forged is noted.
func TestIterationEndingNotesWhatWasNotRead(t *testing.T) {
	f := &signalDriver{d: ralph.Dir{Path: t.TempDir()}}
	sg := &signalWatch{drv: f}
	st := &ralph.State{CurrentIteration: 2, AgentSession: "s1", AgentTokenSum: ralph.TokenSum("k1")}
	write(t, f.d.AgentEvents(), `{"agent":"claude","event":"PreCompact","session":"s1","token":"k1"}`+"\n"+
		`{"agent":"claude","event":"PreCompact","session":"s1"}`+"\n"+
		`{"agent":"claude","event":"Stop","session":"s1","token":"k1"}`+"\n")
	sg.iterationEnding(st)
	if want := "SIGNAL iteration 2 PreCompact"; len(f.events) != 1 || f.events[0] != want || len(f.ended) > 0 {
		t.Errorf("events %q, endings %v; want only %q", f.events, f.ended, want)
	}
}
