package ralph

import (
	"testing"
	"time"
)

// A screen that changes is looked at every poll.
func TestReadyLookWaitPollsAChangingScreen(t *testing.T) {
	if d := ReadyLookWait(0, true, 200*time.Millisecond); d != 200*time.Millisecond {
		t.Errorf("got %v, want the poll", d)
	}
}

// Each look that found the same screen doubles the wait.
func TestReadyLookWaitDoublesOnAStillScreen(t *testing.T) {
	if d := ReadyLookWait(3, true, 200*time.Millisecond); d != 1600*time.Millisecond {
		t.Errorf("got %v, want 1.6s", d)
	}
}

// Where a print brings the look forward, a still screen waits up to ReadyLookMax.
func TestReadyLookWaitStopsAtTheMax(t *testing.T) {
	if d := ReadyLookWait(100, true, 200*time.Millisecond); d != ReadyLookMax {
		t.Errorf("got %v, want %v", d, ReadyLookMax)
	}
}

// Where nothing brings it forward, it waits at most ReadyLookMaxUnfollowed.
func TestReadyLookWaitStopsSoonerUnfollowed(t *testing.T) {
	if d := ReadyLookWait(100, false, 200*time.Millisecond); d != ReadyLookMaxUnfollowed {
		t.Errorf("got %v, want %v", d, ReadyLookMaxUnfollowed)
	}
}

// A poll set longer than the most the backoff would wait is kept.
func TestReadyLookWaitKeepsALongerPoll(t *testing.T) {
	if d := ReadyLookWait(5, false, 3*time.Second); d != 3*time.Second {
		t.Errorf("got %v, want the poll", d)
	}
}
