package driver

import (
	"context"
	"testing"
	"time"
)

// A loop whose context is cancelled stops waiting at once: an abort ends the agent within
// moments, not at the next poll, however long that is.
func TestWaitEndsWhenTheContextIsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := &Loop{cfg: Config{Clock: RealClock{}, Context: ctx}}
	if l.abortRequested() {
		t.Fatal("abort requested before the context was cancelled")
	}
	done := make(chan time.Time, 1)
	go func() {
		l.wait(time.Minute, nil, nil)
		done <- time.Now()
	}()
	select {
	case <-done:
		t.Fatal("the wait ended before the context was cancelled")
	case <-time.After(50 * time.Millisecond):
	}
	cancelled := time.Now()
	cancel()
	select {
	case ended := <-done:
		if d := ended.Sub(cancelled); d > time.Second {
			t.Errorf("the wait ended %v after the cancel", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait went on after its context was cancelled")
	}
	if !l.abortRequested() {
		t.Error("no abort requested after the context was cancelled")
	}
}

// A loop configured without a context is never aborted.
func TestNoContextNeverAborts(t *testing.T) {
	l := &Loop{cfg: Config{Clock: RealClock{}}}
	if l.abortRequested() {
		t.Error("abort requested without a context")
	}
	start := time.Now()
	l.wait(20*time.Millisecond, nil, nil)
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("waited %v; want the whole 20ms", d)
	}
}
