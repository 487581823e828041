package eventlog

import (
	"os"
	"strings"
	"sync"
	"testing"
)

func TestAppendGivesIncreasingIDs(t *testing.T) {
	l := Log{Root: t.TempDir()}
	for i := 1; i <= 3; i++ {
		e, err := l.Append(Event{Kind: IterationStarted, Worker: "w1", Iteration: i})
		if err != nil || e.ID != int64(i) || e.Time.IsZero() {
			t.Fatalf("append %d: %+v, %v", i, e, err)
		}
	}
	got, err := l.Since(1, 0)
	if err != nil || len(got) != 2 || got[0].ID != 2 || got[1].Iteration != 3 {
		t.Fatalf("Since(1) = %+v, %v", got, err)
	}
}

func TestAppendTakesTurns(t *testing.T) {
	l := Log{Root: t.TempDir()}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				if _, err := l.Append(Event{Kind: LoopPaused}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	all, _ := l.Since(0, 0)
	if len(all) != 200 {
		t.Fatalf("%d events, want 200", len(all))
	}
	for i, e := range all {
		if e.ID != int64(i+1) {
			t.Fatalf("event %d has id %d: ids repeat or skip", i, e.ID)
		}
	}
}

func TestRotationKeepsIDsGoing(t *testing.T) {
	l := Log{Root: t.TempDir()}
	big := strings.Repeat("x", MaxText)
	var last Event
	for l.rotatedSize() == 0 {
		var err error
		if last, err = l.Append(Event{Kind: ChecksFailed, Detail: big}); err != nil {
			t.Fatal(err)
		}
	}
	next, err := l.Append(Event{Kind: ChecksPassed})
	if err != nil || next.ID != last.ID+1 {
		t.Fatalf("after rotation: %+v, %v (last %d)", next, err, last.ID)
	}
	if fi, _ := os.Stat(l.Path()); fi.Size() > MaxSize {
		t.Fatalf("the log is %d bytes, past its bound", fi.Size())
	}
	got, _ := l.Since(last.ID-1, 0)
	if len(got) != 2 || got[0].ID != last.ID || got[1].ID != next.ID {
		t.Fatalf("reading across the rotation: %+v", got)
	}
}

func (l Log) rotatedSize() int64 {
	fi, err := os.Stat(l.Rotated())
	if err != nil {
		return 0
	}
	return fi.Size()
}

func TestTornLineAndLongTextsAreHarmless(t *testing.T) {
	l := Log{Root: t.TempDir()}
	if _, err := l.Append(Event{Kind: PersonNeeded, What: "dialog", Detail: strings.Repeat("é", 2*MaxText) + "\n\x1b[31m"}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND, 0o600)
	f.WriteString(`{"id":2,"kind":"loop.do`)
	f.Close()
	e, err := l.Append(Event{Kind: LoopDone})
	if err != nil || e.ID != 2 {
		t.Fatalf("after a torn line: %+v, %v", e, err)
	}
	all, _ := l.Since(0, 0)
	if len(all) != 2 || all[1].Kind != LoopDone || len(all[0].Detail) > MaxText || strings.Contains(all[0].Detail, "\n") {
		t.Fatalf("events: %+v", all)
	}
}
