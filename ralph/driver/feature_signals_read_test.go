package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
