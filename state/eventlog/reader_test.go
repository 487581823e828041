package eventlog

import (
	"os"
	"strings"
	"testing"
)

// ids are the ids of events, for comparing.
func ids(es []Event) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func appendN(t *testing.T, l Log, n int, detail string) {
	t.Helper()
	for range n {
		if _, err := l.Append(Event{Kind: ChecksFailed, Detail: detail}); err != nil {
			t.Fatal(err)
		}
	}
}

// next is r.Next, failing the test on an error.
func next(t *testing.T, r *Reader) []int64 {
	t.Helper()
	es, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	return ids(es)
}

func wantIDs(t *testing.T, got []int64, from, to int64) {
	t.Helper()
	if len(got) != int(to-from+1) {
		t.Fatalf("ids %v, want %d..%d", got, from, to)
	}
	for i, id := range got {
		if id != from+int64(i) {
			t.Fatalf("ids %v, want %d..%d", got, from, to)
		}
	}
}

func TestReaderGivesWhatIsAfterItsIDThenWhatComes(t *testing.T) {
	l := Log{Root: t.TempDir()}
	r := l.Reader(0)
	defer r.Close()
	if got := next(t, r); len(got) != 0 {
		t.Fatalf("no log yet: %v", got)
	}
	appendN(t, l, 5, "")
	r2 := l.Reader(3)
	defer r2.Close()
	wantIDs(t, next(t, r2), 4, 5)
	wantIDs(t, next(t, r), 1, 5)
	if got := next(t, r); len(got) != 0 {
		t.Fatalf("nothing new: %v", got)
	}
	appendN(t, l, 2, "")
	wantIDs(t, next(t, r), 6, 7)
	if r.Last() != 7 {
		t.Fatalf("Last = %d", r.Last())
	}
}

// A line still being written is left for later, then read whole; a torn one is passed over.
func TestReaderWaitsForWholeLines(t *testing.T) {
	l := Log{Root: t.TempDir()}
	appendN(t, l, 1, "")
	r := l.Reader(0)
	defer r.Close()
	wantIDs(t, next(t, r), 1, 1)
	f, err := os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":2,"kind":"loop.do`)
	if got := next(t, r); len(got) != 0 {
		t.Fatalf("half a line read: %v", got)
	}
	f.WriteString(`ne"}` + "\n")
	f.Close()
	wantIDs(t, next(t, r), 2, 2)
	f, _ = os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND, 0o600)
	f.WriteString(`{"id":3,"kind":"torn`)
	f.Close()
	appendN(t, l, 1, "") // a writer after a crash starts on a line of its own
	wantIDs(t, next(t, r), 3, 3)
}

// Across the log's rotation nothing is missed nor read twice: events written to the file
// before it moved, the rotated file when the log moved twice between two reads, the new one.
func TestReaderFollowsTheRotation(t *testing.T) {
	big := strings.Repeat("x", 300)
	for _, c := range []struct {
		name  string
		burst int // events written between two reads
	}{
		{"one rotation", 8},
		{"two rotations", 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := Log{Root: t.TempDir(), Max: 3000} // about eight events a file
			appendN(t, l, 3, big)
			r := l.Reader(0)
			defer r.Close()
			wantIDs(t, next(t, r), 1, 3)
			appendN(t, l, c.burst, big)
			wantIDs(t, next(t, r), 4, int64(3+c.burst))
			appendN(t, l, 1, big)
			wantIDs(t, next(t, r), int64(4+c.burst), int64(4+c.burst))
		})
	}
}

// Between a rotation and the next event there is no log file; what the moved file holds is
// still read, once.
func TestReaderBetweenRotationAndNextEvent(t *testing.T) {
	l := Log{Root: t.TempDir()}
	appendN(t, l, 2, "")
	r := l.Reader(0)
	defer r.Close()
	wantIDs(t, next(t, r), 1, 2)
	appendN(t, l, 1, "")
	if err := os.Rename(l.Path(), l.Rotated()); err != nil {
		t.Fatal(err)
	}
	wantIDs(t, next(t, r), 3, 3)
	r2 := l.Reader(1)
	defer r2.Close()
	wantIDs(t, next(t, r2), 2, 3)
	appendN(t, l, 1, "")
	wantIDs(t, next(t, r), 4, 4)
	wantIDs(t, next(t, r2), 4, 4)
}
