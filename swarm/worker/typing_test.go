package worker

import (
	"sync"
	"testing"
)

// Two typists at once (a heartbeat and swarm send) take turns: each one's clear, paste and
// Enter arrive together, so neither clears the other's text before its Enter.
func TestSendersTakeTurns(t *testing.T) {
	mt := newTestMachine(t)
	w := mt.spawn("w1", "❯ ")
	var wg sync.WaitGroup
	for _, text := range []string{"first", "second", "third"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := mt.Type(w, text, true, true); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	in := mt.Fake.Inputs()
	if len(in) != 9 {
		t.Fatalf("inputs %+v, want three of clear, paste, Enter", in)
	}
	for i := 0; i < len(in); i += 3 {
		if in[i].Text != "C-u" || !in[i+1].Paste || in[i+2].Text != "Enter" {
			t.Errorf("inputs interleaved at %d: %+v", i, in)
			break
		}
	}
}
